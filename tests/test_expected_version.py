"""``expected_version``: an action decided on the version its caller saw is recorded right
after it or not at all, whatever number of ledgers (processes) write the campaign: the
append itself holds it (the store's unique (stream, version) key), not a look at the head
before it. Each ledger here stands for a process: its own connections and its own memory
of the head."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest

from ledger import Ledger
from ledger.deciding.commands import Note
from ledger.errors import StaleVersionError


def _campaign(target: str) -> int:
    with Ledger(target) as book:
        book.new_campaign("freeform", "Friday")
        book.add_character("Ana", "Friday")
        return book.head(book.campaign("Friday"))


def test_a_ledger_that_remembers_an_older_head_is_refused_and_records_nothing(target: str) -> None:
    _campaign(target)
    with Ledger(target) as late, Ledger(target) as first:
        late.roll("d6", "Friday", actor="Ana")  # this ledger now remembers the head
        seen = late.head(late.campaign("Friday"))
        first.roll("d6", "Friday", actor="Ana")  # another process acts first
        with pytest.raises(StaleVersionError) as refused:
            late.execute(Note(text="too late"), "Friday", actor="Ana", expected_version=seen)
        assert refused.value.head == seen + 1 and refused.value.field == "expected_version"
        assert "is at version" in str(refused.value)
        c = first.campaign("Friday")
        assert first.head(c) == seen + 1
        assert not any("too late" in e.summary for e in first.log("Friday"))


def test_a_ledger_that_has_not_seen_the_version_expected_reads_it_and_records(target: str) -> None:
    _campaign(target)
    with Ledger(target) as behind, Ledger(target) as other:
        behind.roll("d6", "Friday", actor="Ana")
        other.roll("d6", "Friday", actor="Ana")
        now = other.head(other.campaign("Friday"))
        rec = behind.execute(Note(text="seen"), "Friday", actor="Ana", expected_version=now)
        assert rec.envelopes[0].v == now + 1


def test_concurrent_ledgers_with_one_expected_version_record_exactly_one(target: str) -> None:
    """Eight writers, each its own ledger that has read the head, act at once on it: one
    is recorded, right after the version expected; seven are refused, and none of them is
    decided again on the new head."""
    _campaign(target)
    for _ in range(3):
        with ExitStack() as stack:
            books = [stack.enter_context(Ledger(target)) for _ in range(8)]
            heads = {b.tip(b.campaign("Friday")).version for b in books}  # each has read the head
            assert len(heads) == 1
            seen = heads.pop()
            won, stale = _race(books, seen)
            assert won == [seen + 1] and len(stale) == len(books) - 1
            assert books[0].head(books[0].campaign("Friday")) == seen + 1


def _race(books: list[Ledger], seen: int) -> tuple[list[int], list[int]]:
    """Every ledger writes at once, expecting ``seen``: the versions recorded, and the
    heads the refusals name."""
    go = threading.Barrier(len(books))
    won: list[int] = []
    stale: list[int] = []

    def write(book: Ledger, i: int) -> None:
        go.wait()
        try:
            rec = book.execute(Note(text=f"writer {i}"), "Friday", actor="Ana", expected_version=seen)
            won.append(rec.envelopes[0].v)
        except StaleVersionError as e:
            stale.append(e.head)

    threads = [threading.Thread(target=write, args=(b, i)) for i, b in enumerate(books)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return won, stale


def test_an_undo_with_a_stale_expected_version_takes_nothing_back(target: str) -> None:
    _campaign(target)
    with Ledger(target) as gm, Ledger(target) as player:
        gm.roll("d6", "Friday", actor="Ana")
        seen = gm.head(gm.campaign("Friday"))
        player.note("I climb", "Friday", actor="Ana")  # the GM has not seen it
        with pytest.raises(StaleVersionError):
            gm.undo("Friday", expected_version=seen)
        with pytest.raises(StaleVersionError):
            gm.redo("Friday", expected_version=seen)
        assert player.head(player.campaign("Friday")) == seen + 1
        assert not any(e.undone for e in player.log("Friday", show_all=True))
        undone = gm.undo("Friday", expected_version=seen + 1)
        assert undone.envelopes[0].v == seen + 2
