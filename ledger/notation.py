"""Dice notation as players type it: parse text into a tree, and write a tree back
in canonical form.

This module only reads and writes notation; :mod:`ledger.dice` rolls a tree
and renders its result, :mod:`ledger.odds` gives its exact chances. The forms
(see docs/dice-notation.md for the full table):

* dice ``NdS``, ``d%`` (percentile, 1 to 100), ``NdF`` (Fate/Fudge: -1, 0, +1), with
  modifiers in any order: reroll ``r1`` (until it shows another face; ``rr``
  too), ``ro<3`` (once), explode ``!`` / ``e`` / ``x`` (on the maximum, ``!5``,
  ``!>4``), compound ``!!``, minimum ``mi3`` and maximum ``ma5``, keep ``kh3``
  ``kl1`` (``k3`` = ``kh3``), drop ``dl1`` ``dh1`` (``pl1`` / ``ph1`` too), and
  a per-die success count ``>=5``;
* arithmetic ``+ - * /`` (``/`` rounds down, by a number), parentheses,
  unary minus and ``[labels]`` after any term;
* a check on the total: a comparison after anything but one bare dice group,
  ``1d20+5>=15``, ``(8d6)>=30``, ``(8d6>=5)>=3``.

A comparison glued to one dice group counts dice (``8d6>=5``); the readings
that could be either are refused with what to write instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import msgspec

from ledger import words
from ledger.errors import NotationError

MAX_DICE = 1000
"""Most dice one group may roll (rerolls and explosions included)."""
MAX_SIDES = 1000
MAX_GROUPS = 20
MAX_MODIFIER = 1_000_000
MAX_LENGTH = 200
MAX_DEPTH = 20
"""Deepest nesting of parentheses and unary minus."""
MAX_LABEL = 40

COMPARISONS = (">=", "<=", "==", ">", "<", "=")


class Cmp(msgspec.Struct, frozen=True):
    """A comparison with a number: which faces a modifier picks, or a target."""

    op: str  # one of >= <= > < =
    value: int

    def meets(self, x: int) -> bool:
        v = self.value
        return {">=": x >= v, "<=": x <= v, ">": x > v, "<": x < v, "=": x == v}[self.op]

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
    minimum: int | None = None
    maximum: int | None = None
    keep: str | None = None  # kh kl dh dl
    keep_n: int = 0
    success: Cmp | None = None
    label: str = ""

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
            out += ("ro" if self.reroll_once else "r") + self.reroll.text()
        if self.explode:
            mark = "!!" if self.compound else "!"
            # A count after a bare ! would read as the explosion's threshold: name the face.
            bare = self.explode == Cmp("=", self.top) and self.success is None
            out += mark + ("" if bare else self.explode.text())
        if self.minimum is not None:
            out += f"mi{self.minimum}"
        if self.maximum is not None:
            out += f"ma{self.maximum}"
        if self.keep:
            out += f"{self.keep}{self.keep_n}"
        if self.success:
            out += self.success.text(bare_equal=False)
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


Node = DiceTerm | Number | Negate | BinOp | Group


class Formula(msgspec.Struct, frozen=True):
    """A parsed roll: its tree, a check on the total if any, and its canonical text."""

    root: Node
    check: Cmp | None = None
    text: str = msgspec.field(default="")

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


def has_dice(node: Node) -> bool:
    return any(True for _ in walk_dice(node))


# --- parsing ----------------------------------------------------------------


class _Parser:
    def __init__(self, text: str) -> None:
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
            return "the end"
        return f"{self.src[self.pos : self.pos + 8]!r} at position {self.pos + 1}"

    def integer(self, what: str) -> int:
        start = self.pos
        while self.pos < len(self.src) and self.src[self.pos].isdigit() and self.src[self.pos].isascii():
            self.pos += 1
        digits = self.src[start : self.pos]
        if not digits:
            raise self.fail(f"{what} needs a whole number, found {self.here()}")
        if len(digits) > 7:
            raise self.fail(f"{digits[:12]} is above the limit of {MAX_MODIFIER} for any number")
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
        if self.pos < len(self.src):
            if self.peek() == ")":
                raise self.fail(f"a ')' at position {self.pos + 1} closes nothing")
            if self.src[self.pos - 1] in " \t" and self.peek().lower() in "kdremxp!":
                raise self.fail(
                    f"unexpected {self.here()}: modifiers follow their dice with no space (4d6kh3)"
                )
            raise self.fail(f"unexpected {self.here()}")
        _refuse_loose_counts(self, root, top=True)
        if self.groups > MAX_GROUPS:
            raise self.fail(f"more than {MAX_GROUPS} terms with dice")
        if not has_dice(root):
            raise self.fail("it rolls no dice")
        formula = Formula(root, check)
        return msgspec.structs.replace(formula, text=formula_text(formula))

    def check(self, root: Node, op: str) -> Cmp:
        if isinstance(root, DiceTerm):
            what = root.text()
            if root.success:
                raise self.fail(f"{what} already counts successes; to check their number write ({what}){op}N")
            raise self.fail(
                f"'{what} {op}' could count dice or check the total: write {what}{op}N with no space "
                f"to count the dice, or ({what}){op}N to check the total"
            )
        self.skip_space()
        sign = -1 if self.peek() == "-" else 1
        if sign < 0:
            self.pos += 1
        target = sign * self.integer(f"the check {op}")
        self.skip_space()
        if self.pos < len(self.src) and self.peek() in "+-*/":
            raise self.fail(
                "a check compares the total with one number; work out the target "
                "(1d20+5>=17, not 1d20+5>=15+2)"
            )
        if self.pos < len(self.src) and self.comparison():
            raise self.fail("a roll has at most one comparison")
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
                    raise self.fail("divide by a number, not by dice (e.g. 3d6/2)")
                if _constant(right) == 0:
                    raise self.fail("it divides by zero")
            node = BinOp(c, node, right)

    def unary(self) -> Node:
        self.skip_space()
        c = self.peek()
        if c == "+":
            raise self.fail("two operators in a row" if self.pos else "it starts with '+'; drop it")
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
            raise self.fail(f"more than {MAX_DEPTH} nested parentheses or signs")

    def atom(self) -> Node:
        self.skip_space()
        c = self.peek()
        if not c:
            raise self.fail("it ends where a number or dice should follow")
        if c == "(":
            self.pos += 1
            self.enter()
            inner = self.sum()
            self.skip_space()
            if self.comparison():
                raise self.fail(
                    "a check on a total compares the whole roll: write it last, "
                    "outside any parentheses (1d20+5>=15)"
                )
            if self.peek() != ")":
                raise self.fail(f"a '(' is not closed (found {self.here()})")
            self.pos += 1
            self.depth -= 1
            return Group(inner, self.labels())
        if c in "dD" or c.isdigit():
            start = self.pos
            count = None
            if c.isdigit():
                count = self.integer("a number")
            if self.peek() in ("d", "D") and self.peek():
                return self.dice(count, start)
            if count is not None and count > MAX_MODIFIER:
                raise self.fail(f"modifier {count} is above {MAX_MODIFIER}")
            assert count is not None
            return Number(count, self.labels())
        if c == "[":
            raise self.fail("a [label] follows the number or dice it names (1d6[fire]+2)")
        raise self.fail(f"unexpected {self.here()}")

    def labels(self) -> str:
        parts = []
        self.skip_space()
        while self.peek() == "[":
            end = self.src.find("]", self.pos)
            if end < 0:
                raise self.fail("a '[' label is not closed with ']'")
            text = self.src[self.pos + 1 : end].strip()
            if "[" in text or not text.isprintable() or len(text) > MAX_LABEL:
                raise self.fail(f"a label is printable text of at most {MAX_LABEL} characters, without '['")
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
                raise self.fail(f"a die needs its sides after 'd' (d6, d%, dF), found {self.here()}")
            sides = self.integer("a die")
        if n < 1:
            raise self.fail("a group must roll at least one die")
        if n > MAX_DICE:
            raise self.fail(f"{n} dice is above the limit of {MAX_DICE}")
        if not fate and not 1 <= sides <= MAX_SIDES:
            raise self.fail(f"a d{sides} is outside d1 to d{MAX_SIDES}")
        self.groups += 1
        term = DiceTerm(count=n, sides=sides, fate=fate)
        seen: set[str] = set()
        while True:
            before = self.pos
            term = self.modifier(term, seen)
            if self.pos == before:
                break
        _check_term(self, term)
        return msgspec.structs.replace(term, label=self.labels())

    def selector(self, what: str, required: bool) -> Cmp | None:
        op = self.comparison()
        if op is None and not self.peek().isdigit():
            if required:
                raise self.fail(f"{what} needs the faces it applies to (e.g. {what}1 or {what}<3)")
            return None
        return Cmp(op or "=", self.integer(what))

    def modifier(self, term: DiceTerm, seen: set[str]) -> DiceTerm:
        s = self.src
        p = self.pos
        low = s[p : p + 3].lower()

        def once(kind: str, written: str) -> None:
            if kind in seen:
                raise self.fail(f"{written} is a second {kind} modifier on one group; give one")
            seen.add(kind)

        if low.startswith(("kh", "kl", "dh", "dl", "ph", "pl")):
            self.pos += 2
            kind = ("k" if low[0] == "k" else "d") + low[1]
            once("keep or drop", s[p : p + 2])
            number = self.integer(kind) if self.peek().isdigit() else 1
            return msgspec.structs.replace(term, keep=kind, keep_n=number)
        if low.startswith("p"):
            raise self.fail(
                "p drops dice: pl1 (or dl1) drops the lowest, ph1 (or dh1) the highest; "
                "to reroll a face use r1"
            )
        if low.startswith("ra"):
            raise self.fail("ra (reroll and add) is not supported; use ! to explode or ro to reroll once")
        if low.startswith("k"):
            self.pos += 1
            if not self.peek().isdigit():
                raise self.fail("k needs how many to keep: kh3 keeps the highest 3, kl1 the lowest")
            once("keep or drop", "k")
            return msgspec.structs.replace(term, keep="kh", keep_n=self.integer("k"))
        if low.startswith("d"):
            rest = s[p + 1 : p + 4]
            n = "".join(ch for ch in rest if ch.isdigit()) or "1"
            raise self.fail(
                f"'d' after a die is not a modifier here: write dl{n} to drop the lowest {n} "
                f"or dh{n} to drop the highest {n}"
            )
        if low.startswith(("mi", "ma")):
            self.pos += 2
            if s[self.pos : self.pos + 1].lower() in ("n", "x"):  # Foundry's min / max
                self.pos += 1
            kind = "minimum" if low[1] == "i" else "maximum"
            once(kind, s[p : self.pos])
            number = self.integer(s[p : self.pos])
            return msgspec.structs.replace(term, **{kind: number})
        if low.startswith("r"):
            once_ = low.startswith("ro")
            self.pos += 2 if low.startswith(("ro", "rr")) else 1
            once("reroll", s[p : self.pos])
            sel = self.selector(s[p : self.pos], required=True)
            return msgspec.structs.replace(term, reroll=sel, reroll_once=once_)
        if low.startswith(("!", "e", "x")):
            compound = s.startswith("!!", p)
            self.pos += 2 if compound else 1
            if s[self.pos : self.pos + 1].lower() in ("o", "p"):
                raise self.fail(
                    f"{s[p : self.pos + 1]} (explode once / penetrate) is not supported; "
                    "use ! (explode), !! (compound) or ro (reroll once)"
                )
            once("explode", s[p : self.pos])
            sel = self.selector(s[p : self.pos], required=False) or Cmp("=", term.top)
            return msgspec.structs.replace(term, explode=sel, compound=compound)
        if self.peek() in "<>=" and self.peek():
            op = self.comparison()
            assert op is not None
            if "success" in seen:
                raise self.fail(
                    f"{term.text()} counts successes once; to check how many, write ({term.text()}){op}N"
                )
            seen.add("success")
            self.skip_space()
            if not self.peek().isdigit():
                raise self.fail(f"{op} needs a whole number to compare with, found {self.here()}")
            return msgspec.structs.replace(term, success=Cmp(op, self.integer(op)))
        return term


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
        raise p.fail(f"{what}: Fate dice take keep, drop, explode and counting, not rerolls or limits")
    # Selectors on Fate dice compare the -1/0/+1 value.
    shown = [f - 2 for f in faces] if t.fate else faces
    if t.reroll:
        hit = [v for v in shown if t.reroll.meets(v)]
        if not hit:
            raise p.fail(f"{what}: r{t.reroll.text()} rerolls no face of a d{t.sides}; name a face it shows")
        if len(hit) == len(shown) and not t.reroll_once:
            raise p.fail(f"{what} would reroll every face forever; reroll fewer faces or use ro (once)")
    if t.explode:
        after = [v for v in shown if not (t.reroll and not t.reroll_once and t.reroll.meets(v))]
        hit = [v for v in after if t.explode.meets(v)]
        if not hit:
            mark = "!!" if t.compound else "!"
            raise p.fail(
                f"a d{t.sides} never shows what {mark}{t.explode.text()} explodes on; to explode on "
                f"{t.top} and count dice {t.explode.text()}, write {t.count}d{t.sides}{mark}{t.top}"
                f"{t.explode.text()}"
            )
        if len(hit) == len(after):
            raise p.fail(f"{what} would explode forever: every face explodes; explode on fewer faces")
    if t.minimum is not None and t.maximum is not None and t.minimum > t.maximum:
        raise p.fail(f"{what}: the minimum mi{t.minimum} is above the maximum ma{t.maximum}")
    if t.keep:
        keeps = t.keep[0] == "k"
        if keeps and not 1 <= t.keep_n <= t.count:
            raise p.fail(
                f"{t.keep}{t.keep_n} keeps {t.keep_n} of {words.count(t.count, 'die')}; keep 1 to {t.count}"
            )
        if not keeps and not 1 <= t.keep_n < t.count:
            raise p.fail(
                f"{t.keep}{t.keep_n} drops {t.keep_n} of {words.count(t.count, 'die')}; drop 1 to {t.count - 1}"
            )


def _refuse_loose_counts(p: _Parser, node: Node, top: bool) -> None:
    """A dice group that counts successes is the whole roll or in parentheses."""
    if isinstance(node, DiceTerm):
        if node.success and not top:
            what = node.text()
            raise p.fail(
                f"{what} inside a sum is ambiguous: write ({what}) to use its count of successes, "
                "or compare last to check a total (1d20+5>=15 checks 1d20+5 against 15)"
            )
    elif isinstance(node, Negate):
        _refuse_loose_counts(p, node.operand, False)
    elif isinstance(node, BinOp):
        _refuse_loose_counts(p, node.left, False)
        _refuse_loose_counts(p, node.right, False)
    elif isinstance(node, Group):
        _refuse_loose_counts(p, node.inner, True)


@lru_cache(maxsize=1024)
def parse(text: str) -> Formula:
    """Parse dice notation into a :class:`Formula`, refusing absurd or ambiguous rolls
    (a formula is immutable, so the last notations parsed are kept: a table or an
    import rolls the same few again and again)."""
    src = text.strip()
    if not src:
        raise NotationError(text, "it is empty")
    if len(src) > MAX_LENGTH:
        raise NotationError(text[:40] + "...", f"it is longer than {MAX_LENGTH} characters")
    return _Parser(src).formula()


def formula_text(formula: Formula) -> str:
    """The canonical spelling: modifiers in one order, no spaces (``4d6!kh3`` -> ``4d6!kh3``,
    ``4d6kh3 !`` is refused, ``4d6kh3!`` -> ``4d6!kh3``)."""
    text = formula.root.text()
    return text + (formula.check.text(bare_equal=False) if formula.check else "")
