"""``coin``: call heads or tails, flip a coin; the call wins when it names the face.

The rules are one decider (:class:`ledger.decider.Decider`) with a handler per
command; :data:`SYSTEM` is everything the ledger needs of the system, and the
entry point in pyproject.toml publishes it. Nothing here imports click: the
command line is named by an import string (``System.cli``) and loaded only by
the ``ledger`` command.
"""

from __future__ import annotations

from typing import Any

from campaign_ledger_coin import HELP
from campaign_ledger_coin import state as proj
from campaign_ledger_coin.commands import Flip
from campaign_ledger_coin.events import EVENTS, FACES, Flipped
from campaign_ledger_coin.play import autoplay, demo
from ledger.decider import Decider, Draft
from ledger.errors import GiveOption, Input, RuleError
from ledger.systems import System

decider = Decider("coin", proj.evolve)


@decider.on(Flip)
def _flip(draft: Draft[proj.CoinState], command: Flip) -> None:
    if command.call not in FACES:
        raise RuleError(
            f"a call is heads or tails, not {command.call!r}",
            fix=GiveOption(
                system="coin", text="call heads or tails", inputs=(Input("call", "heads (or tails)"),)
            ),
        )
    # A d2 through the campaign's dice: derived under its dice commitment, seeded, or
    # the physical coin's face given with --faces (1 heads, 2 tails).
    face = FACES[draft.dice.roll(2) - 1]
    draft.emit(Flipped(call=command.call, face=face, manual=draft.dice.manual))


def hints(_state: Any) -> list[str]:
    return ["coin flip --call heads|tails"]


SYSTEM = System(
    name=HELP.name,
    description=HELP.description,
    cli=HELP.cli,
    cli_help=HELP.cli_help,
    events=EVENTS,
    initial=proj.initial,
    evolve=proj.evolve,
    decide=decider,
    commands=decider.commands,
    sheet=proj.sheet,
    render_sheet=proj.render_sheet,
    facts=proj.facts,
    autoplay=autoplay,
    demo=demo,
    hints=hints,
    first_steps=("coin flip --call heads|tails",),
)
