"""The d100 tables: skill base values, derived points, recovery, settings.

The Spanish text names the skills but does not print their base values nor
how the points derive from the characteristics: those are data, read from a
TOML file (``samples/d100/tables.toml`` by default) into the Structs below
(:mod:`ledger.tables.file`: a wrong type, a missing or an unknown key is refused
with its place), checked for what a type cannot say, and embedded in the
campaign's first event, as plain dicts, so replay never reads files.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta, Struct

from ledger.errors import TableError
from ledger.i18n import _
from ledger.systems.d100.model import POINTS, fold
from ledger.tables import file as tablefile
from ledger.tables.browse import Row, Table
from ledger.tables.file import decode

SAMPLE = resources.files("ledger.samples") / "d100" / "tables.toml"
_NOTATION = re.compile(r"^\s*(\d+|\d*d\d+([+-]\d+)?)\s*$", re.IGNORECASE)

Characteristic = Literal["TAM", "CON", "FUE", "INT", "EDU", "DES", "CAR", "POD"]
"""One of ``model.CHARACTERISTICS``."""
Positive = Annotated[int, Meta(gt=0)]
Amount = Annotated[int, Meta(ge=0)] | str
"""A whole number, or dice such as ``1d3`` (checked after decoding)."""


class Derivation(Struct, frozen=True, forbid_unknown_fields=True):
    """A point as (the sum of characteristics ``of``) x ``times`` / ``divide``, rounded up."""

    of: Annotated[list[Characteristic], Meta(min_length=1)]
    times: Positive = 1
    divide: Positive = 1


class Derived(Struct, frozen=True, forbid_unknown_fields=True):
    hp: Derivation
    valor: Derivation
    fatigue: Derivation
    luck: Derivation


class Recovery(Struct, frozen=True, forbid_unknown_fields=True):
    hp_per_week: Amount
    valor_per_day: Amount


class Rules(Struct, frozen=True, forbid_unknown_fields=True):
    luck_buys_fumble: bool = False
    """May luck points turn a fumble into a success?"""


class NamedTest(Struct, frozen=True, forbid_unknown_fields=True):
    """A test of a characteristic times a multiple (Idea: INT x 5)."""

    characteristic: Characteristic
    times: Positive


class TableFile(Struct, frozen=True, forbid_unknown_fields=True):
    derived: Derived
    recovery: Recovery
    tests: dict[str, NamedTest]
    skills: Annotated[dict[str, Annotated[int, Meta(ge=0, le=100)]], Meta(min_length=1)]
    rules: Rules = Rules()
    sample: bool = False


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """Read and check a tables file; None reads the sample tables."""
    file = SAMPLE if path is None else Path(path)
    where = "sample tables" if path is None else str(path)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise TableError(
            _("tables file {file!r} does not exist; give an existing TOML file", file=str(file))
        ) from None
    except OSError as e:
        raise TableError(
            _("tables file {file!r} cannot be read ({e}); check the file", file=str(file), e=e)
        ) from None
    tables = validate(decode(data, TableFile, where), where)
    return tables, (str(file) if path is not None else "samples/d100/tables.toml")


def check_stored(data: dict[str, Any]) -> None:
    """A campaign's stored tables, judged by the types and :func:`validate` a table file is
    read with, and stored exactly so (``Rules.check_tables``)."""
    tablefile.check_stored(data, TableFile, validate, "d100")


def _need(cond: bool, where: str, problem: str) -> None:
    if not cond:
        raise TableError(
            _("{where}: {problem}; see samples/d100/tables.toml for the layout", where=where, problem=problem)
        )


def validate(data: TableFile, where: str = "tables") -> dict[str, Any]:
    """The decoded file checked for what its types cannot say, as plain JSON-ready tables."""
    recovery = {"hp_per_week": data.recovery.hp_per_week, "valor_per_day": data.recovery.valor_per_day}
    for key, v in recovery.items():
        _need(
            bool(_NOTATION.match(str(v))),
            where,
            f'[recovery] {key} = {v!r} must be a whole number or dice such as "1d3"',
        )
    folded = [fold(n) for n in [*data.skills, *data.tests]]
    _need(
        len(set(folded)) == len(folded), where, "two skills or tests share a name (ignoring accents and case)"
    )
    derived = {p: getattr(data.derived, p) for p in POINTS}
    return {
        "sample": data.sample,
        "derived": {p: {"of": list(d.of), "times": d.times, "divide": d.divide} for p, d in derived.items()},
        "recovery": {k: str(v) for k, v in recovery.items()},
        "rules": {"luck_buys_fumble": data.rules.luck_buys_fumble},
        "tests": {n: {"characteristic": t.characteristic, "times": t.times} for n, t in data.tests.items()},
        "skills": dict(data.skills),
    }


def listing(data: dict[str, Any]) -> list[Any]:
    """The d100 reference tables: skills with their base chance, characteristic tests, derived points."""

    def derived(rule: dict[str, Any]) -> str:
        of = " + ".join(rule["of"])
        times = f" x {rule['times']}" if rule["times"] != 1 else ""
        divide = f" / {rule['divide']}" if rule["divide"] != 1 else ""
        return f"({of}){times}{divide}" if len(rule["of"]) > 1 else f"{of}{times}{divide}"

    return [
        Table(
            "skills",
            "Skills and their base chance (d100 under)",
            tuple(Row(n, f"{base}%", {"base": base}) for n, base in data["skills"].items()),
        ),
        Table(
            "tests",
            "Characteristic tests",
            tuple(Row(n, f"{t['characteristic']} x {t['times']}", dict(t)) for n, t in data["tests"].items()),
        ),
        Table(
            "derived",
            "Derived points",
            tuple(Row(n, derived(rule), dict(rule)) for n, rule in data["derived"].items()),
        ),
    ]
