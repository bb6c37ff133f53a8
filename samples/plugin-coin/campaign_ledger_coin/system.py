"""``coin``: call heads or tails, flip a coin; the call wins when it names the face.

The rules are one decider (:class:`ledger.deciding.decider.Decider`) with a handler per
command; :data:`SYSTEM` is everything the ledger needs of the system, in its three
parts (rules, read model, play), and the entry point in pyproject.toml publishes it.
Nothing here imports click or words a command line: the ``ledger coin`` group is
``cli.py``'s, published under an entry point of its own and loaded only by the
``ledger`` command.
"""

from __future__ import annotations

from campaign_ledger_coin import state as proj
from campaign_ledger_coin.commands import Flip
from campaign_ledger_coin.events import EVENTS, FACES, Flipped
from campaign_ledger_coin.i18n import N_, _, face
from campaign_ledger_coin.play import autoplay
from ledger.deciding.decider import Decider, Draft
from ledger.errors import GiveOption, Input, RuleError
from ledger.systems import Play, ReadModel, Rules, System

decider = Decider("coin", proj.evolve)


@decider.on(Flip)
def _flip(draft: Draft[proj.CoinState], command: Flip) -> None:
    call = command.call  # a stable key: the command line reads the words (cli.FaceChoice)
    if call not in FACES:
        raise RuleError(
            _(
                "a call is {heads} or {tails}, not {call!r}",
                heads=face("heads"),
                tails=face("tails"),
                call=command.call,
            ),
            fix=GiveOption(
                system="coin",
                text=_("call {heads} or {tails}", heads=face("heads"), tails=face("tails")),
                inputs=(Input("call", "heads (or tails)"),),
            ),
        )
    # A d2 through the campaign's dice: derived under its dice commitment, seeded, or
    # the physical coin's face given as it fell (1 heads, 2 tails).
    fell = FACES[draft.dice.roll(2) - 1]
    draft.emit(Flipped(call=call, face=fell, manual=draft.dice.manual))


SYSTEM = System(
    name="coin",
    description=N_("sample plugin: call heads or tails, flip a coin"),
    rules=Rules(
        events=EVENTS,
        initial=proj.initial,
        evolve=proj.evolve,
        decide=decider,
        commands=decider.commands,
    ),
    read=ReadModel(
        sheet=proj.sheet,
        sheet_layout=proj.SHEET,
        forms=proj.FORMS,
        facts=proj.facts,
    ),
    play=Play(autoplay=autoplay),
)
