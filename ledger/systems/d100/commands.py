"""What a d100 player or director can ask for (``actor`` comes from ``--as``).

Who may ask (``authority``, :mod:`ledger.deciding.authority`): a player asks for their
investigator's own rolls and marks the harm the director announces on their own sheet;
the director awards luck, rules a luck spending unneeded (the rules' refund), lets time
pass (a rest moves the one clock of the table) and ends a combat. Luck declared or spent
does not come back, and a wound may kill: a player confirms those first."""

from __future__ import annotations

import re

import msgspec

from ledger.deciding.authority import OWN, Authority, Reach, When
from ledger.deciding.commands import Command, Introduction
from ledger.errors import RuleError
from ledger.i18n import _
from ledger.systems.d100.model import POINTS

LUCK = When(field="luck", value=True, confirm=True)
"""Luck declared with a roll: the points a failure costs are spent for good."""
EVERYONE = When(field="everyone", value=True, reach=Reach.PARTY)
"""A rest of every investigator at once: the party's."""


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
                raise RuleError(
                    _("{key}={raw!r} is not KEY=NUMBER; e.g. DES=12 or skill.Trepar=40", key=key, raw=raw)
                )
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

    authority = Authority(reach=Reach.OWN, when=(LUCK,))

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
    authority = Authority(reach=Reach.OWN, confirm=True)


class RefundLuck(Command, frozen=True):
    authority = Authority(reach=Reach.RULING)


class AwardLuck(Command, frozen=True):
    authority = Authority(reach=Reach.AWARD)

    points: int
    reason: str = ""


class Damage(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)

    amount: int
    cause: str = "wound"


class Heal(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, when=(LUCK,))

    method: str
    """firstaid or medicine."""
    patient: str | None = None
    wound: int | None = None
    luck: bool = False


class Horror(Command, frozen=True):
    authority = OWN

    amount: int
    cause: str = "horror"


class Therapy(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, when=(LUCK,))

    patient: str | None = None
    luck: bool = False


class Fatigue(Command, frozen=True):
    authority = OWN

    amount: int
    cause: str = "exertion"


class Rest(Command, frozen=True):
    authority = Authority(reach=Reach.CLOCK, when=(EVERYONE,))

    minutes: int
    everyone: bool = False


class DeclareRound(Command, frozen=True):
    authority = OWN

    option: str = "actions"
    """actions, half-run or run."""
    actions: tuple[str, ...] = ()
    attacks: tuple[str, ...] = ()
    defense: str | None = None
    multi_attack_weapon: bool = False


class Aim(Command, frozen=True):
    authority = OWN


class Steady(Command, frozen=True):
    authority = OWN

    points: int


class Dodge(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, when=(LUCK,))

    against: str | None = None
    """Success level of the attack; default: the last attack by someone else."""
    luck: bool = False


class EndCombat(Command, frozen=True):
    authority = Authority(reach=Reach.PARTY)
