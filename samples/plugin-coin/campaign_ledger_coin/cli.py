"""``ledger coin ...``: the coin system's commands on the command line.

The ledger loads this group by the import string ``System.cli`` names, only when
the command line needs it; the library never imports click. The shared options
come from :mod:`ledger.cli.options`: ``common`` gives every command ``--json``,
``-c CAMPAIGN`` and ``--as CHARACTER``, ``emit`` prints JSON or text.
"""

from __future__ import annotations

import click

from campaign_ledger_coin.commands import Flip
from campaign_ledger_coin.events import FACES
from ledger.cli.options import Ctx, common, emit, pass_ctx, recorded_json


@click.group("coin")
def group() -> None:
    """The coin system (sample plugin): call heads or tails, flip a coin."""


@group.command("flip")
@click.option("--call", type=click.Choice(FACES), required=True, help="The face you call.")
@click.option(
    "--faces",
    type=click.Choice(FACES),
    default=None,
    help="A physical coin: the face it fell on (default: the ledger's dice flip it).",
)
@common
@pass_ctx
def flip(c: Ctx, call: str, faces: str | None) -> None:
    """Call heads or tails and flip: the call wins when it names the face (1 in 2)."""
    die = None if faces is None else [FACES.index(faces) + 1]  # the face of the d2 the rules roll
    rec = c.ledger.execute(Flip(call=call), c.campaign, faces=die, actor=c.actor)
    game = rec.state.game
    run = f"{game.streak} {game.streak_face} in a row"
    emit(
        c,
        {**recorded_json(rec), "streak": game.streak, "streak_face": game.streak_face},
        lambda: "\n".join([*(e.event.summary() for e in rec.envelopes), f"streak: {run}"]),
    )
