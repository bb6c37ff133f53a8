"""What the yearzero System wires from its read side (``ledger/systems/yearzero/system.py``):
the fold, the sheet and the Rot and Zone views, gathered from the modules that hold them.
The project's own modules import each name from the module that holds it:

- ``vocabulary``: attributes, skills, slots, conditions, the clock, sector names;
- ``game``: the game state;
- ``characters``: a character from its attributes;
- ``fold``: the state a campaign starts from, and ``evolve``;
- ``sheet``: a mutant's sheet and its layout;
- ``views``: the Rot and the Zone, as data and as text.
"""

from __future__ import annotations

from ledger.projections.yearzero.fold import day, evolve, initial
from ledger.projections.yearzero.game import YZState
from ledger.projections.yearzero.sheet import FORMS, SHEET, sheet
from ledger.projections.yearzero.views import render_rot, render_zone, rot_view, zone_view
from ledger.projections.yearzero.vocabulary import clock

__all__ = [
    "FORMS",
    "SHEET",
    "YZState",
    "clock",
    "day",
    "evolve",
    "initial",
    "render_rot",
    "render_zone",
    "rot_view",
    "sheet",
    "zone_view",
]
