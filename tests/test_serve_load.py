"""The live table's load benchmark (``bench/serve_load.py``) in its quick mode: two tables
of five seats, every stream receiving every event once, on SQLite with one server process
and on PostgreSQL with two. Its timings are the benchmark's to print, not asserted here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PG_URL, postgres_available

BENCH = Path(__file__).resolve().parents[1] / "bench" / "serve_load.py"


def quick(*store: str) -> str:
    run = subprocess.run(
        [sys.executable, str(BENCH), "--quick", *store],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LEDGER_BENCH_PG": PG_URL},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_quick_run_on_sqlite_loses_and_repeats_no_event() -> None:
    out = quick("--no-postgres")
    assert "== sqlite: 1 ledger serve process ==" in out
    assert re.findall(r"lost (\d+)  duplicated (\d+)", out) == [("0", "0")], out
    assert re.search(r"2 tables +[1-9]\d* actions", out), out


@pytest.mark.postgres
def test_quick_run_on_postgresql_with_two_processes_loses_and_repeats_no_event() -> None:
    why = postgres_available()
    if why:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {why}")
        pytest.skip(why)
    out = quick("--no-sqlite")
    assert "== postgresql: 2 ledger serve processes ==" in out
    assert re.findall(r"lost (\d+)  duplicated (\d+)", out) == [("0", "0")], out
    assert re.search(r"2 tables +[1-9]\d* actions", out), out
