"""Exact chances of a parsed roll, by convolution (no sampling).

:func:`p_success` gives the probability that a roll succeeds: a check on the
total (``1d20+5>=15``) meets its target, or a roll that counts successes
(``8d6>=5``, ``(4d6!kh3>=5)+1``) scores at least one. Kept, dropped, rerolled,
limited (``mi``/``ma``), exploded and compounded dice are all counted exactly,
explosions up to :data:`EXPLOSION_DEPTH` deep per die (a die that deep counts
its face and stops; past a maximum on a d6 that is a chance below 1 in 10^16;
see :data:`NEGLIGIBLE` for exploding dice kept or dropped).
A roll whose distribution would take more than :data:`BUDGET` steps
(``1000d1000kh500``) gets None: its chance is not recorded rather than guessed.

That was notation rules 2 (see ``RollResult.semantics``), kept for the rolls recorded
under them. Under rules 3 (:func:`chance`) an explosion is followed until the chains
still exploding weigh less than a share of :data:`TAIL`, and outcomes rarer still are
left out of sums, so that ``(20d6!)>=80`` or ``(2d100!)>=150`` get their chance; all
that is left out weighs less than :data:`TAIL` in all (the chance is exact to 10^-12),
and the chance says whether anything was.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from math import exp, lgamma, log, log1p
from typing import Any, TypeVar

from ledger.dice.notation import (
    MAX_DICE,
    BinOp,
    Cmp,
    DiceTerm,
    Formula,
    Func,
    Group,
    Negate,
    Node,
    Number,
    Pool,
    counted,
)

Dist = dict[Fraction | int, float]
Outcome = TypeVar("Outcome", bound=Any)
"""A sum, or a state of kept dice: what a distribution gives a chance to."""

EXPLOSION_DEPTH = 20
"""Explosions per die the chances follow."""
BUDGET = 1_000_000
"""Most elementary steps one chance may take."""
NEGLIGIBLE = 1e-18
"""Outcomes of an exploding keep or drop rarer than this are left out (together they
move a chance by less than 10^-12)."""
TAIL = 1e-12
"""Rules 3: the most probability left out of one chance (explosions' tails, rare sums)."""
_SHARE = TAIL / 1000
"""What one explosion chain or one pruning may leave out (a chance takes far fewer than 1000)."""
BUDGET_3 = 3_000_000
"""Rules 3: most elementary steps one chance may take."""


class TooLarge(Exception):
    """The exact distribution is beyond the budget."""


class _Meter:
    def __init__(self, legacy: bool = True) -> None:
        self.steps = 0
        self.legacy = legacy
        self.budget = BUDGET if legacy else BUDGET_3
        self.cut = 0.0
        """Probability left out so far (rules 3)."""

    def charge(self, n: int) -> None:
        self.steps += n
        if self.steps > self.budget:
            raise TooLarge

    def prune(self, dist: Dist) -> Dist:
        """Rules 3: a sum's rarest outcomes left out (one of fewer than 64 kept whole)."""
        if self.legacy or len(dist) < 64:
            return dist
        return self.leave_out_rarest(dist, ties_by_value=True)

    def leave_out_rarest(self, dist: dict[Outcome, float], *, ties_by_value: bool) -> dict[Outcome, float]:
        """Rules 3: the rarest outcomes left out, together under one share of TAIL, the
        rarest first; equal chances in the order of their values, or as they came."""
        allowance = min(_SHARE, TAIL / 2 - self.cut)
        rare = [(p, v) for v, p in dist.items() if p < allowance]
        if ties_by_value:
            rare.sort()
        else:
            rare.sort(key=lambda pair: pair[0])
        dropped = 0.0
        out = dict(dist)
        for p, v in rare:
            if dropped + p > allowance:
                break
            dropped += p
            del out[v]
        self.cut += dropped
        return out


def chance(formula: Formula, semantics: int = 3) -> tuple[float | None, bool]:
    """The chance the roll succeeds under notation rules ``semantics`` (None when it has
    no success or is too large), and whether a tail below :data:`TAIL` was left out."""
    meter = _Meter(legacy=semantics < 3)
    try:
        if formula.check is not None:
            dist = _node(formula.root, meter)
            p = _clip(sum(p for v, p in dist.items() if formula.check.meets(v)))  # type: ignore[arg-type]
        else:
            # Rules 2: a success when any counting group counts one; rules 3: only a roll
            # that is one counting group reports successes (a count in arithmetic is a number).
            if meter.legacy:
                counting = [t for t in formula.dice_terms() if t.success]
            else:
                term = counted(formula.root)
                counting = [] if term is None else [term]
            if not counting:
                return None, False
            p_none = 1.0
            for t in counting:
                p_none *= term_distribution(t, meter).get(0, 0.0)
            p = _clip(1 - p_none)
    except TooLarge:
        return None, False
    assert meter.cut <= TAIL
    return p, meter.cut > 0


def p_success(formula: Formula) -> float | None:
    """The chance the roll succeeds under notation rules 2, or None when it has no
    success or is too large (:func:`chance` gives the current rules')."""
    return chance(formula, 2)[0]


def distribution(formula: Formula, semantics: int = 3) -> Dist | None:
    """The distribution of the roll's total (None when too large)."""
    try:
        return _node(formula.root, _Meter(legacy=semantics < 3))
    except TooLarge:
        return None


def _clip(p: float) -> float:
    return min(1.0, max(0.0, p))


def _node(node: Node, meter: _Meter, exact: bool = False) -> Dist:
    if isinstance(node, Number):
        return {node.value: 1.0}
    if isinstance(node, Group):
        return _node(node.inner, meter, exact)
    if isinstance(node, Negate):
        return {-v: p for v, p in _node(node.operand, meter, exact).items()}
    if isinstance(node, Func):
        inner = _node(node.operand, meter, node.name != "abs" or exact)
        meter.charge(len(inner))
        out: defaultdict[Fraction | int, float] = defaultdict(float)
        for v, p in inner.items():
            out[node.apply(v)] += p
        return dict(out)
    if isinstance(node, Pool):
        return _pool(node, meter, exact)
    if isinstance(node, BinOp):
        left, right = _node(node.left, meter, exact), _node(node.right, meter, exact)
        ops: dict[str, Callable[[Fraction | int, Fraction | int], Fraction | int]] = {
            "+": lambda a, b: a + b,
            "-": lambda a, b: a - b,
            "*": lambda a, b: a * b,
            "/": (lambda a, b: Fraction(a) / b) if exact else (lambda a, b: a // b),
        }
        return meter.prune(_combine(left, right, ops[node.op], meter))
    return term_distribution(node, meter)


State = tuple[tuple[Fraction | int, ...], Fraction | int]
"""The n extreme values so far, and the sum (or successes) of all when dropping."""


class _Keep:
    """Keeping (or dropping) the n highest (or lowest) of values met one at a time."""

    def __init__(self, keep: str, n: int, success: Cmp | None) -> None:
        self.n = n
        self.highest = keep[1] == "h"
        self.dropping = keep[0] == "d"
        self.success = success

    def add(self, state: State, v: Fraction | int) -> State:
        """The state once ``v`` is met: among the extremes if it is one, in the sum when dropping."""
        extreme, rest = state
        merged = tuple(sorted((*extreme, v), reverse=self.highest)[: self.n])
        if self.dropping:
            rest += int(self.success.meets(v)) if self.success else v  # type: ignore[arg-type]
        return (merged, rest)

    def value(self, state: State) -> Fraction | int:
        """The roll's value in a state: the extremes kept, or all but them."""
        extreme, rest = state
        if self.success is None:
            return rest - sum(extreme) if self.dropping else sum(extreme)
        in_extreme = sum(1 for v in extreme if self.success.meets(v))  # type: ignore[arg-type]
        return rest - in_extreme if self.dropping else in_extreme


def _pool(pool: Pool, meter: _Meter, exact: bool) -> Dist:
    """The sum of a pool's items kept: the n extreme values so far, and the sum of all."""
    dists = [_node(item, meter, exact) for item in pool.items]
    if pool.keep is None:
        total: Dist = {0: 1.0}
        for d in dists:
            total = meter.prune(_add(total, d, meter))
        return total
    keep = _Keep(pool.keep, pool.keep_n, None)
    states: dict[State, float] = {((), 0): 1.0}
    for d in dists:
        meter.charge(len(states) * len(d) * (keep.n + 1))
        nxt: defaultdict[State, float] = defaultdict(float)
        for state, p in states.items():
            for v, q in d.items():
                nxt[keep.add(state, v)] += p * q
        states = dict(nxt)
    out: defaultdict[Fraction | int, float] = defaultdict(float)
    for state, p in states.items():
        out[keep.value(state)] += p
    return dict(out)


def _combine(
    a: Dist, b: Dist, op: Callable[[Fraction | int, Fraction | int], Fraction | int], meter: _Meter
) -> Dist:
    meter.charge(len(a) * len(b))
    out: defaultdict[Fraction | int, float] = defaultdict(float)
    for x, p in a.items():
        for y, q in b.items():
            out[op(x, y)] += p * q
    return dict(out)


def _add(a: Dist, b: Dist, meter: _Meter) -> Dist:
    return _combine(a, b, lambda x, y: x + y, meter)


def _power(unit: Dist, count: int, meter: _Meter) -> Dist:
    """The sum of ``count`` independent copies of ``unit``."""
    result: Dist = {0: 1.0}
    base = unit
    while count:
        if count & 1:
            result = meter.prune(_add(result, base, meter))
        count >>= 1
        if count:
            base = meter.prune(_add(base, base, meter))
    return result


def face_distribution(term: DiceTerm) -> Dist:
    """The face a die finally shows, rerolls done (faces 1..sides; a Fate die 1..3)."""
    faces = range(1, term.sides + 1)
    shown = (lambda f: f - 2) if term.fate else (lambda f: f)
    s = term.sides
    if term.reroll is None:
        return {f: 1 / s for f in faces}
    matching = [f for f in faces if term.rerolled(shown(f))]
    if term.reroll_once:
        again = len(matching) / s
        return {f: (0.0 if f in matching else 1 / s) + again / s for f in faces}
    left = s - len(matching)
    return {f: (0.0 if f in matching else 1 / left) for f in faces}


def term_distribution(term: DiceTerm, meter: _Meter | None = None) -> Dist:
    """The distribution of one dice group's value (its sum, or its count of successes)."""
    meter = meter or _Meter()
    faces = {f: p for f, p in face_distribution(term).items() if p > 0}
    shown = (lambda f: f - 2) if term.fate else (lambda f: f)
    explodes = {f for f in faces if term.explode is not None and term.explode.meets(shown(f))}
    success = term.success

    if term.keep is None:
        if success is None:
            unit = _chain_exact(faces, explodes, term.value_of, meter, term)
        elif term.compound:
            sums = _chain_exact(faces, explodes, term.value_of, meter, term)
            hit = sum(p for v, p in sums.items() if success.meets(v))  # type: ignore[arg-type]
            unit = {0: 1 - hit, 1: hit}
        else:
            unit = _chain_exact(faces, explodes, lambda f: int(success.meets(term.value_of(f))), meter, term)
        return _power(unit, term.count, meter)
    return _kept(term, faces, explodes, meter)


def _depth(term: DiceTerm, meter: _Meter) -> int:
    """How many explosions of one die the chances follow (rules 3: until the tail is cut)."""
    if term.explode_once:
        return 1
    return EXPLOSION_DEPTH if meter.legacy else MAX_DICE


def _chain_exact(
    faces: Dist, explodes: set[int], score: Callable[[int], int], meter: _Meter, term: DiceTerm
) -> Dist:
    """Sum of ``score`` over one die and its explosions, followed to EXPLOSION_DEPTH
    (rules 3: until the chains still exploding weigh under a share of TAIL per die)."""
    result: Dist = {}
    pending: Dist = {0: 1.0}  # score so far of chains still exploding
    limit = _depth(term, meter)
    for depth in range(limit + 1):
        meter.charge(len(faces) * len(pending))
        nxt: defaultdict[Fraction | int, float] = defaultdict(float)
        for acc, p in pending.items():
            for f, q in faces.items():
                v = acc + score(f)  # type: ignore[call-overload]
                if f in explodes and depth < limit:
                    nxt[v] += p * q
                else:
                    result[v] = result.get(v, 0.0) + p * q
        pending = dict(nxt)
        if not meter.legacy and pending and (left := sum(pending.values())) < _SHARE / term.count:
            meter.cut += left * term.count  # the die's explosions past here are left out
            break
        if not pending:
            break
    return result


def _kept(term: DiceTerm, faces: Dist, explodes: set[int], meter: _Meter) -> Dist:
    assert term.keep is not None
    highest = term.keep[1] == "h"
    dropping = term.keep[0] == "d"
    success = term.success
    if term.compound or not explodes:
        # One value per die, all alike: order statistics over the values.
        if term.compound:
            unit = _chain_exact(faces, explodes, term.value_of, meter, term)
        else:
            unit = defaultdict(float)
            for f, p in faces.items():
                unit[term.value_of(f)] += p
        keep_highest = highest != dropping
        kept = term.count - term.keep_n if dropping else term.keep_n
        return _top(dict(unit), term.count, kept, keep_highest, success, meter)
    return _exploding_kept(term, faces, explodes, meter)


def _top(unit: Dist, count: int, n: int, highest: bool, success: Cmp | None, meter: _Meter) -> Dist:
    """The sum (or successes) of the ``n`` highest (lowest) of ``count`` dice alike: the
    values from the best down, and how many dice show each (a binomial of those left)."""
    values = sorted(unit, reverse=highest)
    states: dict[tuple[int, int], float] = {(0, 0): 1.0}  # (kept so far, their score), n not yet filled
    out: defaultdict[int, float] = defaultdict(float)
    mass = 1.0
    for index, v in enumerate(values):
        p = unit[v]
        q = 1.0 if index == len(values) - 1 else (min(1.0, p / mass) if mass > 0 else 0.0)
        mass -= p
        score = int(success.meets(v)) if success else v
        nxt: defaultdict[tuple[int, int], float] = defaultdict(float)
        rows: dict[int, list[float]] = {}
        for (kept, total), pr in states.items():
            left = count - kept  # until n are kept, every die placed was kept
            room = n - kept
            if left not in rows:
                meter.charge(left + 1)
                rows[left] = _binomial(left, q)
            row = rows[left]
            meter.charge(min(left, room) + 1)
            for j in range(min(left, room - 1) + 1):
                if row[j]:
                    nxt[(kept + j, total + j * score)] += pr * row[j]
            filled = sum(row[room:]) if room <= left else 0.0
            if filled:
                out[total + room * score] += pr * filled
        states = dict(nxt)
        if not states:
            break
    return dict(out)


def _binomial(trials: int, q: float) -> list[float]:
    """P(j of ``trials`` dice show a value of chance ``q``), j = 0..trials."""
    if q <= 0.0:
        return [1.0] + [0.0] * trials
    if q >= 1.0:
        return [0.0] * trials + [1.0]
    lq, lr = log(q), log1p(-q)
    base = lgamma(trials + 1)
    return [
        exp(base - lgamma(j + 1) - lgamma(trials - j + 1) + j * lq + (trials - j) * lr)
        for j in range(trials + 1)
    ]


def _exploding_kept(term: DiceTerm, faces: Dist, explodes: set[int], meter: _Meter) -> Dist:
    """Keep or drop among dice whose explosions are dice of their own (how many varies)."""
    assert term.keep is not None
    keep = _Keep(term.keep, term.keep_n, term.success)
    states: dict[State, float] = {((), 0): 1.0}
    limit = _depth(term, meter)
    for _ in range(term.count):
        done: defaultdict[State, float] = defaultdict(float)
        pending = states
        for depth in range(limit + 1):
            meter.charge(len(pending) * len(faces) * (keep.n + 1))
            nxt: defaultdict[State, float] = defaultdict(float)
            for st, p in pending.items():
                for f, q in faces.items():
                    st2 = keep.add(st, term.value_of(f))
                    if f in explodes and depth < limit:
                        nxt[st2] += p * q
                    else:
                        done[st2] += p * q
            if meter.legacy:
                pending = {st: p for st, p in nxt.items() if p > NEGLIGIBLE}
            else:
                pending = dict(nxt)
                if pending and (left := sum(pending.values())) < _SHARE / term.count:
                    meter.cut += left
                    pending = {}
            if not pending:
                break
        states = (
            {st: p for st, p in done.items() if p > NEGLIGIBLE}
            if meter.legacy
            else meter.leave_out_rarest(done, ties_by_value=False)
        )

    out: defaultdict[int, float] = defaultdict(float)
    for state, p in states.items():
        out[keep.value(state)] += p  # type: ignore[index]
    return dict(out)
