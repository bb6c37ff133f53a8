"""Events of the ``yearzero`` system (Mutant: Year Zero).

Every event names the character it concerns and records the dice in roll
order together with their consequences (trauma suffered, mutation points,
gear bonus left, Rot points, game minute), so replay never rolls again and
never re-applies a rule. Game time is counted in minutes from the start of
day 0. Characters join through the core ``character.added`` event (see
``ledger.projections.yearzero.characters`` for the attribute convention).
"""

from __future__ import annotations

import msgspec

from ledger.log.events import Event


def _faces(faces: tuple[int, ...]) -> str:
    return ",".join(map(str, faces)) or "-"


def _count(n: float, one: str, many: str) -> str:
    return f"{n:g} {one if n == 1 else many}"


def _outcome(successes: int) -> str:
    if successes < 1:
        return "failure"
    stunts = f", {_count(successes - 1, 'stunt', 'stunts')}" if successes > 1 else ""
    return _count(successes, "success", "successes") + stunts


class Pool(msgspec.Struct, frozen=True, kw_only=True):
    """The dice of one Year Zero roll, kept apart by colour."""

    base: tuple[int, ...] = ()
    skill: tuple[int, ...] = ()
    gear: tuple[int, ...] = ()
    negative: tuple[int, ...] = ()
    """Negative skill dice (a modifier below zero skill dice): each 6 cancels a success."""

    def successes(self) -> int:
        sixes = sum(1 for f in (*self.base, *self.skill, *self.gear) if f == 6)
        return max(0, sixes - sum(1 for f in self.negative if f == 6))

    def shown(self) -> str:
        text = f"base [{_faces(self.base)}] skill [{_faces(self.skill)}] gear [{_faces(self.gear)}]"
        if self.negative:
            text += f" negative [{_faces(self.negative)}]"
        return text


class Rolled(Event, frozen=True, kw_only=True, tag="yz.rolled"):
    """A roll of base, skill and gear dice for a skill or an attribute."""

    character: str
    attribute: str
    skill: str | None = None
    purpose: str = "skill"
    """skill, attribute, repair or heal."""
    target: str | None = None
    """What a repair or heal roll works on (an item or a character)."""
    dice: Pool
    item: str | None = None
    helpers: int = 0
    modifier: int = 0
    successes: int = 0
    p_success: float = 0.0
    manual: bool = False

    @property
    def success(self) -> bool:
        return self.successes >= 1

    def summary(self) -> str:
        what = self.skill or self.attribute
        return f"{self.character} rolls {what}: {self.dice.shown()} = {_outcome(self.successes)}"


class Pushed(Event, frozen=True, kw_only=True, tag="yz.pushed"):
    """The single push of a roll: the dice after re-rolling, trauma and gear damage."""

    character: str
    attribute: str
    skill: str | None = None
    """The skill of the roll pushed (None for an attribute roll, and in pushes recorded
    before the skill was kept)."""
    dice: Pool
    rerolled: Pool
    """Only the new faces, in the order re-rolled (base, skill, gear)."""
    successes: int
    p_success: float
    base_ones: int
    """1s on the base dice after the push, first-roll 1s included: the trauma."""
    trauma: int
    """Trauma actually taken by the attribute (it cannot go below 0)."""
    attribute_after: int
    mutation_points: int
    """Mutation points gained (one per base 1)."""
    item: str | None = None
    gear_damage: int = 0
    item_bonus_after: int | None = None
    manual: bool = False

    @property
    def success(self) -> bool:
        return self.successes >= 1

    def summary(self) -> str:
        outcome = _outcome(self.successes)
        gear = f", {self.item} bonus {self.item_bonus_after}" if self.item and self.gear_damage else ""
        return (
            f"{self.character} pushes: {self.dice.shown()} = {outcome}; "
            f"{self.trauma} trauma to {self.attribute}, +{self.mutation_points} MP{gear}"
        )


class Settled(Event, frozen=True, kw_only=True, tag="yz.settled"):
    """A failed repair or cold roll becomes final: pushed, or left unpushed."""

    character: str
    purpose: str = "repair"
    item: str | None = None
    bonus_after: int | None = None
    max_bonus_after: int | None = None
    destroyed: bool = False

    def summary(self) -> str:
        if self.purpose != "repair":
            return f"{self.character}'s failed {self.purpose} roll stands"
        if self.destroyed:
            return f"{self.character}'s failed repair destroys {self.item}"
        return f"{self.item} stays at bonus {self.bonus_after} for good (failed repair)"


class Repaired(Event, frozen=True, kw_only=True, tag="yz.repaired"):
    character: str
    item: str
    bonus_after: int

    def summary(self) -> str:
        return f"{self.character} repairs {self.item} (bonus {self.bonus_after})"


class Initiative(Event, frozen=True, kw_only=True, tag="yz.initiative"):
    character: str
    face: int
    agility: int
    ambush: bool = False
    total: int = 0

    def summary(self) -> str:
        bonus = " +3 ambush" if self.ambush else ""
        return f"{self.character} initiative {self.face} + Agility {self.agility}{bonus} = {self.total}"


class ArmorRolled(Event, frozen=True, kw_only=True, tag="yz.armor_rolled"):
    character: str
    item: str
    slot: str
    faces: tuple[int, ...]
    stopped: int
    rating_after: int

    def summary(self) -> str:
        return (
            f"{self.character}'s {self.slot} {self.item} [{_faces(self.faces)}] stops {self.stopped}, "
            f"rating {self.rating_after}"
        )


class Worn(Event, frozen=True, kw_only=True, tag="yz.worn"):
    """An armor, a shield or a rot suit put on (item None: taken off)."""

    character: str
    slot: str
    item: str | None = None

    def summary(self) -> str:
        if self.item is None:
            return f"{self.character} takes off the {self.slot}"
        return f"{self.character} wears {self.item} as {self.slot}"


class Trauma(Event, frozen=True, kw_only=True, tag="yz.trauma"):
    """Trauma of one kind (damage, fatigue, confusion, doubt) to one attribute."""

    character: str
    trauma: str
    """damage, fatigue, confusion or doubt."""
    attribute: str
    amount: int
    """Points taken (never more than the attribute had)."""
    after: int
    cause: str
    at: int | None = None

    def summary(self) -> str:
        return f"{self.character} suffers {self.amount} {self.trauma} ({self.cause}), {self.attribute} {self.after}"


class Broken(Event, frozen=True, kw_only=True, tag="yz.broken"):
    character: str
    attribute: str
    getup_face: int
    getup_at: int
    """Game minute from which the character gets up alone, if nothing blocks it."""

    def summary(self) -> str:
        return f"{self.character} is broken ({self.attribute} 0); up in {_count(self.getup_face, 'hour', 'hours')} at best"


class CriticalInjury(Event, frozen=True, kw_only=True, tag="yz.critical"):
    character: str
    faces: tuple[int, int]
    result: int
    name: str
    lethal: bool = False
    instant: bool = False
    deadline_at: int | None = None
    """Game minute of death unless a Heal roll saves the character."""
    heals_at: int | None = None
    effect: str = ""

    def summary(self) -> str:
        lethal = " (lethal)" if self.lethal else ""
        return f"{self.character} critical injury {self.result} [{_faces(self.faces)}]: {self.name}{lethal}"


class Healed(Event, frozen=True, kw_only=True, tag="yz.healed"):
    """A successful Heal roll on a character: saved, on their feet, or healing faster."""

    healer: str
    character: str
    saved: tuple[str, ...] = ()
    """Lethal critical injuries no longer lethal."""
    halved: tuple[str, ...] = ()
    """Critical injuries whose remaining healing time was halved."""
    injuries: tuple[tuple[str, int], ...] = ()
    """(injury, new heals_at) for the halved ones."""
    attribute: str | None = None
    restored: int = 0
    """Points given back to a broken attribute."""

    def summary(self) -> str:
        parts = []
        if self.saved:
            parts.append(f"saved from {', '.join(self.saved)}")
        if self.restored:
            parts.append(f"back on their feet with {self.attribute} {self.restored}")
        if self.halved:
            parts.append(f"healing time halved for {', '.join(self.halved)}")
        return f"{self.healer} heals {self.character}: " + ("; ".join(parts) or "no effect")


class HealAttempted(Event, frozen=True, kw_only=True, tag="yz.heal_attempted"):
    """A failed Heal roll to save a life: each healer rolls only once."""

    healer: str
    character: str
    injury: str

    def summary(self) -> str:
        return f"{self.healer} fails to save {self.character} from {self.injury}"


class InjuryHealed(Event, frozen=True, kw_only=True, tag="yz.injury_healed"):
    character: str
    name: str
    at: int

    def summary(self) -> str:
        return f"{self.character}'s {self.name} has healed"


class Died(Event, frozen=True, kw_only=True, tag="yz.died"):
    character: str
    cause: str
    at: int

    def summary(self) -> str:
        return f"{self.character} dies: {self.cause}"


class Recovered(Event, frozen=True, kw_only=True, tag="yz.recovered"):
    character: str
    attribute: str
    amount: int
    after: int
    cause: str
    at: int | None = None

    def summary(self) -> str:
        return f"{self.character} recovers {self.amount} {self.attribute} ({self.cause}), now {self.after}"


class Consumed(Event, frozen=True, kw_only=True, tag="yz.consumed"):
    """A ration of grub or water: for the daily need, for recovery, or against a condition."""

    character: str
    resource: str
    """grub or water."""
    use: str
    """need (the daily ration), lifts (ends hungry/thirsty and is the daily ration), recovery."""
    contaminated: bool = False

    def summary(self) -> str:
        dirty = " contaminated" if self.contaminated else ""
        return f"{self.character} has a{dirty} ration of {self.resource} ({self.use})"


class Rested(Event, frozen=True, kw_only=True, tag="yz.rested"):
    """A rest or a sleep of the party, before the time passes."""

    characters: tuple[str, ...]
    hours: int
    sleep: bool
    intimacy: tuple[str, ...] = ()
    """Characters sharing a moment of intimacy: each keeps the Empathy resource."""
    sleep_kept: tuple[str, ...] = ()
    """Sleepers whose sleep goes beyond the day's need: each keeps the Wits resource."""

    def summary(self) -> str:
        what = "sleep" if self.sleep else "rest"
        return f"{', '.join(self.characters) or 'nobody'} {what} {_count(self.hours, 'hour', 'hours')}"


class ConditionChanged(Event, frozen=True, kw_only=True, tag="yz.condition"):
    character: str
    condition: str
    active: bool
    at: int | None = None

    def summary(self) -> str:
        return f"{self.character} {'is now' if self.active else 'is no longer'} {self.condition}"


class DayEnded(Event, frozen=True, kw_only=True, tag="yz.day_ended"):
    day: int
    at: int
    ate: tuple[str, ...] = ()
    drank: tuple[str, ...] = ()
    slept: tuple[str, ...] = ()

    def summary(self) -> str:
        return f"day {self.day} ends"


class TimePassed(Event, frozen=True, kw_only=True, tag="yz.time"):
    start: int
    end: int
    activity: str

    def summary(self) -> str:
        hours = (self.end - self.start) / 60
        return f"{_count(hours, 'hour passes', 'hours pass')} ({self.activity})"


class Boozed(Event, frozen=True, kw_only=True, tag="yz.boozed"):
    character: str
    damage: int
    doubt: int
    face: int
    wears_off_at: int

    def summary(self) -> str:
        return (
            f"{self.character} drinks booze: heals {self.damage} damage and {self.doubt} doubt "
            f"for {_count(self.face, 'hour', 'hours')}"
        )


class BoozeWoreOff(Event, frozen=True, kw_only=True, tag="yz.booze_wore_off"):
    character: str
    at: int

    def summary(self) -> str:
        return f"{self.character}'s booze wears off"


class Hypothermia(Event, frozen=True, kw_only=True, tag="yz.cold"):
    """The Endure roll against cold was failed, or the character is warm again."""

    character: str
    warm: bool = False
    at: int | None = None

    def summary(self) -> str:
        return f"{self.character} is warm again" if self.warm else f"{self.character} is freezing"


class RotGained(Event, frozen=True, kw_only=True, tag="yz.rot"):
    """One Rot point: the suit roll, then the roll of base dice equal to total Rot."""

    character: str
    source: str
    suit: str | None = None
    suit_faces: tuple[int, ...] = ()
    absorbed: bool = False
    suit_after: int | None = None
    rot_faces: tuple[int, ...] = ()
    damage: int = 0
    total: int = 0
    permanent: int = 0
    at: int | None = None

    def summary(self) -> str:
        if self.absorbed:
            return f"{self.character}'s rot suit {self.suit} absorbs a Rot point ({self.source})"
        return (
            f"{self.character} gains a Rot point ({self.source}), total {self.total}; "
            f"rot roll [{_faces(self.rot_faces)}] = {self.damage} damage"
        )


class RotLost(Event, frozen=True, kw_only=True, tag="yz.rot_lost"):
    """Rot points about to be lost: each rolls a base die, a 1 makes it permanent."""

    character: str
    cause: str
    faces: tuple[int, ...]
    lost: int
    permanent_gained: int
    total: int
    permanent: int
    at: int | None = None

    def summary(self) -> str:
        return (
            f"{self.character} loses {self.lost} Rot ({self.cause}) [{_faces(self.faces)}], "
            f"{self.permanent_gained} permanent; total {self.total} ({self.permanent} permanent)"
        )


class SectorEntered(Event, frozen=True, kw_only=True, tag="yz.entered"):
    sector: str
    rot_level: int
    rot_face: int | None = None
    """The die rolled on the sector Rot table when the level was not given."""
    explored: bool = False
    minutes: int = 0
    vehicle: bool = False
    night: bool = False
    next_rot_at: int | None = None

    def summary(self) -> str:
        how = f", {self.minutes} min" if self.minutes else ""
        return f"the party enters {self.sector} (Rot level {self.rot_level}{how})"


class SectorExplored(Event, frozen=True, kw_only=True, tag="yz.explored"):
    sector: str
    minutes: int
    hurry: bool = False
    stunt: bool = False
    night: bool = False
    terrain: str = "typical"

    def summary(self) -> str:
        how = " in a hurry" if self.hurry else ""
        return f"the party explores {self.sector}{how} ({self.minutes // 60}h{self.minutes % 60:02d})"


EVENTS: tuple[type[Event], ...] = (
    Rolled,
    Pushed,
    Settled,
    Repaired,
    Initiative,
    ArmorRolled,
    Worn,
    Trauma,
    Broken,
    CriticalInjury,
    Healed,
    HealAttempted,
    InjuryHealed,
    Died,
    Recovered,
    Consumed,
    Rested,
    ConditionChanged,
    DayEnded,
    TimePassed,
    Boozed,
    BoozeWoreOff,
    Hypothermia,
    RotGained,
    RotLost,
    SectorEntered,
    SectorExplored,
)
