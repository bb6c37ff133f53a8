"""What a d100 player or director can ask for (``actor`` comes from ``--as``)."""

from __future__ import annotations

import re

import msgspec

from ledger.deciding.commands import Command, Introduction
from ledger.errors import RuleError
from ledger.systems.d100.model import POINTS


class CreateCharacter(Introduction, frozen=True):
    """A validated character: the eight characteristics, skills, point overrides."""

    name: str
    characteristics: dict[str, int]
    skills: dict[str, int] = msgspec.field(default_factory=dict)
    points: dict[str, int] = msgspec.field(default_factory=dict)

    @classmethod
    def from_attrs(cls, name: str, attrs: dict[str, str]) -> CreateCharacter:
        """The creation ``character add NAME`` asks for with attributes (``TAM=12``,
        ``skill.Trepar=40``, ``hp=14``): checked as the creation checks them."""
        chars: dict[str, int] = {}
        skills: dict[str, int] = {}
        points: dict[str, int] = {}
        for key, raw in attrs.items():
            if not re.fullmatch(r"-?\d{1,4}", str(raw).strip()):
                raise RuleError(f"{key}={raw!r} is not KEY=NUMBER; e.g. DES=12 or skill.Trepar=40")
            value = int(raw)
            if key.lower().startswith("skill."):
                skills[key[6:].replace("_", " ").strip()] = value
            elif key.lower() in POINTS:
                points[key.lower()] = value
            else:
                chars[key.strip().upper()] = value
        return cls(name=name, characteristics=chars, skills=skills, points=points)


class Test(Command, frozen=True):
    """Roll d100 under a skill, a named test (Idea...) or a characteristic x times."""

    skill: str
    target: int | None = None
    double: bool = False
    half: bool = False
    times: int | None = None
    attack: str | None = None
    """melee or ranged: the roll is an attack."""
    aimed: bool = False
    luck: bool = False
    """Luck declared before the roll: a failure is bought if the character can afford it."""


class SpendLuck(Command, frozen=True):
    pass


class RefundLuck(Command, frozen=True):
    pass


class AwardLuck(Command, frozen=True):
    points: int
    reason: str = ""


class Damage(Command, frozen=True):
    amount: int
    cause: str = "wound"


class Heal(Command, frozen=True):
    method: str
    """firstaid or medicine."""
    patient: str | None = None
    wound: int | None = None
    luck: bool = False


class Horror(Command, frozen=True):
    amount: int
    cause: str = "horror"


class Therapy(Command, frozen=True):
    patient: str | None = None
    luck: bool = False


class Fatigue(Command, frozen=True):
    amount: int
    cause: str = "exertion"


class Rest(Command, frozen=True):
    minutes: int
    everyone: bool = False


class DeclareRound(Command, frozen=True):
    option: str = "actions"
    """actions, half-run or run."""
    actions: tuple[str, ...] = ()
    attacks: tuple[str, ...] = ()
    defense: str | None = None
    multi_attack_weapon: bool = False


class Aim(Command, frozen=True):
    pass


class Steady(Command, frozen=True):
    points: int


class Dodge(Command, frozen=True):
    against: str | None = None
    """Success level of the attack; default: the last attack by someone else."""
    luck: bool = False


class EndCombat(Command, frozen=True):
    pass
