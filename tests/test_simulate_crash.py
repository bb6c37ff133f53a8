"""A killed ``ledger simulate`` leaves every campaign whole or absent, and the same command
completes the run."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
from collections import defaultdict
from pathlib import Path

from ledger import Ledger
from ledger.log.store import EVENTS_TABLE
from ledger.play.simulate import Simulator, plan
from tests import helpers_reliability as hr

SYSTEM, CAMPAIGNS, SEED, DAYS = "crawl", 80, 9, 10
COMMAND = ("simulate", SYSTEM, "--campaigns", str(CAMPAIGNS), "--seed", str(SEED), "--days", str(DAYS))


def registered(db: Path) -> int:
    """Campaigns in the registry, read as another process sees them."""
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(
                con.execute(
                    f"SELECT count(*) FROM {EVENTS_TABLE} WHERE topic = 'campaign.registered'"
                ).fetchone()[0]
            )
        finally:
            con.close()
    except sqlite3.OperationalError:  # the tables are not there yet
        return 0


def campaigns(db: str) -> dict[str, list[str]]:
    """Each campaign's event kinds, in version order."""
    with Ledger(db) as book:
        return {c.name: [e.kind for e in book.log(c.name, show_all=True)] for c in book.campaigns()}


def reference(tmp_path: Path) -> dict[str, list[str]]:
    """The run played to the end without interruption, in a ledger of its own."""
    db = str(tmp_path / "reference.ledger")
    run = plan(SYSTEM, CAMPAIGNS, SEED)
    with Ledger(db) as book, Simulator(book, SYSTEM, DAYS) as simulator:
        for name, seed in zip(run.names, run.seeds, strict=True):
            simulator.play(name, seed)
    return campaigns(db)


def test_a_killed_simulation_leaves_whole_campaigns_and_the_same_command_completes_it(tmp_path: Path) -> None:
    db = tmp_path / "killed.ledger"
    proc = subprocess.Popen(
        hr.ledger_cmd("--db", str(db), *COMMAND),
        cwd=hr.ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while registered(db) < 1:
            assert proc.poll() is None, "the simulation ended before a campaign was seen"
            assert time.monotonic() < deadline, "no campaign was written within two minutes"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL

    expected = reference(tmp_path)
    found = campaigns(str(db))
    assert 1 <= len(found) < CAMPAIGNS, f"the kill landed after the run had ended ({len(found)} campaigns)"
    for name, kinds in found.items():
        assert kinds == expected[name], f"{name} is partial: {len(kinds)} of {len(expected[name])} events"

    again = hr.run_ledger(str(db), *COMMAND, "--json", timeout=300)
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["already_there"] == len(found) and data["campaigns"] == CAMPAIGNS - len(found)
    assert campaigns(str(db)) == expected
    assert hr.run_ledger(str(db), "verify", "--all").returncode == 0

    done = hr.run_ledger(str(db), *COMMAND, "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["campaigns"] == 0


def test_every_campaign_is_one_transaction_with_its_registration(tmp_path: Path) -> None:
    """The rows of a simulated campaign and its registry row arrive in one append."""
    appends: dict[int, set[str]] = defaultdict(set)
    with Ledger(str(tmp_path / "t.ledger")) as book:
        real = book.store.append
        calls = 0

        def counted(rows: list[tuple[str, int, str, bytes]]) -> None:
            nonlocal calls
            calls += 1
            for stream, _, topic, _ in rows:
                appends[calls].add("registry" if stream == "registry" else topic)
            real(rows)

        book.store.append = counted  # type: ignore[method-assign]
        run = plan("freeform", 3, 4)
        with Simulator(book, "freeform", 30) as simulator:  # freeform players undo mid-campaign
            for name, seed in zip(run.names, run.seeds, strict=True):
                simulator.play(name, seed)
    assert calls == 3
    for kinds in appends.values():
        assert {"registry", "campaign.started", "dice.rolled"} <= kinds, kinds
    assert any("action.undone" in kinds for kinds in appends.values())
