"""Events of the ``crawl`` system: one explorer, one hex a day.

Each event records a fact with its consequences (faces rolled, changes
applied after the caps, resulting values), so replay never rolls again.
"""

from __future__ import annotations

import msgspec

from ledger.i18n import _, n_
from ledger.log.events import Event
from ledger.systems.crawl import terms


def _physical(manual: bool) -> str:
    return _(" (physical dice)") if manual else ""


def _bits(n: int) -> str:
    return n_("{n} bit", "{n} bits", n)


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
        if self.revisit:
            return _(
                "day {day}: moved {direction} to ({q},{r}) (revisit)",
                day=self.day,
                direction=terms.word_of(terms.DIRECTIONS, self.direction),
                q=self.q,
                r=self.r,
            )
        return _(
            "day {day}: moved {direction} to ({q},{r})",
            day=self.day,
            direction=terms.word_of(terms.DIRECTIONS, self.direction),
            q=self.q,
            r=self.r,
        )


class ChapterOpened(Event, frozen=True, tag="crawl.chapter_opened"):
    chapter: int
    name: str
    day: int

    def summary(self) -> str:
        return _("divine chapter {chapter} opens: {name}", chapter=self.chapter, name=terms.word(self.name))


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
        return _(
            "terrain {variant} {dice}: {terrain}{physical}",
            variant=self.variant,
            dice=list(self.dice),
            terrain=terms.word(self.terrain),
            physical=_physical(self.manual),
        )


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
        rep = _(" (repeated: {choice})", choice=terms.choice(self.choice)) if self.repeated else ""
        return _(
            "{table} {dice} = {total}{repeated}: {text}{physical}",
            table=self.table,
            dice=list(self.dice),
            total=self.total,
            repeated=rep,
            text=terms.table_text(self.table, self.row, self.text),
            physical=_physical(self.manual),
        )


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
        parts = [
            _("{what} {change:+d}", what=terms.delta(k), change=v) for k, v in self._deltas().items() if v
        ]
        if self.item:
            parts.append(_("gets {item}", item=terms.word(self.item)))
        if self.technique:
            parts.append(_("learns technique {number}", number=self.technique))
        return _(
            "{cause}: {changes}", cause=terms.cause(self.cause), changes=", ".join(parts) or _("no change")
        )

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
        icon = terms.word(self.icon) if self.icon else _("removed")
        if self.number is not None:
            return _("icon {icon} {number} at ({q},{r})", icon=icon, number=self.number, q=self.q, r=self.r)
        return _("icon {icon} at ({q},{r})", icon=icon, q=self.q, r=self.r)


class EnemyMet(Event, frozen=True, tag="crawl.enemy_met"):
    foe: Foe
    waiting: bool = False

    def summary(self) -> str:
        if self.waiting:
            return _(
                "meets waiting {foe} (Health {health})", foe=terms.word(self.foe.name), health=self.foe.health
            )
        return _("meets {foe} (Health {health})", foe=terms.word(self.foe.name), health=self.foe.health)


class CombatStarted(Event, frozen=True, tag="crawl.combat_started"):
    foe: str

    def summary(self) -> str:
        return _("fights {foe}", foe=terms.word(self.foe))


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
            return _("{foe} is stunned and loses its turn", foe=terms.word(self.foe))
        return _(
            "{foe} attacks [{face}] {attack} vs Defense {defense}: "
            "{damage} damage, Health {health}{physical}",
            foe=terms.word(self.foe),
            face=self.face,
            attack=self.attack,
            defense=self.defense,
            damage=self.damage,
            health=self.health,
            physical=_physical(self.manual),
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
        how = _("technique {number}", number=self.technique) if self.technique else terms.word(self.weapon)
        return _(
            "hits {foe} with {how}: {attack} vs Defense {defense}, {damage} damage, its Health {health}",
            foe=terms.word(self.foe),
            how=how,
            attack=self.attack,
            defense=self.defense,
            damage=self.damage,
            health=self.foe_health,
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
        roll = (
            _(" {dice} needs {needed} or less", dice=list(self.dice), needed=self.needed)
            if self.needed
            else ""
        )
        if self.success:
            return _(
                "technique {number}{roll} succeeds; Energy {energy}{physical}",
                number=self.number,
                roll=roll,
                energy=self.energy,
                physical=_physical(self.manual),
            )
        return _(
            "technique {number}{roll} fails (-2 Defense until your next turn); Energy {energy}{physical}",
            number=self.number,
            roll=roll,
            energy=self.energy,
            physical=_physical(self.manual),
        )


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
        if self.success:
            return _(
                "escape [{face}] vs ESC {esc}: escapes{physical}",
                face=self.face,
                esc=self.esc,
                physical=_physical(self.manual),
            )
        return _(
            "escape [{face}] vs ESC {esc}: fails to escape{physical}",
            face=self.face,
            esc=self.esc,
            physical=_physical(self.manual),
        )


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
        return _(
            "escaped from {foe}: Energy -{energy}, Health -{health} (hunger)",
            foe=terms.word(self.foe.name),
            energy=self.energy_cost,
            health=self.health_cost,
        )


class EnemyDefeated(Event, frozen=True, tag="crawl.enemy_defeated"):
    foe: str
    god: bool = False

    def summary(self) -> str:
        return _("defeats {foe}", foe=terms.word(self.foe))


class Bought(Event, frozen=True, tag="crawl.bought"):
    item: str
    price: int
    bits: int
    town: int

    def summary(self) -> str:
        return _(
            "buys {item} for {price} in town {town} ({bits} left)",
            item=terms.word(self.item),
            price=_bits(self.price),
            town=self.town,
            bits=self.bits,
        )


class QuestTaken(Event, frozen=True, tag="crawl.quest_taken"):
    town: int

    def summary(self) -> str:
        return _("takes the quest of town {town}", town=self.town)


class Ate(Event, frozen=True, tag="crawl.ate"):
    food: str
    health_gain: int
    energy_gain: int
    health: int
    energy: int
    cost: int = 0
    meal: int = 1

    def summary(self) -> str:
        food = terms.word_of(terms.FOODS, self.food)
        if self.cost:
            return _(
                "eats {food} for {price}: Health +{health} Energy +{energy} (meal {meal})",
                food=food,
                price=_bits(self.cost),
                health=self.health_gain,
                energy=self.energy_gain,
                meal=self.meal,
            )
        return _(
            "eats {food}: Health +{health} Energy +{energy} (meal {meal})",
            food=food,
            health=self.health_gain,
            energy=self.energy_gain,
            meal=self.meal,
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
        if self.cost is not None and self.cost != self.loss:
            return _(
                "no meal: day {streak} of the hunger streak, Health -{loss} (the streak asked {cost})",
                streak=self.streak,
                loss=self.loss,
                cost=self.cost,
            )
        return _(
            "no meal: day {streak} of the hunger streak, Health -{loss}", streak=self.streak, loss=self.loss
        )


class Slept(Event, frozen=True, tag="crawl.slept"):
    where: str
    health_gain: int
    energy_gain: int
    health: int
    energy: int
    cost: int = 0

    def summary(self) -> str:
        return _(
            "sleeps ({where}): Health +{health} Energy +{energy}",
            where=terms.word_of(terms.NIGHTS, self.where),
            health=self.health_gain,
            energy=self.energy_gain,
        )


class Hid(Event, frozen=True, tag="crawl.hid"):
    foe: str

    def summary(self) -> str:
        return _("hides from {foe}: no meal, no sleep", foe=terms.word(self.foe))


class DayEnded(Event, frozen=True, tag="crawl.day_ended"):
    day: int
    ate: bool
    streak: int
    how: str
    """slept, escaped, hid."""
    line: str

    def summary(self) -> str:
        return _(
            "day {day} ends ({how}): {line}",
            day=self.day,
            how=terms.how(self.how),
            line=terms.line(self.line),
        )


class Died(Event, frozen=True, tag="crawl.died"):
    cause: str
    day: int

    def summary(self) -> str:
        return _("dies on day {day}: {cause}", day=self.day, cause=terms.cause(self.cause))


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
