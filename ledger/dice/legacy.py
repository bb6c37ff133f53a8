"""The dice notation of the ledger's first version, kept so old rolls read as recorded.

A :class:`~ledger.log.events.RollResult` without a ``semantics`` field (or with
``semantics=1``) was rolled under these rules: a die and its explosions are one
value for keeping and counting (``4d6kh3!`` on 6,2,3,4,5 is 17), the notation is
a sum of terms, and a comparison on a group counts its successes (``1d20>=15+5``
is the successes plus 5). :mod:`ledger.dice.sources` reads such results with this
module; nothing new is rolled under it.
"""

from __future__ import annotations

import re
from typing import Protocol

import msgspec

from ledger.errors import NotationError
from ledger.i18n import _, n_
from ledger.log.events import DiceGroup, Die, RollResult


class Dice(Protocol):
    """Where the faces come from (any ``ledger.dice.sources.Dice``)."""

    def roll(self, sides: int) -> int: ...


MAX_DICE = 1000
MAX_SIDES = 1000
MAX_GROUPS = 20
MAX_MODIFIER = 1_000_000

# --- notation: parse -------------------------------------------------------


class Term(msgspec.Struct, frozen=True):
    sign: int
    count: int = 0
    sides: int = 0
    constant: int = 0
    keep: str | None = None  # "kh3" / "kl1"
    explode: bool = False
    success: str | None = None  # ">=5"

    @property
    def is_dice(self) -> bool:
        return self.sides > 0


class Formula(msgspec.Struct, frozen=True):
    text: str
    terms: tuple[Term, ...]


_TOKEN = re.compile(
    r"""\s*(?:
        (?P<dice>(?P<count>\d*)d(?P<sides>\d+|%)
            (?P<keep>k[hl]\d+)?
            (?P<explode>!)?
            (?:(?P<cmp>>=|<=|>|<|=)(?P<target>\d+))?
        )
      | (?P<const>\d+)
      | (?P<op>[+-])
    )""",
    re.VERBOSE | re.IGNORECASE,
)


def parse(text: str) -> Formula:
    """Parse dice notation into a formula, refusing absurd rolls."""
    src = text.strip()
    if not src:
        raise NotationError(text, _("it is empty"))
    if len(src) > 200:
        raise NotationError(text[:40] + "...", _("it is longer than {most} characters", most=200))
    pos, sign, expect_term, terms = 0, 1, True, []
    while pos < len(src):
        m = _TOKEN.match(src, pos)
        if not m or m.end() == pos:
            raise NotationError(
                text,
                _(
                    "unexpected {found}",
                    found=_("{text!r} at position {at}", text=src[pos : pos + 8], at=pos + 1),
                ),
            )
        pos = m.end()
        if m.group("op"):
            if not expect_term and m.group("op") in "+-":
                sign = 1 if m.group("op") == "+" else -1
                expect_term = True
                continue
            raise NotationError(text, _("two operators in a row"))
        if not expect_term:
            raise NotationError(text, _("a term must follow + or -"))
        terms.append(_term(text, m, sign))
        expect_term, sign = False, 1
    if expect_term:
        raise NotationError(text, _("it ends with an operator"))
    if len(terms) > MAX_GROUPS:
        raise NotationError(text, _("more than {most} terms", most=MAX_GROUPS))
    if not any(t.is_dice for t in terms):
        raise NotationError(text, _("it rolls no dice"))
    return Formula(src, tuple(terms))


def _term(text: str, m: re.Match[str], sign: int) -> Term:
    if m.group("const"):
        value = int(m.group("const"))
        if value > MAX_MODIFIER:
            raise NotationError(text, _("modifier {n} is above {most}", n=value, most=MAX_MODIFIER))
        return Term(sign=sign, constant=value)
    count = int(m.group("count") or 1)
    sides = 100 if m.group("sides") == "%" else int(m.group("sides"))
    if count < 1:
        raise NotationError(text, _("a group must roll at least one die"))
    if count > MAX_DICE:
        raise NotationError(text, _("{n} dice is above the limit of {most}", n=count, most=MAX_DICE))
    if not 1 <= sides <= MAX_SIDES:
        raise NotationError(text, _("a d{sides} is outside d1 to d{most}", sides=sides, most=MAX_SIDES))
    keep = m.group("keep")
    if keep:
        keep = keep.lower()
        n = int(keep[2:])
        if not 1 <= n <= count:
            raise NotationError(
                text,
                n_(
                    "{keep} keeps {k} of {n} die; keep 1 to {n}",
                    "{keep} keeps {k} of {n} dice; keep 1 to {n}",
                    count,
                    keep=keep,
                    k=n,
                ),
            )
    explode = bool(m.group("explode"))
    if explode and sides == 1:
        raise NotationError(text, _("a d1 would explode forever"))
    success = None
    if m.group("cmp"):
        success = f"{m.group('cmp')}{int(m.group('target'))}"
    return Term(sign=sign, count=count, sides=sides, keep=keep, explode=explode, success=success)


# --- notation: evaluate ---------------------------------------------------


def _meets(value: int, success: str) -> bool:
    op = success.rstrip("0123456789")
    target = int(success[len(op) :])
    return {
        ">=": value >= target,
        "<=": value <= target,
        ">": value > target,
        "<": value < target,
        "=": value == target,
    }[op]


def roll_group(term: Term, dice: Dice) -> DiceGroup:
    """Roll one group of dice: each die, then its explosions, in order."""
    faces: list[Die] = []
    chains: list[list[int]] = []  # indices of each die and its explosions
    for _die in range(term.count):
        chain = [len(faces)]
        face = dice.roll(term.sides)
        faces.append(Die(term.sides, face))
        while term.explode and face == term.sides:
            if len(faces) >= MAX_DICE:
                raise NotationError(term_text(term), _("explosions passed {most} dice", most=MAX_DICE))
            face = dice.roll(term.sides)
            faces.append(Die(term.sides, face, explodes=chain[-1]))
            chain.append(len(faces) - 1)
        chains.append(chain)
    totals = [sum(faces[i].face for i in chain) for chain in chains]
    kept_chains = set(range(len(chains)))
    if term.keep:
        n = int(term.keep[2:])
        highest = term.keep[1] == "h"
        order = sorted(range(len(chains)), key=lambda c: (-totals[c] if highest else totals[c], c))
        kept_chains = set(order[:n])
    dropped = {i for c, chain in enumerate(chains) if c not in kept_chains for i in chain}
    if dropped:
        faces = [
            Die(d.sides, d.face, kept=False, explodes=d.explodes) if i in dropped else d
            for i, d in enumerate(faces)
        ]
    kept_totals = [totals[c] for c in sorted(kept_chains)]
    success = term.success
    value = sum(1 for t in kept_totals if _meets(t, success)) if success else sum(kept_totals)
    return DiceGroup(
        count=term.count,
        sides=term.sides,
        dice=tuple(faces),
        value=value,
        sign=term.sign,
        keep=term.keep,
        explode=term.explode,
        success=term.success,
    )


def evaluate(formula: Formula, dice: Dice) -> RollResult:
    groups = tuple(roll_group(t, dice) for t in formula.terms if t.is_dice)
    modifier = sum(t.sign * t.constant for t in formula.terms if not t.is_dice)
    total = sum(g.sign * g.value for g in groups) + modifier
    counting = [g for g in groups if g.success]
    successes = sum(g.value for g in counting) if counting else None
    return RollResult(
        notation=formula.text, groups=groups, modifier=modifier, total=total, successes=successes
    )


# --- notation: render -----------------------------------------------------


def term_text(term: Term) -> str:
    text = f"{term.count}d{term.sides}{term.keep or ''}{'!' if term.explode else ''}"
    return text + (term.success or "")


def render(result: RollResult) -> str:
    """``4d6kh3 = 14 [6, 5, ~2, 3]``: dropped dice are marked with ``~``,
    explosions with ``!``."""
    parts = []
    for g in result.groups:
        shown = ", ".join(
            ("~" if not d.kept else "") + str(d.face) + ("!" if d.explodes is not None else "")
            for d in g.dice
        )
        parts.append(f"{'-' if g.sign < 0 else ''}[{shown}]")
    if result.modifier:
        parts.append(f"{result.modifier:+d}")
    what = (
        n_("{n} success", "{n} successes", result.successes)
        if result.successes is not None
        else str(result.total)
    )
    return f"{result.notation} = {what}  {' '.join(parts)}"


def p_any(groups: tuple[DiceGroup, ...]) -> float | None:
    """The first version's chance of at least one success (None where it kept, dropped,
    exploded or subtracted dice)."""
    p_none = 1.0
    for g in groups:
        if g.keep or g.explode or g.sign < 0:
            return None
        if not g.success:
            continue
        hits = sum(1 for face in range(1, g.sides + 1) if _meets(face, g.success))
        p_none *= (1 - hits / g.sides) ** g.count
    return 1 - p_none
