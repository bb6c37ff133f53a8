"""What every yearzero state the rules reach holds (``Rules.check_state``), checked at
import on the state after each action, behind deciding the action again."""

from __future__ import annotations

from ledger import words
from ledger.log.state import CampaignState
from ledger.projections.yearzero.game import YZState


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
                return f"{pending.character}'s roll shows a {face}, which is not on a d6"
        if pending.successes != dice.successes():
            return f"{pending.character}'s roll records {words.count(pending.successes, 'success')} where its dice give {dice.successes()}"
    for c in g.characters.values():
        for name, value in c.current.items():
            if value < 0:
                return f"{c.name}'s {name} {value} is below zero"
        if c.rot < 0 or c.permanent_rot < 0 or c.mutation_points < 0:
            return f"{c.name}'s Rot or mutation points are below zero"
    return None
