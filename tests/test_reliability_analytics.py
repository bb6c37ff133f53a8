"""`ledger query` runs untrusted SQL: it cannot write, read files, load
extensions or reach the network, and every refusal is one line."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger

warehouse = pytest.importorskip("projections.warehouse", reason="the warehouse is not installed")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("query") / "q.ledger")
    with Ledger(path) as book:
        book.new_campaign("freeform", "Tomb")
        book.add_character("Ana", "Tomb")
        for i in range(10):
            book.roll("2d6", "Tomb", label=f"r{i}")
    result = hr.invoke(path, "query", "SELECT count(*) AS n FROM rolls")
    assert result.exit_code == 0, result.stderr
    return path


def snapshot(db: str) -> tuple[object, ...]:
    """The ledger's rows, and the warehouse's position and row counts."""
    import duckdb

    con = duckdb.connect(db + ".duckdb", read_only=True)
    try:
        counts = tuple(con.execute(f'SELECT count(*) FROM "{t.name}"').fetchone() for t in warehouse.TABLES)
        meta = con.execute("SELECT * FROM warehouse_meta ORDER BY key").fetchall()
    finally:
        con.close()
    return hashlib.sha256(repr(hr.store_rows(db)).encode()).hexdigest(), counts, tuple(meta)


OUTSIDE = "/tmp/ledger-query-escape-{}.txt"

HOSTILE_SQL = {
    "copy to a file": "COPY (SELECT 1) TO '{out}'",
    "read a csv file": "SELECT * FROM read_csv('/etc/passwd')",
    "read a text file": "SELECT * FROM read_text('/etc/hostname')",
    "read a file by path": "SELECT * FROM '/etc/passwd'",
    "list files": "SELECT * FROM glob('/etc/*')",
    "http": "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')",
    "install extension": "INSTALL httpfs",
    "load extension": "LOAD httpfs",
    "attach a database": "ATTACH '{out}' AS other",
    "create table": "CREATE TABLE evil AS SELECT 1 AS x",
    "delete rows": "DELETE FROM rolls",
    "update position": "UPDATE warehouse_meta SET value = '0' WHERE key = 'position'",
    "drop table": "DROP TABLE rolls",
    "two statements": "SELECT 1; DROP TABLE rolls",
    "re-enable access": "SET enable_external_access = true",
    "pragma": "PRAGMA enable_external_access",
    "export database": "EXPORT DATABASE '{out}'",
    "copy in a CTE": "WITH x AS (SELECT 1) SELECT * FROM read_parquet('{out}')",
    "environment": "SELECT getenv('HOME') AS home",
}


@pytest.mark.parametrize("kind", list(HOSTILE_SQL))
def test_hostile_sql_is_refused_in_one_line(db: str, kind: str) -> None:
    out = OUTSIDE.format(os.getpid())
    sql = HOSTILE_SQL[kind].format(out=out)
    before = snapshot(db)
    result = hr.invoke(db, "query", sql)
    hr.assert_one_line_error(result)
    assert not Path(out).exists(), "the query wrote a file"
    assert snapshot(db) == before


def test_the_warehouse_still_answers_after_the_hostile_queries(db: str) -> None:
    ok = hr.invoke(db, "query", "SELECT count(*) AS n FROM rolls", "--json")
    assert ok.exit_code == 0 and '"n": 10' in ok.output


@settings(
    max_examples=int(os.environ.get("LEDGER_HOSTILE_EXAMPLES", "50")) // 5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    sql=st.one_of(
        st.text(max_size=120),
        st.sampled_from(
            [
                "SELECT ",
                "COPY ",
                "WITH ",
                "ATTACH ",
                "read_csv(",
                "'/etc/passwd'",
                ";",
                "--",
                "/*",
                "(",
                ")",
                "*",
                "FROM rolls",
                "INSERT ",
                "CALL ",
            ]
        ).flatmap(lambda head: st.text(max_size=60).map(lambda tail: head + tail)),
    )
)
def test_any_sql_text_never_crashes_or_writes(db: str, sql: str) -> None:
    before = snapshot(db)
    result = hr.invoke(db, "query", "--", sql)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code != 0:
        hr.assert_one_line_error(result)
    assert snapshot(db) == before
