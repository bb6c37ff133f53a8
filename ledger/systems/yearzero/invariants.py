"""What every yearzero state the rules reach holds (``Rules.check_state``), checked at
import on the state after each action, behind deciding the action again."""

from __future__ import annotations

from ledger.i18n import _, n_
from ledger.log.state import CampaignState
from ledger.projections.yearzero.game import YZState
from ledger.projections.yearzero.vocabulary import term


def check_state(_before: CampaignState, after: CampaignState) -> str | None:
    """The roll a push may take up shows faces of a d6 and the successes its sixes give;
    no attribute, Rot or mutation point is below zero."""
    g = after.game
    if not isinstance(g, YZState):
        return None
    pending = g.pending
    if pending is not None:
        dice = pending.dice
        for face in (*dice.base, *dice.skill, *dice.gear, *dice.negative):
            if not 1 <= face <= 6:
                return _(
                    "{name}'s roll shows a {face}, which is not on a d6", name=pending.character, face=face
                )
        if pending.successes != dice.successes():
            return _(
                "{name}'s roll records {successes} where its dice give {given}",
                name=pending.character,
                successes=n_("{n} success", "{n} successes", pending.successes),
                given=dice.successes(),
            )
    for c in g.characters.values():
        for name, value in c.current.items():
            if value < 0:
                return _(
                    "{name}'s {attribute} {value} is below zero",
                    name=c.name,
                    attribute=term(name),
                    value=value,
                )
        if c.rot < 0 or c.permanent_rot < 0 or c.mutation_points < 0:
            return _("{name}'s Rot or mutation points are below zero", name=c.name)
    return None
