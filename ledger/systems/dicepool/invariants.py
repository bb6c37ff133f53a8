"""What every dicepool state the rules reach holds (``Rules.check_state``), checked at
import on the state after each action, behind deciding the action again."""

from __future__ import annotations

from ledger.i18n import _
from ledger.log.state import CampaignState
from ledger.projections.dicepool.state import DicepoolState
from ledger.systems.dicepool.model import MONITOR, TRACK_NAMES, shown


def check_state(_before: CampaignState, after: CampaignState) -> str | None:
    """Each condition monitor within 0 and its 10 boxes, and no overflow below zero."""
    g = after.game
    if not isinstance(g, DicepoolState):
        return None
    for c in g.characters.values():
        for track in ("physical", "stun"):
            value = getattr(c, track)
            if not 0 <= value <= MONITOR:
                return _(
                    "{who}'s {track} damage {value} is outside 0 to {boxes} boxes",
                    who=c.name,
                    track=shown(track, TRACK_NAMES),
                    value=value,
                    boxes=MONITOR,
                )
        if c.overflow < 0:
            return _("{who}'s overflow {overflow} is below zero", who=c.name, overflow=c.overflow)
    return None
