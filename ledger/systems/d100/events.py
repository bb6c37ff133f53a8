"""Events of the ``d100`` system: percentile tests, luck, wounds, valor,
fatigue, rest and combat rounds.

Each event records the fact with its consequences (faces, thresholds, exact
probability, resulting points) so replay never re-rolls nor re-applies rules.
Characters join with the core ``CharacterAdded`` (see docs/rulings/d100.md).
"""

from __future__ import annotations

import msgspec

from ledger.log.events import Event


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
        mods = f" ({', '.join(self.modifiers)})" if self.modifiers else ""
        return f"{self.who} {self.skill} {self.target}{mods}: rolled {self.face}, {self.level}"


class LuckSpent(Event, frozen=True, tag="d100.luck_spent"):
    who: str
    points: int
    face: int
    target: int
    luck_after: int

    def summary(self) -> str:
        return f"{self.who} spends {self.points} luck: {self.face} over {self.target} becomes a success"


class LuckRefunded(Event, frozen=True, tag="d100.luck_refunded"):
    who: str
    points: int
    luck_after: int

    def summary(self) -> str:
        return f"{self.who} gets {self.points} luck back (luck {self.luck_after})"


class LuckAwarded(Event, frozen=True, tag="d100.luck_awarded"):
    who: str
    points: int
    luck_after: int
    reason: str = ""

    def summary(self) -> str:
        return f"{self.who} is awarded {self.points} luck (luck {self.luck_after})"


class Wounded(Event, frozen=True, tag="d100.wounded"):
    who: str
    wound: int
    amount: int
    cause: str
    hp_after: int
    state: str
    died: bool = False

    def summary(self) -> str:
        end = ", dies" if self.died else f", {self.state}"
        return f"{self.who} takes {self.amount} damage (wound {self.wound}): hp {self.hp_after}{end}"


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
        what = "first aid" if self.method == "firstaid" else "medicine"
        on = f" on wound {self.wound}" if self.wound is not None else ""
        if not self.success:
            return f"{self.healer}'s {what}{on} fails for {self.patient}"
        return f"{self.healer}'s {what}{on} heals {self.patient} {self.amount} (hp {self.hp_after})"


class Horrified(Event, frozen=True, tag="d100.horrified"):
    who: str
    amount: int
    cause: str
    valor_after: int
    panic: bool

    def summary(self) -> str:
        end = ", panics" if self.panic else ""
        return f"{self.who} loses {self.amount} valor (valor {self.valor_after}){end}"


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
            return f"{self.healer}'s psychotherapy fails for {self.patient}"
        return f"{self.healer}'s psychotherapy gives {self.patient} {self.amount} valor ({self.valor_after})"


class Fatigued(Event, frozen=True, tag="d100.fatigued"):
    who: str
    amount: int
    cause: str
    fatigue_after: int

    def summary(self) -> str:
        end = ", exhausted" if self.fatigue_after == 0 else ""
        return f"{self.who} loses {self.amount} fatigue ({self.cause}): {self.fatigue_after}{end}"


class Recovery(msgspec.Struct, frozen=True, omit_defaults=True):
    who: str
    fatigue: int = 0
    valor: int = 0
    hp: int = 0
    faces: tuple[int, ...] = ()

    def gains(self) -> str:
        parts = [
            f"+{n} {what}"
            for what, n in (("fatigue", self.fatigue), ("valor", self.valor), ("hp", self.hp))
            if n
        ]
        return " ".join(parts) or "nothing to recover"


class Rested(Event, frozen=True, tag="d100.rested"):
    minutes: int
    clock_after: int
    recoveries: tuple[Recovery, ...] = ()

    def summary(self) -> str:
        got = "; ".join(f"{r.who} {r.gains()}" for r in self.recoveries)
        return f"rest {self.minutes} min" + (f": {got}" if got else "")


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
        acts = ", ".join([*(f"attack {a}" for a in self.attacks), *self.actions]) or "no actions"
        return f"{self.who} round {self.round} ({self.option}): {acts}"


class Aimed(Event, frozen=True, tag="d100.aimed"):
    who: str
    round: int

    def summary(self) -> str:
        return f"{self.who} aims (round {self.round})"


class Steadied(Event, frozen=True, tag="d100.steadied"):
    who: str
    points: int
    bonus: int

    def summary(self) -> str:
        return f"{self.who} gives up {self.points} DES for +{self.bonus} on the next ranged attack"


class DodgeResolved(Event, frozen=True, tag="d100.dodge_resolved"):
    who: str
    against: str
    dodge: str
    cancelled: bool
    attacker: str | None = None

    def summary(self) -> str:
        what = "cancels" if self.cancelled else "does not stop"
        return f"{self.who}'s dodge ({self.dodge}) {what} the {self.against} attack"


class CombatEnded(Event, frozen=True, tag="d100.combat_ended"):
    rounds: int

    def summary(self) -> str:
        return f"combat ends after {self.rounds} round(s)"


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
