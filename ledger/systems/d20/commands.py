"""What a d20 player can ask for. ``actor`` is filled in by the ledger."""

from __future__ import annotations

from ledger.deciding.commands import Command, Introduction


class Create(Introduction, frozen=True):
    """Roll seven 3d6, drop the lowest, assign the six to the attributes."""

    name: str | None = None
    assign: dict[str, int] | None = None
    cls: str | None = None
    talents: tuple[str, ...] | None = None
    skills: tuple[str, ...] | None = None


class Check(Command, frozen=True):
    attribute: str
    dc: str
    skill: str | None = None
    instinct: bool = False
    adv: bool = False
    dis: bool = False
    push: bool = False


class Assign(Command, frozen=True):
    """Place the kept rolls anew before the character first acts."""

    assign: dict[str, int]


class RollInitiative(Command, frozen=True):
    pass


class Use(Command, frozen=True):
    resource: str


class Supply(Command, frozen=True):
    resource: str
    die: str


class Attack(Command, frozen=True):
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
    weapon: str | None = None


class Unjam(Command, frozen=True):
    weapon: str | None = None
    push: bool = False


class TakeDamage(Command, frozen=True):
    amount: int
    cause: str = "wound"


class Stress(Command, frozen=True):
    difficulty: int
    adv: bool = False
    dis: bool = False
    push: bool = False


class Panic(Command, frozen=True):
    pass


class Rest(Command, frozen=True):
    pass


class Heal(Command, frozen=True):
    """First aid (INT + precision) or, on a synthetic, repairs (INT + technology)."""

    target: str | None = None
    kit: bool = False
    push: bool = False


class Treat(Command, frozen=True):
    """Six months of therapy for one trauma."""

    trauma: int = 1
    push: bool = False


class Carry(Command, frozen=True):
    items: tuple[str, ...]
    drop: bool = False
