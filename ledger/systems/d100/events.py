"""Events of the ``d100`` system: percentile tests, luck, wounds, valor,
fatigue, rest and combat rounds.

Each event records the fact with its consequences (faces, thresholds, exact
probability, resulting points) so replay never re-rolls nor re-applies rules.
Characters join with the core ``CharacterAdded`` (see docs/rulings/d100.md).
"""

from __future__ import annotations

import msgspec

from ledger.i18n import _, n_
from ledger.log.events import Event
from ledger.systems.d100 import model


class Tested(Event, frozen=True, tag="d100.tested"):
    """One d100 roll under a target."""

    who: str
    skill: str
    skill_value: int
    target: int
    face: int
    level: str
    special_at: int
    critical_at: int
    fumble_at: int
    p_success: float
    purpose: str = "test"
    """test, attack, dodge, firstaid, medicine or therapy."""
    modifiers: tuple[str, ...] = ()
    attack: str | None = None
    """melee or ranged when the roll is an attack."""
    manual: bool = False

    def summary(self) -> str:
        what = f"{model.tested(self.skill)} {self.target}"
        if self.modifiers:
            what = f"{what} ({', '.join(model.modifier(m) for m in self.modifiers)})"
        return _(
            "{who} {what}: rolled {face}, {level}",
            who=self.who,
            what=what,
            face=self.face,
            level=model.level(self.level),
        )


class LuckSpent(Event, frozen=True, tag="d100.luck_spent"):
    who: str
    points: int
    face: int
    target: int
    luck_after: int

    def summary(self) -> str:
        return _(
            "{who} spends {points} luck: {face} over {target} becomes a success",
            who=self.who,
            points=self.points,
            face=self.face,
            target=self.target,
        )


class LuckRefunded(Event, frozen=True, tag="d100.luck_refunded"):
    who: str
    points: int
    luck_after: int

    def summary(self) -> str:
        return _(
            "{who} gets {points} luck back (luck {luck})",
            who=self.who,
            points=self.points,
            luck=self.luck_after,
        )


class LuckAwarded(Event, frozen=True, tag="d100.luck_awarded"):
    who: str
    points: int
    luck_after: int
    reason: str = ""

    def summary(self) -> str:
        return _(
            "{who} is awarded {points} luck (luck {luck})",
            who=self.who,
            points=self.points,
            luck=self.luck_after,
        )


class Wounded(Event, frozen=True, tag="d100.wounded"):
    who: str
    wound: int
    amount: int
    cause: str
    hp_after: int
    state: str
    died: bool = False

    def summary(self) -> str:
        return _(
            "{who} takes {amount} damage (wound {wound}): hp {hp}, {state}",
            who=self.who,
            amount=self.amount,
            wound=self.wound,
            hp=self.hp_after,
            state=_("dies") if self.died else model.state(self.state),
        )


class Treated(Event, frozen=True, tag="d100.treated"):
    """First aid or medicine given (the skill roll is the Tested before it)."""

    healer: str
    patient: str
    method: str
    success: bool
    wound: int | None = None
    faces: tuple[int, ...] = ()
    amount: int = 0
    hp_after: int = 0
    minute: int = 0
    manual: bool = False

    def summary(self) -> str:
        what = _("first aid") if self.method == "firstaid" else _("medicine")
        if self.wound is not None:
            what = _("{what} on wound {wound}", what=what, wound=self.wound)
        if not self.success:
            return _(
                "{healer}'s {what} fails for {patient}", healer=self.healer, what=what, patient=self.patient
            )
        return _(
            "{healer}'s {what} heals {patient} {amount} (hp {hp})",
            healer=self.healer,
            what=what,
            patient=self.patient,
            amount=self.amount,
            hp=self.hp_after,
        )


class Horrified(Event, frozen=True, tag="d100.horrified"):
    who: str
    amount: int
    cause: str
    valor_after: int
    panic: bool

    def summary(self) -> str:
        text = _(
            "{who} loses {amount} valor (valor {valor})",
            who=self.who,
            amount=self.amount,
            valor=self.valor_after,
        )
        return _("{text}, panics", text=text) if self.panic else text


class TherapyGiven(Event, frozen=True, tag="d100.therapy"):
    healer: str
    patient: str
    success: bool
    day: int
    faces: tuple[int, ...] = ()
    amount: int = 0
    valor_after: int = 0
    manual: bool = False

    def summary(self) -> str:
        if not self.success:
            return _("{healer}'s psychotherapy fails for {patient}", healer=self.healer, patient=self.patient)
        return _(
            "{healer}'s psychotherapy gives {patient} {amount} valor ({valor})",
            healer=self.healer,
            patient=self.patient,
            amount=self.amount,
            valor=self.valor_after,
        )


class Fatigued(Event, frozen=True, tag="d100.fatigued"):
    who: str
    amount: int
    cause: str
    fatigue_after: int

    def summary(self) -> str:
        text = _(
            "{who} loses {amount} fatigue ({cause}): {fatigue}",
            who=self.who,
            amount=self.amount,
            cause=model.cause(self.cause),
            fatigue=self.fatigue_after,
        )
        return _("{text}, exhausted", text=text) if self.fatigue_after == 0 else text


class Recovery(msgspec.Struct, frozen=True, omit_defaults=True):
    who: str
    fatigue: int = 0
    valor: int = 0
    hp: int = 0
    faces: tuple[int, ...] = ()

    def gains(self) -> str:
        parts = [
            f"+{n} {model.point(what)}"
            for what, n in (("fatigue", self.fatigue), ("valor", self.valor), ("hp", self.hp))
            if n
        ]
        return " ".join(parts) or _("nothing to recover")


class Rested(Event, frozen=True, tag="d100.rested"):
    minutes: int
    clock_after: int
    recoveries: tuple[Recovery, ...] = ()

    def summary(self) -> str:
        got = "; ".join(f"{r.who} {r.gains()}" for r in self.recoveries)
        if got:
            return _("rest {minutes} min: {recovered}", minutes=self.minutes, recovered=got)
        return _("rest {minutes} min", minutes=self.minutes)


class RoundDeclared(Event, frozen=True, tag="d100.round_declared"):
    who: str
    round: int
    option: str
    """run, half-run or actions."""
    actions: tuple[str, ...]
    attacks: tuple[str, ...]
    defense: str | None
    limit: int
    fatigue_after: int

    def summary(self) -> str:
        acts = ", ".join(
            [
                *(_("attack {skill}", skill=model.skill(a)) for a in self.attacks),
                *map(model.skill, self.actions),
            ]
        ) or _("no actions")
        return _(
            "{who} round {round} ({option}): {actions}",
            who=self.who,
            round=self.round,
            option=model.option(self.option),
            actions=acts,
        )


class Aimed(Event, frozen=True, tag="d100.aimed"):
    who: str
    round: int

    def summary(self) -> str:
        return _("{who} aims (round {round})", who=self.who, round=self.round)


class Steadied(Event, frozen=True, tag="d100.steadied"):
    who: str
    points: int
    bonus: int

    def summary(self) -> str:
        return _(
            "{who} gives up {points} {dex} for +{bonus} on the next ranged attack",
            who=self.who,
            points=self.points,
            dex=model.characteristic("DES"),
            bonus=self.bonus,
        )


class DodgeResolved(Event, frozen=True, tag="d100.dodge_resolved"):
    who: str
    against: str
    dodge: str
    cancelled: bool
    attacker: str | None = None

    def summary(self) -> str:
        if self.cancelled:
            return _(
                "{who}'s dodge ({dodge}) cancels the {against} attack",
                who=self.who,
                dodge=model.level(self.dodge),
                against=model.level(self.against),
            )
        return _(
            "{who}'s dodge ({dodge}) does not stop the {against} attack",
            who=self.who,
            dodge=model.level(self.dodge),
            against=model.level(self.against),
        )


class CombatEnded(Event, frozen=True, tag="d100.combat_ended"):
    rounds: int

    def summary(self) -> str:
        return n_("combat ends after {n} round(s)", "combat ends after {n} round(s)", self.rounds)


EVENTS: tuple[type[Event], ...] = (
    Tested,
    LuckSpent,
    LuckRefunded,
    LuckAwarded,
    Wounded,
    Treated,
    Horrified,
    TherapyGiven,
    Fatigued,
    Rested,
    RoundDeclared,
    Aimed,
    Steadied,
    DodgeResolved,
    CombatEnded,
)
