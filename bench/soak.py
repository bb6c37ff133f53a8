"""Throughput with 1, 2, 4 and 8 writer processes, and longer crash soaks.

    python bench/soak.py throughput [--backend sqlite|postgres|both] [--seconds 10] [--repeat 3]
    python bench/soak.py crash [--kills 100] [--backend sqlite|postgres|both]

``throughput`` starts N writer processes (the same writers the tests use,
``tests/helpers_reliability.py``) recording ``roll 1d20`` actions for a fixed
time, once all on ONE campaign and once on SEPARATE campaigns, then checks
that nothing was lost or duplicated and that every chain verifies. It prints
the actions per second held (the median of ``--repeat`` runs). ``crash`` SIGKILLs batch writers at random
moments, many times, checking after each kill that no action is half-written
and that ``verify`` passes. PostgreSQL runs use a fresh schema that is
dropped afterwards (``--pg URL``, default the test server).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WRITER = ROOT / "tests" / "helpers_reliability.py"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers_reliability import assert_streams_contiguous, batch_actions, store_rows  # noqa: E402

from ledger import Ledger  # noqa: E402
from ledger.errors import LedgerError  # noqa: E402

PG = os.environ.get("LEDGER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


@contextmanager
def target(backend: str, pg: str) -> Iterator[str]:
    """A fresh, empty store of the given kind, removed afterwards."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="soak-") as folder:
            yield str(Path(folder) / "soak.ledger")
        return
    import psycopg

    schema = f"soak_{uuid.uuid4().hex[:10]}"
    try:
        yield f"{pg}?schema={schema}"
    finally:
        with psycopg.connect(pg, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def timed_writer(db: str, campaign: str, worker: str, seconds: float) -> subprocess.Popen[str]:
    code = (
        "import json, sys, time\n"
        "from ledger import Ledger\n"
        "from ledger.errors import ConflictError\n"
        "db, camp, worker, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])\n"
        "done, conflicts = [], 0\n"
        "with Ledger(db) as book:\n"
        "    book.head(book.campaign(camp))\n"
        "    print('ready', flush=True); sys.stdin.readline()\n"
        "    end = time.perf_counter() + seconds\n"
        "    i = 0\n"
        "    while time.perf_counter() < end:\n"
        "        try:\n"
        "            book.roll('1d20', camp, label=f'{worker}:{i}'); done.append(f'{worker}:{i}')\n"
        "        except ConflictError:\n"
        "            conflicts += 1\n"
        "        i += 1\n"
        "print(json.dumps({'recorded': done, 'conflicts': conflicts}), flush=True)\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, db, campaign, worker, str(seconds)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def throughput(db: str, writers: int, seconds: float, shared: bool) -> dict[str, object]:
    names = ["Shared"] if shared else [f"Own {n}" for n in range(writers)]
    with Ledger(db) as book:
        for name in names:
            book.new_campaign("freeform", name)
    procs = [timed_writer(db, names[0] if shared else names[n], f"w{n}", seconds) for n in range(writers)]
    for p in procs:  # every writer connected and ready: start them together
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    reports = []
    for p in procs:
        out, _ = p.communicate(timeout=seconds * 20 + 120)
        reports.append(json.loads(out.strip().splitlines()[-1]))
    expected = {label for r in reports for label in r["recorded"]}
    with Ledger(db) as book:
        book.verify(every=True)
        found: Counter[str] = Counter()
        for name in names:
            entries = book.log(name, show_all=True)
            assert [e.version for e in entries] == list(range(1, len(entries) + 1))
            found.update(e.event.label for e in entries if e.kind == "dice.rolled")
    assert set(found) == expected and all(n == 1 for n in found.values()), "lost or duplicated events"
    assert_streams_contiguous(store_rows(db))
    actions = len(expected)
    return {
        "writers": writers,
        "campaigns": "one" if shared else "separate",
        "actions": actions,
        "conflicts_reported": sum(r["conflicts"] for r in reports),
        "per_second": round(actions / seconds, 1),
    }


def crash_soak(db: str, kills: int, seed: int) -> dict[str, object]:
    """SIGKILL a batch writer ``kills`` times; every figure is counted from the store
    after each kill: half-written actions, actions stored twice, acknowledged actions
    missing, and how many times ``verify`` failed (with the first failure)."""
    rng = random.Random(seed)
    with Ledger(db) as book:
        book.new_campaign("freeform", "Crash")
    acknowledged: set[str] = set()
    half: set[str] = set()
    twice: set[str] = set()
    lost: set[str] = set()
    failures: list[str] = []
    landed = 0
    whole: Counter[str] = Counter()
    for trial in range(kills):
        proc = subprocess.Popen(
            [sys.executable, str(WRITER), "batch", db, "Crash", f"k{trial}", "100000"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
        )
        assert proc.stdout is not None
        for _ in range(rng.randint(1, 8)):
            line = proc.stdout.readline()
            if not line:
                break
            acknowledged.add(line.split()[1])
        time.sleep(rng.uniform(0, 0.03))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        landed += proc.returncode == -signal.SIGKILL
        acknowledged.update(
            line.split()[1] for line in proc.stdout.read().splitlines() if line.startswith("done ")
        )
        proc.stdout.close()
        try:
            with Ledger(db) as book:
                book.verify(every=True)
        except LedgerError as e:
            failures.append(f"after kill {trial + 1}: {e}")
        rows = store_rows(db)
        try:
            assert_streams_contiguous(rows)
        except AssertionError as e:
            failures.append(f"after kill {trial + 1}: {e}")
        whole, broken = batch_actions(rows)
        half.update(broken)
        twice.update(label for label, n in whole.items() if n > 1)
        lost.update(acknowledged - set(whole))
    return {
        "kills": kills,
        "kills_on_a_running_writer": landed,
        "actions_acknowledged": len(acknowledged),
        "actions_stored": len(whole),
        "acknowledged_lost": len(lost),
        "half_actions": len(half),
        "stored_twice": len(twice),
        "verify": "passed" if not failures else f"failed {len(failures)} times, first {failures[0]}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", choices=["throughput", "crash"])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--seconds", type=float, default=10.0, help="Length of each throughput run.")
    parser.add_argument("--writers", default="1,2,4,8", help="Writer counts, comma-separated.")
    parser.add_argument("--repeat", type=int, default=3, help="Runs per setting; the median is reported.")
    parser.add_argument("--kills", type=int, default=100, help="SIGKILLs in the crash soak.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pg", default=PG, help="PostgreSQL URL (a fresh schema is used).")
    args = parser.parse_args()
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    failed = False
    for backend in backends:
        if args.what == "crash":
            with target(backend, args.pg) as db:
                result = crash_soak(db, args.kills, args.seed)
            print(json.dumps({"backend": backend, **result}), flush=True)
            bad = result["acknowledged_lost"] or result["half_actions"] or result["stored_twice"]
            if bad or result["verify"] != "passed":
                failed = True
            continue
        for shared in (True, False):
            for writers in (int(w) for w in args.writers.split(",")):
                runs = []
                for _ in range(args.repeat):
                    with target(backend, args.pg) as db:
                        runs.append(throughput(db, writers, args.seconds, shared))
                rates = sorted(float(r["per_second"]) for r in runs)  # type: ignore[arg-type]
                row = {
                    **runs[-1],
                    "per_second": statistics.median(rates),
                    "runs": rates,
                    "actions": sum(int(r["actions"]) for r in runs),  # type: ignore[call-overload]
                    "conflicts_reported": sum(int(r["conflicts_reported"]) for r in runs),
                }  # type: ignore[call-overload]
                print(json.dumps({"backend": backend, **row}), flush=True)
    if failed:
        sys.exit("the crash soak found lost, half-written or duplicated actions, or a failed verify")


if __name__ == "__main__":
    main()
