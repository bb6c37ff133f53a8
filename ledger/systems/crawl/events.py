"""Events of the ``crawl`` system: one explorer, one hex a day.

Each event records a fact with its consequences (faces rolled, changes
applied after the caps, resulting values), so replay never rolls again.
"""

from __future__ import annotations

import msgspec

from ledger import words
from ledger.log.events import Event


def _physical(manual: bool) -> str:
    return " (physical dice)" if manual else ""


class Foe(msgspec.Struct, frozen=True, kw_only=True):
    """An enemy as met: its table values and its current Health."""

    name: str
    health: int
    max_health: int
    attack: int = 0
    defense: int = 0
    esc: int = 3
    robot: bool = False
    god: bool = False
    escapable: bool = True


class Moved(Event, frozen=True, tag="crawl.moved"):
    """The start of a day: the explorer walks to a neighbouring hex."""

    day: int
    direction: str
    q: int
    r: int
    revisit: bool = False

    def summary(self) -> str:
        again = " (revisit)" if self.revisit else ""
        return f"day {self.day}: moved {self.direction} to ({self.q},{self.r}){again}"


class ChapterOpened(Event, frozen=True, tag="crawl.chapter_opened"):
    chapter: int
    name: str
    day: int

    def summary(self) -> str:
        return f"divine chapter {self.chapter} opens: {self.name}"


class TerrainRolled(Event, frozen=True, tag="crawl.terrain_rolled"):
    later_fields = frozenset({"manual"})
    """Left out by events recorded before it was kept."""

    q: int
    r: int
    dice: tuple[int, ...]
    face: int
    terrain: str
    variant: str = "d6"
    options: tuple[str, ...] = ()
    manual: bool = False
    """The faces were physical dice (``--faces``); False in events recorded before the mark."""

    def summary(self) -> str:
        return f"terrain {self.variant} {list(self.dice)}: {self.terrain}{_physical(self.manual)}"


class TableRolled(Event, frozen=True, tag="crawl.table_rolled"):
    """A roll on one of the tables (events, ruins, rewards, quests...)."""

    later_fields = frozenset({"manual"})
    """Left out by events recorded before it was kept."""

    table: str
    dice: tuple[int, ...]
    total: int
    row: int | None
    text: str
    repeated: bool = False
    choice: str = "play"
    """play, pass (a repeated result taken as a pass-through), shift, nothing."""
    p_success: float | None = None
    manual: bool = False
    """The faces were physical dice (``--faces``)."""

    def summary(self) -> str:
        rep = f" (repeated: {self.choice})" if self.repeated else ""
        return f"{self.table} {list(self.dice)} = {self.total}{rep}: {self.text}{_physical(self.manual)}"


class Changed(Event, frozen=True, tag="crawl.changed"):
    """Gains and losses from an outcome, after the caps; with resulting values."""

    cause: str
    health: int = 0
    energy: int = 0
    bits: int = 0
    bar: int = 0
    fruit: int = 0
    arrows: int = 0
    attack: int = 0
    defense: int = 0
    item: str | None = None
    technique: int | None = None
    health_now: int = 0
    energy_now: int = 0

    def summary(self) -> str:
        parts = [f"{k} {v:+d}" for k, v in self._deltas().items() if v]
        if self.item:
            parts.append(f"gets {self.item}")
        if self.technique:
            parts.append(f"learns technique {self.technique}")
        return f"{self.cause}: {', '.join(parts) or 'no change'}"

    def _deltas(self) -> dict[str, int]:
        return {
            "health": self.health,
            "energy": self.energy,
            "bits": self.bits,
            "bar": self.bar,
            "fruit": self.fruit,
            "arrows": self.arrows,
            "attack": self.attack,
            "defense": self.defense,
        }


class IconPlaced(Event, frozen=True, tag="crawl.icon_placed"):
    q: int
    r: int
    icon: str
    """town, treasure, divine, god, enemy, impassable; '' removes the icon."""
    number: int | None = None

    def summary(self) -> str:
        num = f" {self.number}" if self.number is not None else ""
        return f"icon {self.icon or 'removed'}{num} at ({self.q},{self.r})"


class EnemyMet(Event, frozen=True, tag="crawl.enemy_met"):
    foe: Foe
    waiting: bool = False

    def summary(self) -> str:
        how = "waiting " if self.waiting else ""
        return f"meets {how}{self.foe.name} (Health {self.foe.health})"


class CombatStarted(Event, frozen=True, tag="crawl.combat_started"):
    foe: str

    def summary(self) -> str:
        return f"fights {self.foe}"


class EnemyStruck(Event, frozen=True, tag="crawl.enemy_struck"):
    """The enemy's turn: 1d6 + its Attack against the explorer's Defense."""

    later_fields = frozenset({"lost", "manual"})
    """Left out by events recorded before it was kept."""

    foe: str
    face: int | None
    attack: int
    defense: int
    damage: int
    health: int
    stunned: bool = False
    p_success: float | None = None
    manual: bool = False
    """The enemy's die was a physical die (``--faces``)."""
    lost: int | None = None
    """The Health the blow took: ``damage`` stops at the Health there was (docs/rulings/crawl.md,
    20). None: recorded before it was kept; ``damage`` then is the blow, which took all of it
    unless it left Health 0 (see ``ledger.projections.crawl.fold.blow_loss``)."""

    def summary(self) -> str:
        if self.stunned:
            return f"{self.foe} is stunned and loses its turn"
        return (
            f"{self.foe} attacks [{self.face}] {self.attack} vs Defense {self.defense}: "
            f"{self.damage} damage, Health {self.health}{_physical(self.manual)}"
        )


class PlayerStruck(Event, frozen=True, tag="crawl.player_struck"):
    """The explorer hits: Attack (+ weapon, + technique) against the enemy's Defense."""

    foe: str
    weapon: str
    attack: int
    defense: int
    damage: int
    foe_health: int
    arrows_spent: int = 0
    technique: int | None = None

    def summary(self) -> str:
        how = f"technique {self.technique}" if self.technique else self.weapon
        return (
            f"hits {self.foe} with {how}: {self.attack} vs Defense {self.defense}, "
            f"{self.damage} damage, its Health {self.foe_health}"
        )


class TechniqueRolled(Event, frozen=True, tag="crawl.technique_rolled"):
    later_fields = frozenset({"manual"})
    """Left out by events recorded before it was kept."""

    number: int
    dice: tuple[int, ...]
    needed: int | None
    success: bool
    energy_cost: int
    energy: int
    successes: int
    p_success: float | None = None
    stun: int = 0
    manual: bool = False
    """The faces were physical dice (``--faces``)."""

    def summary(self) -> str:
        roll = f" {list(self.dice)} needs {self.needed} or less" if self.needed else ""
        ok = "succeeds" if self.success else "fails (-2 Defense until your next turn)"
        return f"technique {self.number}{roll} {ok}; Energy {self.energy}{_physical(self.manual)}"


class EscapeRolled(Event, frozen=True, tag="crawl.escape_rolled"):
    later_fields = frozenset({"manual"})
    """Left out by events recorded before it was kept."""

    foe: str
    face: int
    esc: int
    success: bool
    p_success: float
    manual: bool = False
    """The die was a physical die (``--faces``)."""

    def summary(self) -> str:
        ok = "escapes" if self.success else "fails to escape"
        return f"escape [{self.face}] vs ESC {self.esc}: {ok}{_physical(self.manual)}"


class Escaped(Event, frozen=True, tag="crawl.escaped"):
    """A successful escape: 2 Energy and the hunger's Health; the enemy waits.

    ``health_cost`` is the Health lost (the ``crawl.starved`` that follows
    carries the streak's cost beside it)."""

    foe: Foe
    q: int
    r: int
    energy_cost: int
    health_cost: int
    energy: int
    health: int

    def summary(self) -> str:
        return (
            f"escaped from {self.foe.name}: Energy -{self.energy_cost}, Health -{self.health_cost} (hunger)"
        )


class EnemyDefeated(Event, frozen=True, tag="crawl.enemy_defeated"):
    foe: str
    god: bool = False

    def summary(self) -> str:
        return f"defeats {self.foe}"


class Bought(Event, frozen=True, tag="crawl.bought"):
    item: str
    price: int
    bits: int
    town: int

    def summary(self) -> str:
        return f"buys {self.item} for {words.count(self.price, 'bit')} in town {self.town} ({self.bits} left)"


class QuestTaken(Event, frozen=True, tag="crawl.quest_taken"):
    town: int

    def summary(self) -> str:
        return f"takes the quest of town {self.town}"


class Ate(Event, frozen=True, tag="crawl.ate"):
    food: str
    health_gain: int
    energy_gain: int
    health: int
    energy: int
    cost: int = 0
    meal: int = 1

    def summary(self) -> str:
        paid = f" for {words.count(self.cost, 'bit')}" if self.cost else ""
        return (
            f"eats {self.food}{paid}: Health +{self.health_gain} Energy +{self.energy_gain} "
            f"(meal {self.meal})"
        )


class Starved(Event, frozen=True, tag="crawl.starved"):
    """A day without a meal: the Health it took, and what the streak asked.

    ``loss`` is the Health actually lost (at most the Health there was) and
    ``cost`` the streak's price (2, 3, 4 ... or an escape's 2). They differ only
    on the day hunger kills. ``cost`` None: recorded before the two were kept
    apart, when ``loss`` held the cost even on that day; the fold reads such an
    event's loss as at most the Health there was."""

    later_fields = frozenset({"cost"})
    """Left out by events recorded before it was kept."""

    streak: int
    loss: int
    health: int
    cost: int | None = None

    def summary(self) -> str:
        asked = f" (the streak asked {self.cost})" if self.cost is not None and self.cost != self.loss else ""
        return f"no meal: day {self.streak} of the hunger streak, Health -{self.loss}{asked}"


class Slept(Event, frozen=True, tag="crawl.slept"):
    where: str
    health_gain: int
    energy_gain: int
    health: int
    energy: int
    cost: int = 0

    def summary(self) -> str:
        return f"sleeps ({self.where}): Health +{self.health_gain} Energy +{self.energy_gain}"


class Hid(Event, frozen=True, tag="crawl.hid"):
    foe: str

    def summary(self) -> str:
        return f"hides from {self.foe}: no meal, no sleep"


class DayEnded(Event, frozen=True, tag="crawl.day_ended"):
    day: int
    ate: bool
    streak: int
    how: str
    """slept, escaped, hid."""
    line: str

    def summary(self) -> str:
        return f"day {self.day} ends ({self.how}): {self.line}"


class Died(Event, frozen=True, tag="crawl.died"):
    cause: str
    day: int

    def summary(self) -> str:
        return f"dies on day {self.day}: {self.cause}"


EVENTS: tuple[type[Event], ...] = (
    Moved,
    ChapterOpened,
    TerrainRolled,
    TableRolled,
    Changed,
    IconPlaced,
    EnemyMet,
    CombatStarted,
    EnemyStruck,
    PlayerStruck,
    TechniqueRolled,
    EscapeRolled,
    Escaped,
    EnemyDefeated,
    Bought,
    QuestTaken,
    Ate,
    Starved,
    Slept,
    Hid,
    DayEnded,
    Died,
)
