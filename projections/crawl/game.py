"""The crawl's game state: the explorer, the hex map and the fight, with the grid's
steps and the campaign's stored tables as the fold and the rules read them."""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.errors import LedgerError, RunCommand
from ledger.i18n import _
from ledger.systems.crawl import events as ev

CAP = 20
"""Health and Energy never exceed this."""
CHAPTER_DAYS: dict[int, int] = {3: 1, 15: 2, 25: 3, 40: 4, 50: 5}
"""Day -> divine chapter."""
GOD_CHAPTER = 3
"""The chapter in which God himself appears."""
DIRECTIONS: dict[str, tuple[int, int]] = {
    "n": (0, -1),
    "ne": (1, -1),
    "se": (1, 0),
    "s": (0, 1),
    "sw": (-1, 1),
    "nw": (-1, 0),
}
"""Axial steps of a flat-topped hex grid."""


def key(q: int, r: int) -> str:
    return f"{q},{r}"


def neighbour(q: int, r: int, direction: str) -> tuple[int, int]:
    dq, dr = DIRECTIONS[direction]
    return q + dq, r + dr


class Hex(msgspec.Struct, frozen=True):
    terrain: str | None = None
    icon: str = ""
    number: int | None = None
    visits: int = 0
    foe: ev.Foe | None = None
    quest_done: bool = False


class Fight(msgspec.Struct, frozen=True):
    foe: ev.Foe
    started: bool = False
    defense_penalty: int = 0
    stun: int = 0
    effects: tuple[int, ...] = ()


class Crawl(msgspec.Struct, frozen=True):
    """The explorer and the map: everything the rules need to decide."""

    health: int = 10
    energy: int = 10
    attack: int = 1
    defense: int = 1
    bar: int = 3
    fruit: int = 0
    bits: int = 0
    arrows: int = 0
    inventory: tuple[str, ...] = ()
    techniques: dict[int, int] = {}
    """Known technique -> successful uses so far."""
    day: int = 0
    phase: str = "dawn"
    """dawn, terrain, event, encounter, combat, camp, dead."""
    q: int = 0
    r: int = 0
    hexes: dict[str, Hex] = {}
    path: tuple[tuple[int, int], ...] = ((0, 0),)
    meals: int = 0
    town_step: int = 0
    """0: may trade; 1: quest taken; 2: eaten (a town's order)."""
    can_loot: bool = False
    hunger_streak: int = 0
    longest_streak: int = 0
    hunger_lost: int = 0
    """Health actually lost to hunger (escapes included)."""
    fled_with: int | None = None
    """The Health before an escape's hunger, read by the ``crawl.starved`` that follows."""
    alive: bool = True
    cause: str | None = None
    chapters: tuple[int, ...] = ()
    chapter_today: int | None = None
    towns: int = 0
    seen: dict[str, tuple[int, ...]] = {}
    fight: Fight | None = None
    today: tuple[str, ...] = ()
    journal: tuple[tuple[int, str], ...] = ()
    notes: tuple[tuple[int, str], ...] = ()

    @property
    def here(self) -> Hex:
        return self.hexes.get(key(self.q, self.r), Hex())


def not_stored(where: str, value: object) -> LedgerError:
    """A campaign's stored tables hold ``value`` where a table or a name should be: tables no
    ledger wrote (an import checks them since; a campaign kept by an older ledger may not)."""
    what = {list: _("a list"), dict: _("a table"), str: _("text"), bool: _("true or false")}.get(
        type(value), _("a number")
    )
    return LedgerError(
        _(
            "the campaign's stored tables hold {what} where {where} should be; they are not tables the ledger writes",
            what=what,
            where=where,
        ),
        fix=RunCommand(text=_("verify the campaign, and start it again from a table file"), command="verify"),
    )


def stored_table(tables: object, name: str) -> dict[str, Any]:
    """One table of a campaign's stored tables (empty when missing), refused in one line
    when the stored value is no table."""
    if not isinstance(tables, dict):
        raise not_stored(_("the tables"), tables)
    found = tables.get(name, {})
    if not isinstance(found, dict):
        raise not_stored(_("the {name} table", name=name), found)
    return found
