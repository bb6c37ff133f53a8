"""What a warm `stats` or `query` spares DuckDB: no threads of asynchronous I/O, and no statement
to read the position the warehouse's marker already gave as it opened (nor a stale one after a
page is applied)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest

from ledger import Ledger
from ledger.projections.warehouse import QueryLimits, duckdb_config
from ledger.projections.warehouse.loading import Warehouse
from tests.conftest import Session

DUCKDB_2 = not duckdb.__version__.startswith(("0.", "1."))


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not DUCKDB_2, reason="DuckDB 1.x starts no threads of asynchronous I/O")
def test_the_configuration_turns_off_asynchronous_io_threads() -> None:
    assert duckdb_config()["async_threads"] == 0
    assert duckdb_config(threads=2)["threads"] == 2


@pytest.mark.skipif(
    not DUCKDB_2 or not Path("/proc/self/task").is_dir(),
    reason="DuckDB 2 on Linux (threads counted in /proc)",
)
def test_warehouse_connections_start_no_asynchronous_io_threads(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "table")
    ledger_cli("roll", "2d6", "--faces", "3,4")
    ledger_cli("stats")  # the warehouse, built
    with Ledger(db) as book:
        wh = Warehouse(book)
        before = _threads()
        con = wh.connect()
        try:
            assert con.execute("SELECT current_setting('async_threads')").fetchone() == (0,)
            assert _threads() - before <= 1  # DuckDB's one worker beside this thread (two threads)
        finally:
            wh.close(con)
        ro = wh.connect_read_only(QueryLimits())
        try:
            assert ro.execute("SELECT current_setting('async_threads')").fetchone() == (0,)
            assert _threads() - before <= 1
        finally:
            ro.close()


def test_the_position_read_on_open_follows_the_pages_applied(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "table")
    ledger_cli("roll", "2d6", "--faces", "3,4")
    ledger_cli("stats")  # the warehouse, built
    ledger_cli("roll", "1d6", "--faces", "6")
    ledger_cli("note", "after the roll")
    with Ledger(db) as book:
        wh = Warehouse(book)
        top = book.store.max_notification_id()
        con = wh.connect()
        try:
            stored = con.execute("SELECT value FROM warehouse_meta WHERE key = 'position'").fetchone()
            opened = wh.position(con)
            assert stored is not None and opened == int(stored[0])
            assert 0 < opened < top
            assert wh.catch_up(con=con) == top - opened
            assert wh.position(con) == top  # read again once a page is applied, not the one it opened at
            assert wh.catch_up(con=con) == 0  # nothing applied twice
        finally:
            wh.close(con)
        con = wh.connect()
        try:
            assert wh.position(con) == top
        finally:
            wh.close(con)
    rolls = json.loads(ledger_cli("query", "SELECT count(*) AS n FROM rolls", "--json").output)
    assert rolls == [{"n": 2}]


def test_a_connection_closed_is_not_answered_from_its_marker(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "table")
    ledger_cli("stats")
    with Ledger(db) as book:
        wh = Warehouse(book)
        first = wh.connect()
        wh.close(first)
        ledger_cli("roll", "1d6", "--faces", "6")
        ledger_cli("stats")  # another catch-up, of another Warehouse, moved the position
        second = wh.connect()
        try:
            assert wh.position(second) == book.store.max_notification_id()
        finally:
            wh.close(second)
