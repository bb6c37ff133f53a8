"""Where 8 writers on one campaign lose time against one writer, on PostgreSQL.

    python bench/one_campaign.py                # 3 rounds of 1.5 s
    python bench/one_campaign.py --rounds 7 --seconds 2

Each round runs one writer process, then ``--writers`` processes, all recording
``roll 1d20+5`` on the same campaign for ``--seconds``; every process counts the
races it lost (each a refused append and a retry) and its own processor time.
Printed per round: actions per second, lost races per recorded action, the
client processor time per recorded action, and the ratio of the writers' rate to
one writer's (the goal in docs/scaling.md: >= 0.8).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_postgres import PG, schema  # noqa: E402
from ledger import Ledger  # noqa: E402


def _writer(url: str, seconds: float, go: Any, out: Any) -> None:
    from ledger.log.store import Store, VersionConflict

    lost = 0
    append = Store.append

    def counted(self: Store, events: Any) -> None:  # every lost race
        nonlocal lost
        try:
            append(self, events)
        except VersionConflict:
            lost += 1
            raise

    Store.append = counted  # type: ignore[method-assign]
    with Ledger(url) as book:
        for _ in range(3):
            book.roll("1d20+5", "Table")
        go.wait()
        lost = 0
        end = time.perf_counter() + seconds
        done = 0
        start = time.process_time()
        while time.perf_counter() < end:
            book.roll("1d20+5", "Table")
            done += 1
        out.put((done, lost, time.process_time() - start))


def run(url: str, writers: int, seconds: float) -> tuple[float, float, float]:
    """Actions per second, lost races per action, client processor microseconds per action."""
    ctx = mp.get_context("fork")
    go, out = ctx.Barrier(writers), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(url, seconds, go, out)) for _ in range(writers)]
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join()
    done = sum(r[0] for r in results)
    return (
        done / seconds,
        sum(r[1] for r in results) / max(done, 1),
        sum(r[2] for r in results) / max(done, 1) * 1e6,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--writers", type=int, default=8)
    args = parser.parse_args()
    ratios = []
    with schema() as name:
        url = f"{PG}?schema={name}"
        with Ledger(url) as book:
            book.new_campaign("freeform", "Table")
        for r in range(args.rounds):
            one, _, cpu_one = run(url, 1, args.seconds)
            many, lost, cpu_many = run(url, args.writers, args.seconds)
            ratios.append(many / one)
            print(
                f"round {r + 1}: 1 writer {one:,.0f}/s, {cpu_one:.0f} us a recorded action | "
                f"{args.writers} writers {many:,.0f}/s, {lost:.2f} lost races and {cpu_many:.0f} us "
                f"a recorded action | {many / one:.2f}x 1 writer",
                flush=True,
            )
        with Ledger(url) as book:
            book.verify("Table")  # raises at the first bad event
    print(
        f"{args.writers} writers on one campaign: {statistics.median(ratios):.2f}x 1 writer (median; goal 0.8)"
    )


if __name__ == "__main__":
    main()
