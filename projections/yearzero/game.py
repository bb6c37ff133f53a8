"""The yearzero game state: the mutants (attributes, skills, gear, injuries, Rot),
the sectors of the Zone, the clock, and the roll that may still be pushed."""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.projections.yearzero.vocabulary import DAY
from ledger.systems.yearzero import events as ev


class Item(msgspec.Struct, frozen=True):
    name: str
    kind: str = "gear"
    """gear, armor, shield or suit."""
    bonus: int = 1
    max_bonus: int = 1
    destroyed: bool = False


class Injury(msgspec.Struct, frozen=True):
    name: str
    result: int
    lethal: bool = False
    deadline_at: int | None = None
    heals_at: int | None = None
    effect: str = ""
    tried_by: tuple[str, ...] = ()


class Booze(msgspec.Struct, frozen=True):
    damage: int
    doubt: int
    wears_off_at: int


class Character(msgspec.Struct, frozen=True):
    name: str
    max: dict[str, int]
    current: dict[str, int]
    skills: dict[str, int] = {}
    gear: dict[str, Item] = {}
    worn: dict[str, str] = {}
    mutation_points: int = 0
    rot: int = 0
    """Total Rot points, permanent ones included."""
    permanent_rot: int = 0
    conditions: tuple[str, ...] = ()
    ate: bool = False
    drank: bool = False
    slept: bool = False
    bank: tuple[str, ...] = ()
    """Resources taken for recovery, waiting for four hours of rest (grub, water, sleep, intimacy)."""
    broken: dict[str, int] = {}
    """Broken attribute -> game minute from which the character may get up alone."""
    injuries: tuple[Injury, ...] = ()
    booze: tuple[Booze, ...] = ()
    dead: bool = False
    death_cause: str | None = None
    washed: bool = False
    ignored: tuple[str, ...] = ()

    def has(self, condition: str) -> bool:
        return condition in self.conditions

    def worn_item(self, slot: str) -> Item | None:
        name = self.worn.get(slot)
        item = self.gear.get(name) if name else None
        return item if item is not None and not item.destroyed else None


class PendingRoll(msgspec.Struct, frozen=True):
    """The last roll, which may still be pushed once (right after it)."""

    action: str
    character: str
    attribute: str
    skill: str | None
    purpose: str
    target: str | None
    dice: ev.Pool
    item: str | None
    successes: int
    pushed: bool = False


class Sector(msgspec.Struct, frozen=True):
    rot_level: int
    explored: bool = False
    visits: int = 1
    first_at: int = 0


class RotEntry(msgspec.Struct, frozen=True):
    at: int
    character: str
    change: int
    total: int
    permanent: int
    source: str


class YZState(msgspec.Struct, frozen=True):
    minute: int = 8 * 60
    characters: dict[str, Character] = {}
    order: tuple[str, ...] = ()
    sectors: dict[str, Sector] = {}
    position: str = ""
    ark: str = ""
    path: tuple[str, ...] = ()
    next_rot_at: int | None = None
    rot_log: tuple[RotEntry, ...] = ()
    pending: PendingRoll | None = None
    last_action: str = ""
    rolls: dict[str, PendingRoll] = {}
    """Each character's own last roll while it can still be pushed: until the character
    acts again, the party acts, or the roll becomes final (a failed repair or cold roll)."""
    tables: dict[str, Any] = {}
    settings: dict[str, Any] = {}

    @property
    def day(self) -> int:
        return self.minute // DAY

    def rot_level_here(self) -> int:
        sector = self.sectors.get(self.position)
        return sector.rot_level if sector else 0


def rot_interval(s: YZState, level: int) -> int | None:
    """Minutes between Rot points at a sector Rot level (None: no Rot)."""
    levels = s.tables.get("rot_levels", {})
    row = levels.get(str(level)) if isinstance(levels, dict) else None
    if not isinstance(row, dict):
        return None
    minutes = row.get("minutes_per_point")
    return int(minutes) if isinstance(minutes, int) and minutes > 0 else None
