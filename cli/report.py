"""``ledger report``: one self-contained HTML page for a campaign."""

from __future__ import annotations

from pathlib import Path

import click

from ledger import words
from ledger.cli.fixes import command_line
from ledger.cli.options import Ctx, common, emit, pass_ctx
from ledger.cli.translated import Command
from ledger.i18n import N_
from ledger.projections.report import write


@click.command(
    "report",
    cls=Command,
    help=N_(
        "Write a campaign report: map, timeline slider, sheet, charts, journal and log in one HTML file.\n"
        "\n"
        "Open it in any browser, even offline; the slider shows the sheet, the map\n"
        "and the journal as they were on each day (#day=N in the address opens it\n"
        "there). With --as NAME the page opens on that character's sheet."
    ),
)
@click.option(
    "-o",
    "--output",
    "output",
    required=True,
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help=N_("The HTML file to write (it needs nothing else: no network, no other file)."),
)
@common
@pass_ctx
def report(c: Ctx, output: Path) -> None:
    if output.suffix.lower() not in (".html", ".htm"):
        raise click.BadParameter(
            f"expected a file name ending in .html, got {str(output)!r}; use -o NAME.html"
        )
    data = write(c.ledger, c.campaign, output, focus=c.actor, word=command_line)
    steps = data["steps"]
    last = steps[-1] if steps else {"day": None, "v": 0}
    span = f"days {min(map(int, data['days']))}-{last['day']}, " if data["days"] else ""
    summary = {
        "file": str(output),
        "campaign": data["campaign"],
        "system": data["system"],
        "steps": len(steps),
        "days": len(data["days"]),
        "head": data["chain"]["head"],
        "hash": data["chain"]["hash"],
        "bytes": output.stat().st_size,
        "last_day": last["day"],
    }
    emit(
        c,
        summary,
        lambda: (
            f"wrote {output} ({summary['bytes'] // 1024} KiB): {data['campaign']} ({data['system']}), "
            f"{span}{words.count(len(steps), 'action')}, head v{summary['head']} {summary['hash'][:16]}"
        ),
    )
