"""The d20 system's events: facts recorded with their consequences.

Every event names the character it happened to (``who``) and carries the
faces rolled, the modifiers, the resulting values and, where a roll can
succeed or fail, the exact probability of success. Replay never re-rolls.
"""

from __future__ import annotations

import msgspec

from ledger.log.events import Event


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
        nat = f" {self.natural}" if self.natural else ""
        verdict = "success" if self.success else "failure"
        return f"d20 [{dice}]{self.modifier:+d} = {self.total} vs {self.target}: {verdict}{nat}"


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
        attrs = " ".join(f"{k.upper()} {v}" for k, v in self.attributes.items())
        return f"{self.who} created: {self.cls}, {attrs}, PV {self.hp}, PC {self.calm}, DEF {self.defense}"


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
        attrs = " ".join(f"{k.upper()} {v}" for k, v in self.attributes.items())
        return f"{self.who} reassigns: {attrs}, PV {self.hp}, PC {self.calm}, DEF {self.defense}"


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
        what = ("INS " if self.instinct else "") + self.attribute.upper()
        skill = f" + {self.skill}" if self.skill else ""
        push = " (pushed: 1 PC spent)" if self.pushed else ""
        return f"{self.who} {self.purpose} {what}{skill}: {self.roll.text()}{push}"


class Initiative(Event, frozen=True, kw_only=True, tag="d20.initiative"):
    who: str
    manual: bool = False
    face: int
    modifier: int
    total: int

    def summary(self) -> str:
        return f"{self.who} initiative d20 [{self.face}]{self.modifier:+d} = {self.total}"


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
        after = f"d{self.after}" if self.after else "exhausted"
        return f"{self.who} uses {self.resource}: d{self.sides} [{self.face}] -> {after}"


class Supplied(Event, frozen=True, kw_only=True, tag="d20.supplied"):
    who: str
    resource: str
    sides: int

    def summary(self) -> str:
        return f"{self.who} resupplies {self.resource} to d{self.sides}"


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
        mode = (
            f" {self.mode} burst"
            if self.mode in ("short", "long")
            else (" full auto" if self.mode == "full" else "")
        )
        out = f"{self.who} attacks with {self.weapon}{mode}: {self.roll.text()}"
        if self.hit:
            crit = (
                " (critical: maximum + 1)" if self.critical else f" [{','.join(map(str, self.damage_faces))}]"
            )
            out += f"; {self.damage} damage{crit}"
        if self.split:
            out += f" split {'/'.join(map(str, self.split))}"
        if self.jammed:
            out += "; the weapon jams"
        if self.exposed:
            out += "; exposed: attacks against them have advantage next round"
        if self.emptied:
            out += "; magazine empty"
        return out


class Reloaded(Event, frozen=True, kw_only=True, tag="d20.reloaded"):
    who: str
    weapon: str

    def summary(self) -> str:
        return f"{self.who} reloads the {self.weapon}"


class Unjammed(Event, frozen=True, kw_only=True, tag="d20.unjammed"):
    who: str
    weapon: str
    roll: D20Roll
    pushed: bool = False
    calm_after: int | None = None

    def summary(self) -> str:
        fixed = "fixed" if self.roll.success else "still jammed"
        return f"{self.who} clears the {self.weapon}: {self.roll.text()} ({fixed})"


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
        out = f"{self.who} takes {self.amount} damage: PV {self.hp_after}, PC {self.calm_after}"
        if self.died:
            out += "; dead"
        elif self.panic_due:
            out += "; panic roll due"
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
        loss = f"; loses d{self.loss_sides} [{self.loss_face}] PC" if self.loss_face is not None else ""
        due = "; panic roll due" if self.panic_due else ""
        return f"{self.who} stress {self.difficulty}+: {self.roll.text()}{loss}, PC {self.calm_after}{due}"


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
        out = f"{self.who} panics: d{self.sides} [{self.face}] {self.result.split(':')[0]}"
        if self.trauma:
            out += f"; trauma d{self.trauma_sides} [{self.trauma_face}] {self.trauma.split(':')[0]}"
        return out + f"; recovers d4 [{self.recovered_face}] PC, PC {self.calm_after}"


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
        gain = f", +{self.face} PV (d{self.sides})" if self.face is not None else ""
        return f"{self.who} {self.method} on {self.target}: {self.roll.text()}{gain}, PV {self.hp_after}"


class Rested(Event, frozen=True, kw_only=True, tag="d20.rested"):
    day: int
    recovered: dict[str, tuple[int, int]]
    """For each living character: (PV after, PC after)."""

    def summary(self) -> str:
        who = ", ".join(f"{n} PV {hp} PC {pc}" for n, (hp, pc) in self.recovered.items())
        return f"a day of rest (day {self.day}): {who}"


class Therapy(Event, frozen=True, kw_only=True, tag="d20.therapy"):
    who: str
    trauma: str
    roll: D20Roll
    pushed: bool = False
    calm_after: int | None = None
    day: int

    def summary(self) -> str:
        cured = "recovered" if self.roll.success else "not recovered"
        return (
            f"{self.who} six months of therapy for {self.trauma.split(':')[0]}: {self.roll.text()} ({cured})"
        )


class Carried(Event, frozen=True, kw_only=True, tag="d20.carried"):
    who: str
    items: tuple[str, ...]
    """The full inventory afterwards."""
    change: str

    def summary(self) -> str:
        return f"{self.who} {self.change}; carries {len(self.items)}"


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
