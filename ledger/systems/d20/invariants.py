"""What every d20 state the rules reach holds (``Rules.check_state``), checked at import
on the state after each action, behind deciding the action again."""

from __future__ import annotations

from ledger.i18n import _
from ledger.log.state import CampaignState
from ledger.projections.d20.state import D20State


def check_state(_before: CampaignState, after: CampaignState) -> str | None:
    """Each hero's Health (PV) and Calm (PC) within 0 and their maximum."""
    g = after.game
    if not isinstance(g, D20State):
        return None
    for hero in g.heroes.values():
        if not 0 <= hero.hp <= hero.hp_max:
            return _("{who}'s Health {hp} is outside 0 to {max}", who=hero.name, hp=hero.hp, max=hero.hp_max)
        if not 0 <= hero.calm <= hero.calm_max:
            return _(
                "{who}'s Calm {calm} is outside 0 to {max}", who=hero.name, calm=hero.calm, max=hero.calm_max
            )
    return None
