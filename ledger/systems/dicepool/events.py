"""Events of the ``dicepool`` system: tests, attacks, dodges, resistance, initiative.

Each event records the dice in roll order (a 6 and its re-rolls together),
the target number with every modifier that made it, the successes, the exact
probability of success decided at the time, and the consequences (pool dice
spent, boxes marked), so replay never re-rolls or re-applies a rule.
Characters join through the core ``character.added`` event (see
``ledger.projections.dicepool.state`` for the attribute convention).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ledger import i18n
from ledger.i18n import _, n_
from ledger.log.events import Event
from ledger.systems.dicepool.model import POOL_NAMES, RANGE_NAMES, shown, skill_or_attribute


class PoolDie(msgspec.Struct, frozen=True):
    """One d6 of a test: its face, then the re-rolls a 6 called for, and their sum."""

    faces: tuple[int, ...]
    total: int

    def shown(self) -> str:
        if len(self.faces) == 1:
            return str(self.total)
        return "+".join(map(str, self.faces)) + f"={self.total}"


class Modifier(msgspec.Struct, frozen=True):
    """One step from the base target number to the final one. ``reason`` is stored in
    English (the rules' words, or the English text of a table's modifier); it is put into
    the reader's words where it is shown (:func:`reason_text`)."""

    reason: str
    value: int


_RELATED = re.compile(r"defaulting to related skill (?P<x>\S+)")
_ATTRIBUTE = re.compile(r"defaulting to attribute (?P<x>\S+)")
_RECOIL = re.compile(r"recoil, (?P<x>\d+)-round burst")
_NUMBER = re.compile(r"modifier (?P<x>[+-]\d+)")


def reason_text(reason: str, tables: Mapping[str, Any] | None = None) -> str:
    """A modifier's stored reason in the reader's words: the rules' own reasons, and a
    modifier of the campaign's table in the language its text gives (``tables``)."""
    if reason == "wounds":
        return _("wounds")
    if reason == "armor":
        return _("armor")
    if m := _RELATED.fullmatch(reason):
        return _("defaulting to related skill {skill}", skill=skill_or_attribute(m["x"]))
    if m := _ATTRIBUTE.fullmatch(reason):
        return _("defaulting to attribute {attribute}", attribute=skill_or_attribute(m["x"]))
    if m := _RECOIL.fullmatch(reason):
        return _("recoil, {rounds}-round burst", rounds=int(m["x"]))
    if m := _NUMBER.fullmatch(reason):
        return _("modifier {value}", value=m["x"])
    modifiers = (tables or {}).get("modifiers") or {}
    for entry in modifiers.values() if isinstance(modifiers, Mapping) else ():
        text = entry.get("text") if isinstance(entry, Mapping) else None
        if isinstance(text, Mapping) and i18n.localized(text, "en") == reason:
            return i18n.localized(text)
    return reason


def successes(n: int) -> str:
    return n_("{n} success", "{n} successes", n)


def boxes_text(n: int, track: str) -> str:
    if track == "physical":
        return n_("{n} physical box", "{n} physical boxes", n)
    if track == "stun":
        return n_("{n} stun box", "{n} stun boxes", n)
    return n_("{n} {track} box", "{n} {track} boxes", n, track=track)


def pool_text(n: int, pool: str) -> str:
    """`` +2 combat pool``: pool dice added to a test."""
    return _(" +{n} {pool} pool", n=n, pool=shown(pool, POOL_NAMES))


class Roll(msgspec.Struct, frozen=True, kw_only=True):
    """A success test: dice against a target number."""

    tn: int
    dice: tuple[PoolDie, ...]
    successes: int
    p_success: float
    """Exact probability, decided before rolling, that the test met its need."""
    needed: int = 1
    """Successes the test needed to count as a success (1 for a plain test)."""
    base_tn: int = 0
    modifiers: tuple[Modifier, ...] = ()

    def faces(self) -> str:
        return ", ".join(d.shown() for d in self.dice)


class Defaulting(msgspec.Struct, frozen=True, kw_only=True):
    """How a skill was found: owned, a related skill, or the linked attribute."""

    wanted: str
    used: str
    how: str
    """"skill", "attribute", "related" (TN+2, half the pool) or "default-attribute" (TN+4, no pool)."""
    rating: int

    def text(self) -> str:
        wanted, used = skill_or_attribute(self.wanted), skill_or_attribute(self.used)
        if self.how == "related":
            return _(
                "{wanted}, defaulting to related skill {used} {rating} (TN+2, half the pool)",
                wanted=wanted,
                used=used,
                rating=self.rating,
            )
        if self.how == "default-attribute":
            return _(
                "{wanted}, defaulting to attribute {used} {rating} (TN+4, no pool)",
                wanted=wanted,
                used=used,
                rating=self.rating,
            )
        return f"{used} {self.rating}"


class Tested(Event, frozen=True, tag="dicepool.tested"):
    character: str
    defaulting: Defaulting
    roll: Roll
    pool: str = "combat"
    pool_used: int = 0
    manual: bool = False

    def summary(self) -> str:
        return _(
            "{who} tests {what}{spent} at TN {tn}: {successes} [{faces}]",
            who=self.character,
            what=self.defaulting.text(),
            spent=pool_text(self.pool_used, self.pool) if self.pool_used else "",
            tn=self.roll.tn,
            successes=successes(self.roll.successes),
            faces=self.roll.faces(),
        )


class Attacked(Event, frozen=True, tag="dicepool.attacked"):
    """An attack opens an exchange: the target may dodge, then must resist."""

    exchange: int
    attacker: str
    target: str | None
    defaulting: Defaulting
    melee: bool
    range_class: str | None
    effective_class: str | None
    weapon: str | None
    damage: str | None
    """Damage code after bursts, before armor (e.g. ``9L``); None when no weapon was named."""
    burst: int
    roll: Roll
    stun: bool = False
    """The weapon does stun damage (the stun track of the condition monitor)."""
    pool_used: int = 0
    hit: bool = False
    manual: bool = False

    def summary(self) -> str:
        how = (
            _("melee")
            if self.melee
            else _("{range} range", range=shown(str(self.effective_class), RANGE_NAMES))
        )
        fields = {
            "attacker": self.attacker,
            "target": self.target,
            "weapon": self.weapon,
            "how": how,
            "what": self.defaulting.text(),
            "spent": _(" +{n} pool", n=self.pool_used) if self.pool_used else "",
            "tn": self.roll.tn,
            "successes": successes(self.roll.successes),
            "faces": self.roll.faces(),
        }
        if self.target and self.weapon:
            line = _(
                "{attacker} attacks {target} with {weapon} ({how}, {what}{spent}) at TN {tn}: {successes} [{faces}]",
                **fields,
            )
        elif self.target:
            line = _(
                "{attacker} attacks {target} ({how}, {what}{spent}) at TN {tn}: {successes} [{faces}]",
                **fields,
            )
        elif self.weapon:
            line = _(
                "{attacker} attacks with {weapon} ({how}, {what}{spent}) at TN {tn}: {successes} [{faces}]",
                **fields,
            )
        else:
            line = _("{attacker} attacks ({how}, {what}{spent}) at TN {tn}: {successes} [{faces}]", **fields)
        return line if self.hit else _("{attack} (miss)", attack=line)


class Dodged(Event, frozen=True, tag="dicepool.dodged"):
    exchange: int
    character: str
    roll: Roll
    pool_used: int
    remaining: int
    """Attacker successes left after the dodge; 0 or less is a miss."""
    manual: bool = False

    def summary(self) -> str:
        fields = {
            "who": self.character,
            "dice": n_("{n} pool die", "{n} pool dice", self.pool_used),
            "tn": self.roll.tn,
            "successes": successes(self.roll.successes),
            "faces": self.roll.faces(),
        }
        if self.remaining <= 0:
            return _("{who} dodges with {dice} at TN {tn}: {successes} [{faces}], dodges clear", **fields)
        return n_(
            "{who} dodges with {dice} at TN {tn}: {successes} [{faces}], {n} success left to the attacker",
            "{who} dodges with {dice} at TN {tn}: {successes} [{faces}], {n} successes left to the attacker",
            self.remaining,
            **fields,
        )


class Resisted(Event, frozen=True, tag="dicepool.resisted"):
    """The resistance test and the staged wound it leaves on the condition monitor."""

    exchange: int | None
    character: str
    damage: str
    """The damage code before armor, e.g. ``9L``."""
    armor: int
    power: int
    """Power after armor: the TN of the resistance test (never below 2)."""
    body: int
    pool_used: int
    roll: Roll
    attacker_successes: int
    net: int
    """Attacker successes minus resistance successes."""
    stages: int
    base_level: str
    level: str | None
    """Staged wound level (S/L/G/M) or None when staged below S."""
    track: str
    boxes: int
    physical: int
    stun: int
    overflow: int = 0
    manual: bool = False

    def summary(self) -> str:
        fields = {
            "who": self.character,
            "damage": self.damage,
            "armor": self.armor,
            "power": self.power,
            "dice": n_("{n} die", "{n} dice", len(self.roll.dice)),
            "successes": successes(self.roll.successes),
            "faces": self.roll.faces(),
            "net": f"{self.net:+d}",
            "base": self.base_level,
        }
        if self.level:
            return _(
                "{who} resists {damage} (armor {armor}, power {power}) with {dice}: {successes} [{faces}]; "
                "net {net} stages {base} to {level}: {level} wound, {boxes}",
                level=self.level,
                boxes=boxes_text(self.boxes, self.track),
                **fields,
            )
        return _(
            "{who} resists {damage} (armor {armor}, power {power}) with {dice}: {successes} [{faces}]; "
            "net {net} stages {base} to nothing: no wound",
            **fields,
        )


class InitiativeEntry(msgspec.Struct, frozen=True, kw_only=True):
    character: str
    reaction: int
    faces: tuple[int, ...]
    penalty: int
    score: int


class InitiativeRolled(Event, frozen=True, tag="dicepool.initiative"):
    """A new combat turn: initiative (no rule of six) and every pool refreshed."""

    turn: int
    entries: tuple[InitiativeEntry, ...]
    manual: bool = False

    def summary(self) -> str:
        order = ", ".join(f"{e.character} {e.score}" for e in self.entries)
        return _("combat turn {turn}: initiative {order}; pools refreshed", turn=self.turn, order=order)


class Healed(Event, frozen=True, tag="dicepool.healed"):
    """Boxes cleared from a condition monitor (first aid, rest, a spell...)."""

    character: str
    track: str
    boxes: int
    physical: int
    stun: int
    reason: str = ""

    def summary(self) -> str:
        boxes = boxes_text(self.boxes, self.track)
        if self.reason:
            return _("{who} heals {boxes} ({reason})", who=self.character, boxes=boxes, reason=self.reason)
        return _("{who} heals {boxes}", who=self.character, boxes=boxes)


EVENTS: tuple[type[Event], ...] = (Tested, Attacked, Dodged, Resisted, InitiativeRolled, Healed)
