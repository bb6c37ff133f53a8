"""Exact chances of a parsed roll, by convolution (no sampling).

:func:`p_success` gives the probability that a roll succeeds: a check on the
total (``1d20+5>=15``) meets its target, or a roll that counts successes
(``8d6>=5``, ``(4d6!kh3>=5)+1``) scores at least one. Kept, dropped, rerolled,
limited (``mi``/``ma``), exploded and compounded dice are all counted exactly,
explosions up to :data:`EXPLOSION_DEPTH` deep per die (a die that deep counts
its face and stops; past a maximum on a d6 that is a chance below 1 in 10^16).
A roll whose distribution would take more than :data:`BUDGET` steps
(``1000d1000kh500``) gets None: its chance is not recorded rather than guessed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from ledger.notation import BinOp, DiceTerm, Formula, Group, Negate, Node, Number

Dist = dict[int, float]

EXPLOSION_DEPTH = 20
"""Explosions per die the chances follow."""
BUDGET = 1_500_000
"""Most elementary steps one chance may take."""


class TooLarge(Exception):
    """The exact distribution is beyond the budget."""


class _Meter:
    def __init__(self) -> None:
        self.steps = 0

    def charge(self, n: int) -> None:
        self.steps += n
        if self.steps > BUDGET:
            raise TooLarge


def p_success(formula: Formula) -> float | None:
    """The chance the roll succeeds, or None when it has no success or is too large."""
    meter = _Meter()
    try:
        if formula.check is not None:
            dist = _node(formula.root, meter)
            return _clip(sum(p for v, p in dist.items() if formula.check.meets(v)))
        counting = [t for t in formula.dice_terms() if t.success]
        if not counting:
            return None
        p_none = 1.0
        for term in counting:
            p_none *= term_distribution(term, meter).get(0, 0.0)
        return _clip(1 - p_none)
    except TooLarge:
        return None


def distribution(formula: Formula) -> Dist | None:
    """The distribution of the roll's total (None when too large)."""
    try:
        return _node(formula.root, _Meter())
    except TooLarge:
        return None


def _clip(p: float) -> float:
    return min(1.0, max(0.0, p))


def _node(node: Node, meter: _Meter) -> Dist:
    if isinstance(node, Number):
        return {node.value: 1.0}
    if isinstance(node, Group):
        return _node(node.inner, meter)
    if isinstance(node, Negate):
        return {-v: p for v, p in _node(node.operand, meter).items()}
    if isinstance(node, BinOp):
        left, right = _node(node.left, meter), _node(node.right, meter)
        ops: dict[str, Callable[[int, int], int]] = {
            "+": lambda a, b: a + b,
            "-": lambda a, b: a - b,
            "*": lambda a, b: a * b,
            "/": lambda a, b: a // b,
        }
        return _combine(left, right, ops[node.op], meter)
    return term_distribution(node, meter)


def _combine(a: Dist, b: Dist, op: Callable[[int, int], int], meter: _Meter) -> Dist:
    meter.charge(len(a) * len(b))
    out: defaultdict[int, float] = defaultdict(float)
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
            result = _add(result, base, meter)
        count >>= 1
        if count:
            base = _add(base, base, meter)
    return result


def face_distribution(term: DiceTerm) -> Dist:
    """The face a die finally shows, rerolls done (faces 1..sides; a Fate die 1..3)."""
    faces = range(1, term.sides + 1)
    shown = (lambda f: f - 2) if term.fate else (lambda f: f)
    s = term.sides
    if term.reroll is None:
        return {f: 1 / s for f in faces}
    matching = [f for f in faces if term.reroll.meets(shown(f))]
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
            unit = _chain_exact(faces, explodes, term.value_of, meter)
        elif term.compound:
            sums = _chain_exact(faces, explodes, term.value_of, meter)
            hit = sum(p for v, p in sums.items() if success.meets(v))
            unit = {0: 1 - hit, 1: hit}
        else:
            unit = _chain_exact(faces, explodes, lambda f: int(success.meets(term.value_of(f))), meter)
        return _power(unit, term.count, meter)
    return _kept(term, faces, explodes, meter)


def _chain_exact(faces: Dist, explodes: set[int], score: Callable[[int], int], meter: _Meter) -> Dist:
    """Sum of ``score`` over one die and its explosions, followed to EXPLOSION_DEPTH."""
    result: Dist = {}
    pending: Dist = {0: 1.0}  # score so far of chains still exploding
    for depth in range(EXPLOSION_DEPTH + 1):
        meter.charge(len(faces) * len(pending))
        nxt: defaultdict[int, float] = defaultdict(float)
        for acc, p in pending.items():
            for f, q in faces.items():
                v = acc + score(f)
                if f in explodes and depth < EXPLOSION_DEPTH:
                    nxt[v] += p * q
                else:
                    result[v] = result.get(v, 0.0) + p * q
        pending = dict(nxt)
        if not pending:
            break
    return result


State = tuple[tuple[int, ...], int, int]  # extreme values, sum of all, successes among all


def _kept(term: DiceTerm, faces: Dist, explodes: set[int], meter: _Meter) -> Dist:
    assert term.keep is not None
    n = term.keep_n
    highest = term.keep[1] == "h"
    dropping = term.keep[0] == "d"
    success = term.success

    def add(state: State, v: int) -> State:
        extreme, total, hits = state
        merged = sorted((*extreme, v), reverse=highest)[:n]
        if dropping:
            total += v
            hits += int(success.meets(v)) if success else 0
        return (tuple(merged), total, hits)

    states: dict[State, float] = {((), 0, 0): 1.0}
    if term.compound:
        sums = _chain_exact(faces, explodes, term.value_of, meter)
        for _ in range(term.count):
            meter.charge(len(states) * len(sums))
            nxt: defaultdict[State, float] = defaultdict(float)
            for st, p in states.items():
                for v, q in sums.items():
                    nxt[add(st, v)] += p * q
            states = dict(nxt)
    else:
        for _ in range(term.count):
            done: defaultdict[State, float] = defaultdict(float)
            pending = states
            for depth in range(EXPLOSION_DEPTH + 1):
                meter.charge(len(pending) * len(faces))
                nxt = defaultdict(float)
                for st, p in pending.items():
                    for f, q in faces.items():
                        st2 = add(st, term.value_of(f))
                        if f in explodes and depth < EXPLOSION_DEPTH:
                            nxt[st2] += p * q
                        else:
                            done[st2] += p * q
                pending = dict(nxt)
                if not pending:
                    break
            states = dict(done)

    out: defaultdict[int, float] = defaultdict(float)
    for (extreme, total, hits), p in states.items():
        if success is None:
            value = total - sum(extreme) if dropping else sum(extreme)
        else:
            in_extreme = sum(1 for v in extreme if success.meets(v))
            value = hits - in_extreme if dropping else in_extreme
        out[value] += p
    return dict(out)
