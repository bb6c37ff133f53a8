"""Group commit at the live table: the ledger calls a ``ledger serve`` finds waiting
together run as one group whose commits are flushed to disk once, and none of them is
answered before that flush; each action stays whole or absent, and a lone call commits as
the command line does."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger import Ledger
from ledger.deciding.commands import Roll
from ledger.errors import LedgerError, StoreError
from ledger.web.ledger_thread import LedgerThread


def level(book: Ledger) -> int:
    """The ``synchronous`` level the ledger's own connection runs with (1 NORMAL, 2 FULL)."""
    with book.store.datastore.get_connection(commit=True) as conn, conn.cursor() as curs:
        curs.execute("PRAGMA synchronous")
        return int(curs.fetchone()[0])


@pytest.fixture
def book(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(str(tmp_path / "group.ledger")) as ledger:
        ledger.new_campaign("freeform", "Group")
        ledger.add_character("Ada", "Group")
        yield ledger


def test_commits_in_a_group_are_seen_at_once_and_flushed_once_at_its_end(
    book: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushed: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        flushed.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    assert level(book) == 2  # FULL: every commit flushed by itself
    before = book.head(book.campaign("Group"))
    with book.store.flushed_together():
        assert level(book) == 1  # NORMAL inside: commits wait for the group's flush
        for _ in range(3):
            book.execute(Roll(notation="d6"), "Group", actor="Ada")
        # Each commit is visible to another reader at once, before the flush.
        with contextlib.closing(sqlite3.connect(str(tmp_path / "group.ledger"))) as other:
            (count,) = other.execute("SELECT COUNT(*) FROM ledger_events").fetchone()
        assert flushed == []
    assert level(book) == 2
    assert flushed == [str(tmp_path / "group.ledger-wal")]
    assert book.head(book.campaign("Group")) == before + 3 and count >= before + 3


def test_a_group_that_fails_leaves_every_later_commit_flushed(book: Ledger) -> None:
    with pytest.raises(LedgerError), book.store.flushed_together():
        book.execute(Roll(notation="d6"), "Group", actor="Ada")
        book.execute(Roll(notation="d6"), "Group", actor="Nobody")
    assert level(book) == 2


def test_a_failed_flush_is_a_storage_error(book: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StoreError, match=r"disk is full|No space"), book.store.flushed_together():
        book.execute(Roll(notation="d6"), "Group", actor="Ada")
    assert level(book) == 2


class Groups:
    """A ``together`` that records each group it opens and whether any of the group's
    answers was out before its end."""

    def __init__(self) -> None:
        self.opened = 0
        self.answered_early = False
        self.futures: list[object] = []
        self.fail = False

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        self.opened += 1
        yield
        self.answered_early = self.answered_early or any(f.done() for f in self.futures)  # type: ignore[attr-defined]
        if self.fail:
            raise StoreError("the disk is full")


def test_calls_waiting_together_run_as_one_group_answered_after_its_flush() -> None:
    groups = Groups()
    thread = LedgerThread(groups.together)
    try:
        busy, release = threading.Event(), threading.Event()

        def first() -> str:
            busy.set()
            release.wait(5)
            return "first"

        lone = thread.submit(first)
        assert busy.wait(5)
        waiting = [thread.submit(lambda i=i: i * 10) for i in range(3)]

        def refused() -> None:
            raise LedgerError("no such character")

        waiting.append(thread.submit(refused))
        groups.futures = waiting
        release.set()
        assert lone.result(5) == "first"
        assert [f.result(5) for f in waiting[:3]] == [0, 10, 20]
        with pytest.raises(LedgerError, match="no such character"):
            waiting[3].result(5)
        # The first call ran alone (nothing waited with it); the four behind it together.
        assert groups.opened == 1 and not groups.answered_early
    finally:
        thread.stop()


def test_a_group_whose_flush_fails_answers_each_of_its_calls_with_the_failure() -> None:
    groups = Groups()
    groups.fail = True
    thread = LedgerThread(groups.together)
    try:
        busy, release = threading.Event(), threading.Event()
        thread.submit(lambda: (busy.set(), release.wait(5)))
        assert busy.wait(5)
        waiting = [thread.submit(lambda: "recorded") for _ in range(2)]
        release.set()
        for f in waiting:
            with pytest.raises(StoreError, match="disk is full"):
                f.result(5)
    finally:
        thread.stop()


def test_a_stopped_ledger_thread_starts_again_for_the_next_call() -> None:
    """An app's lifespan may start and stop more than once (a test client, a fuzzer): each
    stop ends the thread, and the next call starts it again."""
    thread = LedgerThread(contextlib.nullcontext)
    assert thread.submit(lambda: 1).result(5) == 1
    thread.stop()
    assert thread.submit(lambda: 2).result(5) == 2
    thread.stop()
    thread.stop()
