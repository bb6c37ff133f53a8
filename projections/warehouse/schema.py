"""The warehouse's layout: its tables, and the fingerprint a warehouse was written with.

Which tables there are depends on the installed systems: the core tables (``campaigns``,
``events``, ``characters``, ``dice`` and the ``actions`` view), one per shared fact class
(``ledger.facts.FACT_TYPES``) and one per fact class a system declares
(``ReadModel.fact_types``). :func:`schema` lays them out for every installed system,
:func:`layout_for` for a few; a warehouse whose marker names another layout is rebuilt,
never migrated (:class:`SchemaChanged`). :class:`Layout` says how a fact made in Python
becomes a row of its table.

It imports the kernel's facts and errors and the systems registry (``ledger.systems``),
and nothing else of the warehouse: every other module of the package reads its tables
from here. It opens no database.
"""

from __future__ import annotations

import functools
import hashlib
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from ledger.errors import LedgerError, WarehouseError
from ledger.facts import FACT_TYPES, Fact, RollFact
from ledger.i18n import _
from ledger.systems import get_system, system_names

COMMON: tuple[tuple[str, str], ...] = (
    ("position", "BIGINT"),
    ("stream", "VARCHAR"),
    ("campaign", "VARCHAR"),
    ("system", "VARCHAR"),
    ("version", "INTEGER"),
    ("action", "VARCHAR"),
    ("day", "INTEGER"),
    ("actor", "VARCHAR"),
    ("recorded_at", "TIMESTAMP"),
    ("undone", "BOOLEAN"),
)
"""Columns every event-derived row carries (``position`` is the notification id)."""

COMMON_SELECT: tuple[str, ...] = (*(name for name, _ in COMMON[:-1]), "false")
"""The common columns as selected from a staged page (nothing new is undone)."""

_PY_TO_SQL = {str: "VARCHAR", int: "BIGINT", float: "DOUBLE", bool: "BOOLEAN"}


class SchemaChanged(WarehouseError):
    """The warehouse was written with another table layout (it is rebuilt, never migrated)."""


class Table(msgspec.Struct, frozen=True):
    name: str
    columns: tuple[tuple[str, str], ...]
    doc: str

    @property
    def names(self) -> list[str]:
        return [c for c, _ in self.columns]

    def ddl(self) -> str:
        cols = ", ".join(f'"{c}" {t}' for c, t in self.columns)
        return f'CREATE TABLE IF NOT EXISTS "{self.name}" ({cols})'


def _sql_type(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    base = args[0] if args else hint
    return _PY_TO_SQL.get(base, "VARCHAR")


def _fact_fields(cls: type[Fact]) -> list[tuple[str, str]]:
    hints = typing.get_type_hints(cls)
    return [(name, _sql_type(hints[name])) for name in cls.__struct_fields__ if name != "dice"]


def _fact_table(cls: type[Fact]) -> Table:
    own = _fact_fields(cls)
    own_names = {n for n, _ in own}
    columns = [c for c in COMMON if c[0] not in own_names]
    if cls is RollFact:
        columns += [("roll_id", "BIGINT"), ("dice_count", "INTEGER")]
    else:
        columns += [("fact_id", "BIGINT")]
    doc = (cls.__doc__ or cls.__name__).strip().splitlines()[0]
    return Table(cls.table, (*columns, *own), doc)


CAMPAIGNS = Table(
    "campaigns",
    (
        ("position", "BIGINT"),
        ("stream", "VARCHAR"),
        ("campaign", "VARCHAR"),
        ("system", "VARCHAR"),
        ("parent_stream", "VARCHAR"),
        ("parent_campaign", "VARCHAR"),
        ("parent_version", "INTEGER"),
        ("imported", "BOOLEAN"),
        ("registered_at", "TIMESTAMP"),
        ("simulated", "BOOLEAN"),
    ),
    "One row per campaign or branch (a fork names its parent and fork version).",
)
EVENTS = Table(
    "events",
    (*COMMON, ("kind", "VARCHAR"), ("physical", "BOOLEAN")),
    "One row per stored event (``physical``: an action's first event, its dice typed as ``faces``).",
)
CHARACTERS = Table(
    "characters", (*COMMON, ("name", "VARCHAR"), ("attrs", "VARCHAR")), "Characters as added (attrs as JSON)."
)
DICE = Table(
    "dice",
    (
        ("roll_id", "BIGINT"),
        ("idx", "INTEGER"),
        ("size", "INTEGER"),
        ("face", "INTEGER"),
        ("kept", "BOOLEAN"),
        ("reroll_of", "INTEGER"),
        ("manual", "BOOLEAN"),
    ),
    "One row per die of a roll, in roll order (join rolls USING (roll_id) for the rest).",
)
ACTIONS_VIEW = """
CREATE OR REPLACE VIEW actions AS
SELECT stream, any_value(campaign) AS campaign, any_value(system) AS system, action,
       min(version) AS first_version, max(version) AS last_version, count(*) AS events,
       min(day) AS day, any_value(actor) AS actor, min(recorded_at) AS recorded_at,
       string_agg(DISTINCT kind, ',' ORDER BY kind) AS kinds, bool_and(undone) AS undone
FROM events
WHERE kind NOT IN ('action.undone', 'action.redone', 'campaign.started', 'branch.forked')
GROUP BY stream, action
"""


FACTS_REVISION = 3
"""Raised whenever the shared facts, or a built-in system's, change what they record (2:
every fact names the character it is about; 3: physical dice marked in every system, a
replacing die's ``reroll_of``, an opponent's roll its own and its wound the Health lost): a
warehouse filled under another revision is rebuilt. A system raises its own
``ReadModel.facts_revision``."""


class Schema(msgspec.Struct, frozen=True, dict=True):
    """The warehouse's layout: every table, and how each kind of fact becomes a row."""

    tables: tuple[Table, ...]
    fact_types: tuple[type[Fact], ...]
    """The shared fact classes, then the systems' own."""
    shared: str
    """Of the shared layout (the core tables, the shared facts, ``FACTS_REVISION``)."""
    systems: Mapping[str, str]
    """Of each system's own part (its facts revision and its tables), by system name."""

    @functools.cached_property
    def fingerprint(self) -> str:
        """Of the whole layout: a warehouse written with another is rebuilt."""
        return _digest([self.shared, *(f"{name} {fp}" for name, fp in sorted(self.systems.items()))])

    @functools.cached_property
    def by_name(self) -> dict[str, Table]:
        return {t.name: t for t in self.tables}

    @functools.cached_property
    def event_tables(self) -> list[str]:
        """Tables whose rows an undo can flag."""
        return [t.name for t in self.tables if "undone" in t.names]

    @functools.cached_property
    def layouts(self) -> dict[type[Fact], Layout]:
        return {cls: _layout(cls, self.by_name[cls.table]) for cls in self.fact_types}

    @functools.cached_property
    def by_table(self) -> dict[str, Layout]:
        return {layout.table.name: layout for layout in self.layouts.values()}


SystemFacts = tuple[str, int, tuple[type[Fact], ...]]
"""A system's name, facts revision and own fact classes, as the layout takes them."""


def _loaded(name: str) -> SystemFacts | None:
    """The layout's part of one installed system, or None when it does not load (one that
    does not has no campaigns to read: opening any of them names the problem)."""
    try:
        system = get_system(name)
    except LedgerError:
        return None
    return (name, system.read.facts_revision, tuple(system.read.fact_types))


def _system_facts() -> list[SystemFacts]:
    """The layout's part of every installed system that loads."""
    return [found for name in system_names() if (found := _loaded(name)) is not None]


def _digest(parts: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def build_schema(systems: Sequence[SystemFacts]) -> Schema:
    """The layout for the shared facts and the given systems' (name, revision, fact classes);
    a fact class with no table, or with the table of another class, is refused."""
    classes: list[type[Fact]] = list(FACT_TYPES)
    owner: dict[str, str] = {cls.table: "the shared facts" for cls in FACT_TYPES}
    owner.update({t.name: "the warehouse" for t in (CAMPAIGNS, EVENTS, CHARACTERS, DICE)})
    owner["actions"] = owner["warehouse_meta"] = "the warehouse"
    own_tables: dict[str, list[Table]] = {}
    for name, _revision, own in systems:
        mine = own_tables.setdefault(name, [])
        for cls in own:
            if cls in classes:
                continue
            if not (isinstance(cls, type) and issubclass(cls, Fact)) or not cls.table:
                raise WarehouseError(
                    _(
                        "the {name} system declares {kind!r} as a fact type, which is no Fact with a table; fix the system's fact_types",
                        name=name,
                        kind=getattr(cls, "__name__", cls),
                    )
                )
            if cls.table in owner:
                raise WarehouseError(
                    _(
                        "the {name} system's {fact} writes table {table!r}, which {owner} writes already; give it a table of its own",
                        name=name,
                        fact=cls.__name__,
                        table=cls.table,
                        owner=owner[cls.table],
                    )
                )
            owner[cls.table] = f"the {name} system"
            classes.append(cls)
            mine.append(_fact_table(cls))
    facts = tuple(_fact_table(cls) for cls in classes)
    tables = (CAMPAIGNS, EVENTS, CHARACTERS, *facts[:1], DICE, *facts[1:])
    shared = (CAMPAIGNS, EVENTS, CHARACTERS, *facts[:1], DICE, *facts[1 : len(FACT_TYPES)])
    return Schema(
        tables,
        tuple(classes),
        _digest([*(t.ddl() for t in shared), ACTIONS_VIEW, f"facts {FACTS_REVISION}"]),
        {
            name: _digest([f"system {name} {revision}", *(t.ddl() for t in own_tables[name])])
            for name, revision, _ in systems
        },
    )


@functools.cache
def schema() -> Schema:
    """The layout for every installed system (worked out once per process: a system is
    installed or removed with its distribution, never while a command runs)."""
    return build_schema(_system_facts())


@functools.cache
def layout_for(systems: frozenset[str]) -> Schema:
    """The layout's shared part and the given installed systems' own, loading only those: a
    catch-up applies what its page's systems say, and a warm command loads no other system."""
    return build_schema([found for name in sorted(systems) if (found := _loaded(name)) is not None])


def tables() -> tuple[Table, ...]:
    """Every table of the warehouse, in the order ``warehouse status`` lists them."""
    return schema().tables


class Layout(msgspec.Struct, frozen=True):
    """How one kind of fact becomes a row of its table (for facts made in Python)."""

    table: Table
    fact: type[Fact]
    keep: tuple[int, ...] | None
    """Indices of the common columns kept (None: all of them)."""
    fields: tuple[str, ...]
    dice_at: int | None

    def row(self, common: tuple[Any, ...], fact: Fact, fact_id: int) -> tuple[Any, ...]:
        head = common if self.keep is None else tuple(common[i] for i in self.keep)
        if type(fact) is self.fact:
            values = msgspec.structs.astuple(fact)
        else:  # a subclass: read the base fields by name
            values = tuple(getattr(fact, f) for f in self.fields)
        if self.dice_at is None:
            return (*head, fact_id, *values)
        dice = values[self.dice_at]
        return (*head, fact_id, len(dice), *values[: self.dice_at], *values[self.dice_at + 1 :])


def _layout(cls: type[Fact], table: Table) -> Layout:
    own = set(cls.__struct_fields__)
    keep = tuple(i for i, (name, _) in enumerate(COMMON) if name not in own)
    fields = tuple(cls.__struct_fields__)
    dice_at = fields.index("dice") if "dice" in fields else None
    return Layout(table, cls, None if len(keep) == len(COMMON) else keep, fields, dice_at)
