"""How many tables of players one PostgreSQL serves: an open-loop load of many campaigns.

    python bench/capacity.py                          # 400 campaigns, 50 actions per s, then 1.5 times more
    python bench/capacity.py --tables 2000 --seconds 8 --workers 4

Each of ``--workers`` processes holds one ``Ledger`` and plays its share of
``--tables`` campaigns (freeform, four characters): actions (a roll, now and
then a note) arrive at random (Poisson) at the offered rate, spread evenly
over the campaigns, whether or not the last one has finished. Latency is
measured from the moment an action was due, so a server that falls behind
shows it. The offered rate grows by ``--factor`` until the 99th percentile exceeds
``--p99-ms`` or fewer than 97% of the offered actions complete; the last rate
that held is the capacity. Afterwards every campaign's versions are checked
contiguous and every chain verified.

From the capacity, the number of tables it serves at ``--per-hour`` actions per
table per hour of play, all playing at once (the evening peak), is printed.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from bench.bench_postgres import PG, check_contiguous, schema  # noqa: E402
from ledger import Ledger  # noqa: E402

PLAYERS = ("Ana", "Bo", "Cyr", "Dee")


def _player(url: str, names: list[str], rate: float, seconds: float, seed: int, go: Any, out: Any) -> None:
    rng = random.Random(seed)
    latencies: list[float] = []
    with Ledger(url) as book:
        for name in names:
            book.tip(book.campaign(name))  # each campaign's head state, in memory as a server keeps it
        go.wait()
        start = time.perf_counter()
        due = start
        end = start + seconds
        while True:
            due += rng.expovariate(rate)
            if due >= end:
                break
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            name = rng.choice(names)
            who = rng.choice(PLAYERS)
            if rng.random() < 0.1:
                book.note("the torch gutters", name, actor=who)
            else:
                book.roll(rng.choice(("1d20+5", "2d6", "4d6kh3", "3d6>=5")), name, actor=who)
            latencies.append(time.perf_counter() - due)
    out.put(latencies)


def offer(url: str, names: list[str], rate: float, seconds: float, workers: int) -> tuple[float, list[float]]:
    """Offer ``rate`` actions per second for ``seconds``; the completed rate and the latencies."""
    ctx = mp.get_context("fork")
    go = ctx.Barrier(workers)
    out = ctx.Queue()
    shares = [names[i::workers] for i in range(workers)]
    procs = [
        ctx.Process(target=_player, args=(url, share, rate / workers, seconds, i, go, out))
        for i, share in enumerate(shares)
    ]
    for p in procs:
        p.start()
    latencies: list[float] = []
    for _ in procs:
        latencies.extend(out.get(timeout=seconds * 20 + 120))
    for p in procs:
        p.join()
    return len(latencies) / seconds, latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=400, help="campaigns played at once")
    parser.add_argument("--workers", type=int, default=4, help="writer processes sharing them")
    parser.add_argument("--seconds", type=float, default=6.0, help="length of each step")
    parser.add_argument("--start", type=float, default=50.0, help="first offered rate, actions per s")
    parser.add_argument("--p99-ms", type=float, default=250.0, help="the latency a step must hold")
    parser.add_argument("--factor", type=float, default=1.5, help="how much each step offers more")
    parser.add_argument("--per-hour", type=float, default=300.0, help="actions per table per hour of play")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {PG}")
    print(f"{args.tables} campaigns, {args.workers} writer processes, {args.seconds:g} s per step")
    with schema() as name:
        url = f"{PG}?schema={name}"
        names = [f"table-{i:05d}" for i in range(args.tables)]
        with Ledger(url) as book:
            for n in names:
                book.new_campaign("freeform", n)
                for p in PLAYERS:
                    book.add_character(p, n)
        held = 0.0
        rate = args.start
        while True:
            done, lat = offer(url, names, rate, args.seconds, args.workers)
            lat.sort()
            p50 = statistics.median(lat) * 1000 if lat else float("inf")
            p99 = lat[int(len(lat) * 0.99) - 1] * 1000 if lat else float("inf")
            ok = p99 <= args.p99_ms and done >= 0.97 * rate
            print(
                f"  offered {rate:7,.0f}/s  completed {done:7,.0f}/s  p50 {p50:7.1f} ms  p99 {p99:8.1f} ms"
                f"  {'holds' if ok else 'falls behind'}",
                flush=True,
            )
            if not ok:
                break
            held = rate
            rate *= args.factor
        with Ledger(url) as book:
            for n in names:
                book.verify(n)
        check_contiguous(name)
        with psycopg.connect(PG, autocommit=True) as conn:
            size, rows = conn.execute(
                f'SELECT pg_total_relation_size(\'"{name}".ledger_events\'), count(*) FROM "{name}".ledger_events'
            ).fetchone()  # type: ignore[misc]
    print(f"capacity: {held:,.0f} actions per s held (p99 <= {args.p99_ms:g} ms)")
    if held:
        tables = held * 3600 / args.per_hour
        print(f"  = {tables:,.0f} tables playing at once, at {args.per_hour:g} actions per table per hour")
    print(f"storage: {size / rows:,.0f} bytes per event on disk (table and indexes, {rows:,} events)")


if __name__ == "__main__":
    main()
