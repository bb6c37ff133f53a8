"""Warm `stats` and `query` of this checkout beside those of another, in the same rounds.

    git worktree add /tmp/before base2
    python3 -m venv /tmp/before/.venv && /tmp/before/.venv/bin/pip install -q -e /tmp/before
    python bench/cli_before_after.py --before /tmp/before/.venv/bin/python --db /tmp/stats.ledger

Each side runs under its own Python environment (``--before`` names the earlier install's
interpreter; this one's is the running one), since an editable install maps ``ledger.cli``
and ``ledger.projections`` to its own checkout. Each side works on its own copy of the ledger (``--db``, with 300 simulated crawl campaigns:
``ledger simulate crawl --campaigns 300 --seed 1``) and its own warehouse beside it; each command
runs right after one new note, recorded by the same side, and every round also times the import
floor, so on a loaded machine each figure is read against the floor and the other side of its own
round.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN = "import sys; from ledger.cli.main import cli; sys.exit(cli())"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the Python of an install of the earlier code")
    parser.add_argument("--db", required=True, help="a ledger of simulated crawl campaigns")
    parser.add_argument("--campaign", default="sim-crawl-1-00001")
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    home = str(Path.home())
    folder = Path(tempfile.mkdtemp(prefix="cli-before-after-"))
    sides: dict[str, tuple[str, dict[str, str]]] = {}
    for side, python in (("before", args.before), ("now", sys.executable)):
        db = folder / f"{side}.ledger"  # a copy each: the two layouts would rebuild each other's warehouse
        shutil.copyfile(args.db, db)
        sides[side] = (python, {**base, "LEDGER_DB": str(db), "LEDGER_WAREHOUSE": f"{db}.duckdb"})

    Step = tuple[list[str], dict[str, str]]

    def cmd(side: str, *words: str) -> Step:
        python, env = sides[side]
        return [python, "-c", RUN, *words], env

    def note(side: str) -> Step:
        return cmd(side, "-c", args.campaign, "note", "between two rolls")

    floor: Step = ([sys.executable, "-c", "import click, msgspec, duckdb, eventsourcing.sqlite"], base)
    commands: dict[str, tuple[Step, Step | None]] = {"floor": (floor, None)}
    for side in ("before", "now"):
        commands[f"stats, {side}"] = (cmd(side, "stats", "--report", "luck"), note(side))
        commands[f"query, {side}"] = (cmd(side, "query", "SELECT count(*) FROM events"), note(side))
    samples: dict[str, list[float]] = {k: [] for k in commands}
    try:
        for (words, env), _ in commands.values():  # the bytecode compiled, the warehouses built
            subprocess.run(words, env=env, cwd=home, check=True, capture_output=True)
        for _ in range(args.rounds):
            for key, ((words, env), first) in commands.items():
                if first is not None:
                    subprocess.run(first[0], env=first[1], cwd=home, check=True, capture_output=True)
                start = time.perf_counter()
                subprocess.run(words, env=env, cwd=home, check=True, capture_output=True)
                samples[key].append(time.perf_counter() - start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    floor_med = statistics.median(samples["floor"])
    print(f"load average {os.getloadavg()[0]:.1f}, medians of {args.rounds} interleaved rounds")
    for key, times in samples.items():
        paired = sorted(a / b for a, b in zip(times, samples["floor"], strict=True))
        mid = f"{paired[len(paired) // 4]:.2f}-{paired[(3 * len(paired)) // 4]:.2f}x"
        med = statistics.median(times)
        print(f"  {key:<16}{med * 1000:8.1f} ms  {med / floor_med:5.2f}x floor  (per round {mid})")
    for name in ("stats", "query"):
        ratio = statistics.median(samples[f"{name}, now"]) / statistics.median(samples[f"{name}, before"])
        print(f"  {name}: now {ratio:.2f}x the time before")


if __name__ == "__main__":
    main()
