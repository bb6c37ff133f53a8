"""`ledger query` bounds what one value and one result may hold (DuckDB's memory limit does
not count a string it builds), and its text output never hands the terminal a control
character from the data: each is written as ``\\xNN``."""

from __future__ import annotations

import pytest

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
