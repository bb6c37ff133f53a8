"""PostgreSQL writers, bulk append and replay, each against its raw limit in the same run.

    python bench/bench_postgres.py                    # writers, then bulk and replay of 100,000 events
    python bench/bench_postgres.py --no-bulk --seconds 1 --rounds 15
    python bench/bench_postgres.py --no-writers --events 20000

The writer figures, with their goals beside them (docs/scaling.md), each
marked met or MISSED, so that a change that regresses one says so:

- one writer: ``Ledger.roll`` in a loop on one campaign, against raw single-row
  ``INSERT`` transactions of a 300-byte JSON into a table of the same shape (one
  ``psycopg`` connection in autocommit mode), in alternating blocks of 50 in one
  process (the median block's ratio); goal >= 0.5;
- 8 writers on 8 campaigns: their total against one writer, beside raw inserts' own
  scaling from 1 to 8 connections; goal: the ledger's scaling >= 0.7 of raw's;
- 8 writers sharing one campaign: their total against one writer (every event of a
  campaign follows the one before it, so one writer's rate is the most a campaign can
  take); goal >= 0.8.

The multi-process figures come from writer processes started once (8 raw, 8 ledger),
which write in turn in short phases (raw 1, raw 8, ledger 1, ledger 8 on 8 campaigns,
ledger 8 on one), cycle after cycle (``--rounds``, each phase ``--seconds``): each ratio
is taken within a cycle, and the median over the cycles is printed, so that the load
other processes put on the machine falls on a baseline and on the figure alike.

- bulk append: the store's append of sealed events (the path simulate and import
  share) and ``Ledger.import_`` of an export (which also checks every hash), against
  ``COPY`` of the same bytes into a table of the same shape in one transaction;
- replay: folding a campaign from the store against a raw ``SELECT`` of the states +
  msgspec decode + the same fold.

After the writers run, every campaign's versions are checked contiguous and its chain
verified.
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
from collections.abc import Iterator
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

PHASES = ("raw 1", "raw 8", "ledger 1", "ledger 8 separate", "ledger 8 shared")
"""The phases of one cycle, in order: which processes write, and where (see
:func:`_phase_worker`)."""
GAP = 0.15
"""Seconds of quiet between two phases, so that an action begun in one phase ends before
the next is counted."""


def _phase_worker(kind: str, me: int, url: str, table: str, phase: Any, counts: Any, ready: Any) -> None:
    """One writer process for the whole run: it writes while the current phase is one of
    its own and counts each action in the phase it began in. ``raw`` workers insert rows
    of their own stream into the raw table; ``ledger`` workers roll on ``Table me`` in
    the separate phase and all on ``Table 0`` in the shared one; worker 0 of each kind
    alone writes in its kind's one-writer phase."""
    from ledger.errors import ConflictError

    def mine(name: str) -> bool:
        if not name.startswith(kind):
            return False
        return me == 0 if name.endswith(" 1") else True

    book = Ledger(url) if kind == "ledger" else None
    conn = psycopg.connect(PG, autocommit=True) if kind == "raw" else None
    sql = f"INSERT INTO {table} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)"
    v = 0
    try:
        if book is not None:
            for campaign in (f"Table {me}", "Table 0"):
                book.roll("1d20+5", campaign)
        ready.release()
        while (p := phase.value) >= 0:
            name = PHASES[p % len(PHASES)] if p < 10**6 else ""
            if not mine(name):
                time.sleep(0.005)
                continue
            if conn is not None:
                v += 1
                conn.execute(sql, (f"raw-{me}", v, "k", PAYLOAD))
            else:
                assert book is not None
                try:
                    book.roll("1d20+5", "Table 0" if name != "ledger 8 separate" else f"Table {me}")
                except ConflictError:
                    continue  # gave up after its attempts: not an action recorded
            counts[p] += 1
    finally:
        if book is not None:
            book.close()
        if conn is not None:
            conn.close()


def bench_writers(seconds: float, rounds: int, writers: int = 8) -> dict[str, float]:
    """The writer figures, each a median over ``rounds`` cycles of interleaved phases of
    ``seconds`` each (:data:`PHASES`), with every writer process started once: the load
    other processes put on the machine at any moment falls on a baseline and on the
    figure compared with it alike. Also one writer against raw inserts in alternating
    blocks in one process, and the client's processor time per action."""
    with schema() as name:
        url = f"{PG}?schema={name}"
        table = f'"{name}".raw_events'
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(RAW_TABLE.format(t=table))
        with Ledger(url) as book:
            for i in range(writers):
                book.new_campaign("freeform", f"Table {i}")
        figures: dict[str, float] = {}
        raw, ours, ratio = one_writer_interleaved(url, table, blocks=max(20, int(seconds * 20)))
        figures["interleaved raw"], figures["interleaved ledger"], figures["interleaved ratio"] = (
            raw,
            ours,
            ratio,
        )
        figures["cpu raw"], figures["cpu append"], figures["cpu roll"] = client_cpu(url, table)
        figures.update(phased(url, table, seconds, rounds, writers))
        with Ledger(url) as book:
            for i in range(writers):
                book.verify(f"Table {i}")  # raises at the first bad event
        check_contiguous(name)
    return figures


def phased(url: str, table: str, seconds: float, cycles: int, writers: int) -> dict[str, float]:
    """Rates of every phase, and the medians over the cycles of the ratios compared."""
    ctx = mp.get_context("fork")
    phase = ctx.Value("q", 10**6, lock=False)  # no phase of anyone's: everybody waits
    counts = ctx.Array("q", cycles * len(PHASES), lock=True)
    ready = ctx.Semaphore(0)
    procs = [
        ctx.Process(target=_phase_worker, args=(kind, i, url, table, phase, counts, ready))
        for kind in ("raw", "ledger")
        for i in range(writers)
    ]
    for proc in procs:
        proc.start()
    for _ in procs:
        if not ready.acquire(timeout=120):
            raise SystemExit("a writer process did not start")
    took = [0.0] * len(counts)
    try:
        for p in range(len(counts)):
            start = time.perf_counter()
            phase.value = p
            time.sleep(seconds)
            phase.value = 10**6
            took[p] = time.perf_counter() - start
            time.sleep(GAP)
    finally:
        phase.value = -1
        for proc in procs:
            proc.join(60)
    rates = [n / t for n, t in zip(counts[:], took, strict=True)]
    per: dict[str, list[float]] = {k: rates[i :: len(PHASES)] for i, k in enumerate(PHASES)}
    out = {k: statistics.median(v) for k, v in per.items()}
    shared = [m / o for m, o in zip(per["ledger 8 shared"], per["ledger 1"], strict=True)]
    sep = [m / o for m, o in zip(per["ledger 8 separate"], per["ledger 1"], strict=True)]
    raw = [m / o for m, o in zip(per["raw 8"], per["raw 1"], strict=True)]
    out["shared ratio"] = statistics.median(shared)
    out["separate scaling"] = statistics.median(sep)
    out["raw scaling"] = statistics.median(raw)
    out["separate of raw"] = statistics.median(s / r for s, r in zip(sep, raw, strict=True))
    out["ledger 1 of raw 1"] = statistics.median(
        o / r for o, r in zip(per["ledger 1"], per["raw 1"], strict=True)
    )
    out["shared spread"] = min(shared)
    out["shared spread top"] = max(shared)
    out["cycles"] = cycles
    return out


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


GOALS = {"one writer": 0.5, "separate": 0.7, "shared": 0.8}
"""docs/scaling.md's goals: one writer against raw single-row inserts; 8 writers on 8
campaigns against raw inserts' own scaling; 8 writers on one campaign against one."""


def print_writers(f: dict[str, float], writers: int = 8) -> None:
    """The three writer goals, each with its goal beside it and whether it is
    met (a regression says so), then the rates they come from."""

    def verdict(value: float, goal: float) -> str:
        return "met" if value >= goal else "MISSED"

    cycles = int(f["cycles"])
    print(f"medians over {cycles} cycles of interleaved phases; the three goals:")
    print(
        f"  {'1 writer (Ledger.roll) of raw INSERT':<48}{f['interleaved ratio']:5.2f}x  "
        f"(goal {GOALS['one writer']}: {verdict(f['interleaved ratio'], GOALS['one writer'])}; "
        f"alternating blocks in one process)"
    )
    sep = f["separate of raw"]
    print(
        f"  {f'{writers} writers on {writers} campaigns, of raw scaling':<48}{sep:5.2f}x  "
        f"(goal {GOALS['separate']}: {verdict(sep, GOALS['separate'])}; "
        f"x{f['separate scaling']:.2f} of 1 writer, raw x{f['raw scaling']:.2f})"
    )
    shared = f["shared ratio"]
    print(
        f"  {f'{writers} writers on 1 campaign, of 1 writer':<48}{shared:5.2f}x  "
        f"(goal {GOALS['shared']}: {verdict(shared, GOALS['shared'])}; "
        f"cycles {f['shared spread']:.2f}-{f['shared spread top']:.2f})"
    )
    print("the rates (medians):")
    _show("raw single-row INSERT, 1 connection", f["interleaved raw"], "/s", "(blocks of 50, one process)")
    _show("postgresql 1 writer (Ledger.roll)", f["interleaved ledger"], "/s", "(blocks of 50, one process)")
    print(
        f"{'client processor time per action':<40}raw insert {f['cpu raw']:.0f} us, Store.append "
        f"{f['cpu append']:.0f} us, Ledger.roll {f['cpu roll']:.0f} us (psycopg {psycopg.pq.__impl__})"
    )
    for key in PHASES:
        _show(f"phase: {key}", f[key], "/s")
    print(f"{'ledger 1 writer process of raw 1':<40}{f['ledger 1 of raw 1']:>11.2f}x")


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
    parser.add_argument("--seconds", type=float, default=1.0, help="how long each writer phase runs")
    parser.add_argument(
        "--rounds", type=int, default=9, help="cycles of writer phases (bulk: best of this many, at most 3)"
    )
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
        bench_bulk(args.events, min(args.rounds, 3))


if __name__ == "__main__":
    main()
