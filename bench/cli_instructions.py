"""The command line figures of ``bench/run.py`` counted in instructions, not timed.

    python bench/cli_instructions.py                  # 300 simulated crawl campaigns
    python bench/cli_instructions.py --db /tmp/stats.ledger

A wall-clock ratio against the dependency floor moves with the machine's load (the
floor itself took 160 ms on a quiet run and 600 ms beside the test suites); the number of
instructions a process executes does not. Each command runs once under valgrind's
callgrind, as ``bench/run.py`` runs it (right after one new action where it says so), and
its instructions are read against those of the floor (``import click, msgspec, duckdb,
eventsourcing.sqlite``), the goal printed beside each. The count leaves out what a wall
clock sees and an instruction count does not: waiting on the disk, and DuckDB's threads
working in parallel, which on an idle machine make a warm ``stats`` some 0.05-0.1x of the
floor quicker than its instructions say. Needs valgrind (``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import CLI_GOALS  # noqa: E402

FLOOR = "import click, msgspec, duckdb, eventsourcing.sqlite"
ONE_ACTION = ["-c", "sim-crawl-1-00001", "note", "between two rolls"]
COMMANDS: dict[str, tuple[list[str], bool]] = {
    "roll": (["roll", "2d6", "--label", "bench"], False),
    "help": (["--help"], False),
    "stats": (["stats", "--simulated", "--report", "luck"], True),
    "query": (["query", "SELECT count(*) FROM events"], True),
    "stats, nothing new": (["stats", "--report", "luck"], False),
}
"""Each figure's command line and whether one new action is recorded right before it (as
``bench/run.py`` times them)."""


def instructions(args: list[str], env: dict[str, str]) -> int:
    """The instructions ``args`` executes, all its threads counted (callgrind's ``Ir``)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"valgrind said no count: {done.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--db", default=None, help="a ledger of simulated crawl campaigns (made when not given)"
    )
    parser.add_argument("--campaigns", type=int, default=300)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: no instruction counts (apt-get install valgrind)")
        return
    exe = str(Path(sys.executable).with_name("ledger"))
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        db = tmp / "stats.ledger"
        # As on a user's machine: compiled bytecode is written once and reused.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(LEDGER_DB=str(db), LEDGER_WAREHOUSE=str(tmp / "stats.duckdb"))
        if args.db:
            shutil.copyfile(args.db, db)
        else:
            simulate = ["simulate", "crawl", "--campaigns", str(args.campaigns), "--seed", "1"]
            subprocess.run([exe, *simulate], env=env, check=True, capture_output=True)
        # As bench/run.py: `roll` and `--help` on a ledger of their own, so that the roll
        # is no part of what the statistics after one action catch up.
        table_env = {**env, "LEDGER_DB": str(tmp / "cli.ledger")}
        table_env.pop("LEDGER_WAREHOUSE")
        subprocess.run([exe, "new", "freeform", "Table"], env=table_env, check=True, capture_output=True)
        envs = {key: table_env if key in ("roll", "help") else env for key in COMMANDS}
        floor = [sys.executable, "-c", FLOOR]
        for key, (command, _) in COMMANDS.items():  # the bytecode compiled, the warehouse built
            subprocess.run([exe, *command], env=envs[key], check=True, capture_output=True)
        subprocess.run(floor, env=env, check=True)
        base = instructions(floor, env)
        print(f"dependency floor ({FLOOR}): {base / 1e6:,.0f} M instructions")
        for label, key, goal in CLI_GOALS:
            command, after_action = COMMANDS[key]
            if after_action:
                subprocess.run([exe, *ONE_ACTION], env=env, check=True, capture_output=True)
            count = instructions([exe, *command], envs[key])
            ratio = count / base
            verdict = "met" if ratio <= goal else "MISSED"
            print(f"  {label:<36}{count / 1e6:>9,.0f} M  {ratio:5.2f}x floor (goal {goal}: {verdict})")


if __name__ == "__main__":
    main()
