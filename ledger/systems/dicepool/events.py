"""Events of the ``dicepool`` system: tests, attacks, dodges, resistance, initiative.

Each event records the dice in roll order (a 6 and its re-rolls together),
the target number with every modifier that made it, the successes, the exact
probability of success decided at the time, and the consequences (pool dice
spent, boxes marked), so replay never re-rolls or re-applies a rule.
Characters join through the core ``character.added`` event (see
``ledger.projections.dicepool.state`` for the attribute convention).
"""

from __future__ import annotations

import msgspec

from ledger import words
from ledger.log.events import Event


class PoolDie(msgspec.Struct, frozen=True):
    """One d6 of a test: its face, then the re-rolls a 6 called for, and their sum."""

    faces: tuple[int, ...]
    total: int

    def shown(self) -> str:
        if len(self.faces) == 1:
            return str(self.total)
        return "+".join(map(str, self.faces)) + f"={self.total}"


class Modifier(msgspec.Struct, frozen=True):
    """One step from the base target number to the final one."""

    reason: str
    value: int


def successes(n: int) -> str:
    return words.count(n, "success")


def _boxes(n: int, track: str) -> str:
    return words.count(n, f"{track} box")


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
        if self.how == "related":
            return (
                f"{self.wanted}, defaulting to related skill {self.used} {self.rating} (TN+2, half the pool)"
            )
        if self.how == "default-attribute":
            return f"{self.wanted}, defaulting to attribute {self.used} {self.rating} (TN+4, no pool)"
        return f"{self.used} {self.rating}"


class Tested(Event, frozen=True, tag="dicepool.tested"):
    character: str
    defaulting: Defaulting
    roll: Roll
    pool: str = "combat"
    pool_used: int = 0
    manual: bool = False

    def summary(self) -> str:
        spent = f" +{self.pool_used} {self.pool} pool" if self.pool_used else ""
        return (
            f"{self.character} tests {self.defaulting.text()}{spent} at TN {self.roll.tn}: "
            f"{successes(self.roll.successes)} [{self.roll.faces()}]"
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
        at = f" {self.target}" if self.target else ""
        how = "melee" if self.melee else f"{self.effective_class} range"
        weapon = f" with {self.weapon}" if self.weapon else ""
        spent = f" +{self.pool_used} pool" if self.pool_used else ""
        outcome = "" if self.hit else " (miss)"
        return (
            f"{self.attacker} attacks{at}{weapon} ({how}, {self.defaulting.text()}{spent}) at TN "
            f"{self.roll.tn}: {successes(self.roll.successes)} [{self.roll.faces()}]{outcome}"
        )


class Dodged(Event, frozen=True, tag="dicepool.dodged"):
    exchange: int
    character: str
    roll: Roll
    pool_used: int
    remaining: int
    """Attacker successes left after the dodge; 0 or less is a miss."""
    manual: bool = False

    def summary(self) -> str:
        result = (
            "dodges clear" if self.remaining <= 0 else f"{successes(self.remaining)} left to the attacker"
        )
        return (
            f"{self.character} dodges with {words.count(self.pool_used, 'pool die')} at TN {self.roll.tn}: "
            f"{successes(self.roll.successes)} [{self.roll.faces()}], {result}"
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
        wound = f"{self.level} wound, {_boxes(self.boxes, self.track)}" if self.level else "no wound"
        return (
            f"{self.character} resists {self.damage} (armor {self.armor}, power {self.power}) with "
            f"{words.count(len(self.roll.dice), 'die')}: {successes(self.roll.successes)} [{self.roll.faces()}]; "
            f"net {self.net:+d} stages {self.base_level} to {self.level or 'nothing'}: {wound}"
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
        return f"combat turn {self.turn}: initiative {order}; pools refreshed"


class Healed(Event, frozen=True, tag="dicepool.healed"):
    """Boxes cleared from a condition monitor (first aid, rest, a spell...)."""

    character: str
    track: str
    boxes: int
    physical: int
    stun: int
    reason: str = ""

    def summary(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        return f"{self.character} heals {_boxes(self.boxes, self.track)}{why}"


EVENTS: tuple[type[Event], ...] = (Tested, Attacked, Dodged, Resisted, InitiativeRolled, Healed)
