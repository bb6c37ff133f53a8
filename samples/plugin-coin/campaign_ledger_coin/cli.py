"""``ledger coin ...``: the coin system on the command line, and every word of it a player
types: its command, what a new campaign does first and next, its part of ``ledger demo``.

The entry point ``campaign_ledger.commands`` names :func:`register`, which the ledger calls
the first time the command line needs the group; the library never imports click. Every
name from the ledger comes from :mod:`ledger.cli.plugin`: ``common`` gives a command
``--json``, ``-c CAMPAIGN`` and ``--as CHARACTER``, ``emit`` prints JSON or text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from campaign_ledger_coin.commands import Flip
from campaign_ledger_coin.events import FACES
from campaign_ledger_coin.i18n import FACE_NAMES, _
from campaign_ledger_coin.state import render_sheet, sheet, streak_text
from ledger.cli.plugin import Ctx, SystemGroup, common, emit, pass_ctx, recorded_json

CALL = "coin flip --call heads|tails"
"""What a coin campaign's player does, first and always."""

DEMO = "demo-coin"
PLAYED = (("heads", "heads"), ("heads", "tails"), ("tails", "tails"), ("heads", "tails"))
"""The demo's flips, each (call, face) on a physical coin."""


def demo(book: Any, echo: Callable[[str], None]) -> None:
    """Four physical flips, the last one undone, and the sheet."""
    if DEMO not in {c.name for c in book.campaigns()}:
        book.new_campaign("coin", DEMO)
        for call, face in PLAYED:
            book.execute(Flip(call=call), DEMO, faces=[FACES.index(face) + 1])
        book.undo(DEMO)
    echo(f"  $ ledger new coin {DEMO}")
    for call, face in PLAYED:
        echo(f"  $ ledger coin flip --call {call} --faces {face}")
    echo(_("  $ ledger undo        (the last flip is taken back)"))
    echo("  $ ledger log --all")
    for e in book.log(DEMO, show_all=True):
        mark = _("  [undone]") if e.undone else ""
        echo(f"    v{e.version:<3} {e.summary}{mark}")
    echo("  $ ledger sheet")
    for line in render_sheet(sheet(book.state(DEMO), None)).splitlines():
        echo(f"    {line}")


@click.group(
    "coin",
    cls=SystemGroup,
    short_help=_("The coin system (sample plugin): call heads or tails, flip."),
    help=_("The coin system (sample plugin): call heads or tails, flip a coin."),
    first_steps=(CALL,),
    hints=lambda _state: [CALL],
    demo=demo,
)
def group() -> None:
    """The coin system (sample plugin): call heads or tails, flip a coin."""


class FaceChoice(click.Choice):
    """heads or tails, typed in either language (``--call cara``); the command gets the key."""

    def __init__(self) -> None:
        super().__init__(FACES)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            found = FACE_NAMES.read(value)
            value = next(iter(found)) if len(found) == 1 else value
        return super().convert(value, param, ctx)


@group.command("flip", help=_("Call heads or tails and flip: the call wins when it names the face (1 in 2)."))
@click.option("--call", type=FaceChoice(), required=True, help=_("The face you call."))
@click.option(
    "--faces",
    type=FaceChoice(),
    default=None,
    help=_("A physical coin: the face it fell on (default: the ledger's dice flip it)."),
)
@common
@pass_ctx
def flip(c: Ctx, call: str, faces: str | None) -> None:
    """Call heads or tails and flip: the call wins when it names the face (1 in 2)."""
    die = None if faces is None else [FACES.index(faces) + 1]  # the face of the d2 the rules roll
    rec = c.ledger.execute(Flip(call=call), c.campaign, faces=die, actor=c.actor)
    game = rec.state.game
    run = streak_text(game.streak, game.streak_face)
    emit(
        c,
        {**recorded_json(rec), "streak": game.streak, "streak_face": game.streak_face},
        lambda: "\n".join([*(e.event.summary() for e in rec.envelopes), _("streak: {run}", run=run)]),
    )


def register(cli: click.Group) -> None:
    """Add the ``coin`` group to the command line (the entry point ``campaign_ledger.commands``)."""
    cli.add_command(group)
