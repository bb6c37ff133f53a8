"""What the crawl System wires from its read side (``ledger/systems/crawl/system.py``): the
fold, the sheet and the journal, gathered from the modules that hold them. The project's
own modules import each name from the module that holds it:

- ``game``: the game state, the hex grid's steps, the campaign's stored tables;
- ``fold``: the state a campaign starts from, and ``evolve``;
- ``views``: the sheet and its layout, the calendar, the hunger, the journal, the map.
"""

from __future__ import annotations

from ledger.projections.crawl.fold import day, evolve, initial
from ledger.projections.crawl.game import (
    CHAPTER_DAYS,
    DIRECTIONS,
    GOD_CHAPTER,
    Crawl,
    key,
    neighbour,
    not_stored,
)
from ledger.projections.crawl.views import FORMS, SHEET, chapter_name, journal, sheet

__all__ = [
    "CHAPTER_DAYS",
    "DIRECTIONS",
    "FORMS",
    "GOD_CHAPTER",
    "SHEET",
    "Crawl",
    "chapter_name",
    "day",
    "evolve",
    "initial",
    "journal",
    "key",
    "neighbour",
    "not_stored",
    "sheet",
]
