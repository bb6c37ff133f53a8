"""What a dicepool player can ask for (``actor`` comes from ``--as``).

Who may ask (``authority``, :mod:`ledger.deciding.authority`): a player tests, attacks,
dodges and resists as their own runner; the GM starts each combat turn (initiative for
the party, every pool refreshed) and clears boxes no roll earned (``heal``)."""

from __future__ import annotations

import msgspec

from ledger.deciding.authority import OWN, Authority, Reach
from ledger.deciding.commands import Command, Introduction


class Join(Introduction, frozen=True):
    """A new party member, its attributes checked against the convention."""

    name: str
    attrs: dict[str, str] = msgspec.field(default_factory=dict)

    @classmethod
    def from_attrs(cls, name: str, attrs: dict[str, str]) -> Join:
        """The creation ``character add NAME`` asks for with attributes: checked the same."""
        return cls(name=name, attrs=attrs)


class Test(Command, frozen=True):
    """A skill or attribute test against a TN, defaulting when the skill is missing."""

    authority = OWN

    skill: str
    tn: int
    pool: int = 0
    pool_name: str = "combat"
    dice: int | None = None
    mods: tuple[str, ...] = ()


class Attack(Command, frozen=True):
    """A ranged or melee attack: it opens an exchange the target dodges and resists."""

    authority = OWN

    skill: str | None = None
    pool: int = 0
    range: str | None = None
    distance: int | None = None
    scope: int = 0
    mods: tuple[str, ...] = ()
    weapon: str | None = None
    target: str | None = None
    burst: int = 1
    damage: str | None = None
    melee: bool = False
    dice: int | None = None


class Dodge(Command, frozen=True):
    """Combat-pool dice at TN 4 against the open attack."""

    authority = OWN

    pool: int
    tn: int = 4
    dice: int | None = None


class Resist(Command, frozen=True):
    """Body plus pool dice against the damage's power; stages and marks the wound."""

    authority = OWN

    damage: str | None = None
    armor: int | None = None
    pool: int = 0
    against: int | None = None
    stun: bool = False
    dice: int | None = None


class Initiative(Command, frozen=True):
    """A new combat turn: initiative for the party, every pool refreshed."""

    authority = Authority(reach=Reach.PARTY)

    only: tuple[str, ...] = ()


class Heal(Command, frozen=True):
    """Clear boxes from a condition monitor track."""

    authority = Authority(reach=Reach.AWARD)

    boxes: int
    track: str = "physical"
    reason: str = ""
