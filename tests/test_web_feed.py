"""The live feed's parts: a campaign's feed holds each message once and only while it holds
every version after a stream's last, and on PostgreSQL the store tells a listening server of
every append, by the campaign's stream, at its commit."""

from __future__ import annotations

import contextlib
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from ledger import Ledger
from ledger.deciding.commands import Note, Roll
from ledger.log.store.listener import LISTEN_CLASS, AppendListener
from ledger.web.stream import HELD, Feed


def messages(first: int, last: int) -> list[tuple[int, bytes]]:
    return [(v, b"id: %d\n\n" % v) for v in range(first, last + 1)]


def test_a_feed_holds_each_version_once_whoever_brings_it() -> None:
    """A write hands over its entries and the feed's own read brings the same ones: each
    version is held once, and a stream after version 3 gets 4 to 7 in order."""
    feed = Feed("c")
    assert feed.since(0) is None  # not read yet: the stream reads the store
    feed.publish(3, [])  # the first read: the head, nothing held
    assert feed.since(3) == [] and feed.since(1) is None
    feed.publish(5, messages(4, 5))  # a write through this process
    feed.publish(6, messages(4, 6))  # the feed's read, begun before the write was handed over
    feed.publish(5, messages(5, 5))  # a late read that brings nothing new
    feed.publish(7, messages(7, 7))
    assert [v for v, _ in feed.held] == [4, 5, 6, 7] and feed.head == 7
    assert [v for v, _ in feed.since(3) or []] == [4, 5, 6, 7]
    assert [v for v, _ in feed.since(6) or []] == [7]
    assert feed.since(2) is None  # version 3 is not held: read the store


def test_a_stream_further_behind_than_the_feed_holds_reads_the_store() -> None:
    feed = Feed("c")
    feed.publish(0, [])
    feed.publish(HELD + 10, messages(1, HELD + 10))
    assert feed.held[0][0] == 11  # the oldest fell out
    assert feed.since(9) is None
    assert [v for v, _ in feed.since(10) or []] == list(range(11, HELD + 11))


class Listening(NamedTuple):
    book: Ledger
    stream: str
    heard: queue.Queue[str | None]
    listener: AppendListener


@contextlib.contextmanager
def listening(target: str) -> Iterator[Listening]:
    """Campaign 'Heard' with Ada, and a listener on its ledger that has said it listens
    (``None``: read whatever came before)."""
    heard: queue.Queue[str | None] = queue.Queue()
    with Ledger(target) as book:
        book.new_campaign("freeform", "Heard")
        book.add_character("Ada", "Heard")
        listener = book.store.listen(heard.put)
        assert listener is not None
        try:
            assert listener.listening.wait(10) and heard.get(timeout=5) is None
            yield Listening(book, book.campaign("Heard").lineage[-1][0], heard, listener)
        finally:
            listener.close()
        assert not listener.listening.is_set()


@pytest.mark.postgres
def test_postgresql_tells_a_listener_of_each_append_by_its_stream(pg_url: str) -> None:
    """What lets every ``ledger serve`` on one database wake its streams at another's
    commit: the listener hears the stream of each action another connection records."""
    with listening(pg_url) as on, Ledger(pg_url) as other:
        other.execute(Roll(notation="d6"), "Heard", actor="Ada")
        assert on.heard.get(timeout=5) == on.stream
        other.execute(Note(text="again"), "Heard", actor="Ada")
        assert on.heard.get(timeout=5) == on.stream


@pytest.mark.postgres
def test_a_writer_that_looked_before_a_listener_began_is_heard_once_it_listens(pg_url: str) -> None:
    """Writers ask whether anyone listens once a second: a writer that asked just before
    the listener took its lock still notifies every append from the moment the listener
    says it listens, and what it appended before is in the read the listener asks for."""
    with Ledger(pg_url) as writer:
        writer.new_campaign("freeform", "Heard")
        writer.add_character("Ada", "Heard")
        writer.execute(Roll(notation="d6"), "Heard", actor="Ada")  # it has looked: nobody listens
        stream = writer.campaign("Heard").lineage[-1][0]
        heard: queue.Queue[str | None] = queue.Queue()
        with Ledger(pg_url) as other:
            listener = other.store.listen(heard.put)
            assert listener is not None
            try:
                assert listener.locked.wait(10)
                writer.execute(Note(text="while it settles"), "Heard", actor="Ada")
                assert listener.listening.wait(10)
                said = [heard.get(timeout=5)]
                while said[-1] is not None:  # the read of everything comes after any stream heard
                    said.append(heard.get(timeout=5))
                writer.execute(Note(text="now"), "Heard", actor="Ada")
                assert heard.get(timeout=5) == stream
            finally:
                listener.close()


def test_sqlite_has_no_listener(tmp_path: Path) -> None:
    """SQLite's writers tell no one: a server reads what was appended (``Table.look``)."""
    with Ledger(str(tmp_path / "quiet.ledger")) as book:
        assert book.store.listen(lambda stream: None) is None


@pytest.mark.postgres
def test_a_listener_whose_connection_is_cut_listens_again_and_says_it_may_have_missed_some(
    pg_url: str,
) -> None:
    """The database ends the listener's connection (a restart, a failover): it connects
    again, says ``None`` (read everything: an append may have come in between), and hears
    the next append's stream as before."""
    import psycopg

    from tests.conftest import PG_URL

    with listening(pg_url) as on:
        key = on.book.store.recorder.listen_key  # type: ignore[attr-defined]
        with psycopg.connect(PG_URL, autocommit=True) as admin:
            cut = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
                "AND classid = %s AND objid = %s AND mode = 'ShareLock'",
                [LISTEN_CLASS, key],
            ).fetchall()
        assert cut == [(True,)]
        assert on.heard.get(timeout=10) is None  # back, and it may have missed some
        assert on.listener.listening.wait(10)
        on.book.execute(Note(text="after the cut"), "Heard", actor="Ada")
        assert on.heard.get(timeout=5) == on.stream
