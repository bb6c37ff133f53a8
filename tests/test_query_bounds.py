"""`ledger query` bounds its whole process, and what one value and one result may hold
(DuckDB's memory limit does not count a string it builds), and its text output never hands the terminal a control
character from the data: each is written as ``\\xNN``."""

from __future__ import annotations

import sys

import pytest

from ledger.projections.warehouse.query import QueryLimits, process_memory_bound
from tests.conftest import Session


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    s = Session(str(tmp_path_factory.mktemp("bounds") / "q.ledger"))
    s("new", "freeform", "Tomb", "--seed", "3")
    s("roll", "2d6")
    s("stats")  # the warehouse, caught up once
    return s


def one_line_refusal(session: Session, sql: str) -> str:
    result = session("query", sql, ok=False)
    assert result.exit_code == 1, (result.stdout[:200], result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr[:300]
    assert "Traceback" not in result.output
    return result.stderr


@pytest.mark.parametrize(
    ("value", "column"),
    [
        ("repeat('x', 20000000)", "text"),
        ("CAST(repeat('x', 20000000) AS BLOB)", "blob"),
        ("{'gold': repeat('x', 20000000)}", "hoard"),
        ("[repeat('x', 9000000), repeat('y', 9000000)]", "pile"),
    ],
)
def test_one_value_larger_than_the_cap_is_refused_before_it_is_converted(
    session: Session, value: str, column: str
) -> None:
    line = one_line_refusal(session, f"SELECT 1 AS n, {value} AS {column}")
    assert f"a value of column '{column}' holds more than 16 MiB" in line, line
    assert "left(x, 1000)" in line


def test_a_result_larger_than_the_budget_is_stopped_with_a_way_to_narrow_it(session: Session) -> None:
    line = one_line_refusal(session, "SELECT repeat('x', 1000000) AS page FROM range(300)")
    assert "the result holds more than 256 MiB" in line, line
    assert "--limit" in line and "WHERE" in line


ESCAPES = "SELECT chr(27) || '[2J' || chr(27) || ']0;owned' || chr(7) AS \"{head}\", chr(155) || '31m' AS c1, chr(127) AS del"


@pytest.mark.parametrize("form", [(), ("--csv",)])
def test_control_characters_from_the_data_reach_the_terminal_escaped(
    session: Session, form: tuple[str, ...]
) -> None:
    result = session("query", ESCAPES.format(head="x" + chr(27) + "[1m"), *form)
    shown = result.stdout
    assert not any((ord(ch) < 32 and ch != "\n") or 127 <= ord(ch) < 160 for ch in shown), repr(shown)
    assert "\\x1b[2J\\x1b]0;owned\\x07" in shown, shown
    assert "\\x9b31m" in shown and "\\x7f" in shown
    assert "x\\x1b[1m" in shown.splitlines()[0]


PEAK_BOUND_KB = 1536 * 1024
"""The most a `ledger query` process may peak at (max RSS), whatever the SQL builds: DuckDB's
512 MB and the process's headroom, well under 1.5 GB."""

MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux: the ledger's own
print(json.dumps({"code": done.returncode, "stderr": done.stderr, "peak_kb": peak}))
"""


def peak_of_query(db: str, sql: str) -> dict[str, object]:
    """``ledger query SQL`` in a process of its own, with its exit code, stderr and max RSS
    (measured by a parent that runs nothing else)."""
    import json
    import subprocess
    import sys

    args = [sys.executable, "-m", "ledger.cli.main", "--db", db, "query", "--timeout", "60", sql]
    out = subprocess.run([sys.executable, "-c", MEASURE, *args], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    found: dict[str, object] = json.loads(out.stdout)
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process bound reads /proc (Linux)")
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT length(repeat('x', 1000000000)) AS n",
        "SELECT length(repeat('x', 2000000000)) AS n",
        "SELECT unnest(range(0, 200000000)) AS n LIMIT 5",
    ],
)
def test_a_query_that_builds_past_its_memory_is_refused_with_the_process_under_1_5_gb(
    session: Session, sql: str
) -> None:
    """DuckDB's memory limit does not count a string it builds: before, the first query
    peaked at 2 GB and answered, the second at 4 GB, the third at 9.5 GB past a minute."""
    found = peak_of_query(session.db, sql)
    stderr = str(found["stderr"])
    assert found["code"] == 1, found
    assert stderr.count("\n") == 1 and stderr.startswith("error: "), stderr
    assert (
        "the query needs more memory than ledger query allows (512 MB, 896 MB for the whole query" in stderr
    )
    assert int(str(found["peak_kb"])) < PEAK_BOUND_KB, found


def test_the_process_bound_is_lifted_when_the_query_ends() -> None:
    resource = pytest.importorskip("resource")
    before = resource.getrlimit(resource.RLIMIT_DATA)
    with process_memory_bound(QueryLimits()):
        during = resource.getrlimit(resource.RLIMIT_DATA)
    assert resource.getrlimit(resource.RLIMIT_DATA) == before
    if sys.platform.startswith("linux"):
        assert during[0] != resource.RLIM_INFINITY and during[1] == before[1]
