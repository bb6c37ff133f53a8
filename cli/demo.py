"""``ledger demo``: the main job, end to end, on the embedded SQLite ledger."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
from pathlib import Path

import click

from ledger import i18n
from ledger.cli import systems as on_cli
from ledger.cli.options import Ctx, common, emit, pass_ctx
from ledger.cli.root import cli
from ledger.i18n import N_, _, n_

DEMO_FILE = "demo.ledger"


def heading(text: str) -> None:
    click.echo("")
    click.secho(f"== {text} ==", bold=True)


def run(c: Ctx, demo_db: str | None) -> None:
    # lazy: `ledger --help` imports no ledger.campaign (tests/test_cli_startup.py)
    from ledger.campaign import Ledger

    target = demo_db or c.db or DEMO_FILE
    click.echo(_("campaign-ledger demo: every roll, meal and wound is an event in {file}", file=target))
    with Ledger(target) as book:
        for system in on_cli.shown_in_demo():
            show = on_cli.demo_of(system)
            assert show is not None
            heading(f"{system.name}: {i18n.translate(system.description)}")
            show(book, click.echo)
        if importlib.util.find_spec("ledger.cli.stats") is not None:
            stats = importlib.import_module("ledger.cli.stats")
            hook = getattr(stats, "demo", None)
            if hook is not None:
                heading(_("statistics across campaigns"))
                hook(book, click.echo)
        heading(_("verify: the sha256 chain over every campaign"))
        report = book.verify(every=True)
        shown = [name for name in report.checked if not name.startswith("sim-")]
        for campaign in shown:
            click.echo(
                _(
                    "  ok  {campaign}: {events}, head {head}",
                    campaign=campaign,
                    events=n_("{n} event", "{n} events", report.checked[campaign]),
                    head=report.heads[campaign][:16],
                )
            )
        simulated = [name for name in report.checked if name.startswith("sim-")]
        if simulated:
            events = sum(report.checked[name] for name in simulated)
            click.echo(
                _(
                    "  ok  {campaigns}: {events}",
                    campaigns=n_("{n} simulated campaign", "{n} simulated campaigns", len(simulated)),
                    events=n_("{n} event", "{n} events", events),
                )
            )
        first = next((camp.name for camp in book.campaigns() if not camp.name.startswith("sim-")), None)
    where = Path(target)
    click.echo("")
    explore = f" | ledger --db {where} -c {first} log --all" if first else ""
    click.echo(_("Explore it: {commands}", commands=f"ledger --db {where} campaigns{explore}"))


@cli.command(
    "demo",
    help=N_(
        "Show the main job on the embedded SQLite ledger: sample campaigns, undo, fork, verify.\n"
        "\n"
        "With --json: one object, the demo's sections as lists of lines."
    ),
)
@click.option(
    "--db",
    "demo_db",
    default=None,
    metavar="PATH",
    help=N_("Where to keep the demo ledger (default: ./demo.ledger)."),
)
@common
@pass_ctx
def demo(c: Ctx, demo_db: str | None) -> None:
    if not c.json:
        run(c, demo_db)
        return
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        run(c, demo_db)
    intro, *rest = shown.getvalue().split("\n== ")
    sections = []
    for part in rest:
        title, _sep, body = part.partition(" ==\n")
        sections.append({"title": title, "lines": [ln for ln in body.strip("\n").splitlines() if ln]})
    emit(
        c,
        {"ledger": demo_db or c.db or DEMO_FILE, "intro": intro.strip(), "sections": sections},
        "",
    )
