"""What every d20 state the rules reach holds (``Rules.check_state``), checked at import
on the state after each action, behind deciding the action again."""

from __future__ import annotations

from ledger.log.state import CampaignState
from ledger.projections.d20.state import D20State


def check_state(_before: CampaignState, after: CampaignState) -> str | None:
    """Each hero's Health (PV) and Calm (PC) within 0 and their maximum."""
    g = after.game
    if not isinstance(g, D20State):
        return None
    for hero in g.heroes.values():
        if not 0 <= hero.hp <= hero.hp_max:
            return f"{hero.name}'s Health {hero.hp} is outside 0 to {hero.hp_max}"
        if not 0 <= hero.calm <= hero.calm_max:
            return f"{hero.name}'s Calm {hero.calm} is outside 0 to {hero.calm_max}"
    return None
