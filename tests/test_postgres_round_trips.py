"""A recorded action on PostgreSQL is one statement: the INSERT of its rows.

Counted, not timed: every statement a cursor sends is recorded while a
``Ledger`` in steady use rolls (the speed itself is shown in bench/). Beside the
actions, a writer asks whether anyone listens at most once a second (``pg_locks``):
that look is counted apart."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest

from ledger import Ledger
from ledger.log.store.listener import LISTEN_CACHE

pytestmark = pytest.mark.postgres


looks: list[float] = []
"""When a writer asked whether anyone listens."""


def _sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    sent: list[str] = []
    looks.clear()
    execute = psycopg.Cursor.execute

    def counting(self: Any, query: Any, *args: Any, **kw: Any) -> Any:
        text = query if isinstance(query, str) else query.as_string(self)
        if "pg_locks" in text:
            looks.append(time.monotonic())
        else:
            sent.append(text.split(None, 1)[0].upper() if text.strip() else "(ping)")
        return execute(self, query, *args, **kw)

    monkeypatch.setattr(psycopg.Cursor, "execute", counting)
    return sent


def test_a_roll_in_steady_use_sends_one_insert(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with Ledger(pg_url) as book:
        book.new_campaign("freeform", "Tomb")
        book.add_character("Ana", "Tomb")
        book.roll("1d20", "Tomb")  # the head is now known to this Ledger
        sent = _sent(monkeypatch)
        start = time.monotonic()
        for _ in range(5):
            book.roll("1d20+5", "Tomb")
        took = time.monotonic() - start
        assert sent == ["INSERT"] * 5
        assert len(looks) <= 1 + took / LISTEN_CACHE  # whether anyone listens: once a second at most
        book.verify("Tomb")


def test_a_roll_after_another_writer_reads_what_is_new_once(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Ledger(pg_url) as book, Ledger(pg_url) as other:
        book.new_campaign("freeform", "Tomb")
        book.roll("1d20", "Tomb")
        other.roll("1d6", "Tomb", label="meanwhile")
        sent = _sent(monkeypatch)
        rec = book.roll("1d20", "Tomb")
        # refused, the head alone (it stood still: nobody else is appending), what is new,
        # accepted
        assert sent == ["INSERT", "SELECT", "SELECT", "INSERT"]
        assert rec.envelopes[0].v == 4
        book.verify("Tomb")
