"""The dicepool test: d6s against a target number, the rule of six, exact odds.

A die succeeds when it equals or beats the target number (TN). Above TN 6 a
6 is re-rolled and added, and again while it keeps showing 6 and the total is
still short of the TN; the faces are consumed in roll order, each die followed
by its re-rolls. Initiative never re-rolls (see :func:`roll_initiative`).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from ledger.dice.sources import Dice, Faces
from ledger.errors import FacesError, RuleError
from ledger.i18n import _, n_, p_
from ledger.systems.dicepool.events import Modifier, PoolDie, Roll

MIN_TN = 2
""""La dificultad oscilará en algún punto por encima de 2": the floor."""
MAX_TN = 60
MAX_DICE = 60
SIDES = 6


def final_tn(base: int, modifiers: list[Modifier]) -> int:
    """The base TN plus every modifier, never below 2."""
    tn = base + sum(m.value for m in modifiers)
    if tn > MAX_TN:
        raise RuleError(
            _(
                "the target number comes to {tn}; at most {most} can be rolled, check the modifiers",
                tn=tn,
                most=MAX_TN,
            )
        )
    return max(MIN_TN, tn)


def p_die(tn: int) -> Fraction:
    """Exact chance that one die (with the rule of six) reaches ``tn``."""
    if tn <= 1:
        return Fraction(1)
    if tn <= SIDES:
        return Fraction(SIDES + 1 - tn, SIDES)
    return Fraction(1, SIDES) * p_die(tn - SIDES)


def p_at_least(dice: int, needed: int, p: Fraction) -> Fraction:
    """Exact chance of ``needed`` or more successes on ``dice`` dice of chance ``p``."""
    if needed <= 0:
        return Fraction(1)
    return sum(
        (comb(dice, k) * p**k * (1 - p) ** (dice - k) for k in range(needed, dice + 1)),
        start=Fraction(0),
    )


def check_count(dice: int, what: str) -> None:
    if not 0 <= dice <= MAX_DICE:
        raise RuleError(
            n_(
                "{what} rolls {n} die; roll 0 to {most}",
                "{what} rolls {n} dice; roll 0 to {most}",
                dice,
                what=what,
                most=MAX_DICE,
            )
        )


def roll_die(tn: int, dice: Dice, index: int) -> PoolDie:
    """One die, then its re-rolls while it shows 6 and is still short of ``tn``."""
    faces = [dice.roll(SIDES)]
    while faces[-1] == SIDES and sum(faces) < tn:
        if isinstance(dice, Faces) and dice.used >= len(dice.faces):
            raise FacesError(
                n_(
                    "die {i} shows a 6 at TN {tn}, so the rule of six re-rolls it and adds the "
                    "result: give its re-roll face right after the 6 (got {n} face)",
                    "die {i} shows a 6 at TN {tn}, so the rule of six re-rolls it and adds the "
                    "result: give its re-roll face right after the 6 (got {n} faces)",
                    len(dice.faces),
                    i=index + 1,
                    tn=tn,
                )
            )
        faces.append(dice.roll(SIDES))
    return PoolDie(faces=tuple(faces), total=sum(faces))


def test(
    count: int,
    base_tn: int,
    modifiers: list[Modifier],
    dice: Dice,
    *,
    needed: int = 1,
) -> Roll:
    """Roll ``count`` dice against the modified TN; the odds are fixed before rolling."""
    check_count(count, _("the test"))
    tn = final_tn(base_tn, modifiers)
    p = p_at_least(count, needed, p_die(tn))
    rolled = tuple(roll_die(tn, dice, i) for i in range(count))
    return Roll(
        tn=tn,
        dice=rolled,
        successes=sum(1 for d in rolled if d.total >= tn),
        p_success=float(p),
        needed=needed,
        base_tn=base_tn,
        modifiers=tuple(modifiers),
    )


def roll_initiative(count: int, dice: Dice) -> tuple[int, ...]:
    """Initiative dice: plain d6s, no rule of six ("excepto en iniciativa")."""
    check_count(count, p_("dicepool check", "initiative"))
    return tuple(dice.roll(SIDES) for _ in range(count))
