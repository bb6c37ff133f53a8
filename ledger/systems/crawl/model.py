"""The crawl's fixed numbers, which the rules, the tables listing and the day's order share:
meals, nights and the combat techniques (the rules' own, not a table a user replaces)."""

from __future__ import annotations

from typing import Any

MEALS: dict[str, tuple[int, int, int]] = {"bar": (2, 1, 0), "fruit": (1, 2, 0), "tavern": (10, 4, 3)}
"""Food -> (Health, Energy, bits)."""
NIGHTS: dict[str, tuple[int, int, int]] = {"wild": (3, 2, 0), "town": (4, 3, 0), "hotel": (10, 6, 3)}
"""Where -> (Health, Energy, bits)."""

TECHNIQUES: dict[int, dict[str, Any]] = {
    1: {"name": "dodge and strike", "cost": 2, "bonus": 2},
    2: {"name": "roll and cut cables", "cost": 3, "bonus": 4, "robots": True},
    3: {"name": "jump and attack", "cost": 4, "bonus": 6},
    4: {"name": "electromagnetic grenade", "cost": 1, "robots": True, "needs": ("solar taser",)},
    5: {"name": "sprint", "cost": 2},
    6: {"name": "electric arrows", "cost": 2, "arrow": 2, "needs": ("reinforced bow", "solar taser")},
    7: {"name": "flaming arrows", "cost": 2, "arrow": 3, "needs": ("reinforced bow", "solar taser")},
}
