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

from ledger.i18n import _, n_
from ledger.log.events import Event
from ledger.projections.yearzero.vocabulary import (
    condition_word,
    said,
    slot_word,
    table_text,
    term,
    term_name,
    trauma_word,
    word,
)


def _faces(faces: tuple[int, ...]) -> str:
    return ",".join(map(str, faces)) or "-"


def _hours(n: float) -> str:
    return n_("{n} hour", "{n} hours", int(n) if float(n).is_integer() else n)


def _outcome(successes: int) -> str:
    if successes < 1:
        return _("failure")
    done = n_("{n} success", "{n} successes", successes)
    if successes > 1:
        return _("{successes}, {stunts}", successes=done, stunts=n_("{n} stunt", "{n} stunts", successes - 1))
    return done


def _injury(name: str) -> str:
    return table_text("critical_injuries", "name", name)


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
        base, skill, gear = _faces(self.base), _faces(self.skill), _faces(self.gear)
        if self.negative:
            return _(
                "base [{base}] skill [{skill}] gear [{gear}] negative [{negative}]",
                base=base,
                skill=skill,
                gear=gear,
                negative=_faces(self.negative),
            )
        return _("base [{base}] skill [{skill}] gear [{gear}]", base=base, skill=skill, gear=gear)


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
        return _(
            "{character} rolls {what}: {dice} = {outcome}",
            character=self.character,
            what=term(self.skill or self.attribute),
            dice=self.dice.shown(),
            outcome=_outcome(self.successes),
        )


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
        gear = (
            _(", {item} bonus {bonus}", item=self.item, bonus=self.item_bonus_after)
            if self.item and self.gear_damage
            else ""
        )
        return _(
            "{character} pushes: {dice} = {outcome}; {trauma} trauma to {attribute}, +{points} MP{gear}",
            character=self.character,
            dice=self.dice.shown(),
            outcome=_outcome(self.successes),
            trauma=self.trauma,
            attribute=term(self.attribute),
            points=self.mutation_points,
            gear=gear,
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
            return _(
                "{character}'s failed {purpose} roll stands",
                character=self.character,
                purpose=word(self.purpose),
            )
        if self.destroyed:
            return _("{character}'s failed repair destroys {item}", character=self.character, item=self.item)
        return _(
            "{item} stays at bonus {bonus} for good (failed repair)", item=self.item, bonus=self.bonus_after
        )


class Repaired(Event, frozen=True, kw_only=True, tag="yz.repaired"):
    character: str
    item: str
    bonus_after: int

    def summary(self) -> str:
        return _(
            "{character} repairs {item} (bonus {bonus})",
            character=self.character,
            item=self.item,
            bonus=self.bonus_after,
        )


class Initiative(Event, frozen=True, kw_only=True, tag="yz.initiative"):
    character: str
    face: int
    agility: int
    ambush: bool = False
    total: int = 0

    def summary(self) -> str:
        fields = dict(
            character=self.character,
            face=self.face,
            name=term_name("agility"),
            agility=self.agility,
            total=self.total,
        )
        if self.ambush:
            return _("{character} initiative {face} + {name} {agility} +3 ambush = {total}", **fields)
        return _("{character} initiative {face} + {name} {agility} = {total}", **fields)


class ArmorRolled(Event, frozen=True, kw_only=True, tag="yz.armor_rolled"):
    character: str
    item: str
    slot: str
    faces: tuple[int, ...]
    stopped: int
    rating_after: int

    def summary(self) -> str:
        return _(
            "{character}'s {slot} {item} [{faces}] stops {stopped}, rating {rating}",
            character=self.character,
            slot=slot_word(self.slot),
            item=self.item,
            faces=_faces(self.faces),
            stopped=self.stopped,
            rating=self.rating_after,
        )


class Worn(Event, frozen=True, kw_only=True, tag="yz.worn"):
    """An armor, a shield or a rot suit put on (item None: taken off)."""

    character: str
    slot: str
    item: str | None = None

    def summary(self) -> str:
        if self.item is None:
            return _("{character} takes off the {slot}", character=self.character, slot=slot_word(self.slot))
        return _(
            "{character} wears {item} as {slot}",
            character=self.character,
            item=self.item,
            slot=slot_word(self.slot),
        )


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
        return _(
            "{character} suffers {amount} {trauma} ({cause}), {attribute} {after}",
            character=self.character,
            amount=self.amount,
            trauma=trauma_word(self.trauma),
            cause=said(self.cause),
            attribute=term(self.attribute),
            after=self.after,
        )


class Broken(Event, frozen=True, kw_only=True, tag="yz.broken"):
    character: str
    attribute: str
    getup_face: int
    getup_at: int
    """Game minute from which the character gets up alone, if nothing blocks it."""

    def summary(self) -> str:
        return _(
            "{character} is broken ({attribute} 0); up in {hours} at best",
            character=self.character,
            attribute=term(self.attribute),
            hours=_hours(self.getup_face),
        )


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
        fields = dict(
            character=self.character, result=self.result, faces=_faces(self.faces), name=_injury(self.name)
        )
        if self.lethal:
            return _("{character} critical injury {result} [{faces}]: {name} (lethal)", **fields)
        return _("{character} critical injury {result} [{faces}]: {name}", **fields)


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
            parts.append(_("saved from {injuries}", injuries=", ".join(_injury(n) for n in self.saved)))
        if self.restored:
            parts.append(
                _(
                    "back on their feet with {attribute} {restored}",
                    attribute=term(self.attribute or ""),
                    restored=self.restored,
                )
            )
        if self.halved:
            parts.append(
                _("healing time halved for {injuries}", injuries=", ".join(_injury(n) for n in self.halved))
            )
        return _(
            "{healer} heals {character}: {effects}",
            healer=self.healer,
            character=self.character,
            effects="; ".join(parts) or _("no effect"),
        )


class HealAttempted(Event, frozen=True, kw_only=True, tag="yz.heal_attempted"):
    """A failed Heal roll to save a life: each healer rolls only once."""

    healer: str
    character: str
    injury: str

    def summary(self) -> str:
        return _(
            "{healer} fails to save {character} from {injury}",
            healer=self.healer,
            character=self.character,
            injury=_injury(self.injury),
        )


class InjuryHealed(Event, frozen=True, kw_only=True, tag="yz.injury_healed"):
    character: str
    name: str
    at: int

    def summary(self) -> str:
        return _("{character}'s {injury} has healed", character=self.character, injury=_injury(self.name))


class Died(Event, frozen=True, kw_only=True, tag="yz.died"):
    character: str
    cause: str
    at: int

    def summary(self) -> str:
        return _("{character} dies: {cause}", character=self.character, cause=said(self.cause))


class Recovered(Event, frozen=True, kw_only=True, tag="yz.recovered"):
    character: str
    attribute: str
    amount: int
    after: int
    cause: str
    at: int | None = None

    def summary(self) -> str:
        return _(
            "{character} recovers {amount} {attribute} ({cause}), now {after}",
            character=self.character,
            amount=self.amount,
            attribute=term(self.attribute),
            cause=said(self.cause),
            after=self.after,
        )


class Consumed(Event, frozen=True, kw_only=True, tag="yz.consumed"):
    """A ration of grub or water: for the daily need, for recovery, or against a condition."""

    character: str
    resource: str
    """grub or water."""
    use: str
    """need (the daily ration), lifts (ends hungry/thirsty and is the daily ration), recovery."""
    contaminated: bool = False

    def summary(self) -> str:
        fields = dict(character=self.character, resource=word(self.resource), use=word(self.use))
        if self.contaminated:
            return _("{character} has a contaminated ration of {resource} ({use})", **fields)
        return _("{character} has a ration of {resource} ({use})", **fields)


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
        who = ", ".join(self.characters) or _("nobody")
        if self.sleep:
            return _("{characters} sleep {hours}", characters=who, hours=_hours(self.hours))
        return _("{characters} rest {hours}", characters=who, hours=_hours(self.hours))


class ConditionChanged(Event, frozen=True, kw_only=True, tag="yz.condition"):
    character: str
    condition: str
    active: bool
    at: int | None = None

    def summary(self) -> str:
        condition = condition_word(self.condition)
        if self.active:
            return _("{character} is now {condition}", character=self.character, condition=condition)
        return _("{character} is no longer {condition}", character=self.character, condition=condition)


class DayEnded(Event, frozen=True, kw_only=True, tag="yz.day_ended"):
    day: int
    at: int
    ate: tuple[str, ...] = ()
    drank: tuple[str, ...] = ()
    slept: tuple[str, ...] = ()

    def summary(self) -> str:
        return _("day {day} ends", day=self.day)


class TimePassed(Event, frozen=True, kw_only=True, tag="yz.time"):
    start: int
    end: int
    activity: str

    def summary(self) -> str:
        hours = (self.end - self.start) / 60
        n = int(hours) if hours.is_integer() else hours
        return _(
            "{time} ({activity})",
            time=n_("{n} hour passes", "{n} hours pass", n),
            activity=said(self.activity),
        )


class Boozed(Event, frozen=True, kw_only=True, tag="yz.boozed"):
    character: str
    damage: int
    doubt: int
    face: int
    wears_off_at: int

    def summary(self) -> str:
        return _(
            "{character} drinks booze: heals {damage} damage and {doubt} doubt for {hours}",
            character=self.character,
            damage=self.damage,
            doubt=self.doubt,
            hours=_hours(self.face),
        )


class BoozeWoreOff(Event, frozen=True, kw_only=True, tag="yz.booze_wore_off"):
    character: str
    at: int

    def summary(self) -> str:
        return _("{character}'s booze wears off", character=self.character)


class Hypothermia(Event, frozen=True, kw_only=True, tag="yz.cold"):
    """The Endure roll against cold was failed, or the character is warm again."""

    character: str
    warm: bool = False
    at: int | None = None

    def summary(self) -> str:
        if self.warm:
            return _("{character} is warm again", character=self.character)
        return _("{character} is freezing", character=self.character)


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
            return _(
                "{character}'s rot suit {suit} absorbs a Rot point ({source})",
                character=self.character,
                suit=self.suit,
                source=said(self.source),
            )
        return _(
            "{character} gains a Rot point ({source}), total {total}; rot roll [{faces}] = {damage} damage",
            character=self.character,
            source=said(self.source),
            total=self.total,
            faces=_faces(self.rot_faces),
            damage=self.damage,
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
        return _(
            "{character} loses {lost} Rot ({cause}) [{faces}], {gained} permanent; "
            "total {total} ({permanent} permanent)",
            character=self.character,
            lost=self.lost,
            cause=said(self.cause),
            faces=_faces(self.faces),
            gained=self.permanent_gained,
            total=self.total,
            permanent=self.permanent,
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
        if self.minutes:
            return _(
                "the party enters {sector} (Rot level {level}, {minutes} min)",
                sector=self.sector,
                level=self.rot_level,
                minutes=self.minutes,
            )
        return _("the party enters {sector} (Rot level {level})", sector=self.sector, level=self.rot_level)


class SectorExplored(Event, frozen=True, kw_only=True, tag="yz.explored"):
    sector: str
    minutes: int
    hurry: bool = False
    stunt: bool = False
    night: bool = False
    terrain: str = "typical"

    def summary(self) -> str:
        fields = dict(sector=self.sector, hours=self.minutes // 60, minutes=self.minutes % 60)
        if self.hurry:
            return _("the party explores {sector} in a hurry ({hours}h{minutes:02d})", **fields)
        return _("the party explores {sector} ({hours}h{minutes:02d})", **fields)


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
