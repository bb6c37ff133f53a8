"""`ledger query` runs untrusted SQL: it cannot write, read files, load
extensions or reach the network; it stops at its time limit, within its memory,
and prints a bounded number of rows; every refusal is one line and says which
of these stopped it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.cli import fixes

warehouse = pytest.importorskip("ledger.projections.warehouse", reason="the warehouse is not installed")


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
    """The ledger's rows, and the warehouse file's bytes (any write DuckDB made would show in
    them or in a write-ahead log beside them)."""
    warehouse_file = Path(db + ".duckdb")
    return (
        hashlib.sha256(repr(hr.store_rows(db)).encode()).hexdigest(),
        hashlib.sha256(warehouse_file.read_bytes()).hexdigest(),
        warehouse_file.with_name(warehouse_file.name + ".wal").exists(),
    )


OUTSIDE = "/tmp/ledger-query-escape-{}.txt"
SECRET = "/tmp/ledger-query-secret-{}.csv"
"""A readable CSV file outside the warehouse: DuckDB would read it but for the sandbox."""

FILES = "cannot read files or reach the network (external access is off)"
READ_ONLY = "ledger query is read-only"

HOSTILE_SQL: dict[str, tuple[str, str]] = {
    "copy to a file": ("COPY (SELECT 1) TO '{out}'", f"{READ_ONLY}: COPY statements are refused"),
    "read a csv file": ("SELECT * FROM read_csv('{secret}')", FILES),
    "read a text file": ("SELECT * FROM read_text('/etc/hostname')", FILES),
    "read a file by path": ("SELECT * FROM '{secret}'", FILES),
    "read a file by a path without a suffix": ("SELECT * FROM '/etc/passwd'", FILES),
    "list files": ("SELECT * FROM glob('/etc/*')", FILES),
    "http": ("SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')", FILES),
    "install extension": ("INSTALL httpfs", READ_ONLY),
    "load extension": ("LOAD httpfs", READ_ONLY),
    "attach a database": ("ATTACH '{out}' AS other", f"{READ_ONLY}: ATTACH statements are refused"),
    "create table": ("CREATE TABLE evil AS SELECT 1 AS x", f"{READ_ONLY}: CREATE statements are refused"),
    "delete rows": ("DELETE FROM rolls", f"{READ_ONLY}: DELETE statements are refused"),
    "update position": (
        "UPDATE warehouse_meta SET value = '0' WHERE key = 'position'",
        f"{READ_ONLY}: UPDATE statements are refused",
    ),
    "drop table": ("DROP TABLE rolls", f"{READ_ONLY}: DROP statements are refused"),
    "two statements": ("SELECT 1; DROP TABLE rolls", "give one statement, not 2"),
    "re-enable access": ("SET enable_external_access = true", f"{READ_ONLY}: SET statements are refused"),
    "lift the memory limit": ("SET memory_limit = '64GB'", f"{READ_ONLY}: SET statements are refused"),
    # A pragma every supported DuckDB knows (1.4 does not know enable_external_access and
    # would refuse it as unknown, not as a pragma).
    "pragma": ("PRAGMA enable_profiling", f"{READ_ONLY}: PRAGMA statements are refused"),
    "export database": ("EXPORT DATABASE '{out}'", f"{READ_ONLY}: EXPORT statements are refused"),
    "copy in a CTE": ("WITH x AS (SELECT 1) SELECT * FROM read_parquet('{out}')", FILES),
    "environment": ("SELECT content FROM read_blob('/proc/self/environ')", FILES),
}
"""Each hostile query, and the words of the sandbox rule that must refuse it."""

UNSANDBOXED = ("read a csv file", "read a file by path", "environment")
"""Cases checked to read something on a connection without the sandbox: a refusal of
these is the sandbox's doing, not a missing function or table."""


@pytest.fixture(scope="module")
def secret() -> str:
    path = SECRET.format(os.getpid())
    Path(path).write_text("gold\n42\n")
    yield path  # type: ignore[misc]
    Path(path).unlink(missing_ok=True)


@pytest.mark.parametrize("kind", list(HOSTILE_SQL))
def test_hostile_sql_is_refused_in_one_line(db: str, secret: str, kind: str) -> None:
    out = OUTSIDE.format(os.getpid())
    sql, rule = HOSTILE_SQL[kind]
    before = snapshot(db)
    result = hr.invoke(db, "query", sql.format(out=out, secret=secret))
    line = hr.assert_one_line_error(result)
    assert rule in line, line
    assert not Path(out).exists(), "the query wrote a file"
    assert snapshot(db) == before


@pytest.mark.parametrize("kind", UNSANDBOXED)
def test_the_file_cases_would_read_without_the_sandbox(secret: str, kind: str) -> None:
    import duckdb

    sql, _ = HOSTILE_SQL[kind]
    con = duckdb.connect(config=dict(warehouse.DUCKDB_CONFIG))
    try:
        rows = con.execute(sql.format(secret=secret, out="")).fetchall()
    finally:
        con.close()
    if kind == "environment" and rows and not rows[0][0]:
        pytest.skip(f"DuckDB {duckdb.__version__} reads /proc files as empty: nothing to leak here")
    assert rows and ("42" in repr(rows) or "PATH" in repr(rows)), rows


# --- limits -------------------------------------------------------------------------------------


def test_a_runaway_query_is_stopped_at_its_time_limit(db: str) -> None:
    start = time.monotonic()
    proc = subprocess.run(
        hr.ledger_cmd("--db", db, "query", "--timeout", "1", "SELECT count(*) FROM range(1000000000000)"),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=hr.ROOT,
    )
    took = time.monotonic() - start
    line = hr.assert_process_refused(proc, code=1)
    assert "ran past its time limit of 1 s and was stopped" in line and "--timeout" in line, line
    assert took < 60, took  # without the limit it would count for hours


def test_rows_streamed_out_are_stopped_at_the_time_limit_too(db: str) -> None:
    proc = subprocess.run(
        hr.ledger_cmd(
            "--db", db, "query", "--limit", "0", "--csv", "--timeout", "1", "SELECT * FROM range(10000000000)"
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        cwd=hr.ROOT,
    )
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "ran past its time limit of 1 s" in proc.stderr


def test_the_default_time_limit_is_under_thirty_seconds() -> None:
    assert 0 < warehouse.QueryLimits().timeout < 30


def test_rows_are_capped_with_a_note_of_how_many_were_left_out(db: str) -> None:
    table = hr.invoke(db, "query", "SELECT * FROM range(1005)")
    assert table.exit_code == 0
    lines = table.output.splitlines()
    assert len(lines) == 2 + warehouse.DEFAULT_LIMIT + 1
    assert (
        lines[-1] == "(1000 rows shown; 5 more rows were left out: --limit N shows more, --limit 0 every row)"
    )
    as_json = hr.invoke(db, "query", "--limit", "3", "--json", "SELECT * FROM range(10)")
    assert json.loads(as_json.stdout) == [{"range": 0}, {"range": 1}, {"range": 2}]
    assert as_json.stderr.startswith("note: 3 rows shown; 7 more rows were left out")
    every = hr.invoke(db, "query", "--limit", "0", "--csv", "SELECT * FROM range(2500)")
    assert every.stdout.splitlines() == ["range", *map(str, range(2500))] and not every.stderr


def test_a_huge_result_streams_its_first_rows_and_says_more_were_left_out(db: str) -> None:
    """A billion rows: the first thousand come out and the rest are not fetched (counting
    them stops early, and the note says so)."""
    result = hr.invoke(db, "query", "SELECT * FROM range(1000000000)")
    assert result.exit_code == 0, result.stderr
    assert result.output.splitlines()[-1].startswith("(1000 rows shown; at least ")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--limit", "-1"), "--limit must be a whole number of rows, 0 for every row; got -1"),
        (("--timeout", "0"), "--timeout must be between 0 and 86400 seconds, got 0.0"),
        (("--timeout", "nan"), "--timeout must be between 0 and 86400 seconds, got nan"),
        (("--timeout", "-5"), "--timeout must be between 0 and 86400 seconds"),
    ],
)
def test_bad_limits_are_refused_in_one_line(db: str, args: tuple[str, ...], words: str) -> None:
    line = hr.assert_one_line_error(hr.invoke(db, "query", *args, "SELECT 1"), code=1)
    assert words in line, line


def test_memory_is_bounded_and_the_query_says_so(db: str) -> None:
    with Ledger(db) as book:
        wh = warehouse.Warehouse(book)
        with pytest.raises(warehouse.WarehouseError) as refused:
            warehouse.run_query(
                wh,
                "SELECT list(range) FROM range(50000000)",
                limits=warehouse.QueryLimits(memory_mb=64, temp_mb=0),
            )
    assert fixes.message(refused.value).startswith(
        "the query needs more memory than ledger query allows (64 MB"
    )


@pytest.mark.parametrize(
    "value",
    [
        "list(range)",
        "[list(range)]",
        "{'gold': list(range)}",
        "map(['hoard'], [list(range)])",
        "list([range, range])",
    ],
)
def test_a_value_too_big_to_convert_within_the_time_limit_is_refused(db: str, value: str) -> None:
    """DuckDB's Python binding converts one value in one piece, beyond the timer's reach (a
    25-million-element list takes many seconds): such a value is refused before that."""
    result = hr.invoke(db, "query", "--timeout", "5", f"SELECT 1 AS n, {value} AS hoard FROM range(2000000)")
    line = hr.assert_one_line_error(result, code=1)
    assert "a value of column 'hoard' holds more than 1,000,000 elements" in line, line


def test_nested_values_under_the_cap_keep_their_order_and_their_column_names(db: str) -> None:
    result = hr.invoke(
        db, "query", "--csv", "SELECT range AS x, [range, 1] AS x FROM range(3) ORDER BY range DESC"
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == 'x,x\n2,"[2, 1]"\n1,"[1, 1]"\n0,"[0, 1]"\n'
    at_cap = hr.invoke(
        db, "query", "--json", "SELECT len(l) AS n FROM (SELECT list(range) AS l FROM range(1000000))"
    )
    assert json.loads(at_cap.stdout) == [{"n": 1000000}]
    whole = hr.invoke(db, "query", "--json", "SELECT list(range) AS l FROM range(1000000)")
    assert whole.exit_code == 0 and len(json.loads(whole.stdout)[0]["l"]) == 1000000


def test_the_limits_are_set_and_locked_against_the_sql(db: str) -> None:
    import duckdb

    shown = hr.invoke(
        db,
        "query",
        "--json",
        "SELECT current_setting('memory_limit') AS memory, current_setting('threads') AS threads, "
        "current_setting('max_temp_directory_size') AS temp, current_setting('lock_configuration') AS locked, "
        "current_setting('enable_external_access') AS files, current_setting('autoload_known_extensions') AS autoload",
    )
    assert json.loads(shown.stdout) == [
        {
            "memory": "488.2 MiB",
            "threads": 2,
            "temp": "976.5 MiB",
            "locked": True,
            "files": False,
            "autoload": False,
        }
    ]
    with Ledger(db) as book:
        con = warehouse.Warehouse(book).connect_read_only()
        try:
            for setting in ("memory_limit = '64GB'", "threads = 64", "enable_external_access = true"):
                with pytest.raises(duckdb.InvalidInputException, match="the configuration has been locked"):
                    con.execute(f"SET {setting}")
        finally:
            con.close()


# --- the engine's own refusals: SQL run on the query connection directly, past check_query ---


@contextlib.contextmanager
def query_connection(db: str) -> Iterator[Any]:
    """The connection ``ledger query`` runs the user's SQL on, with the default limits."""
    with Ledger(db) as book:
        con = warehouse.Warehouse(book).connect_read_only(warehouse.QueryLimits())
        try:
            yield con
        finally:
            con.close()


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO rolls SELECT * FROM rolls",
        "UPDATE warehouse_meta SET value = '0' WHERE key = 'position'",
        "DELETE FROM events",
        "DROP TABLE rolls",
        "CREATE TABLE evil AS SELECT 1 AS x",
    ],
)
def test_the_engine_refuses_to_write_the_warehouse(db: str, sql: str) -> None:
    import duckdb

    before = snapshot(db)
    with query_connection(db) as con, pytest.raises(duckdb.Error, match="read-only mode"):
        con.execute(sql)
    assert snapshot(db) == before


def test_no_database_the_query_connection_reaches_is_writable(db: str) -> None:
    """Read-only is the engine's, for every database the SQL can reach, whatever it runs first. A
    connection started writable, with the warehouse attached read-only and external access
    turned off after, falls to this sequence: it attaches an in-memory database, uses it,
    detaches the warehouse and attaches its file again, writable (DuckDB lets an attached
    database's files be opened once external access is off), or creates a database file in
    the spill folder."""
    import duckdb

    wh = Path(db + ".duckdb")
    spill = wh.with_name(wh.name + ".tmp")  # the spill folder, as a spilling query leaves it while it runs
    made = not spill.exists()
    spill.mkdir(exist_ok=True)
    try:
        before, in_spill = snapshot(db), sorted(spill.iterdir())
        with query_connection(db) as con:
            name = con.execute("SELECT current_database()").fetchone()[0]
            steps = [
                "ATTACH ':memory:' AS scratch",
                "USE scratch",
                f'DETACH "{name}"',
                f"ATTACH '{wh}' AS again",
                "CREATE TABLE again.evil AS SELECT 1 AS x",
                f"ATTACH '{spill / 'evil.duckdb'}' AS spilled",
                "CREATE TABLE spilled.evil AS SELECT 1 AS x",
            ]
            ran = []
            for step in steps:
                try:
                    con.execute(step)
                except duckdb.Error:
                    continue
                ran.append(step)
            writable = con.execute(
                "SELECT database_name FROM duckdb_databases() WHERE NOT readonly AND NOT internal"
            ).fetchall()
        assert not any(step.startswith("CREATE TABLE") for step in ran), ran
        assert snapshot(db) == before, ran
        assert sorted(spill.iterdir()) == in_spill, ran
        assert writable == [], ran
    finally:
        for leftover in ("evil.duckdb", "evil.duckdb.wal"):
            (spill / leftover).unlink(missing_ok=True)
        if made:
            shutil.rmtree(spill, ignore_errors=True)


def test_the_engine_refuses_to_read_or_write_files(db: str, secret: str, tmp_path: Path) -> None:
    import duckdb

    parquet = tmp_path / "hoard.parquet"
    plain = duckdb.connect(config=dict(warehouse.DUCKDB_CONFIG))
    try:
        plain.execute(f"COPY (SELECT 42 AS gold) TO '{parquet}' (FORMAT parquet)")
        assert plain.execute(f"SELECT gold FROM read_parquet('{parquet}')").fetchall() == [(42,)]
    finally:
        plain.close()
    out = tmp_path / "out.csv"
    with query_connection(db) as con:
        for sql in (
            f"SELECT * FROM read_csv('{secret}')",
            f"SELECT * FROM read_parquet('{parquet}')",
            f"SELECT * FROM '{parquet}'",
            f"COPY (SELECT 1 AS x) TO '{out}'",
            f"ATTACH '{tmp_path / 'other.duckdb'}' AS other",
        ):
            with pytest.raises(duckdb.PermissionException):
                con.execute(sql)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hoard.parquet"]


@pytest.mark.parametrize(
    "sql", ["INSTALL httpfs", "LOAD httpfs", "LOAD '/tmp/ledger-no-such.duckdb_extension'"]
)
def test_the_engine_refuses_to_install_or_load_extensions(db: str, sql: str) -> None:
    import duckdb

    with query_connection(db) as con, pytest.raises(duckdb.PermissionException):
        con.execute(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "RESET memory_limit",
        "SET GLOBAL memory_limit = '64GB'",
        "PRAGMA memory_limit = '64GB'",
        "SET max_temp_directory_size = '1TB'",
        "SET temp_directory = '/tmp'",
        "SET python_enable_replacements = true",
        "SET lock_configuration = false",
    ],
)
def test_the_engine_refuses_to_change_a_limit(db: str, sql: str) -> None:
    import duckdb

    with query_connection(db) as con:
        with pytest.raises(duckdb.InvalidInputException, match="the configuration has been locked"):
            con.execute(sql)
        assert con.execute("SELECT current_setting('memory_limit')").fetchone() == ("488.2 MiB",)


def test_the_warehouse_still_answers_after_the_hostile_queries(db: str) -> None:
    ok = hr.invoke(db, "query", "SELECT count(*) AS n FROM rolls", "--json")
    assert ok.exit_code == 0 and '"n": 10' in ok.output


@settings(
    max_examples=int(os.environ.get("LEDGER_HOSTILE_EXAMPLES", "50")) * 4,
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
