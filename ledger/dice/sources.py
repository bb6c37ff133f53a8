"""Dice: where faces come from, and the notation roller.

Randomness stays at the edge. Every rolling function takes a :class:`Dice`
source: the operating system's CSPRNG (default), a seeded generator (a
reproducible campaign) or :class:`Faces`, physical dice typed in with
``--faces``, consumed in the order the dice are rolled, re-rolls and
explosions included. Results keep every face, kept or dropped.

The notation is parsed, evaluated and rendered in three separate steps:
``parse("4d6kh3+1")`` gives a :class:`~ledger.dice.notation.Formula` (see
:mod:`ledger.dice.notation` for the forms); ``evaluate(formula, dice)`` gives a
:class:`~ledger.log.events.RollResult`; ``render(result)`` gives text.
:func:`p_any_success` gives a result's exact chance (:mod:`ledger.dice.odds`) and
:func:`recompute` re-reads a recorded result on its own faces, under the rules
it was recorded with (older rolls: :mod:`ledger.dice.legacy`).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import random
import re
from collections.abc import Iterator
from fractions import Fraction

from ledger.dice import odds
from ledger.dice.notation import (
    MAX_DICE,
    MAX_GROUPS,
    MAX_MODIFIER,
    MAX_SIDES,
    SEMANTICS,
    BinOp,
    DiceTerm,
    Formula,
    Func,
    Group,
    Negate,
    Node,
    Number,
    Pool,
    counted,
    kept_indexes,
    parse,
)
from ledger.errors import FacesError, NotationError
from ledger.i18n import _, n_
from ledger.log.events import DiceGroup, Die, RollResult

__all__ = [
    "MAX_DICE",
    "MAX_FACES_INPUT",
    "MAX_GROUPS",
    "MAX_MODIFIER",
    "MAX_SIDES",
    "SEMANTICS",
    "CommittedDice",
    "Dice",
    "Faces",
    "Formula",
    "RandomDice",
    "committed_face",
    "evaluate",
    "p_any_success",
    "parse",
    "parse_faces",
    "recompute",
    "render",
    "roll",
    "seeded",
]

MAX_FACES_INPUT = 10_000


class Dice:
    """A source of die faces."""

    manual = False

    def roll(self, sides: int) -> int:
        raise NotImplementedError

    def fate(self) -> int:
        """A Fate/Fudge die as its d3 face: 1, 2, 3 for -1, 0, +1."""
        return self.roll(3)


class RandomDice(Dice):
    """Faces from a ``random.Random`` (seeded) or the system CSPRNG."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.SystemRandom()
        self.rolled: list[int] = []
        # What ``randint(1, sides)`` draws, without its argument checks: ``randint`` is
        # ``randrange(1, sides + 1)``, which is ``1 + _randbelow(sides)`` (a seeded
        # campaign's dice are this very sequence, so it may never change).
        self._below = self.rng._randbelow

    def roll(self, sides: int) -> int:
        if sides < 1:
            raise ValueError(f"a die has at least one side, not {sides}")
        face = 1 + self._below(sides)
        self.rolled.append(face)
        return face


class Faces(Dice):
    """Physical dice: the faces a player typed, consumed in roll order."""

    manual = True

    def __init__(self, faces: list[int]) -> None:
        self.faces = list(faces)
        self.used = 0

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            raise FacesError(
                _(
                    "too few faces: the roll needs more than the {given} given; "
                    "pass one face per die rolled, re-rolls and explosions included",
                    given=len(self.faces),
                )
            )
        face = self.faces[self.used]
        if not 1 <= face <= sides:
            raise FacesError(
                _(
                    "face {face} (position {at}) is not on a d{sides}; use a value from 1 to {sides}",
                    face=face,
                    at=self.used + 1,
                    sides=sides,
                )
            )
        self.used += 1
        return face

    def fate(self) -> int:
        """A Fate die typed as -1, 0 or 1 (``--faces=-1,0,1,1``)."""
        if self.used >= len(self.faces):
            self.roll(3)  # refuses: too few faces
        face = self.faces[self.used]
        if face not in (-1, 0, 1):
            raise FacesError(
                _(
                    "face {face} (position {at}) is not on a Fate die; use -1, 0 or 1",
                    face=face,
                    at=self.used + 1,
                )
            )
        self.used += 1
        return face + 2

    def finish(self) -> None:
        """Refuse faces left over: they mean the player rolled something else."""
        if self.used < len(self.faces):
            extra = self.faces[self.used :]
            raise FacesError(
                _(
                    "too many faces: the roll used {used} of {given}, leaving {extra}; pass exactly the dice rolled",
                    used=self.used,
                    given=len(self.faces),
                    extra=",".join(map(str, extra)),
                )
            )


def parse_faces(text: str) -> list[int]:
    """Parse ``--faces 3,5,6`` (commas or spaces; Fate dice as ``-1,0,1``)."""
    parts = [p for p in re.split(r"[,\s]+", text.strip()) if p]
    if not parts:
        raise FacesError(_("`faces` is empty; give the faces rolled, e.g. `faces` 3,5,6"), field="faces")
    if len(parts) > MAX_FACES_INPUT:
        raise FacesError(
            _("`faces` gives {given} faces; at most {most}", given=len(parts), most=MAX_FACES_INPUT),
            field="faces",
        )
    faces = []
    for part in parts:
        if not re.fullmatch(r"-?\d{1,4}", part):
            raise FacesError(
                _("`faces` has {part!r}, not a whole number; e.g. `faces` 3,5,6", part=part), field="faces"
            )
        faces.append(int(part))
    return faces


def committed_face(seed: bytes, client_seed: str, branch: str, nonce: int, sides: int) -> int:
    """Die number ``nonce`` of a commitment on ``branch``, exactly as docs/dice.md states it:
    HMAC-SHA256 keyed by the server seed over ``client_seed:branch:nonce`` (UTF-8), read as
    eight 4-byte big-endian words; the first word below the largest multiple of ``sides``
    under 2**32 gives ``1 + word % sides``; if none is, ``msg:1``, ``msg:2``, ... follow."""
    msg = f"{client_seed}:{branch}:{nonce}"
    limit = 2**32 - (2**32 % sides)
    k = 0
    while True:
        text = msg if k == 0 else f"{msg}:{k}"
        digest = hmac.new(seed, text.encode(), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            x = int.from_bytes(digest[i : i + 4], "big")
            if x < limit:
                return 1 + x % sides
        k += 1


class CommittedDice(Dice):
    """Virtual dice under an open commitment: each face derived from the secret server
    seed, the players' client seed, the branch and the die's number (its nonce), so that
    once the seed is revealed anyone can recompute it (see docs/dice.md)."""

    def __init__(self, seed: bytes, client_seed: str, branch: str, first: int, commitment: str) -> None:
        self.seed = seed
        self.client_seed = client_seed
        self.branch = branch
        self.first = first
        self.commitment = commitment
        self.rolled: list[int] = []
        self.sides: list[int] = []

    def roll(self, sides: int) -> int:
        face = committed_face(self.seed, self.client_seed, self.branch, self.first + len(self.rolled), sides)
        self.rolled.append(face)
        self.sides.append(sides)
        return face


class SeededDice(RandomDice):
    """A seeded campaign's dice for one action: ``random.Random(f"{seed}:{position}")``,
    seeded at its first die (seeding costs more than most rolls; a note draws none)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._rng: random.Random | None = None
        self.rolled = []
        self._below = self._seed_below

    @property
    def rng(self) -> random.Random:  # type: ignore[override]
        if self._rng is None:
            self._rng = random.Random(self.key)
        return self._rng

    def _seed_below(self, n: int) -> int:
        self._below = below = self.rng._randbelow  # type: ignore[attr-defined]
        return below(n)  # type: ignore[no-any-return]


def seeded(seed: int, position: int) -> RandomDice:
    """The dice of a seeded campaign for the action recorded after ``position``."""
    return SeededDice(f"{seed}:{position}")


# --- notation: evaluate ---------------------------------------------------


class _Evaluation:
    """One walk of a formula's tree, rolling its dice groups left to right."""

    def __init__(self, dice: Dice) -> None:
        self.dice = dice
        self.groups: list[DiceGroup] = []

    def value(self, node: Node, sign: int, exact: bool = False) -> Fraction | int:
        """A node's value; ``exact`` within floor/ceil/round, where a division is not rounded."""
        kind = type(node)
        if kind is DiceTerm:  # the nodes of most rolls first, by their very type
            group = roll_group(node, self.dice, sign)
            self.groups.append(group)
            return group.value
        if kind is Number:
            return node.value  # type: ignore[union-attr]
        if type(node) is BinOp and node.op in "+-":
            left = self.value(node.left, sign, exact)
            right = self.value(node.right, sign if node.op == "+" else -sign, exact)
            return left + right if node.op == "+" else left - right
        if isinstance(node, Number):
            return node.value
        if isinstance(node, Group):
            return self.value(node.inner, sign, exact)
        if isinstance(node, Negate):
            return -self.value(node.operand, -sign, exact)
        if isinstance(node, Func):
            return node.apply(
                self.value(node.operand, sign if node.name != "abs" else 1, node.name != "abs" or exact)
            )
        if isinstance(node, Pool):
            values = [self.value(item, sign, exact) for item in node.items]
            return sum((values[i] for i in node.kept(values)), start=0)
        if isinstance(node, BinOp):
            if node.op in "+-":
                left = self.value(node.left, sign, exact)
                right = self.value(node.right, sign if node.op == "+" else -sign, exact)
                return left + right if node.op == "+" else left - right
            left = self.value(node.left, 1, exact)
            right = self.value(node.right, 1, exact)
            if node.op == "*":
                return left * right
            if right == 0:
                raise NotationError(node.text(), _("it divides by zero"))
            return Fraction(left) / right if exact else math.floor(Fraction(left) / right)
        group = roll_group(node, self.dice, sign)
        self.groups.append(group)
        return group.value


def roll_group(term: DiceTerm, dice: Dice, sign: int = 1) -> DiceGroup:
    """Roll one group die by die: each die, its rerolls, then its explosions (each
    explosion a die of its own, or one value with the die when compounding)."""
    sides = term.sides
    plain = not term.fate and term.minimum is None and term.maximum is None
    """A die counts for its face (no Fate die, no minimum or maximum): the common case."""
    roll = dice.roll
    count = term.count
    if plain and term.reroll is None and term.explode is None and count <= MAX_DICE:
        # Each die counts for its face, none rerolled or exploding (most rolls): the
        # dice drawn in order, as the walk below draws them, without its bookkeeping.
        return _group(term, sides, [roll(sides) for _ in range(count)], sign)
    faces: list[Die] = []

    def draw(explodes: int | None, rerolls: int | None) -> int:
        if len(faces) >= MAX_DICE:
            raise NotationError(term.text(), _("rerolls and explosions passed {most} dice", most=MAX_DICE))
        if plain:
            faces.append(Die(sides, roll(sides), explodes=explodes, rerolls=rerolls))
        else:
            face = dice.fate() if term.fate else roll(sides)
            value = term.value_of(face)
            faces.append(Die(sides, face, explodes=explodes, rerolls=rerolls, value=_differs(value, face)))
        return len(faces) - 1

    def shown(i: int) -> int:
        return faces[i].face - 2 if term.fate else faces[i].face

    rerolling = term.reroll is not None

    def one(explodes: int | None) -> int:
        i = draw(explodes, None)
        if rerolling:
            while term.rerolled(shown(i)):
                faces[i] = _drop(faces[i])
                i = draw(None, i)
                if term.reroll_once:
                    break
        return i

    explode = term.explode
    units: list[list[int]] = []
    for _unit in range(count):
        i = one(None)
        if explode is None:
            units.append([i])
            continue
        chain = [i]
        while explode.meets(shown(i)):
            i = one(i)
            chain.append(i)
            if term.explode_once:
                break
        units.extend([chain] if term.compound else [[j] for j in chain])

    if plain:
        values = [sum(faces[j].face for j in unit) for unit in units]
    else:
        values = [sum(term.value_of(faces[j].face) for j in unit) for unit in units]
    kept = set(kept_indexes(term.keep, term.keep_n, values)) if term.keep else None
    if kept is not None:
        for u, unit in enumerate(units):
            if u not in kept:
                for j in unit:
                    faces[j] = _drop(faces[j])
        kept_values = [values[u] for u in sorted(kept)]
    else:
        kept_values = values
    success = term.success
    value = sum(1 for v in kept_values if success.meets(v)) if success else sum(kept_values)
    spelled, keep, success_text = _spelled(term)
    return DiceGroup(
        count=term.count,
        sides=sides,
        dice=tuple(faces),
        value=value,
        sign=sign,
        keep=keep,
        explode=explode is not None,
        success=success_text,
        term=spelled,
        label=term.label,
        fate=term.fate,
    )


def _group(term: DiceTerm, sides: int, drawn: list[int], sign: int) -> DiceGroup:
    """The group of plain dice (no reroll, explosion, Fate, minimum or maximum) drawn."""
    if term.keep:
        kept = set(kept_indexes(term.keep, term.keep_n, drawn))
        faces = tuple(Die(sides, f) if u in kept else Die(sides, f, kept=False) for u, f in enumerate(drawn))
        kept_values = [drawn[u] for u in sorted(kept)]
    else:
        faces = tuple([Die(sides, f) for f in drawn])
        kept_values = drawn
    success = term.success
    value = sum(1 for v in kept_values if success.meets(v)) if success else sum(kept_values)
    spelled, keep, success_text = _spelled(term)
    return DiceGroup(
        count=term.count,
        sides=sides,
        dice=faces,
        value=value,
        sign=sign,
        keep=keep,
        explode=False,
        success=success_text,
        term=spelled,
        label=term.label,
        fate=term.fate,
    )


_SPELLED: dict[int, tuple[DiceTerm, tuple[str, str | None, str | None]]] = {}
"""A parsed term's text, keep and success as a group records them, by the term's id (the
term is kept with them, so the id stays its own): parsed notations are kept
(:func:`ledger.dice.notation.parse`), so their terms come back again and again."""


def _spelled(term: DiceTerm) -> tuple[str, str | None, str | None]:
    found = _SPELLED.get(id(term))
    if found is not None and found[0] is term:
        return found[1]
    texts = (
        term.text(with_label=False),
        f"{term.keep}{term.keep_n}" if term.keep else None,
        term.success.text(bare_equal=False) if term.success else None,
    )
    if len(_SPELLED) >= 4096:
        _SPELLED.clear()
    _SPELLED[id(term)] = (term, texts)
    return texts


def _differs(value: int, face: int) -> int | None:
    return None if value == face else value


def _drop(die: Die) -> Die:
    return Die(die.sides, die.face, kept=False, explodes=die.explodes, rerolls=die.rerolls, value=die.value)


def evaluate(formula: Formula, dice: Dice, semantics: int = SEMANTICS) -> RollResult:
    """Roll a parsed formula with ``dice`` under notation rules ``semantics`` (2 to 4:
    new rolls take the current rules, :data:`SEMANTICS`; older ones re-read older rolls;
    the formula is parsed under the same rules)."""
    if semantics < 3:  # pools, functions and the rest came with notation rules 3
        _refuse_newer(formula, semantics)
    run = _Evaluation(dice)
    total = int(run.value(formula.root, 1))
    groups = tuple(run.groups)
    counting = [g for g in groups if g.success]
    successes = sum(g.value for g in counting) if counting else None
    if semantics >= 3:
        successes = groups[0].value if counted(formula.root) is not None else None
    target = None
    if formula.check is not None:
        target = formula.check.text(bare_equal=False)
        successes = int(formula.check.meets(total))
    return RollResult(
        notation=formula.text,
        groups=groups,
        modifier=total - sum(g.sign * g.value for g in groups),
        total=total,
        successes=successes,
        semantics=semantics,
        target=target,
    )


def _has_newer_node(node: Node) -> bool:
    if isinstance(node, (Pool, Func)):
        return True
    if isinstance(node, Group):
        return _has_newer_node(node.inner)
    if isinstance(node, Negate):
        return _has_newer_node(node.operand)
    if isinstance(node, BinOp):
        return _has_newer_node(node.left) or _has_newer_node(node.right)
    return False


def _refuse_newer(formula: Formula, semantics: int) -> None:
    """A roll recorded under older rules uses only the forms those rules read."""
    newer = ""
    for term in formula.dice_terms():
        if (term.keep and term.keep[0] == "k" and term.keep_n > term.count) or (
            term.keep and term.keep[0] == "d" and term.keep_n >= term.count
        ):
            newer = _("{keep}{n} after an explosion", keep=term.keep, n=term.keep_n)
        elif term.explode_once or term.rerolls or term.sort:
            newer = term.text(with_label=False)
    if _has_newer_node(formula.root):
        newer = _("a pool {{...}} or a function")
    if newer:
        raise NotationError(
            formula.text,
            _("{form} is newer than notation rules {rules}, which it claims", form=newer, rules=semantics),
        )


def roll(notation: str, dice: Dice, semantics: int = SEMANTICS) -> RollResult:
    """A notation rolled on the dice, under the current notation rules or (``semantics``)
    older ones, as an action recorded under them is decided again."""
    return evaluate(parse(notation, semantics), dice, semantics)


def recompute(result: RollResult) -> RollResult:
    """A recorded result evaluated again on its own recorded faces, under the rules it
    was recorded with (``semantics``; older rolls keep their first meaning).

    An importer compares it with the stored result: equal means the stored total,
    dice and successes are what the notation gives on those faces. Raises
    :class:`~ledger.errors.LedgerError` when the notation or the faces do not fit."""
    faces = Faces(result.faces())
    if result.semantics == 1:
        # lazy: a command that reads imports no dice_legacy (tests/test_cli_startup.py)
        from ledger.dice import legacy as dice_legacy

        again = dice_legacy.evaluate(dice_legacy.parse(result.notation), faces)
    elif 2 <= result.semantics <= SEMANTICS:
        again = evaluate(parse(result.notation, result.semantics), faces, result.semantics)
    else:
        raise NotationError(
            result.notation,
            _(
                "it was rolled under notation rules {rules}, newer than this ledger's "
                "({ours}); upgrade campaign-ledger to read it",
                rules=result.semantics,
                ours=SEMANTICS,
            ),
        )
    faces.finish()
    return again


_CHANCES: dict[tuple[int, str], tuple[float | None, bool]] = {}


def chance(result: RollResult) -> tuple[float | None, bool]:
    """The roll's chance of success (see :func:`p_any_success`) and whether an explosion's
    tail below 10^-12 was left out of it (:data:`ledger.dice.odds.TAIL`)."""
    if result.successes is None:
        return None, False
    key = (result.semantics, result.notation)
    if key not in _CHANCES:
        if result.semantics == 1:
            # lazy: a command that reads imports no dice_legacy (tests/test_cli_startup.py)
            from ledger.dice import legacy as dice_legacy

            _CHANCES[key] = (dice_legacy.p_any(result.groups), False)
        else:
            _CHANCES[key] = odds.chance(parse(result.notation, result.semantics), result.semantics)
    return _CHANCES[key]


def p_any_success(result: RollResult) -> float | None:
    """Exact chance that the roll succeeds: a check on the total meets its target, or a
    roll that counts successes scores at least one; None for a roll with no success
    (a plain total), or one too large to compute exactly (see :mod:`ledger.dice.odds`)."""
    return chance(result)[0]


# --- notation: render -----------------------------------------------------


def render(result: RollResult) -> str:
    """``4d6kh3 = 14  [6, 5, ~2, 3]``: dice not counted (dropped, rerolled) are marked
    with ``~``, explosions with ``!``, a limited die as ``1->3``, Fate dice as -1/0/+1."""
    if result.semantics == 1:
        # lazy: a command that reads imports no dice_legacy (tests/test_cli_startup.py)
        from ledger.dice import legacy as dice_legacy

        return dice_legacy.render(result)
    formula = parse(result.notation, result.semantics)
    groups = iter(result.groups)
    shown = _shown(formula.root, groups)
    if result.target is not None:
        what = (
            _("{total}, success", total=result.total)
            if result.successes
            else _("{total}, failure", total=result.total)
        )
    elif result.successes is not None:
        what = n_("{n} success", "{n} successes", result.successes)
    else:
        what = str(result.total)
    return f"{result.notation} = {what}  {shown}"


def _shown(node: Node, groups: Iterator[DiceGroup]) -> str:
    if isinstance(node, Number):
        return node.text()
    if isinstance(node, Group):
        return f"({_shown(node.inner, groups)})" + (f"[{node.label}]" if node.label else "")
    if isinstance(node, Negate):
        return f"-{_shown(node.operand, groups)}"
    if isinstance(node, Func):
        return f"{node.name}({_shown(node.operand, groups)})" + (f"[{node.label}]" if node.label else "")
    if isinstance(node, Pool):
        keep = f"{node.keep}{node.keep_n}" if node.keep else ""
        items = ", ".join(_shown(item, groups) for item in node.items)
        return "{" + items + "}" + keep + (f"[{node.label}]" if node.label else "")
    if isinstance(node, BinOp):
        left = _shown(node.left, groups)
        right = _shown(node.right, groups)
        return f"{left} {node.op}{right}" if node.op in "+-" else f"{left}{node.op}{right}"
    group = next(groups)
    dice = list(group.dice)
    if node.sort:  # shown sorted (4d6s); recorded in the order rolled
        dice.sort(key=lambda d: d.face if d.value is None else d.value, reverse=node.sort == "d")
    return f"[{', '.join(_die_text(d, group.fate) for d in dice)}]" + (
        f"[{group.label}]" if group.label else ""
    )


def _die_text(d: Die, fate: bool) -> str:
    if fate:
        face = f"{d.face - 2:+d}" if d.face != 2 else "0"
    else:
        face = str(d.face) if d.value is None else f"{d.face}->{d.value}"
    return ("~" if not d.kept else "") + face + ("!" if d.explodes is not None else "")
