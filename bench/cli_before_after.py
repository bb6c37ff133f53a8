"""Warm `stats` and `query` of this checkout beside those of another, in the same rounds.

    git archive base2 | tar -x -C /tmp/before
    python bench/cli_before_after.py --before /tmp/before --db /tmp/stats.ledger --rounds 11

The ledger (``--db``, with 300 simulated crawl campaigns: ``ledger simulate crawl --campaigns 300
--seed 1``) and its warehouse are shared; each command runs right after one new note, recorded by
the same checkout, and every round also times the import floor, so on a loaded machine each
figure is read against the floor and the other checkout of its own round.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = "import sys; from ledger.cli.main import cli; sys.exit(cli())"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a checkout of the earlier code")
    parser.add_argument("--db", required=True, help="a ledger of simulated crawl campaigns")
    parser.add_argument("--campaign", default="sim-crawl-1-00001")
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(LEDGER_DB=args.db, LEDGER_WAREHOUSE=args.db + ".duckdb")
    py = sys.executable

    def cmd(where: str, *words: str) -> tuple[list[str], str]:
        return [py, "-c", RUN, *words], where

    def note(where: str) -> tuple[list[str], str]:
        return cmd(where, "-c", args.campaign, "note", "between two rolls")

    now, before = str(ROOT), str(Path(args.before).resolve())
    floor = ([py, "-c", "import click, msgspec, duckdb, eventsourcing.sqlite"], now)
    commands = {
        "floor": (floor, None),
        "stats, before": (cmd(before, "stats", "--report", "luck"), note(before)),
        "stats, now": (cmd(now, "stats", "--report", "luck"), note(now)),
        "query, before": (cmd(before, "query", "SELECT count(*) FROM events"), note(before)),
        "query, now": (cmd(now, "query", "SELECT count(*) FROM events"), note(now)),
    }
    samples: dict[str, list[float]] = {k: [] for k in commands}
    for (words, cwd), _ in commands.values():  # the bytecode, compiled once
        subprocess.run(words, env=env, cwd=cwd, check=True, capture_output=True)
    for _ in range(args.rounds):
        for key, ((words, cwd), first) in commands.items():
            if first is not None:
                subprocess.run(first[0], env=env, cwd=first[1], check=True, capture_output=True)
            start = time.perf_counter()
            subprocess.run(words, env=env, cwd=cwd, check=True, capture_output=True)
            samples[key].append(time.perf_counter() - start)
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
