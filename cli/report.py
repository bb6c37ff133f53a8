"""``ledger report``: one self-contained HTML page for a campaign."""

from __future__ import annotations

from pathlib import Path

import click

from ledger.cli.fixes import command_line
from ledger.cli.options import Ctx, common, emit, pass_ctx
from ledger.cli.translated import Command
from ledger.i18n import N_, _, n_
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
            _("expected a file name ending in .html, got {file!r}; use -o NAME.html", file=str(output))
        )
    data = write(c.ledger, c.campaign, output, focus=c.actor, word=command_line)
    steps = data["steps"]
    last = steps[-1] if steps else {"day": None, "v": 0}
    span = (
        _("days {first}-{last}, ", first=min(map(int, data["days"])), last=last["day"])
        if data["days"]
        else ""
    )
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
        lambda: _(
            "wrote {file} ({kib} KiB): {campaign} ({system}), {span}{actions}, head v{head} {hash}",
            file=output,
            kib=summary["bytes"] // 1024,
            campaign=data["campaign"],
            system=data["system"],
            span=span,
            actions=n_("{n} action", "{n} actions", len(steps)),
            head=summary["head"],
            hash=summary["hash"][:16],
        ),
    )
