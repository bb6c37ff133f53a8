"""What a d20 player can ask for. ``actor`` is filled in by the ledger.

Who may ask (``authority``, :mod:`ledger.deciding.authority`): a player makes their
character's checks, attacks, usage and stress rolls, carries their own gear and marks
the damage the GM announces; the GM hands out supplies (a usage die), rests the whole
crew and lets six months of therapy pass. Damage may kill (0 PV is death) and a panic
roll may leave a trauma for good: a player confirms those first."""

from __future__ import annotations

from ledger.deciding.authority import OWN, Authority, Reach
from ledger.deciding.commands import Command, Introduction


class Create(Introduction, frozen=True):
    """Roll seven 3d6, drop the lowest, assign the six to the attributes."""

    name: str | None = None
    assign: dict[str, int] | None = None
    cls: str | None = None
    talents: tuple[str, ...] | None = None
    skills: tuple[str, ...] | None = None


class Check(Command, frozen=True):
    authority = OWN

    attribute: str
    dc: str
    skill: str | None = None
    instinct: bool = False
    adv: bool = False
    dis: bool = False
    push: bool = False


class Assign(Command, frozen=True):
    """Place the kept rolls anew before the character first acts."""

    authority = OWN

    assign: dict[str, int]


class RollInitiative(Command, frozen=True):
    authority = OWN


class Use(Command, frozen=True):
    authority = OWN

    resource: str


class Supply(Command, frozen=True):
    authority = Authority(reach=Reach.AWARD)

    resource: str
    die: str


class Attack(Command, frozen=True):
    authority = OWN

    weapon: str
    defense: int
    mode: str | None = None
    """short, long or full (autofire weapons)."""
    range: str | None = None
    distance: float | None = None
    cover: str | None = None
    running: bool = False
    split: int = 1
    adv: bool = False
    dis: bool = False
    push: bool = False


class Reload(Command, frozen=True):
    authority = OWN

    weapon: str | None = None


class Unjam(Command, frozen=True):
    authority = OWN

    weapon: str | None = None
    push: bool = False


class TakeDamage(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)

    amount: int
    cause: str = "wound"


class Stress(Command, frozen=True):
    authority = OWN

    difficulty: int
    adv: bool = False
    dis: bool = False
    push: bool = False


class Panic(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)


class Rest(Command, frozen=True):
    authority = Authority(reach=Reach.PARTY)


class Heal(Command, frozen=True):
    """First aid (INT + precision) or, on a synthetic, repairs (INT + technology)."""

    authority = OWN

    target: str | None = None
    kit: bool = False
    push: bool = False


class Treat(Command, frozen=True):
    """Six months of therapy for one trauma."""

    authority = Authority(reach=Reach.CLOCK)

    trauma: int = 1
    push: bool = False


class Carry(Command, frozen=True):
    authority = OWN

    items: tuple[str, ...]
    drop: bool = False
