"""A system's tables as a player browses them: each table with its dice and rows.

Each system lists its own content with its ``ReadModel.listing(tables)`` (read-only: it never changes the tables);
this module gives those listings one shape and finds the row a roll lands on.
A rolled table has dice (``1d6``, ``2d6``) and rows keyed by the lowest total
each covers; a reference table (shop, enemies, skills...) has no dice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from ledger.errors import Input, LedgerError, RunCommand
from ledger.i18n import _, fold
from ledger.systems import get_system, system_names

__all__ = ["Row", "Table", "effects", "find", "listing", "ranged_rows"]


class Row(msgspec.Struct, frozen=True):
    key: str
    """The roll range (``3-4``) on a rolled table, else the entry's name."""
    text: str
    details: dict[str, Any] = msgspec.field(default_factory=dict)
    low: int | None = None
    high: int | None = None


class Table(msgspec.Struct, frozen=True):
    name: str
    """The table's stable name (``ruins``): what a roll on it records."""
    title: str
    """Its title in the language of the moment (a listing is made where it is shown)."""
    rows: tuple[Row, ...]
    dice: str | None = None
    """Notation rolled on the table (``1d6``), or None for a reference table."""
    note: str = ""
    aliases: tuple[str, ...] = ()
    """Other words a player may type for it, in any language (``ruinas``; a table file's
    ``{ en = ..., es = ... }`` name or title, each language's: ``tables.file.every``)."""

    def row_for(self, total: int) -> Row:
        for row in self.rows:
            if row.low is not None and row.high is not None and row.low <= total <= row.high:
                return row
        raise LedgerError(_("table {table!r} has no row for a roll of {total}", table=self.name, total=total))

    def words(self) -> set[str]:
        """Every word that names it, folded (case, accents, spaces): its name, title and aliases."""
        return {fold(w) for w in (self.name, self.title, *self.aliases) if w}

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "dice": self.dice,
            "note": self.note or None,
            "rows": [
                {"key": r.key, "low": r.low, "high": r.high, "text": r.text, **r.details} for r in self.rows
            ],
        }
        if self.aliases:
            found["aliases"] = list(self.aliases)
        return found


UNSIGNED = frozenset({"technique", "divine", "chapter", "level", "die"})
"""Numbers that name something (technique 6), not a change (+6)."""


def effects(outcome: Mapping[str, Any], skip: Iterable[str] = ("text",)) -> str:
    """An outcome's effects in words: ``fruit +2, enemy sentinel, town``."""
    parts = []
    for key, value in outcome.items():
        if key in skip:
            continue
        if value is True:
            parts.append(key)
        elif value is False or value is None or value == 0:
            continue
        elif isinstance(value, int) and key in UNSIGNED:
            parts.append(f"{key} {value}")
        elif isinstance(value, int):
            parts.append(f"{key} {value:+d}")
        else:
            parts.append(f"{key} {value}")
    return ", ".join(parts)


def ranged_rows(entries: Mapping[str, Any], dice: str, text: Any) -> tuple[Row, ...]:
    """Rows keyed by the lowest total they cover, up to the dice's highest total."""
    count, __, sides = dice.partition("d")
    top = int(count or 1) * int(sides)
    keys = sorted(int(k) for k in entries if str(k).lstrip("-").isdigit())
    rows = []
    for i, low in enumerate(keys):
        high = keys[i + 1] - 1 if i + 1 < len(keys) else top
        value = entries[str(low)]
        span = str(low) if low == high else f"{low}-{high}"
        shown, details = text(value)
        rows.append(Row(span, shown, details, low, high))
    return tuple(rows)


def systems_with_tables() -> list[str]:
    return [s for s in system_names() if get_system(s).read.listing is not None]


def listing(system: str, tables: dict[str, Any]) -> list[Table]:
    """Every table of ``system``, as the system lists them (``ReadModel.listing``)."""
    lister = get_system(system).read.listing
    if lister is None:
        raise LedgerError(
            _(
                "the {system} system has no tables; systems with tables: {systems}",
                system=system,
                systems=", ".join(systems_with_tables()),
            )
        )
    try:
        found: list[Table] = lister(tables)
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        raise LedgerError(
            _(
                "the campaign's {system} tables cannot be listed (missing or malformed: {problem})",
                system=system,
                problem=e,
            ),
            fix=RunCommand(
                text=_("see `tables` for the sample ones"),
                command="tables",
                options=(Input("system", system),),
            ),
        ) from None
    return found


def find(tables: list[Table], name: str, system: str) -> Table:
    """The table called ``name``: its stable name (case-insensitive), else its title or an
    alias in any language (case, accents and spaces aside); a word that names two tables
    is refused naming both, and one that names none lists the names."""
    wanted = name.strip().lower()
    for table in tables:
        if table.name.lower() == wanted:
            return table
    folded = fold(name)
    matches = [t for t in tables if folded in t.words()]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise LedgerError(
            _(
                "{name!r} names more than one table in {system}: {tables}; give one of their names",
                name=name,
                system=system,
                tables=", ".join(f"{t.name} ({t.title})" for t in matches),
            )
        )
    names = ", ".join(t.name for t in tables)
    raise LedgerError(
        _("no table {name!r} in {system}; its tables: {names}", name=name, system=system, names=names)
    )
