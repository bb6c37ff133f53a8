"""Writers killed with SIGKILL at random moments: the store stays consistent
(no half action, ``verify`` passes) and the work resumes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

try:
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.log.events import Noted
from ledger.log.store import is_postgres

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")

KILLS = int(os.environ.get("LEDGER_CRASH_TRIALS", "6"))
"""SIGKILLs per test (SQLite; half on PostgreSQL); raise it for a longer soak."""


def kill_after_batches(target: str, campaign: str, worker: str, rng: random.Random) -> set[str]:
    """Start a batch writer, let it finish a few actions, SIGKILL it; returns the actions
    it acknowledged as done (``worker:i``)."""
    (proc,) = hr.start_writers(target, [(campaign, worker, 10_000)], mode="batch")
    assert proc.stdout is not None
    wanted = rng.randint(1, 6)
    seen: set[str] = set()
    while len(seen) < wanted:
        line = proc.stdout.readline()
        if not line:
            pytest.fail(f"writer ended early: {proc.stderr.read() if proc.stderr else ''}")
        if line.startswith("done "):
            seen.add(line.split()[1])
    time.sleep(rng.uniform(0, 0.03))  # somewhere inside the next action
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, f"the writer was not killed mid-work: {proc.returncode}"
    for line in proc.stdout.read().splitlines():  # acknowledged while the test slept
        if line.startswith("done "):
            seen.add(line.split()[1])
    proc.stdout.close()
    if proc.stderr is not None:
        proc.stderr.close()
    return seen


def check_consistent(target: str) -> set[str]:
    """The store verifies, its streams are contiguous and every action is whole;
    returns the actions stored."""
    with Ledger(target) as book:
        book.verify(every=True)
    rows = hr.store_rows(target)
    hr.assert_streams_contiguous(rows)
    return hr.assert_batches_whole(rows)


def test_sigkill_during_appends_leaves_no_half_action(target: str) -> None:
    kills = KILLS if not is_postgres(target) else max(2, KILLS // 2)
    with Ledger(target) as book:
        book.new_campaign("freeform", "Crash")
    rng = random.Random(f"appends:{target[:10]}")
    done: set[str] = set()
    for trial in range(kills):
        acknowledged = kill_after_batches(target, "Crash", f"k{trial}", rng)
        assert acknowledged, "the writer acknowledged nothing before the kill"
        done |= acknowledged
        stored = check_consistent(target)
        assert done <= stored, f"actions reported done were lost: {sorted(done - stored)}"
        unacknowledged = {a for a in stored - done if a.startswith(f"k{trial}:")}
        assert len(unacknowledged) <= 1, f"more than the one action in flight was stored: {unacknowledged}"
    with Ledger(target) as book:  # the work resumes where it stopped
        for i in range(3):
            book.record(
                lambda _s, _d, i=i: [Noted(text=f"batch resumed:{i}:{k}") for k in range(hr.BATCH)], "Crash"
            )
    stored = check_consistent(target)
    assert done | {f"resumed:{i}" for i in range(3)} <= stored


@pytest.fixture(scope="module")
def big_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    folder = tmp_path_factory.mktemp("export")
    db = str(folder / "source.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Saga")
        for a in range(30):
            book.record(
                lambda _s, _d, a=a: [Noted(text=f"saga {a}:{k} " + "x" * 200) for k in range(50)], "Saga"
            )
        head = book.head(book.campaign("Saga"))
    out = folder / "saga.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Saga")
    return out, head


def test_sigkill_during_import_is_all_or_nothing(tmp_path: Path, big_export: tuple[Path, int]) -> None:
    export, head = big_export
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Home")
    start = time.perf_counter()
    done = hr.run_ledger(db, "import", str(export), "--name", "Full", timeout=120)
    full = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    rng = random.Random("import")
    outcomes = {"complete": 0, "absent": 0}
    while_writing = 0
    for trial in range(KILLS):
        name = f"Copy {trial}"
        proc = subprocess.Popen(
            hr.ledger_cmd("--db", db, "import", str(export), "--name", name),
            cwd=hr.ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if trial % 2:  # the moment its transaction writes to the log
            while_writing += hr.kill_once_written(proc, db)
        else:  # any moment of the import, allowing for a slower first run
            time.sleep(full * rng.uniform(0.25, 0.8))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        with Ledger(db) as book:
            book.verify(every=True)
            known = {c.name: c for c in book.campaigns()}
            if name in known:
                # every event of the file, and the fork that gives the copy its own id
                assert book.head(known[name]) == head + 1, "a partial import was left behind"
                outcomes["complete"] += 1
            else:
                outcomes["absent"] += 1
            registered = {c.id for c in known.values()} | {"registry"}
        orphans = {r[0] for r in hr.store_rows(db)} - registered
        assert not orphans, f"rows of an unregistered import were left: {orphans}"
        if name not in known:  # resume: the same import now succeeds
            again = hr.run_ledger(db, "import", str(export), "--name", name, timeout=120)
            assert again.returncode == 0, again.stderr
    assert outcomes["absent"] > 0, f"no kill landed inside an import: {outcomes}"
    assert while_writing > 0, "no kill landed while an import was writing"
    with Ledger(db) as book:
        book.verify(every=True)
        assert sorted(c.name for c in book.campaigns()) == sorted(
            ["Home", "Full", *(f"Copy {t}" for t in range(KILLS))]
        )


PAUSED_CLI = """
import sys, time
from ledger.log import store

point, first = sys.argv[1], []


def stop_here() -> None:
    print("paused", point, flush=True)
    time.sleep(3600)


def append(self, events):
    if first:
        return real(self, events)
    first.append(True)
    if point == "before the write":
        stop_here()
    if point == "inside the write":
        recorder = self.recorder
        with recorder.datastore.transaction(commit=True) as c:
            c.executemany(recorder.insert_events_statement, events)
            stop_here()
    real(self, events)
    stop_here()


real, store.Store.append = store.Store.append, append
sys.argv = ["ledger", *sys.argv[2:]]
from ledger.cli.main import main

main()
"""
"""``ledger ARGS`` that stops at ``point`` of its first append to the store (before it,
inside its transaction with the rows inserted, or after its commit), says so on stdout
and waits there to be killed."""

KILL_POINTS = {"before the write": False, "inside the write": False, "after the write": True}
"""Where a CLI command is killed, and whether its write must then be in the log."""


def test_sigkill_during_cli_commands(tmp_path: Path) -> None:
    """`ledger roll` / `undo` processes killed before, inside and after their write never
    leave a broken log: a write not committed is absent, a committed one whole.

    Each kill lands at a point the command itself reports it has reached (it stops there),
    never after a guessed delay, so the test means the same on a loaded machine."""
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Cli")
        for i in range(20):
            book.roll("1d6", "Cli", label=f"seed {i}")
    trials = [(point, undo) for undo in (False, True) for point in KILL_POINTS]
    for point, undo in trials:
        args = ["-c", "Cli", "undo", "3"] if undo else ["-c", "Cli", "roll", "4d6kh3"]
        before = len(hr.store_rows(db))
        proc = subprocess.Popen(
            [sys.executable, "-c", PAUSED_CLI, point, "--db", db, *args],
            cwd=hr.ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        said = proc.stdout.readline().strip()
        assert said == f"paused {point}", f"{args} ended without reaching {point!r}: {proc.communicate()}"
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        added = len(hr.store_rows(db)) - before
        whole = (3 if undo else 1) if KILL_POINTS[point] else 0
        assert added == whole, f"{args} killed {point}: {added} rows stored, {whole} expected"
        with Ledger(db) as book:
            book.verify(every=True)
            undo_actions: dict[str, int] = {}
            for e in book.log("Cli", show_all=True):
                if e.kind == "action.undone":
                    undo_actions[e.action] = undo_actions.get(e.action, 0) + 1
            assert all(n == 3 for n in undo_actions.values()), undo_actions
    assert hr.run_ledger(db, "-c", "Cli", "roll", "1d6").returncode == 0
    assert hr.run_ledger(db, "verify", "--all").returncode == 0


CATCH_UP = """
import sys
from ledger import Ledger
from ledger.projections.warehouse.loading import Warehouse
with Ledger(sys.argv[1]) as book:
    Warehouse(book, sys.argv[2]).catch_up(lambda n: print("batch", n, flush=True), batch=int(sys.argv[3]))
print("finished", flush=True)
"""


def test_sigkill_during_warehouse_catch_up_resumes_without_duplicates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warehouse = pytest.importorskip("ledger.projections.warehouse", reason="the warehouse is not installed")
    import duckdb

    # Pages wait in a folder of this test's own: a catch-up anywhere else on the machine
    # sweeps the folders of dead processes in the shared one, which would hide what the
    # kills left behind.
    monkeypatch.setenv("LEDGER_SCRATCH", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()

    db, wh_path = str(tmp_path / "t.ledger"), str(tmp_path / "t.duckdb")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Stats")
        for a in range(40):
            book.record(lambda _s, _d, a=a: [Noted(text=f"n {a}:{k}") for k in range(25)], "Stats")
        book.roll("3d6", "Stats")
        top = book.store.max_notification_id()
    rng = random.Random("warehouse")
    positions, killed = [], []
    for _trial in range(max(2, KILLS // 2)):
        proc = subprocess.Popen(
            [sys.executable, "-c", CATCH_UP, db, wh_path, "40"],
            cwd=hr.ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdout is not None
        for _ in range(rng.randint(1, 4)):
            if not proc.stdout.readline().startswith("batch"):
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()
        killed.append(proc.pid)
        with Ledger(db) as book:
            positions.append(warehouse.Warehouse(book, wh_path).position())
    assert any(0 < p < top for p in positions), f"no kill landed mid catch-up: {positions}"
    assert positions == sorted(positions), "a catch-up went backwards"
    scratch = tmp_path / "scratch"

    def left() -> list[str]:
        return [f.name for pid in killed for f in scratch.glob(f"{warehouse.SCRATCH_PREFIX}{pid}-*")]

    assert left(), "a killed catch-up leaves its pages behind"
    with Ledger(db) as book:
        wh = warehouse.Warehouse(book, wh_path)
        wh.catch_up()
        assert wh.position() == top
    assert not left(), f"the next catch-up left the pages of killed ones: {left()}"
    con = duckdb.connect(wh_path, read_only=True)
    try:
        n, distinct = con.execute("SELECT count(*), count(DISTINCT position) FROM events").fetchone()
        rolls = con.execute("SELECT count(*) FROM rolls").fetchone()[0]
    finally:
        con.close()
    assert n == distinct == 40 * 25 + 2, "events missing or applied twice"
    assert rolls == 1
