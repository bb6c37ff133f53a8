"""What the dicepool rules and the dicepool fold both know: attributes, wound levels, the monitor.

Plain constants and pure helpers only: the fold (``ledger.projections.dicepool``)
reads them to build the sheet, the rules read them to decide; neither side's
modules are imported here.
"""

from __future__ import annotations

ATTRIBUTES = (
    "body",
    "quickness",
    "strength",
    "charisma",
    "intelligence",
    "willpower",
    "reaction",
    "essence",
    "magic",
)
LEVELS = ("S", "L", "G", "M")
"""Wound levels in the text's Spanish letters: suave, leve, grave, mortal."""
BOXES = {"S": 1, "L": 3, "G": 6, "M": 10}
NAMES = {"S": "suave", "L": "leve", "G": "grave", "M": "mortal"}
MONITOR = 10
"""Boxes on each track (physical and stun)."""
PENALTY = {None: 0, "S": 1, "L": 2, "G": 3, "M": 3}
"""TN modifier of a track's wound (the same number comes off initiative)."""


def box_level(boxes: int) -> str | None:
    """The wound a track shows: 1-2 boxes S, 3-5 L, 6-9 G, 10 M."""
    for level in reversed(LEVELS):
        if boxes >= BOXES[level]:
            return level
    return None


def tn_modifier(physical: int, stun: int, worst_only: bool = False) -> int:
    """Both tracks' penalties add up, or only the worse counts (setting ``wound_modifiers``)."""
    penalties = (PENALTY[box_level(physical)], PENALTY[box_level(stun)])
    return max(penalties) if worst_only else sum(penalties)
