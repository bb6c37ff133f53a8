"""``ledger demo``: the main job, end to end, on the embedded SQLite ledger."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import click

from ledger.campaign import Ledger
from ledger.cli.options import Ctx
from ledger.dice import render
from ledger.systems import get_system, system_names

DEMO_FILE = "demo.ledger"


def heading(text: str) -> None:
    click.echo("")
    click.secho(f"== {text} ==", bold=True)


def freeform(book: Ledger) -> None:
    heading("freeform: rolls, undo, redo, a fork, and the chain")
    name = "demo-freeform"
    if name not in {c.name for c in book.campaigns()}:
        book.new_campaign("freeform", name)
        book.add_character("Ines", name, {"class": "rogue"})
        for notation, faces in (
            ("1d20+3", [14]),
            ("4d6kh3", [6, 2, 5, 4]),
            ("2d6!", [6, 3, 2]),
            ("1d20", [1]),
            ("8d6>=5", [5, 6, 1, 3, 5, 2, 6, 4]),
        ):
            rec = book.roll(notation, name, faces=faces)
            click.echo(f"  $ ledger roll {notation} --faces {','.join(map(str, faces))}")
            click.echo(f"    {render(rec.events[0].result)}")  # type: ignore[attr-defined]
        book.undo(name, 2)
        click.echo("  $ ledger undo 2      (the natural 1 and the pool roll are retracted)")
        book.redo(name)
        click.echo("  $ ledger redo        (the natural 1 comes back; the pool roll stays undone)")
        book.fork(name, "demo-freeform-what-if", at=4)
        book.roll("1d20", "demo-freeform-what-if", faces=[20])
        click.echo("  $ ledger fork demo-freeform-what-if --at 4 && ledger roll 1d20 --faces 20")
    click.echo("  $ ledger log --all")
    for e in book.log(name, show_all=True):
        mark = "  [undone]" if e.undone else ""
        click.echo(f"    v{e.version:<3} {e.summary}{mark}")
    click.echo("  $ ledger -c demo-freeform-what-if log")
    for e in book.log("demo-freeform-what-if"):
        click.echo(f"    v{e.version:<3} {e.summary}")


def run(c: Ctx, demo_db: str | None) -> None:
    target = demo_db or c.db or DEMO_FILE
    click.echo(f"campaign-ledger demo: every roll, meal and wound is an event in {target}")
    with Ledger(target) as book:
        freeform(book)
        for name in system_names():
            system = get_system(name)
            if system.demo is not None:
                heading(f"{name}: {system.description}")
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
                f"  ok  {campaign}: {report.checked[campaign]} events, head {report.heads[campaign][:16]}"
            )
        simulated = [name for name in report.checked if name.startswith("sim-")]
        if simulated:
            events = sum(report.checked[name] for name in simulated)
            click.echo(f"  ok  {len(simulated)} simulated campaigns: {events} events")
    where = Path(target)
    click.echo("")
    click.echo(f"Explore it: ledger --db {where} campaigns | ledger --db {where} -c demo-freeform log --all")
