"""Benchmark: build the statistics warehouse from a large log.

Fills a SQLite ledger with about ``--events`` events (freeform campaigns of
rolls through the bulk path, plus crawl campaigns played by the autoplayer
when the crawl system is installed), then measures, in the same run:

* the warehouse rebuilt from the whole log (events per second);
* DuckDB's own ``read_json`` loading the same events, written as JSON lines,
  into a table (the yardstick: the goal is at least half its rate);
* reading the same events out of the store alone (a floor the warehouse
  cannot go under, shown to explain the gap);
* the three most common reports (luck, rolls, survival) on that data.

Each measure also prints its processor time (all threads): on a machine of
``n`` cores, a job can take no less wall time than its processor time over ``n``.

Usage: ``python bench/bench_warehouse.py [--events 1000000] [--db PATH] [--keep] [--repeat 3]``.
Not a test: it prints numbers, it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import tempfile
import time
from pathlib import Path

from ledger import Ledger
from ledger.deciding.commands import AddCharacter, Roll
from ledger.play.simulate import Simulator, plan
from ledger.projections.stats.reports import Scope, luck, rolls, survival
from ledger.projections.warehouse.loading import Warehouse
from ledger.projections.warehouse.paths import duckdb_config
from ledger.systems import system_names

NOTATIONS = ("1d20>=11", "1d20>=15", "3d6>=5", "5d6>=6", "2d6+1", "4d6kh3", "1d8+2")
PER_CAMPAIGN = 10_000


def fill(book: Ledger, events: int) -> None:
    """About ``events`` events: a tenth from crawl (if installed), the rest freeform rolls."""
    start = time.perf_counter()
    if "crawl" in system_names():
        target = events // 10
        run = plan("crawl", max(1, target // 200), 1, prefix="bench-crawl")
        with Simulator(book, "crawl", 40) as simulator:
            for name, seed in zip(run.names, run.seeds, strict=True):
                simulator.play(name, seed)
                if book.store.max_notification_id() >= target:
                    break
    rng = random.Random(1)
    i = 0
    while book.store.max_notification_id() < events:
        i += 1
        name = f"bench-freeform-{i:04d}"
        book.new_campaign("freeform", name, seed=i)
        left = events - book.store.max_notification_id()
        with book.batch(name) as batch:
            party = ("Ada", "Bram", "Cora")
            for who in party:
                batch.execute(AddCharacter(name=who), name)
            for _ in range(max(1, min(PER_CAMPAIGN, left - 4))):
                batch.execute(Roll(notation=rng.choice(NOTATIONS)), name, actor=rng.choice(party))
    took = time.perf_counter() - start
    print(f"log: {book.store.max_notification_id():,} events written in {took:.1f}s")


def json_lines(book: Ledger, path: Path) -> int:
    """The stored events as JSON lines (what the warehouse reads, byte for byte)."""
    n = pos = 0
    with path.open("wb") as out:
        while rows := book.store.states_after(pos, 250_000):
            out.writelines(state + b"\n" for _, _, state in rows)
            n += len(rows)
            pos = rows[-1][0]
    return n


def processor_seconds() -> float:
    """Processor time used by this process so far, all threads, user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Timer:
    """Wall and processor seconds of one measure."""

    def __enter__(self) -> Timer:
        self.wall, self.cpu = time.perf_counter(), processor_seconds()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = processor_seconds() - self.cpu


def store_read(book: Ledger) -> Timer:
    """Page every stored event out of the store, as the warehouse does."""
    with Timer() as t:
        pos = 0
        while rows := book.store.states_after(pos, 250_000):
            pos = rows[-1][0]
    return t


def read_json(path: Path, database: str = ":memory:") -> Timer:
    """DuckDB's own ``read_json`` of the events into one table (in memory, or in a file
    and checkpointed, as the warehouse is)."""
    import duckdb

    Path(database).unlink(missing_ok=True)
    con = duckdb.connect(database, config=duckdb_config())
    columns = (
        "{'v': 'INTEGER', 'campaign': 'VARCHAR', 'action': 'VARCHAR', 'at': 'VARCHAR', "
        "'day': 'INTEGER', 'actor': 'VARCHAR', 'last_reset': 'INTEGER', 'prev': 'VARCHAR', "
        "'event': 'JSON', 'hash': 'VARCHAR'}"
    )
    with Timer() as t:
        con.execute(
            f"CREATE TABLE raw AS SELECT * FROM read_json('{path}', format='newline_delimited', "
            f"columns={columns})"
        )
        if database != ":memory:":
            con.execute("CHECKPOINT")
    con.close()
    Path(database).unlink(missing_ok=True)
    return t


def rebuild(wh: Warehouse) -> Timer:
    with Timer() as t:
        wh.rebuild()
    return t


def line(what: str, n: int, t: Timer) -> None:
    print(f"{what}: {n:,} events in {t.wall:.2f}s = {n / t.wall:,.0f} events/s (processor time {t.cpu:.2f}s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--db", default=None, help="Ledger file (default: a temporary one).")
    parser.add_argument("--keep", action="store_true", help="Reuse --db if it already holds the events.")
    parser.add_argument("--repeat", type=int, default=3, help="Runs of each measure (the best is kept).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-wh-") as tmp:
        db = Path(args.db or Path(tmp) / "bench.ledger")
        if db.exists() and not args.keep:
            raise SystemExit(f"{db} exists; pass --keep to reuse it or choose another --db")
        with Ledger(str(db)) as book:
            if book.store.max_notification_id() < args.events:
                fill(book, args.events)
            wh = Warehouse(book, Path(tmp) / "bench.duckdb")
            jsonl = Path(tmp) / "events.jsonl"
            n = json_lines(book, jsonl)
            # Interleaved repeats, the best of each kept: the machine's noise hits all alike.
            best: dict[str, Timer] = {}
            for _ in range(args.repeat):
                timers = {
                    "warehouse rebuild": rebuild(wh),
                    "duckdb read_json in memory": read_json(jsonl),
                    "duckdb read_json into a file": read_json(jsonl, str(Path(tmp) / "rj.duckdb")),
                    "reading the events out of the store alone": store_read(book),
                }
                for what, t in timers.items():
                    if what not in best or t.wall < best[what].wall:
                        best[what] = t
            print(f"best of {args.repeat} runs each, on {os.cpu_count()} cores:")
            for what, t in best.items():
                line(what, n, t)
            built, yardstick = best["warehouse rebuild"], best["duckdb read_json in memory"]
            print(f"warehouse / read_json: {yardstick.wall / built.wall:.2f} (goal: at least 0.5)")
            on_disk = best["duckdb read_json into a file"].wall / built.wall
            print(f"warehouse / read_json into a file: {on_disk:.2f} (for context)")
            print(
                f"processor time, warehouse / read_json: {built.cpu / yardstick.cpu:.1f}x "
                f"(the goal leaves {2 * yardstick.wall * (os.cpu_count() or 1):.2f}s on "
                f"{os.cpu_count()} cores)"
            )
            con = wh.connect_read_only()
            for name, report in (("luck", luck), ("rolls", rolls), ("survival", survival)):
                report(con, Scope(simulated=True))  # warm
                start = time.perf_counter()
                report(con, Scope(simulated=True))
                ms = (time.perf_counter() - start) * 1000
                print(f"report {name}: {ms:.1f} ms (goal: under 100 ms)")
            con.close()


if __name__ == "__main__":
    main()
