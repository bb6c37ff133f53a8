"""PostgreSQL writers, bulk append and replay, each against its raw limit in the same run.

    python bench/bench_postgres.py                    # writers, then bulk and replay of 100,000 events
    python bench/bench_postgres.py --seconds 2 --rounds 3 --events 20000

Figures (each the best of ``--rounds`` interleaved rounds, so that the load
other processes put on the machine falls on the baseline and on the ledger
alike):

- one writer: ``Ledger.roll`` in a loop on one campaign, against raw
  single-row ``INSERT`` transactions of a 300-byte JSON into a table of the
  same shape (one ``psycopg`` connection in autocommit mode);
- 8 writers on 8 campaigns: their total against one writer, beside raw
  inserts' own scaling from 1 to 8 connections; the goal is the ledger's
  scaling at >= 0.7 of raw's;
- 8 writers sharing one campaign: their total against one writer (every
  event of a campaign follows the one before it, so one writer's rate is the
  most a campaign can take);
- bulk append: the store's append of sealed events (the path simulate and
  import share) and ``Ledger.import_`` of an export (which also checks every
  hash), against ``COPY`` of the same bytes into a table of the same shape in
  one transaction;
- replay: folding a campaign from the store against a raw ``SELECT`` of the
  states + msgspec decode + the same fold.

After the writers run, every campaign's versions are checked contiguous and
its chain verified.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from ledger import Ledger  # noqa: E402

PG = os.environ.get("LEDGER_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
PAYLOAD = (b'{"kind":"dice.rolled","notation":"1d20+5","faces":[17],"total":22,"label":"' + b"x" * 300)[
    :299
] + b"}"
RAW_TABLE = (
    "CREATE TABLE {t} (originator_id text NOT NULL, originator_version bigint NOT NULL, topic text, "
    "state bytea, notification_id bigserial, PRIMARY KEY (originator_id, originator_version)); "
    "CREATE UNIQUE INDEX ON {t} (notification_id)"
)


@contextmanager
def schema() -> Iterator[str]:
    name = f"benchpg_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


# --- writers ------------------------------------------------------------------


def _raw_writer(table: str, stream: str, seconds: float, go: Any, out: Any) -> None:
    with psycopg.connect(PG, autocommit=True) as conn:
        sql = f"INSERT INTO {table} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)"
        v = 0
        for _ in range(5):
            v += 1
            conn.execute(sql, (stream, v, "k", PAYLOAD))
        go.wait()
        end = time.perf_counter() + seconds
        done = 0
        while time.perf_counter() < end:
            v += 1
            conn.execute(sql, (stream, v, "k", PAYLOAD))
            done += 1
        out.put(done)


def _ledger_writer(url: str, campaign: str, seconds: float, go: Any, out: Any) -> None:
    from ledger.errors import ConflictError

    with Ledger(url) as book:
        for _ in range(3):
            book.roll("1d20+5", campaign)
        go.wait()
        end = time.perf_counter() + seconds
        done = 0
        while time.perf_counter() < end:
            try:
                book.roll("1d20+5", campaign)
                done += 1
            except ConflictError:
                pass
        out.put(done)


def run_writers(target: Callable[..., None], args: list[tuple[Any, ...]], seconds: float) -> float:
    """Start one process per argument tuple, let them write for ``seconds``; total per second."""
    ctx = mp.get_context("fork")
    go = ctx.Barrier(len(args))
    out = ctx.Queue()
    procs = [ctx.Process(target=target, args=(*a, seconds, go, out)) for a in args]
    for p in procs:
        p.start()
    total = sum(out.get(timeout=seconds + 120) for _ in procs)
    for p in procs:
        p.join()
    return total / seconds


def bench_writers(seconds: float, rounds: int, writers: int = 8) -> dict[str, float]:
    with schema() as name:
        url = f"{PG}?schema={name}"
        table = f'"{name}".raw_events'
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(RAW_TABLE.format(t=table))
        with Ledger(url) as book:
            for i in range(writers):
                book.new_campaign("freeform", f"Table {i}")
        best: dict[str, float] = {}

        def keep(key: str, rate: float) -> None:
            best[key] = max(best.get(key, 0.0), rate)

        raw, ours, ratio = one_writer_interleaved(url, table, blocks=max(10, int(seconds * 10)))
        best["interleaved raw"], best["interleaved ledger"], best["interleaved ratio"] = raw, ours, ratio
        best["cpu raw"], best["cpu append"], best["cpu roll"] = client_cpu(url, table)
        for r in range(rounds):
            keep("raw 1", run_writers(_raw_writer, [(table, f"raw-1-{r}")], seconds))
            keep("ledger 1", run_writers(_ledger_writer, [(url, "Table 0")], seconds))
            keep(
                "raw 8",
                run_writers(_raw_writer, [(table, f"raw-8-{r}-{i}") for i in range(writers)], seconds),
            )
            keep(
                "ledger 8 separate",
                run_writers(_ledger_writer, [(url, f"Table {i}") for i in range(writers)], seconds),
            )
            keep("ledger 8 shared", run_writers(_ledger_writer, [(url, "Table 0")] * writers, seconds))
        with Ledger(url) as book:
            for i in range(writers):
                book.verify(f"Table {i}")  # raises at the first bad event
        check_contiguous(name)
    return best


def one_writer_interleaved(url: str, table: str, blocks: int, size: int = 50) -> tuple[float, float, float]:
    """One connection and one Ledger in this process, alternating blocks of ``size`` raw
    inserts and ``size`` rolls, so that every moment's load falls on both alike: the
    median raw rate, the median ledger rate, and the median of the blocks' ratios."""
    sql = f"INSERT INTO {table} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)"
    raw_rates, ours_rates, ratios = [], [], []
    with psycopg.connect(PG, autocommit=True) as conn, Ledger(url) as book:
        for _ in range(3):
            book.roll("1d20+5", "Table 0")
        v = 0
        for _ in range(blocks):
            start = time.perf_counter()
            for _ in range(size):
                v += 1
                conn.execute(sql, ("interleaved", v, "k", PAYLOAD))
            raw = size / (time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(size):
                book.roll("1d20+5", "Table 0")
            ours = size / (time.perf_counter() - start)
            raw_rates.append(raw)
            ours_rates.append(ours)
            ratios.append(ours / raw)
    return statistics.median(raw_rates), statistics.median(ours_rates), statistics.median(ratios)


def client_cpu(url: str, table: str, blocks: int = 20, size: int = 50) -> tuple[float, float, float]:
    """Processor time of this process per action, in microseconds (median of blocks):
    a raw insert of a 500-byte row, ``Store.append`` of the same row, ``Ledger.roll``."""
    state = b'{"x":"' + b"y" * 490 + b'"}'
    sql = f"INSERT INTO {table} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)"
    raw, append, roll = [], [], []
    with psycopg.connect(PG, autocommit=True) as conn, Ledger(url) as book:
        book.roll("1d20+5", "Table 1")
        v = 0
        for _ in range(blocks):
            start = time.process_time()
            for i in range(size):
                conn.execute(sql, ("cpu-raw", v + i + 1, "dice.rolled", state))
            raw.append((time.process_time() - start) / size * 1e6)
            start = time.process_time()
            for i in range(size):
                book.store.append([("cpu-append", v + i + 1, "dice.rolled", state)])
            append.append((time.process_time() - start) / size * 1e6)
            v += size
            start = time.process_time()
            for _ in range(size):
                book.roll("1d20+5", "Table 1")
            roll.append((time.process_time() - start) / size * 1e6)
    return statistics.median(raw), statistics.median(append), statistics.median(roll)


def check_contiguous(name: str) -> None:
    """Every stream's versions run 1..n with no gap and no repeat."""
    with psycopg.connect(PG, autocommit=True) as conn:
        bad = conn.execute(
            f'SELECT originator_id FROM "{name}".ledger_events GROUP BY originator_id '
            "HAVING max(originator_version) <> count(*) OR min(originator_version) <> 1"
        ).fetchall()
    assert not bad, f"streams with gaps: {bad}"


def print_writers(best: dict[str, float], writers: int = 8) -> None:
    raw1, ours1 = best["raw 1"], best["ledger 1"]
    raw_scale = best["raw 8"] / raw1
    sep_scale = best["ledger 8 separate"] / ours1
    shared = best["ledger 8 shared"] / ours1
    _show("raw single-row INSERT, 1 connection", best["interleaved raw"], "/s", "(blocks of 50, median)")
    _show(
        "postgresql 1 writer (Ledger.roll)",
        best["interleaved ledger"],
        "/s",
        f"{best['interleaved ratio']:5.2f}x raw (goal 0.5; the median block's ratio)",
    )
    print(
        f"{'client processor time per action':<40}raw insert {best['cpu raw']:.0f} us, Store.append "
        f"{best['cpu append']:.0f} us, Ledger.roll {best['cpu roll']:.0f} us (psycopg {psycopg.pq.__impl__})"
    )
    _show("raw, 1 writer process", raw1, "/s", "(best of the rounds, for the scaling below)")
    _show("postgresql, 1 writer process", ours1, "/s", f"{ours1 / raw1:5.2f}x raw")
    _show(f"raw single-row INSERT, {writers} connections", best["raw 8"], "/s", f"x{raw_scale:4.2f} of 1")
    _show(
        f"postgresql {writers} writers, {writers} campaigns",
        best["ledger 8 separate"],
        "/s",
        f"x{sep_scale:4.2f} of 1 writer: {sep_scale / raw_scale:4.2f} of raw's scaling (goal 0.7)",
    )
    _show(
        f"postgresql {writers} writers, 1 campaign",
        best["ledger 8 shared"],
        "/s",
        f"{shared:5.2f}x 1 writer (goal 0.8)",
    )


# --- bulk append and replay ---------------------------------------------------------


def bench_bulk(events: int, rounds: int) -> None:
    """Build a campaign of ``events`` events in SQLite, export it, and measure it on PostgreSQL."""
    from bench.workload import build_campaign

    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "export.jsonl"
        with Ledger(str(Path(tmp) / "source.ledger")) as book:
            name = build_campaign(book, events)
            with export.open("wb") as out:
                book.export(out, name)
        bulk_figures(export, rounds)


def bulk_figures(export: Path, rounds: int) -> None:
    """Bulk append and replay on PostgreSQL against COPY and a raw SELECT + decode + fold."""
    import msgspec

    from ledger.log.events import envelope_decoder
    from ledger.log.state import CampaignState, evolve

    with export.open("rb") as f:
        next(f)
        raws = [line.rstrip(b"\n") for line in f]
    rows = [("bench", i, "k", raw) for i, raw in enumerate(raws, start=1)]
    cols = "(originator_id, originator_version, topic, state)"
    with schema() as sname:
        url = f"{PG}?schema={sname}"
        t_copy = t_append = t_import = t_raw_replay = t_replay = float("inf")
        for r in range(rounds):
            table = f'"{sname}".copy_{r}'
            with psycopg.connect(PG, autocommit=True) as conn:
                conn.execute(RAW_TABLE.format(t=table))
                start = time.perf_counter()
                with (
                    conn.transaction(),
                    conn.cursor() as cur,
                    cur.copy(f"COPY {table} {cols} FROM STDIN") as copy,
                ):
                    for row in rows:
                        copy.write_row(row)
                t_copy = min(t_copy, time.perf_counter() - start)
            with Ledger(url) as book:
                start = time.perf_counter()
                book.store.append([(f"bench-{r}", v, t, b) for _, v, t, b in rows])
                t_append = min(t_append, time.perf_counter() - start)
            with Ledger(url) as book, export.open("rb") as f:
                start = time.perf_counter()
                book.import_(f, f"imported-{r}")
                t_import = min(t_import, time.perf_counter() - start)
        with Ledger(url) as book:
            c = book.campaign(f"imported-{rounds - 1}")
            system = book.system(c)
            stream = c.lineage[-1][0]
            decode = envelope_decoder(system.name).decode
            for _ in range(rounds):
                start = time.perf_counter()
                with psycopg.connect(PG, autocommit=True) as conn, conn.cursor() as cur:
                    state = CampaignState()
                    cur.execute(
                        f'SELECT state FROM "{sname}".ledger_events WHERE originator_id = %s '
                        "ORDER BY originator_version",
                        (stream,),
                    )
                    for (raw,) in cur:
                        state = evolve(state, decode(raw), system)
                t_raw_replay = min(t_raw_replay, time.perf_counter() - start)
                start = time.perf_counter()
                ours = book.state_at(c, book.head(c), system, use_snapshots=False)
                t_replay = min(t_replay, time.perf_counter() - start)
            assert msgspec.json.encode(ours) == msgspec.json.encode(state)
        with psycopg.connect(PG, autocommit=True) as conn:
            size, count = conn.execute(
                f'SELECT pg_total_relation_size(\'"{sname}".ledger_events\'), count(*) FROM "{sname}".ledger_events'
            ).fetchone()  # type: ignore[misc]
    n = len(raws)
    show = _show
    show("raw COPY of the same bytes", n / t_copy, "ev/s")
    show(
        "postgresql bulk append (sealed events)",
        n / t_append,
        "ev/s",
        f"{t_copy / t_append:5.2f}x COPY (goal 0.5)",
    )
    show("postgresql import (verify + append)", n / t_import, "ev/s", f"{t_copy / t_import:5.2f}x COPY")
    show("raw SELECT + decode + fold", n / t_raw_replay, "ev/s")
    show("postgresql replay", n / t_replay, "ev/s", f"{t_raw_replay / t_replay:5.2f}x raw (goal 0.5)")
    print(
        f"{'postgresql storage per event':<40}{size / count:>11,.0f} bytes (table and indexes, {count:,} events)"
    )


def _show(label: str, rate: float, unit: str, note: str = "") -> None:
    print(f"{label:<40}{rate:>11,.0f} {unit:<5}{note}".rstrip(), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long each writer measure runs")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--events", type=int, default=100_000, help="events for bulk append and replay")
    parser.add_argument("--no-writers", action="store_true")
    parser.add_argument("--no-bulk", action="store_true")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {PG}")
    if not args.no_writers:
        print("\n== postgresql writers ==", flush=True)
        print_writers(bench_writers(args.seconds, args.rounds))
    if not args.no_bulk:
        print(f"\n== postgresql bulk append and replay, {args.events:,} events ==", flush=True)
        bench_bulk(args.events, args.rounds)


if __name__ == "__main__":
    main()
