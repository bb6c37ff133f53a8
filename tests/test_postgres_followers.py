"""Followers of the PostgreSQL notification order never skip an event that commits late.

Writers take no table lock, so notification ids commit out of order: a writer
that took id 10 may commit after one that took id 11. A follower (the
warehouse's catch-up) must not move past 10 while it can still appear."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import psycopg
import pytest

from ledger import Ledger
from ledger.log.store import EVENTS_TABLE
from ledger.projections.warehouse.loading import Warehouse

pytestmark = pytest.mark.postgres

INSERT = "INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (%s, 1, 'k', %s) RETURNING notification_id"


def _split(url: str) -> tuple[str, str]:
    base, _, query = url.partition("?")
    return base, query.partition("schema=")[2]


def _follow(book: Ledger, until: float, seen: list[int]) -> None:
    """Read the notification order the way the warehouse does, until ``until``."""
    position = 0
    while time.monotonic() < until:
        rows = book.store.states_after(position, 100)
        seen.extend(r[0] for r in rows)
        if rows:
            position = rows[-1][0]
        time.sleep(0.02)


def test_a_late_committing_writer_is_not_skipped(pg_url: str) -> None:
    base, schema = _split(pg_url)
    with Ledger(pg_url) as book:
        table = f'"{schema}".{EVENTS_TABLE}'
        start = book.store.max_notification_id()
        late = psycopg.connect(base)  # holds its transaction open
        early = psycopg.connect(base, autocommit=True)
        try:
            late_id = late.execute(INSERT.format(t=table), ("late", b"{}")).fetchone()[0]  # type: ignore[index]
            early_id = early.execute(INSERT.format(t=table), ("early", b"{}")).fetchone()[0]  # type: ignore[index]
            assert early_id > late_id  # the later id is committed first
            seen: list[int] = []
            follower = threading.Thread(target=_follow, args=(book, time.monotonic() + 4.0, seen))
            follower.start()
            time.sleep(1.0)  # the follower reads while the first writer is still open
            late.commit()
            follower.join(timeout=60)
            assert not follower.is_alive()
        finally:
            late.close()
            early.close()
        news = [n for n in seen if n > start]
        assert sorted(news) == [late_id, early_id], f"follower saw {news}"
        assert len(news) == len(set(news)), "an event was seen twice"


def test_a_rolled_back_writer_leaves_a_gap_the_follower_passes(pg_url: str) -> None:
    base, schema = _split(pg_url)
    with Ledger(pg_url) as book:
        table = f'"{schema}".{EVENTS_TABLE}'
        start = book.store.max_notification_id()
        with psycopg.connect(base) as lost, psycopg.connect(base, autocommit=True) as kept:
            lost.execute(INSERT.format(t=table), ("lost", b"{}"))
            kept_id = kept.execute(INSERT.format(t=table), ("kept", b"{}")).fetchone()[0]  # type: ignore[index]
            lost.rollback()
        rows = book.store.states_after(start, 100)
        assert [r[0] for r in rows] == [kept_id]


def test_the_warehouse_catches_up_a_slow_action_exactly_once(pg_url: str, tmp_path: Path) -> None:
    """One action is held inside its insert (a trigger sleeps after its ids are taken)
    while another campaign's action commits and the warehouse catches up; after the
    slow one commits, the next catch-up applies it, and every action is there once."""
    base, schema = _split(pg_url)
    with Ledger(pg_url) as book:
        book.new_campaign("freeform", "Slow")
        book.new_campaign("freeform", "Quick")
        slow_stream = book.campaign("Slow").id
        wh = Warehouse(book, tmp_path / "wh.duckdb")
        wh.catch_up()
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(
                f'CREATE FUNCTION "{schema}".slow() RETURNS trigger LANGUAGE plpgsql AS '
                f"$$ BEGIN IF NEW.originator_id = '{slow_stream}' THEN PERFORM pg_sleep(1.5); END IF; "
                "RETURN NEW; END $$"
            )
            admin.execute(
                f'CREATE TRIGGER slow BEFORE INSERT ON "{schema}".{EVENTS_TABLE} '
                f'FOR EACH ROW EXECUTE FUNCTION "{schema}".slow()'
            )

        def slow_roll() -> None:
            with Ledger(pg_url) as other:
                other.roll("1d20", "Slow", label="late")

        writer = threading.Thread(target=slow_roll)
        writer.start()
        time.sleep(0.5)  # its id is taken, its commit 1 s away
        book.roll("1d6", "Quick", label="early")
        wh.catch_up()
        writer.join(timeout=60)
        wh.catch_up()
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f'DROP TRIGGER slow ON "{schema}".{EVENTS_TABLE}')
        import duckdb

        con = duckdb.connect(str(wh.path), read_only=True)
        try:
            applied = con.execute("SELECT stream, version FROM events ORDER BY ALL").fetchall()
        finally:
            con.close()
        stored = sorted(
            (r.originator_id, r.originator_version)
            for c in ("Slow", "Quick")
            for r in book.store.read(book.campaign(c).id)
        )
        assert applied == stored  # every event once, the late one included
        assert wh.position() == book.store.max_notification_id()
