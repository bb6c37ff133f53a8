"""The d20 system's events: facts recorded with their consequences.

Every event names the character it happened to (``who``) and carries the
faces rolled, the modifiers, the resulting values and, where a roll can
succeed or fail, the exact probability of success. Replay never re-rolls.
"""

from __future__ import annotations

import msgspec

from ledger.i18n import N_, _, p_, translate
from ledger.log.events import Event
from ledger.systems.d20 import model


class D20Roll(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One d20 roll against a target: 1 die, or 2 with advantage/disadvantage."""

    faces: tuple[int, ...]
    kept: int
    mode: str = "normal"
    """normal, advantage or disadvantage (the two cancel out to normal)."""
    modifier: int = 0
    total: int
    target: int
    success: bool
    natural: str | None = None
    """critical (natural 20) or fumble (natural 1) on the kept die."""
    p_success: float
    manual: bool = False
    """Physical dice given with --faces."""

    def text(self) -> str:
        dice = "/".join(map(str, self.faces))
        if self.natural == "critical":
            verdict = _("success critical")
        elif self.natural == "fumble":
            verdict = _("failure fumble")
        else:
            verdict = _("success") if self.success else _("failure")
        return _(
            "d20 [{dice}]{modifier:+d} = {total} vs {target}: {verdict}",
            dice=dice,
            modifier=self.modifier,
            total=self.total,
            target=self.target,
            verdict=verdict,
        )


class Created(Event, frozen=True, kw_only=True, tag="d20.created"):
    who: str
    manual: bool = False
    rolls: tuple[tuple[int, int, int], ...]
    """The seven 3d6 rolls, each with its three faces, in roll order."""
    dropped: int
    """Index in ``rolls`` of the lowest total, dropped."""
    attributes: dict[str, int]
    modifiers: dict[str, int]
    cls: str
    synthetic: bool = False
    endurance: int
    talents: tuple[str, ...]
    skills: tuple[str, ...]
    level: int = 1
    hp: int
    calm: int
    defense: int
    armor: int = 0
    mov: int
    money: int
    weapons: tuple[str, ...] = ()
    usage: dict[str, int] = msgspec.field(default_factory=dict)

    def summary(self) -> str:
        return _(
            "{who} created: {cls}, {attributes}, {hp_} {hp}, {cp_} {calm}, {def_} {defense}",
            who=self.who,
            cls=model.name(self.cls),
            attributes=_scores(self.attributes),
            **_abbreviations(),
            hp=self.hp,
            calm=self.calm,
            defense=self.defense,
        )


class Reassigned(Event, frozen=True, kw_only=True, tag="d20.reassigned"):
    """The kept rolls placed anew before the character first acted."""

    who: str
    attributes: dict[str, int]
    modifiers: dict[str, int]
    hp: int
    calm: int
    defense: int
    mov: int

    def summary(self) -> str:
        return _(
            "{who} reassigns: {attributes}, {hp_} {hp}, {cp_} {calm}, {def_} {defense}",
            who=self.who,
            attributes=_scores(self.attributes),
            **_abbreviations(),
            hp=self.hp,
            calm=self.calm,
            defense=self.defense,
        )


class Checked(Event, frozen=True, kw_only=True, tag="d20.checked"):
    who: str
    attribute: str
    skill: str | None = None
    skill_points: int = 0
    instinct: bool = False
    purpose: str = "check"
    """check, initiative, unjam, first-aid, repair, therapy."""
    roll: D20Roll
    pushed: bool = False
    calm_after: int | None = None
    """Calm points left after pushing (None when not pushed)."""
    panic_due: bool = False

    def summary(self) -> str:
        what = model.attribute_name(self.attribute)
        if self.instinct:
            what = _("{ins} {attribute}", ins=translate(model.INS), attribute=what)
        if self.skill:
            what = _("{attribute} + {skill}", attribute=what, skill=model.name(self.skill))
        text = _(
            "{who} {purpose} {what}: {roll}",
            who=self.who,
            purpose=_purpose(self.purpose),
            what=what,
            roll=self.roll.text(),
        )
        return _pushed(text, self.pushed)


class Initiative(Event, frozen=True, kw_only=True, tag="d20.initiative"):
    who: str
    manual: bool = False
    face: int
    modifier: int
    total: int

    def summary(self) -> str:
        return _(
            "{who} initiative d20 [{face}]{modifier:+d} = {total}",
            who=self.who,
            face=self.face,
            modifier=self.modifier,
            total=self.total,
        )


class UsageRolled(Event, frozen=True, kw_only=True, tag="d20.usage"):
    who: str
    manual: bool = False
    resource: str
    sides: int
    face: int
    after: int
    """Sides of the usage die afterwards; 0 means exhausted."""
    reason: str = "use"

    def summary(self) -> str:
        after = f"d{self.after}" if self.after else p_("usage die", "exhausted")
        return _(
            "{who} uses {resource}: d{sides} [{face}] -> {after}",
            who=self.who,
            resource=model.name(self.resource),
            sides=self.sides,
            face=self.face,
            after=after,
        )


class Supplied(Event, frozen=True, kw_only=True, tag="d20.supplied"):
    who: str
    resource: str
    sides: int

    def summary(self) -> str:
        return _(
            "{who} resupplies {resource} to d{sides}",
            who=self.who,
            resource=model.name(self.resource),
            sides=self.sides,
        )


class Attacked(Event, frozen=True, kw_only=True, tag="d20.attacked"):
    who: str
    weapon: str
    melee: bool
    mode: str = "single"
    """single (melee or one shot), short, long or full."""
    range: str | None = None
    cover: str | None = None
    running: bool = False
    defense: int
    """Target DEF after cover and running."""
    roll: D20Roll
    hit: bool
    critical: bool = False
    damage_dice: str = ""
    damage_faces: tuple[int, ...] = ()
    damage_bonus: int = 0
    damage: int = 0
    split: tuple[int, ...] = ()
    """Covering fire: the damage shared among targets."""
    pushed: bool = False
    calm_after: int | None = None
    """Calm points left after pushing (None when not pushed)."""
    jammed: bool = False
    exposed: bool = False
    ammo: str | None = None
    ammo_before: int | None = None
    ammo_after: int | None = None
    emptied: bool = False

    def summary(self) -> str:
        weapon = model.name(self.weapon)
        if self.mode in model.MODES:
            weapon = _("{weapon} {mode}", weapon=weapon, mode=translate(model.MODES[self.mode]))
        parts = [_("{who} attacks with {weapon}: {roll}", who=self.who, weapon=weapon, roll=self.roll.text())]
        if self.hit:
            if self.critical:
                hit = _("{damage} damage (critical: maximum + 1)", damage=self.damage)
            else:
                faces = ",".join(map(str, self.damage_faces))
                hit = _("{damage} damage [{faces}]", damage=self.damage, faces=faces)
            if self.split:
                hit = _("{hit} split {shares}", hit=hit, shares="/".join(map(str, self.split)))
            parts.append(hit)
        elif self.split:
            parts[0] = _("{hit} split {shares}", hit=parts[0], shares="/".join(map(str, self.split)))
        if self.jammed:
            parts.append(_("the weapon jams"))
        if self.exposed:
            parts.append(_("exposed: attacks against them have advantage next round"))
        if self.emptied:
            parts.append(_("magazine empty"))
        return "; ".join(parts)


class Reloaded(Event, frozen=True, kw_only=True, tag="d20.reloaded"):
    who: str
    weapon: str

    def summary(self) -> str:
        return _("{who} reloads the {weapon}", who=self.who, weapon=model.name(self.weapon))


class Unjammed(Event, frozen=True, kw_only=True, tag="d20.unjammed"):
    who: str
    weapon: str
    roll: D20Roll
    pushed: bool = False
    calm_after: int | None = None

    def summary(self) -> str:
        fixed = _("fixed") if self.roll.success else _("still jammed")
        return _(
            "{who} clears the {weapon}: {roll} ({fixed})",
            who=self.who,
            weapon=model.name(self.weapon),
            roll=self.roll.text(),
            fixed=fixed,
        )


class Damaged(Event, frozen=True, kw_only=True, tag="d20.damaged"):
    who: str
    amount: int
    hp_after: int
    calm_lost: int
    calm_after: int
    died: bool = False
    panic_due: bool = False
    cause: str = "wound"

    def summary(self) -> str:
        out = _(
            "{who} takes {amount} damage: {hp_} {hp}, {cp_} {calm}",
            who=self.who,
            amount=self.amount,
            **_abbreviations(),
            hp=self.hp_after,
            calm=self.calm_after,
        )
        if self.died:
            return _("{text}; dead", text=out)
        if self.panic_due:
            return _("{text}; panic roll due", text=out)
        return out


class Stressed(Event, frozen=True, kw_only=True, tag="d20.stressed"):
    who: str
    difficulty: int
    roll: D20Roll
    pushed: bool = False
    loss_sides: int
    loss_face: int | None = None
    calm_after: int
    panic_due: bool = False

    def summary(self) -> str:
        cp = translate(model.CALM)
        if self.loss_face is not None:
            out = _(
                "{who} stress {difficulty}+: {roll}; loses d{sides} [{face}] {cp_}, {cp_} {calm}",
                who=self.who,
                difficulty=self.difficulty,
                roll=self.roll.text(),
                sides=self.loss_sides,
                face=self.loss_face,
                cp_=cp,
                calm=self.calm_after,
            )
        else:
            out = _(
                "{who} stress {difficulty}+: {roll}, {cp_} {calm}",
                who=self.who,
                difficulty=self.difficulty,
                roll=self.roll.text(),
                cp_=cp,
                calm=self.calm_after,
            )
        return _("{text}; panic roll due", text=out) if self.panic_due else out


class Panicked(Event, frozen=True, kw_only=True, tag="d20.panicked"):
    who: str
    manual: bool = False
    sides: int
    face: int
    result: str
    trauma_sides: int | None = None
    trauma_face: int | None = None
    trauma: str | None = None
    new_trauma: bool = False
    recovered_face: int
    calm_after: int

    def summary(self) -> str:
        result = model.head(model.reading("panic", self.face, self.result))
        out = _(
            "{who} panics: d{sides} [{face}] {result}",
            who=self.who,
            sides=self.sides,
            face=self.face,
            result=result,
        )
        if self.trauma:
            trauma = model.head(model.reading("traumas", self.trauma_face, self.trauma))
            out = _(
                "{text}; trauma d{sides} [{face}] {trauma}",
                text=out,
                sides=self.trauma_sides,
                face=self.trauma_face,
                trauma=trauma,
            )
        return _(
            "{text}; recovers d4 [{face}] {cp_}, {cp_} {calm}",
            text=out,
            face=self.recovered_face,
            cp_=translate(model.CALM),
            calm=self.calm_after,
        )


class Healed(Event, frozen=True, kw_only=True, tag="d20.healed"):
    who: str
    """The one who heals or repairs."""
    target: str
    method: str
    """first-aid or repair."""
    kit: bool = False
    roll: D20Roll
    pushed: bool = False
    calm_after: int | None = None
    sides: int
    face: int | None = None
    hp_after: int

    def summary(self) -> str:
        hp = translate(model.HP)
        method = _purpose(self.method)
        if self.face is not None:
            text = _(
                "{who} {method} on {target}: {roll}, +{face} {hp_} (d{sides}), {hp_} {hp}",
                who=self.who,
                method=method,
                target=self.target,
                roll=self.roll.text(),
                face=self.face,
                sides=self.sides,
                hp_=hp,
                hp=self.hp_after,
            )
        else:
            text = _(
                "{who} {method} on {target}: {roll}, {hp_} {hp}",
                who=self.who,
                method=method,
                target=self.target,
                roll=self.roll.text(),
                hp_=hp,
                hp=self.hp_after,
            )
        return text


class Rested(Event, frozen=True, kw_only=True, tag="d20.rested"):
    day: int
    recovered: dict[str, tuple[int, int]]
    """For each living character: (PV after, PC after)."""

    def summary(self) -> str:
        marks = _abbreviations()
        who = ", ".join(
            _("{who} {hp_} {hp} {cp_} {calm}", who=n, hp_=marks["hp_"], hp=hp, cp_=marks["cp_"], calm=pc)
            for n, (hp, pc) in self.recovered.items()
        )
        return _("a day of rest (day {day}): {crew}", day=self.day, crew=who)


class Therapy(Event, frozen=True, kw_only=True, tag="d20.therapy"):
    who: str
    trauma: str
    roll: D20Roll
    pushed: bool = False
    calm_after: int | None = None
    day: int

    def summary(self) -> str:
        cured = _("recovered") if self.roll.success else _("not recovered")
        return _(
            "{who} six months of therapy for {trauma}: {roll} ({cured})",
            who=self.who,
            trauma=model.head(_trauma(self.trauma)),
            roll=self.roll.text(),
            cured=cured,
        )


class Carried(Event, frozen=True, kw_only=True, tag="d20.carried"):
    who: str
    items: tuple[str, ...]
    """The full inventory afterwards."""
    change: str

    def summary(self) -> str:
        change = self.change
        if change.startswith("drops "):
            items = ", ".join(model.names(change[len("drops ") :].split(", ")))
            text = _("{who} drops {items}", who=self.who, items=items)
        elif change.startswith("picks up "):
            items = ", ".join(model.names(change[len("picks up ") :].split(", ")))
            text = _("{who} picks up {items}", who=self.who, items=items)
        else:
            text = f"{self.who} {change}"
        return _("{text}; carries {count}", text=text, count=len(self.items))


def _scores(attributes: dict[str, int]) -> str:
    """``STR 18 DEX 15 ...`` (``FUE 18 DES 15 ...``)."""
    return " ".join(f"{model.attribute_name(k)} {v}" for k, v in attributes.items())


def _abbreviations() -> dict[str, str]:
    """The sheet's abbreviations a summary names: ``hp_`` (HP, PV), ``cp_`` (CP, PC), ``def_``."""
    return {"hp_": translate(model.HP), "cp_": translate(model.CALM), "def_": translate(model.DEF)}


PURPOSES = {
    "check": N_("check"),
    "initiative": N_("initiative"),
    "unjam": N_("unjam"),
    "first-aid": N_("first-aid"),
    "repair": N_("repair"),
    "therapy": N_("therapy"),
}
"""What a d20 roll was for (``Checked.purpose``, ``Healed.method``), in words."""


def _purpose(key: str) -> str:
    english = PURPOSES.get(key)
    return translate(english) if english else key


def _pushed(text: str, pushed: bool) -> str:
    if not pushed:
        return text
    return _("{text} (pushed: 1 {cp_} spent)", text=text, cp_=translate(model.CALM))


def _trauma(text: str) -> str:
    """A recorded trauma in the reader's language (found by its text among the tables' rows)."""
    return model.reading_any("traumas", text)


EVENTS: tuple[type[Event], ...] = (
    Created,
    Reassigned,
    Checked,
    Initiative,
    UsageRolled,
    Supplied,
    Attacked,
    Reloaded,
    Unjammed,
    Damaged,
    Stressed,
    Panicked,
    Healed,
    Rested,
    Therapy,
    Carried,
)
