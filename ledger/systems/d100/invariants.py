"""What every d100 state the rules reach holds (``Rules.check_state``), checked at import
on the state after each action, behind deciding the action again."""

from __future__ import annotations

from ledger.i18n import _
from ledger.log.state import CampaignState
from ledger.projections.d100.state import D100State


def check_state(_before: CampaignState, after: CampaignState) -> str | None:
    """Each investigator's hit points within 0 and their maximum, and the face of their
    last test on a d100."""
    g = after.game
    if not isinstance(g, D100State):
        return None
    for inv in g.characters.values():
        if not 0 <= inv.hp <= inv.hp_max:
            return _(
                "{who}'s hit points {hp} are outside 0 to {max}", who=inv.name, hp=inv.hp, max=inv.hp_max
            )
        last = inv.last_test
        if last is not None and not 1 <= last.face <= 100:
            return _("{who}'s last test shows {face}, which is not on a d100", who=inv.name, face=last.face)
    return None
