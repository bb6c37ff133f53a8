"""The benchmark: every figure as a ratio against a baseline measured in the same run.

    python bench/run.py                 # 100,000 and 1,000,000 events, SQLite and PostgreSQL
    python bench/run.py --sizes 20000   # a quick run

Figures (see docs/performance.md for the targets):

- bulk append: ``ledger import`` of an export (every hash and link checked,
  one transaction) against the eventsourcing baseline (an ``Application``
  with an ``Aggregate`` whose methods are decorated with ``@event``, saved at
  once) and against the limit (raw ``sqlite3`` ``executemany`` of the same
  JSON bytes in one transaction);
- replay: folding every projection of the campaign from the store, against
  the baseline (the aggregate rebuilt by its repository) and the limit (a raw
  ``SELECT`` + msgspec decode + the same fold in one loop), with peak memory;
- verify: ``ledger verify`` of the imported campaign (every hash, link and
  what each event means, its actions decided again), against the baseline of
  the bulk append (eventsourcing's default append: the goal is x1 for import and
  verify alike; each timed in turn with it, run for run), printed beside the replay's
  rate and eventsourcing's replay;
- time travel: the sheet at random versions (snapshots warm) against a full replay;
- PostgreSQL (``bench/bench_postgres.py``): bulk append and replay against
  ``COPY`` of the same bytes and a raw ``SELECT`` + decode + fold; one writer
  against raw single-row ``INSERT`` transactions, 8 writers on 8 campaigns
  against raw inserts' own scaling, 8 writers on one campaign against one;
- the command line: one recorded action, ``ledger --help``, and ``stats`` /
  ``query`` right after one new action over 300 simulated crawl campaigns,
  against ``python -c "import click, msgspec, duckdb, eventsourcing.sqlite"``
  (and the same without duckdb).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from bench import baseline  # noqa: E402
from bench.workload import build_campaign  # noqa: E402
from ledger import Ledger  # noqa: E402
from ledger.log.events import envelope_decoder  # noqa: E402
from ledger.log.state import CampaignState, evolve  # noqa: E402

PG = os.environ.get("LEDGER_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")


REPEAT = 3
"""Each figure is the best of this many runs (noise on a shared machine only ever adds time)."""


def set_repeat(n: int) -> None:
    global REPEAT
    REPEAT = max(1, n)


def timed(fn: Callable[[], Any], repeat: int | None = None) -> float:
    repeat = REPEAT if repeat is None else repeat
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def timed_pair(
    ours: Callable[[], Any], theirs: Callable[[], Any], repeat: int | None = None
) -> tuple[float, float]:
    """The best of ``repeat`` runs of each, the two alternated: what load a busy machine
    puts on one falls on the other alike (a baseline timed before a figure, or after it,
    meets another moment of the machine)."""
    repeat = REPEAT if repeat is None else repeat
    best_ours = best_theirs = float("inf")
    for _ in range(repeat):
        best_theirs = min(best_theirs, timed(theirs, 1))
        best_ours = min(best_ours, timed(ours, 1))
    return best_ours, best_theirs


def line(
    label: str, ours: float, n: int, baseline: float | None, limit: float | None, note: str = ""
) -> None:
    rate = f"{n / ours:>11,.0f} ev/s" if n else f"{ours * 1000:>9.1f} ms"
    parts = [f"{label:<34}{rate}"]
    if baseline is not None:
        parts.append(f"x{baseline / ours:6.2f} baseline")
    if limit is not None:
        parts.append(f"{limit / ours:5.2f}x limit")
    if note:
        parts.append(note)
    print("  ".join(parts), flush=True)


# --- the raw limit -------------------------------------------------------------


def limit_append(db: str, rows: list[tuple[str, int, str, bytes]]) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS ledger_events (originator_id TEXT, originator_version INTEGER, "
        "topic TEXT, state BLOB, PRIMARY KEY (originator_id, originator_version))"
    )
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO ledger_events VALUES (?,?,?,?)", rows)
    conn.execute("COMMIT")
    conn.close()


def limit_replay(db: str, stream: str, system: Any) -> CampaignState:
    decode = envelope_decoder(system.name).decode
    conn = sqlite3.connect(db)
    state = CampaignState()
    cur = conn.execute(
        "SELECT state FROM ledger_events WHERE originator_id=? ORDER BY originator_version", (stream,)
    )
    for (raw,) in cur:
        state = evolve(state, decode(raw), system)
    conn.close()
    return state


# --- runs ---------------------------------------------------------------------


def export_lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        next(f)
        for raw in f:
            yield raw.rstrip(b"\n")


def bench_size(n: int, tmp: Path, pg: bool) -> None:
    print(f"\n== {n:,} events ==", flush=True)
    source = tmp / f"source-{n}.ledger"
    export = tmp / f"export-{n}.jsonl"
    t0 = time.perf_counter()
    with Ledger(str(source)) as book:
        name = build_campaign(book, n)
        with export.open("wb") as out:
            book.export(out, name)
    print(f"  (workload: {n:,} mixed events built in {time.perf_counter() - t0:.1f}s)", flush=True)
    raws = list(export_lines(export))

    # bulk append
    rows = [("s", i + 1, "k", raw) for i, raw in enumerate(raws)]
    limit_t = timed(lambda: limit_append(str(tmp / f"limit-{uuid.uuid4().hex}.db"), rows))
    payloads = [msgspec.json.decode(raw) for raw in raws[: min(n, 200_000)]]
    scale = n / len(payloads)
    base_db = str(tmp / f"base-{n}.db")
    base_t = timed(lambda: baseline.append(f"{base_db}.{uuid.uuid4().hex}", payloads)) * scale
    target = str(tmp / f"ours-{n}.ledger")

    def ours_append() -> None:
        with Ledger(str(tmp / f"append-{uuid.uuid4().hex}.ledger")) as book:
            book.store.append([("bench", i + 1, "k", raw) for i, raw in enumerate(raws)])

    def ours_import() -> None:
        with Ledger(str(tmp / f"import-{uuid.uuid4().hex}.ledger")) as book, export.open("rb") as f:
            book.import_(f, f"imported-{n}")

    with Ledger(target) as book, export.open("rb") as f:
        book.import_(f, f"imported-{n}")

    def base_append() -> None:
        baseline.append(f"{base_db}.{uuid.uuid4().hex}", payloads)

    note = "(baseline timed on 200,000 and scaled)" if scale > 1 else ""
    line("bulk append (sealed events)", timed(ours_append), n, base_t, limit_t, note)
    # Import and verify each against the baseline's append timed in turn with it.
    import_t, import_base_t = timed_pair(ours_import, base_append)
    import_base_t *= scale
    append_limit_t = limit_t

    # replay
    with Ledger(target) as book:
        c = book.campaign(f"imported-{n}")
        system = book.system(c)
        stream = c.lineage[-1][0]
        ours_t = timed(lambda: book.state_at(c, book.head(c), system, use_snapshots=False))
        limit_t = timed(lambda: limit_replay(target, stream, system))
        verify_t, verify_base_t = timed_pair(lambda: book.verify(f"imported-{n}"), base_append)
        verify_base_t *= scale
        tracemalloc.start()
        book.state_at(c, book.head(c), system, use_snapshots=False)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if n <= 200_000:
        app, agg_id = baseline.append(base_db + ".replay", [decode_payload(r) for r in raws])
        base_t = timed(lambda: baseline.replay(app, agg_id))
    else:
        base_t = None
    line("replay (all projections)", ours_t, n, base_t, limit_t, f"peak {peak / 2**20:.1f} MiB")
    # Import and verify decide every action again: each against eventsourcing's default
    # append (its baseline, x1 the goal) and beside the replay's rate (a fold, no check).
    beside = f"{n / ours_t:,.0f} ev/s"
    line(
        "import (verify every hash + append)",
        import_t,
        n,
        import_base_t,
        append_limit_t,
        f"{ours_t / import_t:4.2f}x the replay's {beside}",
    )
    line(
        "verify (every hash + meaning)",
        verify_t,
        n,
        verify_base_t,
        None,
        f"{ours_t / verify_t:4.2f}x the replay's {beside}"
        + (f"; x{base_t / verify_t:.1f} eventsourcing's replay" if base_t is not None else ""),
    )

    # time travel
    with Ledger(target) as book:
        c = book.campaign(f"imported-{n}")
        system = book.system(c)
        head = book.head(c)
        book.state(c)  # warms the snapshots
        full = timed(lambda: book.state_at(c, head, system, use_snapshots=False))
        rng = random.Random(1)
        picks = [rng.randint(1, head) for _ in range(20)]
        travel = statistics.median(timed(lambda v=v: book.state(c, at=v)) for v in picks)
    print(
        f"  {'time travel (sheet at a version)':<34}{travel * 1000:>9.1f} ms  x{full / travel:6.1f} full replay"
    )
    if pg:
        bench_postgres(export, n)


def decode_payload(raw: bytes) -> dict[str, Any]:
    return msgspec.json.decode(raw)


def bench_postgres(export: Path, n: int) -> None:
    from bench.bench_postgres import bulk_figures

    print("  postgresql (same export, best of", 1 if n > 200_000 else REPEAT, "runs):", flush=True)
    bulk_figures(export, 1 if n > 200_000 else REPEAT)


def bench_postgres_writers(seconds: float) -> None:
    from bench.bench_postgres import GOALS, bench_writers, print_writers

    cycles = max(REPEAT, 9)
    print(f"\n== postgresql writers (phases of {seconds:g} s, {cycles} interleaved cycles) ==", flush=True)
    figures = bench_writers(seconds, cycles)
    print_writers(figures)
    shared = figures["shared ratio"]
    MEASURED[SHARED_WRITERS] = (f"{shared:.2f}x", shared >= GOALS["shared"])


CLI_GOALS: tuple[tuple[str, str, float], ...] = (
    ("ledger roll 2d6 (recorded)", "roll", 1.3),
    ("ledger --help", "help", 1.3),
    ("stats --report luck, after 1 action", "stats", 1.5),
    ("query, after 1 action", "query", 1.5),
    ("stats, nothing new", "stats, nothing new", 1.3),
)
"""Each command line figure, its key among the timed commands, and its goal against the
dependency floor (docs/performance.md): a figure past its goal prints MISSED."""


SHARED_WRITERS = "8 PostgreSQL writers on 1 campaign, of 1 writer"
SPEED_GOALS: tuple[tuple[str, str], ...] = (
    *(
        (label, f"<= {goal}x floor")
        for label, key, goal in CLI_GOALS
        if key in ("stats", "query", "stats, nothing new")
    ),
    (SHARED_WRITERS, ">= 0.8x"),  # bench.bench_postgres.GOALS["shared"]
)
"""The speed goals, each with its goal (docs/performance.md, docs/scaling.md):
the summary at the end of a run prints them together, met or MISSED."""

MEASURED: dict[str, tuple[str, bool]] = {}
"""What this run measured of :data:`SPEED_GOALS`'s figures: the figure as printed, and whether
it meets its goal."""


def print_goals() -> None:
    """The speed goals, at the end of the run: each one's goal, what this run
    measured and whether it is met (a figure the run did not measure says how to get it)."""
    print("\n== goals ==")
    print(f"  {'figure':<50}{'goal':<16}{'measured':>9}")
    for label, goal in SPEED_GOALS:
        if label in MEASURED:
            shown, ok = MEASURED[label]
            print(f"  {label:<50}{goal:<16}{shown:>9}  {'met' if ok else 'MISSED'}")
        else:
            how = (
                "without --no-postgres or --only-cli"
                if label == SHARED_WRITERS
                else "with --stats-campaigns > 0"
            )
            print(f"  {label:<50}{goal:<16}{'-':>9}  not measured (run {how})")


def bench_cli(tmp: Path, stats_campaigns: int, rounds: int = 15) -> None:
    print("\n== the command line ==", flush=True)
    exe = Path(sys.executable).with_name("ledger")
    db = str(tmp / "cli.ledger")
    # As on a user's machine: compiled bytecode is written once and reused.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["LEDGER_DB"] = db
    subprocess.run([str(exe), "new", "freeform", "Table"], env=env, check=True, capture_output=True)
    stats_env = {**env, "LEDGER_DB": str(tmp / "stats.ledger"), "LEDGER_WAREHOUSE": str(tmp / "stats.duckdb")}
    if stats_campaigns:
        t0 = time.perf_counter()
        simulate = ["simulate", "crawl", "--campaigns", str(stats_campaigns), "--seed", "1"]
        subprocess.run([str(exe), *simulate], env=stats_env, check=True, capture_output=True)
        subprocess.run([str(exe), "stats"], env=stats_env, check=True, capture_output=True)
        print(
            f"  ({stats_campaigns} crawl campaigns simulated, warehouse built in {time.perf_counter() - t0:.1f}s)"
        )
    floor_cmd = [sys.executable, "-c", "import click, msgspec, duckdb, eventsourcing.sqlite"]
    commands: dict[str, tuple[list[str], dict[str, str], list[str] | None]] = {
        "floor": (floor_cmd, env, None),
        "floor without duckdb": (
            [sys.executable, "-c", "import click, msgspec, eventsourcing.sqlite"],
            env,
            None,
        ),
        "roll": ([str(exe), "roll", "2d6", "--label", "bench"], env, None),
        "help": ([str(exe), "--help"], env, None),
    }
    if stats_campaigns:
        # Each time right after one new action: the warehouse catches up one event, then answers.
        one_action = [str(exe), "-c", "sim-crawl-1-00001", "note", "between two rolls"]
        commands["stats"] = ([str(exe), "stats", "--simulated", "--report", "luck"], stats_env, one_action)
        commands["query"] = (
            [str(exe), "query", "SELECT count(*) FROM events"],
            stats_env,
            one_action,
        )
        commands["stats, nothing new"] = ([str(exe), "stats", "--report", "luck"], stats_env, None)
    samples: dict[str, list[float]] = {k: [] for k in commands}
    for args, run_env, _ in commands.values():  # warm the bytecode cache
        subprocess.run(args, env=run_env, check=True, capture_output=True)
    for _ in range(rounds):  # interleaved, so the machine's load falls on every figure alike
        for key, (args, run_env, before) in commands.items():
            if before is not None:
                subprocess.run(before, env=run_env, check=True, capture_output=True)
            start = time.perf_counter()
            subprocess.run(args, env=run_env, check=True, capture_output=True)
            samples[key].append(time.perf_counter() - start)
    med = {k: statistics.median(v) for k, v in samples.items()}
    floor, bare = med["floor"], med["floor without duckdb"]
    print(
        f"  {'dependency floor (import only)':<34}{floor * 1000:>9.1f} ms  (click, msgspec, duckdb, eventsourcing.sqlite)"
    )
    print(f"  {'  without duckdb':<34}{bare * 1000:>9.1f} ms")

    def show(label: str, key: str, goal: float) -> None:
        t = med[key]
        # Each round's command against the floor of the same round: how reliably the goal holds.
        paired = sorted(a / b for a, b in zip(samples[key], samples["floor"], strict=True))
        spread = f"rounds {paired[len(paired) // 4]:.2f}-{paired[(3 * len(paired)) // 4]:.2f}x, worst {paired[-1]:.2f}x"
        verdict = "met" if t / floor <= goal else "MISSED"
        MEASURED[label] = (f"{t / floor:.2f}x", t / floor <= goal)
        print(
            f"  {label:<34}{t * 1000:>9.1f} ms  {t / floor:5.2f}x floor (goal {goal}: {verdict:<6})  "
            f"({t / bare:4.2f}x without duckdb; {spread})"
        )

    print(f"  (medians of {rounds} interleaved rounds; 'rounds': the middle half of the per-round ratios)")
    for label, key, goal in CLI_GOALS:
        if key in med:
            show(label, key, goal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="comma-separated event counts")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-cli", action="store_true")
    parser.add_argument(
        "--stats-campaigns",
        type=int,
        default=300,
        help="crawl campaigns behind the stats latency (0: skip it)",
    )
    parser.add_argument("--writer-seconds", type=float, default=1.0, help="how long each writer phase runs")
    parser.add_argument("--repeat", type=int, default=REPEAT, help="best of this many runs per figure")
    parser.add_argument(
        "--only-cli", action="store_true", help="only the command line figures (no sizes, no PostgreSQL)"
    )
    parser.add_argument("--cli-rounds", type=int, default=15, help="interleaved rounds of the command line")
    args = parser.parse_args()
    set_repeat(args.repeat)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        if not args.only_cli:
            for n in (int(s) for s in args.sizes.split(",")):
                bench_size(n, tmp, pg=not args.no_postgres)
            if not args.no_postgres:
                bench_postgres_writers(args.writer_seconds)
        if not args.no_cli:
            bench_cli(tmp, args.stats_campaigns, max(3, args.cli_rounds))
        print_goals()
        print(f"(load average at the end {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
