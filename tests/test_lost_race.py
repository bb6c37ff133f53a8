"""A writer that loses a race on a campaign lets the other writer finish its run of
appends before it tries again, and races it anyway once its patience is spent."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from ledger import Ledger
from ledger.campaign import recording
from ledger.campaign.history import History


def counting_reads(monkeypatch: pytest.MonkeyPatch, book: Ledger) -> list[int]:
    """Count the reads of what is new on a campaign (each one folds it) ``book`` makes."""
    reads: list[int] = []
    tip = History.tip

    def counted(self: History, c: Any) -> Any:
        if self is book.history:
            reads.append(1)
        return tip(self, c)

    monkeypatch.setattr(History, "tip", counted)
    return reads


def other_writer(
    monkeypatch: pytest.MonkeyPatch, book: Ledger, me: Ledger, runs: int
) -> tuple[list[int], list[int]]:
    """Back-offs during which ``book`` appends (the first ``runs`` of them), and the reads of
    what is new ``me`` makes meanwhile: the back-offs taken and the reads, as they come."""
    woken: list[int] = []

    def backoff(attempt: int) -> None:
        woken.append(attempt)
        if len(woken) <= runs:
            book.roll("1d20", "Race", label=f"other {len(woken)}")

    monkeypatch.setattr(recording, "backoff", backoff)
    return woken, counting_reads(monkeypatch, me)


@contextlib.contextmanager
def stale_writer(target: str) -> Iterator[tuple[Ledger, Ledger]]:
    """Two ledgers on one campaign: the second remembers a head the first has moved past."""
    with Ledger(target) as other, Ledger(target) as me:
        other.new_campaign("freeform", "Race")
        me.roll("1d20", "Race", label="mine 1")  # v2: this ledger remembers the head
        other.roll("1d20", "Race", label="other 0")  # v3: the head it remembers is stale
        yield other, me


def test_a_lost_race_waits_for_the_other_writers_run_to_end(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with stale_writer(target) as (other, me):
        woken, reads = other_writer(monkeypatch, other, me, runs=3)
        recorded = me.roll("1d20", "Race", label="mine 2")
        # it lost v3, then saw the head move at each of three back-offs and stand still at
        # the fourth; only then did it read what was new, once, and record after the run
        assert len(woken) == 4
        assert len(reads) == 1
        assert recorded.version == 7
        labels = [e.event.label for e in me.log("Race", show_all=True) if e.kind == "dice.rolled"]
        assert labels == ["mine 1", "other 0", "other 1", "other 2", "other 3", "mine 2"]
        me.verify("Race")


def test_a_writer_that_never_pauses_is_raced_once_patience_is_spent(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with stale_writer(target) as (other, me):
        monkeypatch.setattr(recording, "PATIENCE", 0.0)  # spent at the first lost race
        woken, reads = other_writer(monkeypatch, other, me, runs=10**6)  # at every back-off
        recorded = me.roll("1d20", "Race", label="mine 2")
        # no waiting on the head: one back-off, then it read what was new and won
        assert len(woken) == 1
        assert len(reads) == 1
        assert recorded.version == 5
        me.verify("Race")
