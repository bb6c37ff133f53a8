"""The d20 rolls: a d20 against a target with advantage or disadvantage, its
exact probability of success, and the usage die."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

from ledger.dice.sources import Dice
from ledger.i18n import _
from ledger.systems.d20.events import D20Roll, UsageRolled

NORMAL, ADVANTAGE, DISADVANTAGE = "normal", "advantage", "disadvantage"
USAGE_CHAIN = (12, 10, 8, 6, 4)
"""The usage die steps down d12, d10, d8, d6, d4, then the resource is gone."""


def mode_of(advantages: int, disadvantages: int) -> str:
    """Any advantage and any disadvantage cancel out to a normal roll."""
    if advantages and disadvantages:
        return NORMAL
    if advantages:
        return ADVANTAGE
    return DISADVANTAGE if disadvantages else NORMAL


def succeeds(face: int, modifier: int, target: int) -> bool:
    """A natural 20 always succeeds and a natural 1 always fails."""
    if face == 20:
        return True
    if face == 1:
        return False
    return face + modifier >= target


def keep(faces: tuple[int, ...], mode: str) -> int:
    if mode == ADVANTAGE:
        return max(faces)
    if mode == DISADVANTAGE:
        return min(faces)
    return faces[0]


@cache
def p_success(modifier: int, target: int, mode: str = NORMAL) -> Fraction:
    """Exact chance of success, enumerating every face (and pair of faces)."""
    count = 2 if mode != NORMAL else 1
    outcomes = list(product(range(1, 21), repeat=count))
    wins = sum(1 for faces in outcomes if succeeds(keep(faces, mode), modifier, target))
    return Fraction(wins, len(outcomes))


def natural(face: int) -> str | None:
    return "critical" if face == 20 else "fumble" if face == 1 else None


def roll_d20(dice: Dice, modifier: int, target: int, mode: str = NORMAL) -> D20Roll:
    """Roll one d20 (two with advantage or disadvantage) against ``target``."""
    faces = tuple(dice.roll(20) for _ in range(2 if mode != NORMAL else 1))
    kept = keep(faces, mode)
    return D20Roll(
        faces=faces,
        kept=kept,
        mode=mode,
        modifier=modifier,
        total=kept + modifier,
        target=target,
        success=succeeds(kept, modifier, target),
        natural=natural(kept),
        p_success=float(p_success(modifier, target, mode)),
        manual=dice.manual,
    )


def step_down(sides: int) -> int:
    """The next usage die down; 0 when a d4 steps down (the resource is gone)."""
    i = USAGE_CHAIN.index(sides)
    return USAGE_CHAIN[i + 1] if i + 1 < len(USAGE_CHAIN) else 0


def usage_after(sides: int, face: int) -> int:
    """A 1-2 on the usage die steps it down one level."""
    return step_down(sides) if face <= 2 else sides


def usage_roll(who: str, resource: str, sides: int, dice: Dice, reason: str = "use") -> UsageRolled:
    """One throw of a resource's usage die, and the die it leaves."""
    face = dice.roll(sides)
    return UsageRolled(
        who=who,
        manual=dice.manual,
        resource=resource,
        sides=sides,
        face=face,
        after=usage_after(sides, face),
        reason=reason,
    )


def check_d20_roll(roll: Any) -> None:
    """A d20 roll must be what the d20 roller gives on its faces: the kept die, the
    total, success, natural and chance all follow from faces, mode, modifier and target
    (``Rules.roll_checks``, run by an import)."""
    # lazy: a command that reads, loading d20 for its facts, imports no admission (tests/test_cli_startup.py)
    from ledger.trust.admission import Refusal, Replayed

    if roll.mode not in (NORMAL, ADVANTAGE, DISADVANTAGE):
        raise Refusal(_("a d20 roll's mode {mode!r} is none of the d20 system's", mode=roll.mode[:20]))
    try:
        again = roll_d20(Replayed(roll.faces, roll.manual), roll.modifier, roll.target, roll.mode)
    except Refusal:
        raise Refusal(
            _("the d20 roll {faces} cannot have been rolled {mode}", faces=list(roll.faces), mode=roll.mode)
        ) from None
    if again != roll:
        raise Refusal(
            _(
                "the d20 roll {faces}{modifier:+d} vs {target} records total {total}, success {success}, "
                "but its dice give total {again_total}, success {again_success}",
                faces=list(roll.faces),
                modifier=roll.modifier,
                target=roll.target,
                total=roll.total,
                success=roll.success,
                again_total=again.total,
                again_success=again.success,
            )
        )
