"""``ledger demo``: the main job, end to end, on the embedded SQLite ledger."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import click

from ledger import words
from ledger.campaign import Ledger
from ledger.cli.options import Ctx
from ledger.systems import System, get_system, system_names

DEMO_FILE = "demo.ledger"


def heading(text: str) -> None:
    click.echo("")
    click.secho(f"== {text} ==", bold=True)


def shown_systems() -> list[System]:
    """The installed systems that show themselves in the demo (``System.demo``): those with
    no events of their own first (they show what every campaign can do: rolls, undo, redo,
    forks), then the others in the order they are installed."""
    found = [get_system(name) for name in system_names()]
    return sorted((s for s in found if s.demo is not None), key=lambda s: bool(s.events))


def run(c: Ctx, demo_db: str | None) -> None:
    target = demo_db or c.db or DEMO_FILE
    click.echo(f"campaign-ledger demo: every roll, meal and wound is an event in {target}")
    with Ledger(target) as book:
        for system in shown_systems():
            assert system.demo is not None
            heading(f"{system.name}: {system.description}")
            system.demo(book, click.echo)
        if importlib.util.find_spec("ledger.cli.stats") is not None:
            stats = importlib.import_module("ledger.cli.stats")
            hook = getattr(stats, "demo", None)
            if hook is not None:
                heading("statistics across campaigns")
                hook(book, click.echo)
        heading("verify: the sha256 chain over every campaign")
        report = book.verify(every=True)
        shown = [name for name in report.checked if not name.startswith("sim-")]
        for campaign in shown:
            click.echo(
                f"  ok  {campaign}: {words.count(report.checked[campaign], 'event')}, head {report.heads[campaign][:16]}"
            )
        simulated = [name for name in report.checked if name.startswith("sim-")]
        if simulated:
            events = sum(report.checked[name] for name in simulated)
            click.echo(
                f"  ok  {words.count(len(simulated), 'simulated campaign')}: {words.count(events, 'event')}"
            )
        first = next((camp.name for camp in book.campaigns() if not camp.name.startswith("sim-")), None)
    where = Path(target)
    click.echo("")
    explore = f" | ledger --db {where} -c {first} log --all" if first else ""
    click.echo(f"Explore it: ledger --db {where} campaigns{explore}")
