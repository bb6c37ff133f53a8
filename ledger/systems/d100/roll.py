"""The percentile roll: success levels, fumble value and exact probabilities.

Pure arithmetic, no dice: ``level(face, target, skill)`` classifies one d100
face (1-100) and ``chances(target, skill)`` counts the faces of each level.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from ledger.systems.d100.model import ceil_div

FUMBLE = "fumble"
FAILURE = "failure"
SUCCESS = "success"
SPECIAL = "special"
CRITICAL = "critical"

LEVELS = (FUMBLE, FAILURE, SUCCESS, SPECIAL, CRITICAL)
"""Worst to best: a level beats every level before it."""

SUCCESSES = (SUCCESS, SPECIAL, CRITICAL)


def fumble_at(skill: int) -> int:
    """96, plus one per full 20 skill points, never above 100 (40 points: 98)."""
    return min(100, 96 + max(skill, 0) // 20)


def special_at(target: int) -> int:
    """Half the target, rounded up."""
    return ceil_div(max(target, 0), 2)


def critical_at(target: int) -> int:
    """A fifth of the target, rounded up."""
    return ceil_div(max(target, 0), 5)


def level(face: int, target: int, skill: int) -> str:
    """The success level of one d100 face against a target.

    The fumble is checked first: with skill 120 a 100 is a fumble, not a
    success. A target of 0 or less cannot succeed."""
    if face >= fumble_at(skill):
        return FUMBLE
    if face > target:
        return FAILURE
    if face <= critical_at(target):
        return CRITICAL
    if face <= special_at(target):
        return SPECIAL
    return SUCCESS


def rank(name: str) -> int:
    return LEVELS.index(name)


def is_success(name: str) -> bool:
    return name in SUCCESSES


def chances(target: int, skill: int) -> dict[str, int]:
    """How many of the 100 faces give each level."""
    counts = dict.fromkeys(LEVELS, 0)
    for face in range(1, 101):
        counts[level(face, target, skill)] += 1
    return counts


@cache
def p_success(target: int, skill: int) -> float:
    """Exact probability that one d100 roll succeeds (any success level)."""
    counts = chances(target, skill)
    return float(Fraction(sum(counts[s] for s in SUCCESSES), 100))
