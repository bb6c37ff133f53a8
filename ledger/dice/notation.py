"""Dice notation as players type it: parse text into a tree, and write a tree back
in canonical form.

This module only reads and writes notation; :mod:`ledger.dice.sources` rolls a tree
and renders its result, :mod:`ledger.dice.odds` gives its exact chances. The forms
(see docs/dice-notation.md for the full table):

* dice ``NdS``, ``d%`` (percentile, 1 to 100), ``NdF`` (Fate/Fudge: -1, 0, +1), with
  modifiers in any order: reroll ``r1`` (until it shows another face; ``rr``
  too; ``r1r2`` either face), ``ro<3`` (once), explode ``!`` / ``e`` / ``x`` (on
  the maximum, ``!5``, ``!>4``; once: ``!o`` / ``xo``), compound ``!!``, minimum
  ``mi3`` and maximum ``ma5``, keep ``kh3`` ``kl1`` (``k3`` = ``kh3``), drop ``dl1``
  ``dh1`` (``pl1`` / ``ph1`` too; after an explosion they count the dice there
  are), sort ``s`` / ``sd`` (shown only), and a per-die success count ``>=5``
  (``cs>=5``, ``cf<3`` too);
* arithmetic ``+ - * /`` (``/`` rounds down, by a number), parentheses, unary
  minus and plus, ``floor()`` ``ceil()`` ``round()`` ``abs()`` (a division inside
  the first three is exact), pools ``{1d20,1d20}kh1``, ``[labels]`` after any
  term, and words after the roll as its comment (``1d20+5 attack``);
* a check on the total: a comparison after anything but one bare dice group,
  ``1d20+5>=15``, ``(8d6)>=30``, ``(8d6>=5)>=3``.

A comparison glued to one dice group counts dice (``8d6>=5``); the readings
that could be either are refused with what to write instead, and so is ``!=``
after a die (other rollers read it as "not equal").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import lru_cache

import msgspec

from ledger.errors import NotationError
from ledger.i18n import _, n_

MAX_DICE = 1000
"""Most dice one group may roll (rerolls and explosions included)."""
MAX_SIDES = 1000
MAX_GROUPS = 20
MAX_MODIFIER = 1_000_000
MAX_LENGTH = 200
MAX_DEPTH = 20
"""Deepest nesting of parentheses and unary minus."""
MAX_LABEL = 40
MAX_COMMENT = 100
"""Longest trailing comment (``1d20+5 attack``), which becomes the roll's label."""
FUNCTIONS = ("floor", "ceil", "round", "abs")

SEMANTICS = 4
"""The notation rules new rolls are recorded under (``RollResult.semantics``). 4 refuses
Foundry's capped rerolls and explosions (``2d6r1=1``, ``4d6x2>=5``), which rules 3 read as a
reroll or an explosion on that face then a count, and writes such a count as ``cs``
(``2d6r1cs=1``); the words after the roll are its label when none is given. 3 reports a
count of successes only for a roll that is one counting group (a count inside arithmetic
is a number); 2 summed the counts of every counting group, wherever it stood."""

CAPPED_FROM = 4
"""The first notation rules that refuse Foundry's capped forms (see :data:`SEMANTICS`)."""

COMPARISONS = (">=", "<=", "==", ">", "<", "=")


class Cmp(msgspec.Struct, frozen=True):
    """A comparison with a number: which faces a modifier picks, or a target."""

    op: str  # one of >= <= > < =
    value: int

    def meets(self, x: int) -> bool:
        v, op = self.value, self.op
        if op == ">=":
            return x >= v
        if op == "<=":
            return x <= v
        if op == ">":
            return x > v
        if op == "<":
            return x < v
        if op == "=":
            return x == v
        raise KeyError(op)  # pragma: no cover - the parser writes no other

    def text(self, bare_equal: bool = True) -> str:
        return f"{self.value}" if self.op == "=" and bare_equal else f"{self.op}{self.value}"


class DiceTerm(msgspec.Struct, frozen=True):
    count: int
    sides: int  # 3 for Fate dice
    fate: bool = False
    reroll: Cmp | None = None
    reroll_once: bool = False
    explode: Cmp | None = None
    compound: bool = False
    explode_once: bool = False
    """``!o`` / ``xo``: a die explodes at most once."""
    rerolls: tuple[Cmp, ...] = ()
    """Further faces rerolled like ``reroll`` (``r1r2``)."""
    sort: str = ""
    """``s`` / ``sa`` (``a``) or ``sd`` (``d``): the dice are shown sorted; no value changes."""
    minimum: int | None = None
    maximum: int | None = None
    keep: str | None = None  # kh kl dh dl
    keep_n: int = 0
    success: Cmp | None = None
    label: str = ""
    count_mark: str = ""
    """``cs`` when the count is written after a reroll's face (``2d6r1cs=1``), which notation
    rules 4 would otherwise read as Foundry's capped reroll; empty under older rules."""

    def rerolled(self, shown: int) -> bool:
        """Whether a die showing ``shown`` is rerolled."""
        return self.reroll is not None and any(c.meets(shown) for c in (self.reroll, *self.rerolls))

    @property
    def top(self) -> int:
        """The highest face as the selectors see it (a Fate die's +1)."""
        return 1 if self.fate else self.sides

    def values(self) -> range:
        """What one die can count for before min/max (a Fate die: -1 to 1)."""
        return range(-1, 2) if self.fate else range(1, self.sides + 1)

    def value_of(self, face: int) -> int:
        value = face - 2 if self.fate else face
        if self.minimum is not None:
            value = max(value, self.minimum)
        if self.maximum is not None:
            value = min(value, self.maximum)
        return value

    def text(self, with_label: bool = True) -> str:
        out = f"{self.count}d{'F' if self.fate else self.sides}"
        if self.reroll:
            mark = "ro" if self.reroll_once else "r"
            out += "".join(mark + c.text() for c in (self.reroll, *self.rerolls))
        if self.explode:
            mark = "!!" if self.compound else "!o" if self.explode_once else "!"
            # A count after a bare ! would read as the explosion's threshold: name the face.
            bare = self.explode == Cmp("=", self.top) and self.success is None
            out += mark + ("" if bare else self.explode.text())
        if self.minimum is not None:
            out += f"mi{self.minimum}"
        if self.maximum is not None:
            out += f"ma{self.maximum}"
        if self.keep:
            out += f"{self.keep}{self.keep_n}"
        if self.sort:
            out += "s" if self.sort == "a" else "sd"
        if self.success:
            out += self.count_mark + self.success.text(bare_equal=False)
        return out + (f"[{self.label}]" if with_label and self.label else "")


class Number(msgspec.Struct, frozen=True):
    value: int
    label: str = ""

    def text(self) -> str:
        return f"{self.value}" + (f"[{self.label}]" if self.label else "")


class Negate(msgspec.Struct, frozen=True):
    operand: Node

    def text(self) -> str:
        return f"-{self.operand.text()}"


class BinOp(msgspec.Struct, frozen=True):
    op: str  # + - * /
    left: Node
    right: Node

    def text(self) -> str:
        return f"{self.left.text()}{self.op}{self.right.text()}"


class Group(msgspec.Struct, frozen=True):
    """Parentheses, which also say "this whole value" before a comparison."""

    inner: Node
    label: str = ""

    def text(self) -> str:
        return f"({self.inner.text()})" + (f"[{self.label}]" if self.label else "")


class Pool(msgspec.Struct, frozen=True):
    """``{1d20,1d20}kh1``: several rolls, some of whose values are kept (all, without keep)."""

    items: tuple[Node, ...]
    keep: str | None = None  # kh kl dh dl
    keep_n: int = 0
    label: str = ""

    def text(self) -> str:
        keep = f"{self.keep}{self.keep_n}" if self.keep else ""
        return (
            "{"
            + ",".join(i.text() for i in self.items)
            + "}"
            + keep
            + (f"[{self.label}]" if self.label else "")
        )

    def kept(self, values: list[Fraction | int]) -> list[int]:
        """The indexes of the items kept, given their values (ties: the first)."""
        if self.keep is None:
            return list(range(len(values)))
        return kept_indexes(self.keep, self.keep_n, values)


def kept_indexes(keep: str, keep_n: int, values: Sequence[Fraction | int]) -> list[int]:
    """The indexes a keep or drop (``kh``, ``kl``, ``dh``, ``dl`` and its count) leaves of
    some values, in order; ties go to the first (a dice group's and a pool's alike)."""
    highest = keep[1] == "h"
    order = sorted(range(len(values)), key=lambda i: (-values[i] if highest else values[i], i))
    chosen = set(order[:keep_n])
    return sorted(chosen if keep[0] == "k" else set(range(len(values))) - chosen)


class Func(msgspec.Struct, frozen=True):
    """``floor()``, ``ceil()``, ``round()`` (halves up) or ``abs()``; within the first
    three a division is exact and the function rounds the result."""

    name: str
    operand: Node
    label: str = ""

    def text(self) -> str:
        return f"{self.name}({self.operand.text()})" + (f"[{self.label}]" if self.label else "")

    def apply(self, value: Fraction | int) -> Fraction | int:
        if self.name == "abs":
            return abs(value)
        if self.name == "floor":
            return math.floor(value)
        if self.name == "ceil":
            return math.ceil(value)
        return math.floor(value + Fraction(1, 2))


Node = DiceTerm | Number | Negate | BinOp | Group | Pool | Func


class Formula(msgspec.Struct, frozen=True):
    """A parsed roll: its tree, a check on the total if any, and its canonical text."""

    root: Node
    check: Cmp | None = None
    text: str = msgspec.field(default="")
    comment: str = ""
    """Words after the roll (``1d20+5 attack``): not part of the notation; the label."""

    def dice_terms(self) -> list[DiceTerm]:
        return list(walk_dice(self.root))


def walk_dice(node: Node) -> Iterator[DiceTerm]:
    if isinstance(node, DiceTerm):
        yield node
    elif isinstance(node, Negate):
        yield from walk_dice(node.operand)
    elif isinstance(node, BinOp):
        yield from walk_dice(node.left)
        yield from walk_dice(node.right)
    elif isinstance(node, Group):
        yield from walk_dice(node.inner)
    elif isinstance(node, Func):
        yield from walk_dice(node.operand)
    elif isinstance(node, Pool):
        for item in node.items:
            yield from walk_dice(item)


def counted(node: Node) -> DiceTerm | None:
    """The dice group whose count of successes a roll reports: the whole roll is that
    group (perhaps in parentheses). A count inside arithmetic is a number."""
    while isinstance(node, Group):
        node = node.inner
    return node if isinstance(node, DiceTerm) and node.success is not None else None


def has_dice(node: Node) -> bool:
    return any(True for _ in walk_dice(node))


# --- parsing ----------------------------------------------------------------


class _Parser:
    def __init__(self, text: str, semantics: int = SEMANTICS) -> None:
        self.semantics = semantics
        self.original = text
        self.src = text
        self.pos = 0
        self.depth = 0
        self.groups = 0

    # helpers
    def fail(self, problem: str) -> NotationError:
        return NotationError(self.original, problem)

    def peek(self, n: int = 1) -> str:
        return self.src[self.pos : self.pos + n]

    def skip_space(self) -> None:
        while self.pos < len(self.src) and self.src[self.pos] in " \t":
            self.pos += 1

    def here(self) -> str:
        if self.pos >= len(self.src):
            return _("the end")
        return _("{text!r} at position {at}", text=self.src[self.pos : self.pos + 8], at=self.pos + 1)

    def integer(self, what: str) -> int:
        start = self.pos
        while self.pos < len(self.src) and self.src[self.pos].isdigit() and self.src[self.pos].isascii():
            self.pos += 1
        digits = self.src[start : self.pos]
        if not digits:
            raise self.fail(_("{what} needs a whole number, found {found}", what=what, found=self.here()))
        if len(digits) > 7:
            raise self.fail(
                _(
                    "{digits} is above the limit of {most} for any number",
                    digits=digits[:12],
                    most=MAX_MODIFIER,
                )
            )
        return int(digits)

    def comparison(self) -> str | None:
        for op in COMPARISONS:
            if self.src.startswith(op, self.pos):
                self.pos += len(op)
                return "=" if op == "==" else op
        return None

    # grammar
    def formula(self) -> Formula:
        self.skip_space()
        root = self.sum()
        self.skip_space()
        check = None
        if self.pos < len(self.src) and (op := self.comparison()):
            check = self.check(root, op)
        self.skip_space()
        comment = ""
        if self.pos < len(self.src):
            if self.peek() == ")":
                raise self.fail(_("a ')' at position {at} closes nothing", at=self.pos + 1))
            word = self.src[self.pos :].split()[0]
            if self.src[self.pos - 1] in " \t" and _is_modifiers(word):
                raise self.fail(
                    _(
                        "unexpected {found}: modifiers follow their dice with no space (4d6kh3)",
                        found=self.here(),
                    )
                )
            if (
                self.src[self.pos - 1] not in " \t"
                or not self.peek().isalpha()
                or _is_roll(word, self.semantics)
            ):
                raise self.fail(_("unexpected {found}", found=self.here()))
            comment = " ".join(self.src[self.pos :].split())
            if len(comment) > MAX_COMMENT or not comment.isprintable():
                raise self.fail(
                    _(
                        "the words after the roll are a comment of at most {most} printable characters",
                        most=MAX_COMMENT,
                    )
                )
        _refuse_loose_counts(self, root, top=True)
        if self.groups > MAX_GROUPS:
            raise self.fail(_("more than {most} terms with dice", most=MAX_GROUPS))
        if not has_dice(root):
            raise self.fail(_("it rolls no dice"))
        formula = Formula(root, check, comment=comment)
        return msgspec.structs.replace(formula, text=formula_text(formula))

    def check(self, root: Node, op: str) -> Cmp:
        if isinstance(root, DiceTerm):
            what = root.text()
            if root.success:
                raise self.fail(
                    _(
                        "{what} already counts successes; to check their number write ({what}){op}N",
                        what=what,
                        op=op,
                    )
                )
            raise self.fail(
                _(
                    "'{what} {op}' could count dice or check the total: write {what}{op}N with no space "
                    "to count the dice, or ({what}){op}N to check the total",
                    what=what,
                    op=op,
                )
            )
        self.skip_space()
        sign = -1 if self.peek() == "-" else 1
        if sign < 0:
            self.pos += 1
        target = sign * self.integer(_("the check {op}", op=op))
        self.skip_space()
        if self.pos < len(self.src) and self.peek() in "+-*/":
            raise self.fail(
                _(
                    "a check compares the total with one number; work out the target (1d20+5>=17, not 1d20+5>=15+2)"
                )
            )
        if self.pos < len(self.src) and self.comparison():
            raise self.fail(_("a roll has at most one comparison"))
        return Cmp(op, target)

    def sum(self) -> Node:
        node = self.product()
        while True:
            self.skip_space()
            c = self.peek()
            if c not in ("+", "-") or not c:
                return node
            self.pos += 1
            node = BinOp(c, node, self.product())

    def product(self) -> Node:
        node = self.unary()
        while True:
            self.skip_space()
            c = self.peek()
            if c not in ("*", "/") or not c:
                return node
            self.pos += 1
            if self.peek() == "/":  # // as in avrae
                self.pos += 1
            right = self.unary()
            if c == "/":
                if has_dice(right):
                    raise self.fail(_("divide by a number, not by dice (e.g. 3d6/2)"))
                if _constant(right) == 0:
                    raise self.fail(_("it divides by zero"))
            node = BinOp(c, node, right)

    def unary(self) -> Node:
        self.skip_space()
        c = self.peek()
        if c == "+":  # a unary plus changes nothing (+1d20, 1d20*+2)
            self.pos += 1
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return operand
        if c == "-":
            self.pos += 1
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return Negate(operand)
        return self.atom()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(_("more than {most} nested parentheses or signs", most=MAX_DEPTH))

    def atom(self) -> Node:
        self.skip_space()
        c = self.peek()
        if not c:
            raise self.fail(_("it ends where a number or dice should follow"))
        if c == "(":
            self.pos += 1
            self.enter()
            inner = self.sum()
            self.skip_space()
            if self.comparison():
                raise self.fail(
                    _(
                        "a check on a total compares the whole roll: write it last, "
                        "outside any parentheses (1d20+5>=15)"
                    )
                )
            if self.peek() != ")":
                raise self.fail(_("a '(' is not closed (found {found})", found=self.here()))
            self.pos += 1
            self.depth -= 1
            return Group(inner, self.labels())
        name = re.match(r"[a-z]+(?=\s*\()", self.src[self.pos :].lower())
        if name and name.group() in FUNCTIONS:
            self.pos += len(name.group())
            self.skip_space()
            self.pos += 1  # the (
            self.enter()
            inner = self.sum()
            self.skip_space()
            if self.peek() != ")":
                raise self.fail(
                    _("{name}( is not closed with ')' (found {found})", name=name.group(), found=self.here())
                )
            self.pos += 1
            self.depth -= 1
            return Func(name.group(), inner, self.labels())
        if c == "{":
            return self.pool()
        if c in "dD" or c.isdigit():
            start = self.pos
            count = None
            if c.isdigit():
                count = self.integer(_("a number"))
            if self.peek() in ("d", "D") and self.peek():
                return self.dice(count, start)
            if count is not None and count > MAX_MODIFIER:
                raise self.fail(_("modifier {n} is above {most}", n=count, most=MAX_MODIFIER))
            assert count is not None
            return Number(count, self.labels())
        if c == "[":
            raise self.fail(_("a [label] follows the number or dice it names (1d6[fire]+2)"))
        raise self.fail(_("unexpected {found}", found=self.here()))

    def pool(self) -> Pool:
        self.pos += 1  # the {
        self.enter()
        items = [self.sum()]
        self.skip_space()
        while self.peek() == ",":
            self.pos += 1
            items.append(self.sum())
            self.skip_space()
        if self.peek() != "}":
            raise self.fail(
                _(
                    "a '{open}' pool is not closed with '{close}' (found {found})",
                    open="{",
                    close="}",
                    found=self.here(),
                )
            )
        self.pos += 1
        self.depth -= 1
        pool = Pool(tuple(items))
        low = self.src[self.pos : self.pos + 2].lower()
        if low.startswith(("kh", "kl", "dh", "dl", "ph", "pl")) or (low[:1] == "k" and low[1:2].isdigit()):
            size = 1 if low[1:2].isdigit() else 2
            self.pos += size
            kind = "kh" if size == 1 else ("k" if low[0] == "k" else "d") + low[1]
            n = self.integer(kind) if self.peek().isdigit() or size == 1 else 1
            what = f"{{...}}{kind}{n}"
            if kind[0] == "k" and not 1 <= n <= len(items):
                raise self.fail(
                    n_(
                        "{what} keeps {keep} of {n} roll; keep 1 to {n}",
                        "{what} keeps {keep} of {n} rolls; keep 1 to {n}",
                        len(items),
                        what=what,
                        keep=n,
                    )
                )
            if kind[0] == "d" and not 1 <= n < len(items):
                raise self.fail(
                    n_(
                        "{what} drops {drop} of {n} roll; drop 1 to {most}",
                        "{what} drops {drop} of {n} rolls; drop 1 to {most}",
                        len(items),
                        what=what,
                        drop=n,
                        most=len(items) - 1,
                    )
                )
            pool = Pool(tuple(items), kind, n)
        return msgspec.structs.replace(pool, label=self.labels())

    def labels(self) -> str:
        parts = []
        self.skip_space()
        while self.peek() == "[":
            end = self.src.find("]", self.pos)
            if end < 0:
                raise self.fail(_("a '[' label is not closed with ']'"))
            text = self.src[self.pos + 1 : end].strip()
            if "[" in text or not text.isprintable() or len(text) > MAX_LABEL:
                raise self.fail(
                    _("a label is printable text of at most {most} characters, without '['", most=MAX_LABEL)
                )
            if text:
                parts.append(text)
            self.pos = end + 1
            self.skip_space()
        return " ".join(parts)

    def dice(self, count: int | None, start: int) -> DiceTerm:
        self.pos += 1  # the d
        n = 1 if count is None else count
        fate = False
        if self.peek() == "%":
            self.pos += 1
            sides = 100
        elif self.peek() in ("F", "f") and self.peek():
            self.pos += 1
            sides, fate = 3, True
        else:
            if not self.peek().isdigit():
                raise self.fail(
                    _("a die needs its sides after 'd' (d6, d%, dF), found {found}", found=self.here())
                )
            sides = self.integer(_("a die"))
        if n < 1:
            raise self.fail(_("a group must roll at least one die"))
        if n > MAX_DICE:
            raise self.fail(_("{n} dice is above the limit of {most}", n=n, most=MAX_DICE))
        if not fate and not 1 <= sides <= MAX_SIDES:
            raise self.fail(_("a d{sides} is outside d1 to d{most}", sides=sides, most=MAX_SIDES))
        self.groups += 1
        term = DiceTerm(count=n, sides=sides, fate=fate)
        seen: set[str] = set()
        while True:
            before = self.pos
            term = self.modifier(term, seen)
            if self.pos == before:
                break
        _check_term(self, term)
        if self.semantics >= CAPPED_FROM and _count_follows_reroll(term):
            term = msgspec.structs.replace(term, count_mark="cs")
        return msgspec.structs.replace(term, label=self.labels())

    def selector(self, what: str, required: bool) -> Cmp | None:
        op = self.comparison()
        if op is None and not self.peek().isdigit():
            if required:
                raise self.fail(
                    _("{what} needs the faces it applies to (e.g. {what}1 or {what}<3)", what=what)
                )
            return None
        return Cmp(op or "=", self.integer(what))

    def modifier(self, term: DiceTerm, seen: set[str]) -> DiceTerm:
        s = self.src
        p = self.pos
        low = s[p : p + 3].lower()

        def once(kind: str, written: str) -> None:
            if kind in seen:
                raise self.fail(
                    _(
                        "{written} is a second {kind} modifier on one group; give one",
                        written=written,
                        kind=kind,
                    )
                )
            seen.add(kind)

        if low.startswith(("kh", "kl", "dh", "dl", "ph", "pl")):
            self.pos += 2
            kind = ("k" if low[0] == "k" else "d") + low[1]
            once(_("keep or drop"), s[p : p + 2])
            number = self.integer(kind) if self.peek().isdigit() else 1
            return msgspec.structs.replace(term, keep=kind, keep_n=number)
        if low.startswith(("cs", "cf")):  # Foundry: count successes (or failures)
            self.pos += 2
            op = self.comparison() or "="
            return self.count(term, seen, op)
        if low.startswith("s"):
            self.pos += 2 if low[1:2] in ("a", "d") else 1
            once(_("sort"), s[p : self.pos])
            return msgspec.structs.replace(term, sort="d" if low[1:2] == "d" else "a")
        if low.startswith("p"):
            raise self.fail(
                _(
                    "p drops dice: pl1 (or dl1) drops the lowest, ph1 (or dh1) the highest; to reroll a face use r1"
                )
            )
        if low.startswith("ra"):
            raise self.fail(_("ra (reroll and add) is not supported; use ! to explode or ro to reroll once"))
        if low.startswith("k"):
            self.pos += 1
            if not self.peek().isdigit():
                raise self.fail(_("k needs how many to keep: kh3 keeps the highest 3, kl1 the lowest"))
            once(_("keep or drop"), "k")
            return msgspec.structs.replace(term, keep="kh", keep_n=self.integer("k"))
        if low.startswith("d"):
            rest = s[p + 1 : p + 4]
            n = "".join(ch for ch in rest if ch.isdigit()) or "1"
            raise self.fail(
                _(
                    "'d' after a die is not a modifier here: write dl{n} to drop the lowest {n} "
                    "or dh{n} to drop the highest {n}",
                    n=n,
                )
            )
        if low.startswith(("mi", "ma")):
            self.pos += 2
            if s[self.pos : self.pos + 1].lower() in ("n", "x"):  # Foundry's min / max
                self.pos += 1
            kind = "minimum" if low[1] == "i" else "maximum"
            once(_("minimum") if kind == "minimum" else _("maximum"), s[p : self.pos])
            number = self.integer(s[p : self.pos])
            return msgspec.structs.replace(term, **{kind: number})
        if low.startswith("r"):
            once_ = low.startswith("ro")
            self.pos += 2 if low.startswith(("ro", "rr")) else 1
            written = s[p : self.pos]
            bare = self.peek().isdigit()
            sel = self.selector(written, required=True)
            assert sel is not None
            if bare:
                self.refuse_cap(term, written, sel)
            if term.reroll is None:
                seen.add("reroll")
                return msgspec.structs.replace(term, reroll=sel, reroll_once=once_)
            if once_ != term.reroll_once:
                raise self.fail(
                    _(
                        "{written} mixes rerolls until another face with ro (once); use one kind",
                        written=written,
                    )
                )
            return msgspec.structs.replace(term, rerolls=(*term.rerolls, sel))  # r1r2: either face
        if low.startswith(("!", "e", "x")):
            compound = s.startswith("!!", p)
            self.pos += 2 if compound else 1
            if s.startswith("=", self.pos) and s[p] == "!":
                n = re.match(r"=*(\d*)", s[self.pos :]).group(1) or "N"  # type: ignore[union-attr]
                raise self.fail(
                    _(
                        "'{mark}=' reads as 'not equal' to other rollers, so it is not taken as an "
                        "explosion: to explode on {n} write {dice}{mark}{n}",
                        mark=s[p : self.pos],
                        n=n,
                        dice=f"{term.count}d{'F' if term.fate else term.sides}",
                    )
                )
            after = s[self.pos : self.pos + 2].lower()
            explode_once = after[:1] == "o"
            if explode_once and compound:
                raise self.fail(
                    _("{mark}: a compounding die cannot explode once; use !o or !!", mark=s[p : self.pos + 1])
                )
            if after[:1] == "p" and after[1:2] not in ("l", "h"):
                raise self.fail(
                    _(
                        "{mark} (penetrate) is not supported; use ! (explode), !! (compound), "
                        "!o (explode once) or ro (reroll once)",
                        mark=s[p : self.pos + 1],
                    )
                )
            self.pos += int(explode_once)
            mark = s[p : self.pos]
            once(_("explode"), mark)
            bare = self.peek().isdigit()
            sel = self.selector(mark, required=False) or Cmp("=", term.top)
            if bare and mark[0] in "xX":  # Foundry's x: x2>=5 is at most two explosions (! and e: no cap)
                self.refuse_cap(term, mark, sel)
            return msgspec.structs.replace(term, explode=sel, compound=compound, explode_once=explode_once)
        if self.peek() in "<>=" and self.peek():
            op = self.comparison()
            assert op is not None
            return self.count(term, seen, op)
        return term

    def refuse_cap(self, term: DiceTerm, written: str, sel: Cmp) -> None:
        """Foundry's capped forms, a bare number then a comparison (``r1=1``, ``x2>=5``: at
        most that many rerolls or explosions on the faces compared), are refused under
        notation rules 4 with what to write; older rules read them as a face, then a count."""
        if self.semantics < CAPPED_FROM or not (self.peek() in "<>=" and self.peek()):
            return
        start = self.pos
        op = self.comparison()
        rest = self.src[self.pos :]
        value = re.match(r"\d*", rest).group()  # type: ignore[union-attr]
        self.pos = start
        cmp = f"{op}{value or 'N'}"
        faces = cmp[1:] if op == "=" else cmp  # r1, not r=1
        dice = f"{term.count}d{'F' if term.fate else term.sides}"
        n = sel.value
        if written[:1] in "xX":
            raise self.fail(
                n_(
                    "{dice}{written}{n}{cmp} is Foundry's capped explosion (at most {n} explosion on "
                    "{cmp}), which the ledger does not roll: write {dice}{written}{faces} to explode on "
                    "{cmp} without a cap, or {dice}{written}{n}cs{cmp} to explode on {n} and count the dice {cmp}",
                    "{dice}{written}{n}{cmp} is Foundry's capped explosion (at most {n} explosions on "
                    "{cmp}), which the ledger does not roll: write {dice}{written}{faces} to explode on "
                    "{cmp} without a cap, or {dice}{written}{n}cs{cmp} to explode on {n} and count the dice {cmp}",
                    n,
                    dice=dice,
                    written=written,
                    cmp=cmp,
                    faces=faces,
                )
            )
        raise self.fail(
            n_(
                "{dice}{written}{n}{cmp} is Foundry's capped reroll (at most {n} reroll of a die {cmp}), "
                "which the ledger does not roll: write {dice}ro{faces} to reroll each such die once, or "
                "{dice}{written}{n}cs{cmp} to reroll {n}s and count the dice {cmp}",
                "{dice}{written}{n}{cmp} is Foundry's capped reroll (at most {n} rerolls of a die {cmp}), "
                "which the ledger does not roll: write {dice}ro{faces} to reroll each such die once, or "
                "{dice}{written}{n}cs{cmp} to reroll {n}s and count the dice {cmp}",
                n,
                dice=dice,
                written=written,
                cmp=cmp,
                faces=faces,
            )
        )

    def count(self, term: DiceTerm, seen: set[str], op: str) -> DiceTerm:
        """A per-die count of successes, after its comparison."""
        if "success" in seen:
            raise self.fail(
                _(
                    "{what} counts successes once; to check how many, write ({what}){op}N",
                    what=term.text(),
                    op=op,
                )
            )
        seen.add("success")
        self.skip_space()
        if not self.peek().isdigit():
            raise self.fail(
                _("{op} needs a whole number to compare with, found {found}", op=op, found=self.here())
            )
        return msgspec.structs.replace(term, success=Cmp(op, self.integer(op)))


def _count_follows_reroll(t: DiceTerm) -> bool:
    """Whether the canonical text would put a count right after a reroll's bare face
    (``2d6r1=1``), which notation rules 4 read as Foundry's capped reroll."""
    if t.success is None or t.reroll is None or t.explode is not None:
        return False
    if t.minimum is not None or t.maximum is not None or t.keep or t.sort:
        return False
    return (t.rerolls[-1] if t.rerolls else t.reroll).op == "="


def _constant(node: Node) -> int | None:
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Group):
        return _constant(node.inner)
    if isinstance(node, Negate):
        v = _constant(node.operand)
        return None if v is None else -v
    if isinstance(node, BinOp):
        a, b = _constant(node.left), _constant(node.right)
        if a is None or b is None:
            return None
        if node.op == "+":
            return a + b
        if node.op == "-":
            return a - b
        if node.op == "*":
            return a * b
        return None if b == 0 else a // b
    return None


def _check_term(p: _Parser, t: DiceTerm) -> None:
    what = t.text(with_label=False)
    faces = list(range(1, t.sides + 1))
    if t.fate and (t.reroll or t.minimum is not None or t.maximum is not None):
        raise p.fail(
            _("{what}: Fate dice take keep, drop, explode and counting, not rerolls or limits", what=what)
        )
    # Selectors on Fate dice compare the -1/0/+1 value.
    shown = [f - 2 for f in faces] if t.fate else faces
    if t.reroll:
        for c in (t.reroll, *t.rerolls):
            if not any(c.meets(v) for v in shown):
                raise p.fail(
                    _(
                        "{what}: r{faces} rerolls no face of a d{sides}; name a face it shows",
                        what=what,
                        faces=c.text(),
                        sides=t.sides,
                    )
                )
        hit = [v for v in shown if t.rerolled(v)]
        if len(hit) == len(shown) and not t.reroll_once:
            raise p.fail(
                _("{what} would reroll every face forever; reroll fewer faces or use ro (once)", what=what)
            )
    if t.explode:
        after = [v for v in shown if not (not t.reroll_once and t.rerolled(v))]
        hit = [v for v in after if t.explode.meets(v)]
        if not hit:
            mark = "!!" if t.compound else "!"
            raise p.fail(
                _(
                    "a d{sides} never shows what {mark}{on} explodes on; to explode on "
                    "{top} and count dice {on}, write {count}d{sides}{mark}{top}{on}",
                    sides=t.sides,
                    mark=mark,
                    on=t.explode.text(),
                    top=t.top,
                    count=t.count,
                )
            )
        if len(hit) == len(after) and not t.explode_once:
            raise p.fail(
                _("{what} would explode forever: every face explodes; explode on fewer faces", what=what)
            )
    if t.minimum is not None and t.maximum is not None and t.minimum > t.maximum:
        raise p.fail(
            _(
                "{what}: the minimum mi{low} is above the maximum ma{high}",
                what=what,
                low=t.minimum,
                high=t.maximum,
            )
        )
    if t.keep and t.explode and not t.compound:
        # Explosions add dice: keep or drop counts the dice there are (2d6!kh3 keeps up to 3).
        if not 1 <= t.keep_n <= MAX_DICE:
            raise p.fail(
                _("{keep}{n}: keep or drop 1 to {most} dice", keep=t.keep, n=t.keep_n, most=MAX_DICE)
            )
    elif t.keep:
        keeps = t.keep[0] == "k"
        if keeps and not 1 <= t.keep_n <= t.count:
            raise p.fail(
                n_(
                    "{keep}{k} keeps {k} of {n} die; keep 1 to {n}",
                    "{keep}{k} keeps {k} of {n} dice; keep 1 to {n}",
                    t.count,
                    keep=t.keep,
                    k=t.keep_n,
                )
            )
        if not keeps and not 1 <= t.keep_n < t.count:
            raise p.fail(
                n_(
                    "{keep}{k} drops {k} of {n} die; drop 1 to {most}",
                    "{keep}{k} drops {k} of {n} dice; drop 1 to {most}",
                    t.count,
                    keep=t.keep,
                    k=t.keep_n,
                    most=t.count - 1,
                )
            )


def _refuse_loose_counts(p: _Parser, node: Node, top: bool) -> None:
    """A dice group that counts successes is the whole roll or in parentheses."""
    if isinstance(node, DiceTerm):
        if node.success and not top:
            what = node.text()
            raise p.fail(
                _(
                    "{what} inside a sum is ambiguous: write ({what}) to use its count of successes, "
                    "or compare last to check a total (1d20+5>=15 checks 1d20+5 against 15)",
                    what=what,
                )
            )
    elif isinstance(node, Negate):
        _refuse_loose_counts(p, node.operand, False)
    elif isinstance(node, BinOp):
        _refuse_loose_counts(p, node.left, False)
        _refuse_loose_counts(p, node.right, False)
    elif isinstance(node, Group):
        _refuse_loose_counts(p, node.inner, True)
    elif isinstance(node, Func):
        _refuse_loose_counts(p, node.operand, False)
    elif isinstance(node, Pool):
        for item in node.items:
            _refuse_loose_counts(p, item, True)


_MODIFIER = re.compile(
    r"(?:k[hl]?\d*|[dp][hl]\d*|r[or]?(?:[<>]=?|==?)?\d+|(?:!!?|[ex])o?(?:[<>]=?|==?)?\d*"
    r"|mi?n?\d+|ma?x?\d+|s[ad]?|c[sf](?:[<>]=?|==?)?\d+)+",
    re.IGNORECASE,
)


def _is_modifiers(word: str) -> bool:
    """Whether a word after a space is dice modifiers put apart from their dice (4d6 kh3)."""
    return _MODIFIER.fullmatch(word) is not None


def _is_roll(word: str, semantics: int = SEMANTICS) -> bool:
    """Whether a word after a space is itself a roll (2d6 d4), not a comment."""
    try:
        _Parser(word, semantics).formula()
    except NotationError:
        return False
    return True


@lru_cache(maxsize=1024)
def parse(text: str, semantics: int = SEMANTICS) -> Formula:
    """Parse dice notation into a :class:`Formula`, refusing absurd or ambiguous rolls,
    under the current notation rules or (``semantics``) the older ones a recorded roll was
    read under (a formula is immutable, so the last notations parsed are kept: a table or
    an import rolls the same few again and again)."""
    src = text.strip()
    if not src:
        raise NotationError(text, _("it is empty"))
    if len(src) > MAX_LENGTH:
        raise NotationError(text[:40] + "...", _("it is longer than {most} characters", most=MAX_LENGTH))
    return _Parser(src, semantics).formula()


def formula_text(formula: Formula) -> str:
    """The canonical spelling: modifiers in one order, no spaces (``4d6!kh3`` -> ``4d6!kh3``,
    ``4d6kh3 !`` is refused, ``4d6kh3!`` -> ``4d6!kh3``)."""
    text = formula.root.text()
    return text + (formula.check.text(bare_equal=False) if formula.check else "")
