"""A warm `ledger stats` or `ledger query`: DuckDB opened once for the catch-up and the report,
the write-ahead log of small catch-ups left for the next open, and nothing lost or applied twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from ledger import Ledger
from ledger.projections.warehouse import loading as warehouse
from ledger.projections.warehouse.loading import Warehouse
from tests.conftest import Session


def _count_opens(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every ``duckdb.connect`` from now on, as its ``read_only`` flag."""
    opens: list[bool] = []
    real = duckdb.connect

    def counted(*args: Any, **kwargs: Any) -> duckdb.DuckDBPyConnection:
        opens.append(bool(kwargs.get("read_only", False)))
        return real(*args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", counted)
    return opens


def test_stats_after_one_action_opens_duckdb_once(
    ledger_cli: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger_cli("new", "freeform", "table")
    ledger_cli("roll", "2d6", "--faces", "3,4")
    ledger_cli("stats")  # the warehouse, built
    ledger_cli("roll", "1d6", "--faces", "6")
    opens = _count_opens(monkeypatch)
    data = json.loads(ledger_cli("stats", "--report", "fairness", "--json").output)
    assert opens == [False]  # one writable connection: the catch-up, then the report on it
    assert [row["counts"] for row in data["fairness"]] == [[0, 0, 1, 1, 0, 1]]  # the new roll's die is there


def test_query_after_one_action_opens_the_read_only_connection_only_for_the_sql(
    ledger_cli: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger_cli("new", "freeform", "table")
    ledger_cli("stats")
    ledger_cli("roll", "1d6", "--faces", "6")
    opens = _count_opens(monkeypatch)

    def default_parser(*_args: Any) -> None:
        raise AssertionError("parsed on DuckDB's default connection, a database started only to parse")

    monkeypatch.setattr(duckdb, "extract_statements", default_parser)
    out = ledger_cli("query", "SELECT count(*) AS n FROM rolls", "--json").output
    assert opens == [False, True]  # the catch-up, then the sandboxed connection for the user's SQL
    assert json.loads(out) == [{"n": 1}]
    refused = ledger_cli("query", "DELETE FROM rolls", ok=False)
    assert refused.exit_code == 1
    assert "ledger query is read-only: DELETE statements are refused" in refused.output
    assert json.loads(ledger_cli("query", "SELECT count(*) AS n FROM rolls", "--json").output) == [{"n": 1}]


def _wal(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def test_small_catch_ups_leave_their_log_for_the_next_open_and_every_event_lands_once(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("freeform", "table")
        wh = Warehouse(book, path)
        wh.catch_up()
        for face in (1, 2, 3, 4):
            book.roll("1d6", "table", faces=[face])
            assert wh.catch_up() == 1
            assert _wal(path).exists()  # not folded into the file on close
        assert _wal(path).stat().st_size < warehouse.WAL_FOLD
        assert Warehouse(book, path).catch_up() == 0  # the position, read back through the log
        con = Warehouse(book, path).connect_read_only()
        try:
            faces = con.execute("SELECT face FROM dice ORDER BY roll_id").fetchall()
            events = con.execute("SELECT count(*), count(DISTINCT position) FROM events").fetchone()
        finally:
            con.close()
        assert faces == [(1,), (2,), (3,), (4,)]
        assert events == (5, 5)  # the campaign's start and four rolls, each once


def test_the_log_is_folded_into_the_file_once_it_passes_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "wh.duckdb"
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("freeform", "table")
        wh = Warehouse(book, path)
        wh.catch_up()
        book.roll("1d6", "table", faces=[5])
        wh.catch_up()
        assert _wal(path).exists()
        monkeypatch.setattr(warehouse, "WAL_FOLD", 1)
        book.roll("1d6", "table", faces=[6])
        assert wh.catch_up() == 1
        assert not _wal(path).exists()
        con = wh.connect_read_only()
        try:
            assert con.execute("SELECT face FROM dice ORDER BY roll_id").fetchall() == [(5,), (6,)]
        finally:
            con.close()
