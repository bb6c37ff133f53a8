"""The fact classes a yearzero event becomes: the shared ones, and the two of its own.

A push and its cost (``pushes``) and a change of Rot (``rot``) are Year Zero's alone, so
their classes live here and the system declares them in ``System.fact_types``: the
warehouse makes their tables because the system is installed.
"""

from __future__ import annotations

from typing import ClassVar

from ledger.facts import (
    ConditionFact,
    DayFact,
    DeathFact,
    DieFace,
    Fact,
    MealFact,
    NightFact,
    RollFact,
    WoundFact,
    attributed,
)

__all__ = [
    "ConditionFact",
    "DayFact",
    "DeathFact",
    "DieFace",
    "Fact",
    "MealFact",
    "NightFact",
    "PushFact",
    "RollFact",
    "RotFact",
    "WoundFact",
    "attributed",
]


class PushFact(Fact, frozen=True):
    """One pushed roll and what it cost: trauma, gear damage, mutation points."""

    table: ClassVar[str] = "pushes"
    attribute: str
    trauma: int
    gear_damage: int
    mutation_points: int = 0


class RotFact(Fact, frozen=True):
    """A change of a character's Rot: gained (``change`` 1) or lost, with the totals after it."""

    table: ClassVar[str] = "rot"
    change: int
    total: int
    permanent: int
    source: str


FACT_TYPES: tuple[type[Fact], ...] = (PushFact, RotFact)
"""The system's own fact classes (``System.fact_types``)."""
