"""The statistics warehouse: a DuckDB database derived from the event log.

The warehouse holds typed tables an analyst can read without knowing the
event classes: ``campaigns`` (branches included), ``events``, ``actions`` (a
view), ``characters``, ``rolls``, ``dice`` and one table per kind of fact: the
shared ones (``meals``, ``nights``, ``days``, ``wounds``, ``conditions``,
``deaths``) and those of the installed systems' own fact classes
(``System.fact_types``). Rows come from the core events (a ``ledger roll`` is a
roll with purpose ``roll``) and from each system's facts: its
``System.facts_sql`` queries, or its Python ``System.facts`` when it declares
no queries. Which tables there are, and so the layout a warehouse was written
with, depends on the installed systems (:func:`schema`).

It catches up from the store's notification order, a page at a time: the
stored JSON goes to DuckDB as it is, DuckDB parses it in parallel and SQL
fills every table; each page is written together with the last notification
id it applied, in one DuckDB transaction, so every event lands exactly once
however often or however abruptly catch-up runs. An undo or redo recomputes
the ``undone`` flag of its branch. ``rebuild`` builds a fresh warehouse beside
the old one and swaps it in.

A fact belongs to the branch that recorded it: a fork's rows start after its
fork point, and the shared history is counted once, in the parent.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import itertools
import os
import re
import shutil
import tempfile
import threading
import time
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ledger import outfile
from ledger.errors import Fix, LedgerError, WarehouseError, WarehouseStorageError, named
from ledger.errors import command as fix_command
from ledger.events import (
    CORE_EVENTS,
    CampaignRegistered,
    Envelope,
    envelope_decoder,
)
from ledger.facts import FACT_TYPES, Fact, FactQuery, RollFact, field_defaults

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import duckdb

    from ledger.campaign import Ledger
    from ledger.systems import System

DEFAULT_PG_WAREHOUSE = outfile.DEFAULT_PG_WAREHOUSE
BATCH = 250_000
WAL_FOLD = 16 * 1024
"""A writable connection leaves DuckDB's write-ahead log unfolded on close while it is
smaller than this (see :meth:`Warehouse.close`)."""
REGISTRY = "registry"
FACTS_PER_EVENT = 1000
"""Ids of fact rows are ``position * FACTS_PER_EVENT + n``: stable across rebuilds."""

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


class WarehousePathError(WarehouseError):
    """A warehouse path that holds something else: the ledger, or a file that is no warehouse
    of this ledger (it is never written)."""

    def __init__(self, message: str, path: Path, *, field: str | None = None, fix: Fix | None = None) -> None:
        super().__init__(message, field=field, fix=fix)
        self.path = path


REBUILD = fix_command("warehouse rebuild", "rebuild the warehouse")
"""The fix of a warehouse that is missing or not filled yet."""


def _verify_campaign(name: str) -> Fix:
    return fix_command("verify", f"verify campaign {name!r}", options=(f"campaign {name}",))


class SchemaChanged(WarehouseError):
    """The warehouse was written with another table layout (it is rebuilt, never migrated)."""


# --- table layout ------------------------------------------------------------


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
``System.facts_revision``."""


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
    from ledger.systems import get_system

    try:
        system = get_system(name)
    except LedgerError:
        return None
    return (name, system.facts_revision, tuple(system.fact_types))


def _system_facts() -> list[SystemFacts]:
    """The layout's part of every installed system that loads."""
    from ledger.systems import system_names

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
                    f"the {name} system declares {getattr(cls, '__name__', cls)!r} as a fact type, which is no "
                    "Fact with a table; fix the system's fact_types"
                )
            if cls.table in owner:
                raise WarehouseError(
                    f"the {name} system's {cls.__name__} writes table {cls.table!r}, which {owner[cls.table]} "
                    "writes already; give it a table of its own"
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


# --- where the warehouse lives ------------------------------------------------------


DUCKDB_CONFIG: Mapping[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
}
"""The configuration of every DuckDB connection the project opens: no extension is ever
fetched or loaded on its own (given a SQLite file, DuckDB would otherwise download its
SQLite scanner). JSON and Parquet are built in."""


def duckdb_config(**more: Any) -> dict[str, Any]:
    """:data:`DUCKDB_CONFIG` with more settings."""
    return {**DUCKDB_CONFIG, **more}


_DUCKDB_MAGIC = b"DUCK"
"""Bytes 8 to 11 of every DuckDB database file."""


def check_warehouse_path(ledger: Ledger, path: Path) -> None:
    """Refuse a warehouse path that would overwrite something other than a warehouse: the
    ledger's own files (after resolving symlinks and relative paths, with the warehouse's
    write-ahead log and spill folder beside it), or an existing file that is not a DuckDB
    database. Whether a DuckDB database is this ledger's warehouse is checked when it opens."""
    ledger_files = outfile.ledger_files(ledger.store)
    if ledger_files:
        main = next(iter(ledger_files))
        for own in outfile.warehouse_files(path):
            found = outfile.clash(own, ledger_files)
            if found is not None:
                raise WarehousePathError(
                    f"warehouse {path} would overwrite {found[1]} {found[0]}; give `warehouse` a file of "
                    f"its own, e.g. {main}.duckdb",
                    path,
                    field="warehouse",
                )
    if not path.exists():
        return
    if not path.is_file():
        raise WarehousePathError(
            f"warehouse {path} is not a file; choose another `warehouse`", path, field="warehouse"
        )
    try:
        with path.open("rb") as f:
            head = f.read(12)
    except OSError as e:
        raise WarehousePathError(
            f"cannot read warehouse {path}: {e.strerror}; choose another `warehouse`", path, field="warehouse"
        ) from e
    if head[8:12] != _DUCKDB_MAGIC:
        raise WarehousePathError(
            f"{path} is not a DuckDB database, so not a warehouse of this ledger; it was left as it is: "
            "choose another `warehouse`, or remove the file if it is a damaged warehouse",
            path,
            field="warehouse",
        )


def warehouse_path(ledger: Ledger, explicit: str | None = None) -> Path:
    """``--warehouse``, else ``LEDGER_WAREHOUSE``, else ``<ledger file>.duckdb``
    for SQLite or ``./ledger-warehouse.duckdb`` for PostgreSQL."""
    return Path(explicit) if explicit else outfile.default_warehouse(ledger.store)


# --- turning stored events into rows ----------------------------------------------------

ROLLED_SQL = FactQuery(
    RollFact,
    ("dice.rolled",),
    """WITH r AS (
           SELECT position, json_transform(event, '{"result": {"groups": [{"dice": [{"sides": "INTEGER",
               "face": "INTEGER", "kept": "BOOLEAN", "explodes": "INTEGER", "rerolls": "INTEGER"}]}], "total": "BIGINT",
               "successes": "INTEGER"}, "manual": "BOOLEAN", "p_success": "DOUBLE"}') AS e
           FROM ev WHERE kind = 'dice.rolled')
       SELECT position, 0 AS n, 'roll' AS purpose,
              flatten(list_transform(e.result.groups, lambda g, i: list_transform(g.dice, lambda d: {
                  'size': d.sides, 'face': d.face, 'kept': coalesce(d.kept, true),
                  'reroll_of': coalesce(d.explodes, d.rerolls)
                      + coalesce(list_sum(list_transform(e.result.groups[:i - 1], lambda h: len(h.dice))), 0)
              }))) AS dice,
              CASE WHEN e.result.successes IS NULL THEN CAST(e.result.total AS VARCHAR)
                   WHEN e.result.successes > 0 THEN 'success' ELSE 'failure' END AS outcome,
              e.result.successes AS successes,
              e.result.successes > 0 AS success,
              coalesce(e.manual, false) AS manual,
              e.p_success AS p_success
       FROM r""",
)
"""A core ``ledger roll`` as a roll fact, in SQL (:func:`ledger.facts.rolled_fact` is its
Python twin)."""

CORE_FACTS_SQL: tuple[FactQuery, ...] = (ROLLED_SQL,)


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


_COMMON_NAMES = frozenset(name for name, _ in COMMON)


def _insert_facts(con: duckdb.DuckDBPyConnection, query: FactQuery, system: str | None) -> None:
    """Run one fact query over the staged batch and insert its rows (and a roll's dice)."""
    where = "" if system is None else f" WHERE system = {_literal(system)}"
    con.execute(
        "CREATE OR REPLACE TEMP TABLE fact AS WITH ev AS (SELECT position, stream, version, day, actor, "
        f"kind, event FROM batch{where}) SELECT * FROM ({query.sql}) q"
    )
    given = {name for (name,) in con.execute("SELECT name FROM pragma_table_info('fact')").fetchall()}
    cls = query.fact
    defaults = field_defaults(cls)
    table = layout_for(frozenset(() if system is None else (system,))).by_name.get(cls.table)
    if table is None:
        raise WarehouseError(
            f"a fact query writes {cls.__name__} (table {cls.table!r}), a fact type no installed system "
            "declares; add it to the system's fact_types"
        )
    own = set(cls.__struct_fields__)
    select = []
    for name, sql_type in table.columns:
        if name in ("fact_id", "roll_id"):
            select.append(f"f.position * {FACTS_PER_EVENT} + f.n")
        elif name == "dice_count":
            select.append("len(f.dice)")
        elif name == "undone" and name not in own:
            select.append("false")
        elif name in _COMMON_NAMES and name not in own:
            select.append(f'b."{name}"')
        elif name in given:
            select.append(f'CAST(f."{name}" AS {sql_type})')
        else:
            select.append(f"CAST({_literal(defaults[name])} AS {sql_type})")
    con.execute(
        f'INSERT INTO "{table.name}" SELECT {", ".join(select)} FROM fact f JOIN batch b USING (position)'
    )
    if cls is RollFact or issubclass(cls, RollFact):
        manual = "f.manual" if "manual" in given else _literal(defaults["manual"])
        con.execute(
            f"INSERT INTO dice SELECT roll_id, idx - 1, d.size, d.face, coalesce(d.kept, true), d.reroll_of, "
            f"manual FROM (SELECT f.position * {FACTS_PER_EVENT} + f.n AS roll_id, {manual} AS manual, "
            "unnest(f.dice) AS d, generate_subscripts(f.dice, 1) AS idx FROM fact f)"
        )
    con.execute("DROP TABLE fact")


class StreamInfo(msgspec.Struct, frozen=True):
    """A campaign branch the warehouse knows (its system is loaded only once a page holds
    events of it: :meth:`Warehouse._check_system`)."""

    name: str
    system: str
    simulated: bool = False
    """Played by ``ledger simulate`` (or forked from a campaign that was)."""


def _python_hook(system: str) -> Callable[[Envelope[Any]], list[Fact]] | None:
    """The system's Python facts, when it declares no SQL ones."""
    found = _system(system)
    return None if found is None or found.facts_sql else found.facts


def _fact_queries(system: str) -> Sequence[FactQuery]:
    found = _system(system)
    return () if found is None else found.facts_sql


def _system(system: str) -> System | None:
    from ledger.systems import get_system, system_names

    return get_system(system) if system in system_names() else None


def _installed() -> str:
    """The installed systems' names, as the marker keeps them (read from the entry points,
    no system loaded): a system installed or removed changes the layout."""
    from ledger.systems import system_names

    return ",".join(system_names())


_CORE_TYPES = frozenset(CORE_EVENTS)
_ENCODER = msgspec.json.Encoder()


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


def _at(text: str) -> str | None:
    """A recorded time for a TIMESTAMP column; None for one that names no instant (an
    event imported before the import checked its time): one bad time never stops the
    warehouse for the whole ledger."""
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return None
    return text[:-1] if text.endswith("Z") else text


class Page(msgspec.Struct, frozen=True):
    """One page of stored events on its way into the warehouse."""

    rows: list[tuple[int, str, bytes]]
    """(notification id, stream, stored state), in notification order."""
    states: Path
    """The states as JSON lines."""
    positions: list[int] | None
    """The notification ids, when they are not consecutive."""
    runs: tuple[list[int], list[str]]
    """The first row (counted from 1) and the stream of each run of rows stored in the same
    stream: few, since actions are appended whole (sent to DuckDB as two lists, not a file:
    a CSV reader's start cost a small page about 4 ms)."""


class _Head(msgspec.Struct):
    v: int


_HEAD = msgspec.json.Decoder(_Head)

STAGED_COLUMNS = (
    "{'v': 'INTEGER', 'action': 'VARCHAR', 'at': 'VARCHAR', 'day': 'INTEGER', "
    "'actor': 'VARCHAR', 'decision': 'JSON', 'event': 'JSON'}"
)
"""The envelope fields the warehouse reads (the chain fields are verify's business)."""


class Warehouse:
    """The DuckDB warehouse of one ledger."""

    def __init__(self, ledger: Ledger, path: str | Path | None = None) -> None:
        self.ledger = ledger
        self.path = Path(path) if path is not None else warehouse_path(ledger)
        self._streams: dict[str, StreamInfo] = {}
        self._marker: dict[str, str] = {}
        """The open warehouse's ``warehouse_meta``, as read (or written) on open."""
        self._checked: set[str] = set()
        """The systems whose own layout the open warehouse was found to have."""

    # --- connections ------------------------------------------------------------------

    def _connect(self, path: Path | None = None) -> duckdb.DuckDBPyConnection:
        """The writable connection: to the warehouse (after :func:`check_warehouse_path`), or to
        the fresh file a rebuild fills."""
        import duckdb

        target = path or self.path
        if path is None:
            check_warehouse_path(self.ledger, target)
        if target.parent and not target.parent.exists():
            raise WarehouseError(
                f"folder {target.parent} does not exist; create it or choose another `warehouse`",
                field="warehouse",
            )
        if path is None and not target.exists():
            self._lay_out_new()
        try:
            con = duckdb.connect(str(target), config=duckdb_config())
        except duckdb.Error as e:
            raise self._cannot_open(target, e) from e
        try:
            self._ensure_schema(con)
        except duckdb.Error as e:
            con.close()
            raise self._cannot_open(target, e) from e
        except BaseException:
            con.close()
            raise
        return con

    def _lay_out_new(self) -> None:
        """Make a new warehouse: laid out in a scratch folder beside it and renamed into place,
        so that a full disk leaves no empty or half-made warehouse (which every later open
        would refuse: an empty file there is nobody's warehouse, and is left as it is)."""
        import duckdb

        parent = self.path.parent if str(self.path.parent) else Path(".")
        prefix = f".{self.path.name}{REBUILD_MARK}"
        _sweep(str(parent), prefix)
        try:
            folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))
        except OSError as e:
            raise WarehouseStorageError(f"cannot make warehouse {self.path}: {e.strerror}") from e
        try:
            fresh = folder / "warehouse.duckdb"
            con = self._connect(fresh)
            try:
                con.execute("CHECKPOINT")
            except duckdb.Error as e:
                raise self._cannot_open(self.path, e) from e
            finally:
                con.close()
            # A log left beside a warehouse that is gone belongs to no database (checked not
            # to be the ledger's); DuckDB would refuse to replay it over this one.
            self.path.with_name(self.path.name + ".wal").unlink(missing_ok=True)
            os.replace(fresh, self.path)
        except OSError as e:
            raise WarehouseStorageError(f"cannot make warehouse {self.path}: {e.strerror}") from e
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _storage_fault(self, e: BaseException) -> WarehouseStorageError | None:
        """A DuckDB error that is the disk's (full, failing), in one line; None for any other."""
        import duckdb

        if isinstance(e, duckdb.Error) and any(os.strerror(n) in str(e) for n in outfile.STORAGE_ERRNOS):
            return WarehouseStorageError(
                f"cannot write warehouse {self.path}: {_first_line(e)}; free some space, or choose another `warehouse`"
            )
        return None

    def _cannot_open(self, target: Path, e: Exception) -> WarehouseError:
        import duckdb

        full = self._storage_fault(e)
        if full is not None:
            return full
        if "lock" in str(e).lower():
            return WarehouseError(f"warehouse {target} is in use by another process; try again")
        if isinstance(e, duckdb.IOException) and "not a valid" in str(e):
            return WarehouseError(
                f"warehouse {target} is not a DuckDB database ({_first_line(e)}); "
                "remove it if it is a damaged warehouse, or choose another `warehouse`",
                field="warehouse",
            )
        return WarehouseError(f"cannot open warehouse {target}: {_first_line(e)}")

    def _meta(self, con: duckdb.DuckDBPyConnection) -> dict[str, str] | None:
        """The warehouse's marker table (which ledger, which layout, how far), or None when the
        database holds none; refuses a database that holds other things or another ledger's.

        The marker is read first: listing the database's tables and views (what is checked
        when there is no marker) took 17-36 ms of each warm command's open."""
        import duckdb

        try:
            rows = con.execute("SELECT key, value FROM warehouse_meta").fetchall()
        except duckdb.CatalogException:  # no marker: an empty database, or not a warehouse
            names = con.execute(
                "SELECT table_name FROM duckdb_tables() UNION ALL "
                "SELECT view_name FROM duckdb_views() WHERE NOT internal"
            ).fetchall()
            if names:
                raise WarehousePathError(
                    f"{self.path} is a DuckDB database but not a ledger warehouse (it has no warehouse_meta "
                    "table); it was left as it is: choose another `warehouse`",
                    self.path,
                    field="warehouse",
                ) from None
            return None
        meta: dict[str, str] = dict(rows)
        if meta and meta.get("ledger") != self._ledger_id():
            raise WarehousePathError(
                f"warehouse {self.path} was built from another ledger ({meta.get('store')}); it was left "
                "as it is: choose another `warehouse`, or remove it to build this ledger's there",
                self.path,
                field="warehouse",
            )
        return meta or None

    def _ensure_schema(self, con: duckdb.DuckDBPyConnection) -> None:
        """Check the marker of an existing warehouse, or lay out an empty database as one (in one
        transaction, so the marker is there whenever a table is)."""
        import duckdb

        meta = self._meta(con)
        self._checked = set()
        if meta is not None:
            # The shared layout and which systems are installed; each system's own layout is
            # checked once a page holds its events (_check_system), so that a warm command
            # loads only the systems it applies.
            if meta.get("schema") != layout_for(frozenset()).shared or meta.get("systems") != _installed():
                raise SchemaChanged(f"warehouse {self.path} has an older layout; it is rebuilt on catch-up")
            self._marker = meta
            return
        layout = schema()
        marker = {
            "schema": layout.shared,
            "systems": _installed(),
            **{f"system {name}": own for name, own in layout.systems.items()},
            "position": "0",
            "store": self.ledger.store.describe(),
            "ledger": self._ledger_id(),
        }
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute("CREATE TABLE IF NOT EXISTS warehouse_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
            for table in layout.tables:
                con.execute(table.ddl())
            con.execute(ACTIONS_VIEW)
            con.executemany("INSERT INTO warehouse_meta VALUES (?, ?)", list(marker.items()))
            con.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(duckdb.Error):  # a failed COMMIT has ended the transaction
                con.execute("ROLLBACK")
            raise
        self._marker = marker

    def _check_system(self, system: str) -> None:
        """Load a system whose events a page holds, and refuse a warehouse whose tables were
        laid out for another version of its facts (:class:`SchemaChanged`: it is rebuilt)."""
        if system in self._checked:
            return
        own = layout_for(frozenset((system,))).systems.get(system)  # None: not installed, or broken
        if own is not None and self._marker.get(f"system {system}") != own:
            raise SchemaChanged(
                f"warehouse {self.path} has an older layout of the {system} system's facts; "
                "it is rebuilt on catch-up"
            )
        self._checked.add(system)

    def _ledger_id(self) -> str:
        """The hash of the ledger's first registry event: different for every ledger."""
        first = self.ledger.store.read(REGISTRY, lte=1)
        return bytes(first[0].state)[-66:-2].decode() if first else ""

    def connect_read_only(self, limits: QueryLimits | None = None) -> duckdb.DuckDBPyConnection:
        """A connection for SQL: read-only, no files, no network, no extensions, no Python
        objects, locked settings; with ``limits`` (untrusted SQL: :func:`open_query`) its
        memory, threads and spill files are bounded too.

        A DuckDB database of its own, started read-only, so that every database the SQL can
        reach is read-only: in one started writable (the catch-up's, say) with the warehouse
        attached read-only and external access turned off after, SQL can attach an in-memory
        database, use it, detach the warehouse and attach its file again writable, or create a
        database in the spill folder; turning the local file system off closes that and stops
        spilling as well."""
        import duckdb

        check_warehouse_path(self.ledger, self.path)
        if not self.path.exists():
            raise WarehouseError(f"no warehouse at {self.path}", fix=REBUILD)
        config = duckdb_config(enable_external_access=False, python_enable_replacements=False)
        if limits is not None:
            config.update(
                memory_limit=f"{limits.memory_mb}MB",
                threads=limits.threads,
                max_temp_directory_size=f"{limits.temp_mb}MB",
            )
        try:
            con = duckdb.connect(str(self.path), read_only=True, config=config)
        except duckdb.Error as e:
            raise self._cannot_open(self.path, e) from e
        try:
            if self._meta(con) is None:
                raise WarehousePathError(
                    f"{self.path} is an empty DuckDB database, not a warehouse yet",
                    self.path,
                    fix=REBUILD,
                )
            locked = con.execute("SELECT current_setting('lock_configuration')").fetchone()
            if not (locked and locked[0]):  # a connection of this process may have locked it already
                con.execute("SET lock_configuration = true")
        except BaseException:
            con.close()
            raise
        return con

    # --- catching up ------------------------------------------------------------------

    def position(self, con: duckdb.DuckDBPyConnection | None = None) -> int:
        if con is None:
            if not self.path.exists():
                return 0
            try:
                own = self._connect()
            except SchemaChanged:
                return 0
            try:
                return self.position(own)
            finally:
                own.close()
        row = con.execute("SELECT value FROM warehouse_meta WHERE key = 'position'").fetchone()
        return int(row[0]) if row else 0

    def close(self, con: duckdb.DuckDBPyConnection) -> None:
        """Close a writable connection. DuckDB folds its write-ahead log into the file when the
        last connection closes, which cost a warm ``ledger stats`` 15-25 ms for the few hundred
        bytes of one small catch-up; every open replays the log instead (about 0.7 ms per small
        catch-up in it), so the log is folded once it holds :data:`WAL_FOLD` bytes. Either way
        each catch-up's transaction is durable in the log when it commits."""
        wal = self.path.with_name(self.path.name + ".wal")
        try:
            small = wal.stat().st_size < WAL_FOLD
        except OSError:
            small = True  # no log: nothing to fold
        try:
            if small:
                con.execute("PRAGMA disable_checkpoint_on_shutdown")
        finally:
            con.close()

    def connect(self) -> duckdb.DuckDBPyConnection:
        """The writable connection, checked (:func:`check_warehouse_path`, the marker, the
        layout), for a caller that catches up and then reads on the same connection: a
        command opens DuckDB once. Raises :class:`SchemaChanged` for an older layout
        (:meth:`rebuild` it). The caller closes it with :meth:`close`, before opening any
        other connection to the warehouse in this process."""
        return self._connect()

    def catch_up(
        self,
        progress: Callable[[int], None] | None = None,
        batch: int = BATCH,
        *,
        con: duckdb.DuckDBPyConnection | None = None,
    ) -> int:
        """Apply every event recorded since the last catch-up; returns how many. On ``con``
        (from :meth:`connect`, left open) when given, else on a connection of its own (and a
        warehouse of an older layout is rebuilt). On ``con``, a page of a system whose own
        layout has changed raises :class:`SchemaChanged` (the page is not applied): close it
        and :meth:`rebuild`."""
        if con is not None:
            return self._catch_up(con, progress, batch)
        try:
            con = self._connect()
        except SchemaChanged:
            return self.rebuild(progress, batch)
        try:
            return self._catch_up(con, progress, batch)
        except SchemaChanged:  # a system's own layout, found when a page held its events
            pass
        finally:
            self.close(con)
        return self.rebuild(progress, batch)

    def _catch_up(
        self, con: duckdb.DuckDBPyConnection, progress: Callable[[int], None] | None, size: int
    ) -> int:
        """Apply the pages after the recorded position, reading the next page from the
        store while DuckDB applies this one (the first page is read in this thread: a small
        backlog has no next page, and starts no reader thread)."""
        pos = self.position(con)
        top = self.ledger.store.max_notification_id()
        if pos >= top:  # nothing new: no scratch folder, no campaigns loaded
            return 0
        self._load_streams(con)
        applied = 0
        scratch = _scratch()
        _sweep(scratch)
        with tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=scratch) as tmp:
            folder = Path(tmp)
            reader: ThreadPoolExecutor | None = None
            try:
                page = self._read_page(pos, size, folder)
                while page is not None:
                    last = page.rows[-1][0]
                    ahead = None
                    if last < top:
                        if reader is None:
                            from concurrent.futures import ThreadPoolExecutor

                            reader = ThreadPoolExecutor(1)
                        ahead = reader.submit(self._read_page, last, size, folder)
                    self._apply(con, page)
                    applied += len(page.rows)
                    if progress is not None:
                        progress(len(page.rows))
                    page = ahead.result() if ahead is not None else None
            finally:
                if reader is not None:
                    reader.shutdown(wait=True)  # before the scratch folder goes
        return applied

    def _read_page(self, after: int, size: int, scratch: Path) -> Page | None:
        """The page of stored events after position ``after``, written out for DuckDB in a
        folder of its own under ``scratch``."""
        rows = self.ledger.store.states_after(after, size)
        if not rows:
            return None
        folder = scratch / str(after)
        folder.mkdir()
        states = folder / "events.jsonl"
        with states.open("wb") as out:
            out.writelines(itertools.chain.from_iterable(zip([r[2] for r in rows], itertools.repeat(b"\n"))))
        positions = None
        if rows[-1][0] - rows[0][0] + 1 != len(rows):  # gaps in the notification ids: send them along
            positions = [r[0] for r in rows]
        # Which stream each row is stored in (an imported event keeps the campaign id it was
        # sealed with), as runs of consecutive rows.
        firsts: list[int] = []
        streams: list[str] = []
        for i, (_, stream, _) in enumerate(rows, start=1):
            if not streams or stream != streams[-1]:
                firsts.append(i)
                streams.append(stream)
        return Page(rows, states, positions, (firsts, streams))

    def _load_streams(self, con: duckdb.DuckDBPyConnection) -> None:
        found = con.execute("SELECT stream, campaign, system, simulated FROM campaigns").fetchall()
        for stream, name, system, simulated in found:
            if stream not in self._streams:
                self._streams[stream] = StreamInfo(name, system, bool(simulated))

    def _apply(self, con: duckdb.DuckDBPyConnection, page: Page) -> None:
        """Apply one page of stored events and record its position, in one DuckDB transaction.

        The events travel to DuckDB as the JSON lines they are stored as; DuckDB
        parses them in parallel and every table is filled by SQL: the core rows
        here, each system's facts by its :class:`FactQuery` statements."""
        import duckdb

        rows = page.rows
        con.execute("BEGIN TRANSACTION")
        try:
            self._register(con, rows)
            present, undo = self._stage(con, page)
            con.execute(f"INSERT INTO events SELECT {', '.join(COMMON_SELECT)}, kind, physical FROM batch")
            # Each statement costs a small page about a millisecond: what the page holds none of is skipped.
            if any(kind == "character.added" for _, kind in present):
                con.execute(
                    f"INSERT INTO characters SELECT {', '.join(COMMON_SELECT)}, event->>'name', "
                    "CAST(event->'attrs' AS VARCHAR) FROM batch WHERE kind = 'character.added'"
                )
            if self._facts(con, rows, present):
                self._mark_physical(con, rows[0][0])
            if undo:
                self._flag_undone(con)
            con.execute("UPDATE warehouse_meta SET value = ? WHERE key = 'position'", [str(rows[-1][0])])
            con.execute("DROP TABLE batch")
            con.execute("COMMIT")
        except BaseException as e:
            with contextlib.suppress(duckdb.Error):  # a failed COMMIT has ended the transaction
                con.execute("ROLLBACK")
            full = self._storage_fault(e)
            if full is not None:
                raise full from e
            raise

    def _register(self, con: duckdb.DuckDBPyConnection, rows: list[tuple[int, str, bytes]]) -> None:
        """Campaigns and branches registered in this page (a fork names its parent)."""
        decode = envelope_decoder(None).decode
        new = []
        for position, stream, state in rows:
            if stream != REGISTRY:
                continue
            env = decode(state)
            ev = env.event
            if not isinstance(ev, CampaignRegistered):
                continue
            parent = self._streams.get(ev.parent_id) if ev.parent_id else None
            simulated = ev.simulated or (parent is not None and parent.simulated)
            new.append(
                (
                    position,
                    ev.campaign_id,
                    ev.name,
                    ev.system,
                    ev.parent_id,
                    parent.name if parent else None,
                    ev.parent_version,
                    ev.imported,
                    _at(env.at),
                    simulated,
                )
            )
            self._streams[ev.campaign_id] = StreamInfo(ev.name, ev.system, simulated)
        if new:
            con.executemany(f"INSERT INTO campaigns VALUES ({', '.join('?' * len(CAMPAIGNS.columns))})", new)

    def _stage(self, con: duckdb.DuckDBPyConnection, page: Page) -> tuple[set[tuple[str, str]], bool]:
        """Load the page's campaign events into the temporary table ``batch``, one row per
        event, with its campaign's name and system; returns the (system, kind) pairs staged,
        and whether an undo or redo is among them."""
        import duckdb

        rows = page.rows
        read = (
            f"read_json('{_sql_str(page.states)}', format = 'newline_delimited', columns = {STAGED_COLUMNS}, "
            "maximum_object_size = 1073741824)"
        )
        firsts, streams = page.runs
        params: dict[str, Any] = {"firsts": firsts, "streams": streams}
        number = f"{rows[0][0] - 1} + r.ordinality"
        if page.positions is not None:
            number = "($positions::BIGINT[])[r.ordinality]"
            params["positions"] = page.positions
        runs = "(SELECT unnest($firsts::BIGINT[]) AS first, unnest($streams::VARCHAR[]) AS stream)"
        # Row number -> stream, campaign and system, worked out on row numbers alone.
        where = (
            f"SELECT i.row, u.stream, c.campaign, c.system FROM range(1, {len(rows) + 1}) i(row) "
            f"ASOF JOIN {runs} u ON i.row >= u.first JOIN campaigns c ON c.stream = u.stream"
        )
        try:
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE batch AS SELECT {number} AS position, w.stream, w.campaign, "
                "w.system, r.v AS version, r.action, r.day, r.actor, "
                "TRY_CAST(rtrim(r.at, 'Z') AS TIMESTAMP) AS recorded_at, r.event->>'kind' AS kind, r.event, "
                "coalesce((r.decision->>'manual')::BOOLEAN, false) AS physical "
                f"FROM {read} WITH ORDINALITY r JOIN ({where}) w ON w.row = r.ordinality",
                params,
            )
        except duckdb.Error as e:
            raise self._unreadable(rows, e) from e
        return self._check_staged(con, rows)

    def _check_staged(
        self, con: duckdb.DuckDBPyConnection, rows: list[tuple[int, str, bytes]]
    ) -> tuple[set[tuple[str, str]], bool]:
        """Every staged row must be the stored event its position names: the count, and a
        sample of rows (the first, the last and every 997th) read back. One statement reads
        these and what the rest of the page's work depends on (see :meth:`_stage`)."""
        mine = [r for r in rows if r[1] in self._streams]
        sample = {mine[i][0]: mine[i] for i in (*range(0, len(mine), 997), len(mine) - 1)} if mine else {}
        summary = con.execute(
            "SELECT count(*), list(DISTINCT {'system': system, 'kind': kind}), "
            "coalesce(bool_or(kind IN ('action.undone', 'action.redone')), false), "
            "list({'position': position, 'stream': stream, 'version': version}) "
            "FILTER (WHERE list_contains($sample::BIGINT[], position)) FROM batch",
            {"sample": list(sample)},
        ).fetchone()
        if not summary or summary[0] != len(mine):
            raise self._unreadable(rows, None)
        _, kinds, undo, staged = summary
        present = {(k["system"], k["kind"]) for k in kinds or ()}
        if not mine:
            return present, undo
        found = [(f["position"], f["stream"], f["version"]) for f in staged or ()]
        for position, stream, version in found:
            stored = sample[position]
            v = _HEAD.decode(stored[2]).v
            if (stored[1], v) != (stream, version):
                raise WarehouseError(
                    f"event {position} was staged out of place ({stream} v{version}, stored as "
                    f"{stored[1]} v{v})",
                    fix=fix_command(
                        "warehouse rebuild", "report it and rebuild the warehouse", "report it and run"
                    ),
                )
        if len(found) != len(sample):
            raise self._unreadable(rows, None)
        return present, undo

    def _unreadable(self, rows: list[tuple[int, str, bytes]], cause: BaseException | None) -> WarehouseError:
        """The error naming the first stored event of the page that is not one JSON line."""
        for position, stream, state in rows:
            problem = "it spans lines" if b"\n" in state else None
            if problem is None:
                try:
                    msgspec.json.decode(state)
                except msgspec.DecodeError as e:
                    problem = str(e)
            if problem is not None:
                info = self._streams.get(stream)
                name = info.name if info else stream
                return WarehouseError(
                    f"event {position} of campaign {name!r} cannot be read ({problem})",
                    fix=_verify_campaign(name),
                )
        reason = _first_line(cause) if cause else "DuckDB read another number of events than were stored"
        return WarehouseError(
            f"events {rows[0][0]}-{rows[-1][0]} cannot be loaded ({reason})",
            fix=fix_command("verify", "verify the whole ledger", options=("all",)),
        )

    def _facts(
        self,
        con: duckdb.DuckDBPyConnection,
        rows: list[tuple[int, str, bytes]],
        present: set[tuple[str, str]],
    ) -> bool:
        """Every fact of the page (whose (system, kind) pairs are ``present``): the core rolls,
        then each system's, in SQL where it has queries. Returns whether the page can have
        added rolls."""
        kinds = {kind for _, kind in present}
        rolls = False
        for query in CORE_FACTS_SQL:
            if kinds.intersection(query.kinds):
                _insert_facts(con, query, None)
                rolls = rolls or issubclass(query.fact, RollFact)
        systems = {system for system, _ in present}
        for system in sorted(systems):
            self._check_system(system)
        python = {system for system in systems if _python_hook(system) is not None}
        for system in sorted(systems):
            seen = {kind for s, kind in present if s == system}
            for query in _fact_queries(system):
                if seen.intersection(query.kinds):
                    _insert_facts(con, query, system)
                    rolls = rolls or issubclass(query.fact, RollFact)
        if python:
            self._python_facts(con, rows, python)
        return rolls or bool(python)

    def _python_facts(
        self, con: duckdb.DuckDBPyConnection, rows: list[tuple[int, str, bytes]], systems: set[str]
    ) -> None:
        """Facts of the systems that declare only a Python ``facts`` function."""
        layout_of = layout_for(frozenset(systems))
        hooks = {system: _python_hook(system) for system in systems}
        decoders = {system: envelope_decoder(system).decode for system in systems}
        out: dict[str, list[tuple[Any, ...]]] = {t.name: [] for t in layout_of.tables}
        for position, stream, state in rows:
            info = self._streams.get(stream)
            hook = hooks.get(info.system) if info is not None else None
            if info is None or hook is None:
                continue
            try:
                env = decoders[info.system](state)
            except msgspec.DecodeError as e:
                raise WarehouseError(
                    f"event {position} of campaign {info.name!r} cannot be read ({e})",
                    fix=_verify_campaign(info.name),
                ) from e
            if type(env.event) in _CORE_TYPES:
                continue
            try:
                facts = hook(env)
            except Exception as e:
                raise WarehouseError(
                    f"the {info.system} system cannot turn event {env.v} ({env.event.kind}) of "
                    f"{info.name!r} into statistics ({type(e).__name__}: {e}); report it, the log itself is intact"
                ) from e
            common = (
                position,
                stream,
                info.name,
                info.system,
                env.v,
                env.action,
                env.day,
                env.actor,
                _at(env.at),
                False,
            )
            for i, fact in enumerate(facts):
                layout = layout_of.layouts.get(type(fact)) or layout_of.by_table.get(fact.table)
                if layout is None:
                    continue
                fid = position * FACTS_PER_EVENT + i
                out[layout.table.name].append(layout.row(common, fact, fid))
                if isinstance(fact, RollFact):
                    for idx, die in enumerate(fact.dice):
                        out["dice"].append(
                            (fid, idx, die.size, die.face, die.kept, die.reroll_of, fact.manual)
                        )
        with tempfile.TemporaryDirectory(prefix="ledger-wh-py-") as tmp:
            for name, table_rows in out.items():
                if not table_rows:
                    continue
                path = Path(tmp) / f"{name}.jsonl"
                path.write_bytes(_ENCODER.encode_lines(table_rows))
                table = layout_of.by_name[name]
                cast = ", ".join(f"CAST(j[{i}] AS {t})" for i, (_, t) in enumerate(table.columns, start=1))
                con.execute(
                    f"INSERT INTO \"{name}\" SELECT {cast} FROM read_json('{_sql_str(path)}', "
                    "format = 'newline_delimited', records = false, columns = {'j': 'VARCHAR[]'})"
                )

    def _mark_physical(self, con: duckdb.DuckDBPyConnection, first: int) -> None:
        """Mark physical every roll, and its dice, of an action played with ``--faces``: the
        action's decision says so (``Envelope.decision.manual``) for all its events, in any
        system, whether or not the event itself carries a ``manual`` mark. Events recorded
        before decisions were kept have none, and read as their own mark says."""
        found = con.execute(
            "SELECT EXISTS (SELECT 1 FROM rolls WHERE position >= $first AND NOT manual) "
            "AND EXISTS (SELECT 1 FROM events WHERE physical AND (stream, action) IN "
            "(SELECT stream, action FROM batch))",
            {"first": first},
        ).fetchone()
        if not found or not found[0]:
            return  # no roll in the page, every one physical already, or no action played with --faces
        con.execute(
            "UPDATE rolls SET manual = true WHERE position >= ? AND NOT manual AND (stream, action) IN "
            "(SELECT stream, action FROM events WHERE physical "
            "AND (stream, action) IN (SELECT stream, action FROM batch))",
            [first],
        )
        con.execute(
            "UPDATE dice SET manual = true WHERE NOT manual AND roll_id IN "
            "(SELECT roll_id FROM rolls WHERE position >= ? AND manual)",
            [first],
        )

    def _flag_undone(self, con: duckdb.DuckDBPyConnection) -> None:
        """Recompute the ``undone`` flags of every branch an undo or redo in this page touched."""
        touched = con.execute(
            "SELECT stream, max(version) FROM batch GROUP BY stream "
            "HAVING bool_or(kind IN ('action.undone', 'action.redone')) ORDER BY stream"
        ).fetchall()
        if not touched:
            return
        by_id = {c.id: c for c in self.ledger.campaigns()}
        segments = []
        for stream, head in touched:
            campaign = by_id.get(stream)
            if campaign is None:
                continue
            for lo, hi in self.ledger.segments(campaign, head):
                segments.append((stream, lo, hi, head))
        if not segments:
            return
        con.execute(
            "CREATE OR REPLACE TEMP TABLE live (stream VARCHAR, lo INTEGER, hi INTEGER, head INTEGER)"
        )
        con.executemany("INSERT INTO live VALUES (?, ?, ?, ?)", segments)
        systems = frozenset(self._streams[stream].system for stream, _ in touched if stream in self._streams)
        for name in layout_for(systems).event_tables:  # the shared tables and these systems' own
            resets = " AND t.kind NOT IN ('action.undone', 'action.redone')" if name == "events" else ""
            con.execute(
                f'UPDATE "{name}" AS t SET undone = NOT EXISTS (SELECT 1 FROM live l WHERE l.stream = t.stream '
                f"AND t.version > l.lo AND t.version <= l.hi) "
                f"WHERE t.stream IN (SELECT stream FROM live) "
                f"AND t.version <= (SELECT max(head) FROM live l WHERE l.stream = t.stream){resets}"
            )
        con.execute("DROP TABLE live")

    # --- rebuilding and reporting -------------------------------------------------------

    def rebuild(self, progress: Callable[[int], None] | None = None, batch: int = BATCH) -> int:
        """Build the warehouse from scratch in a folder of its own beside the old one, then swap
        it in (only over a warehouse of this ledger: :func:`check_warehouse_path`)."""
        self._check_replaceable()
        parent = self.path.parent if str(self.path.parent) else Path(".")
        if not parent.is_dir():
            raise WarehouseError(
                f"folder {parent} does not exist; create it or choose another `warehouse`", field="warehouse"
            )
        prefix = f".{self.path.name}{REBUILD_MARK}"
        _sweep(str(parent), prefix)
        folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))
        try:
            fresh = folder / "warehouse.duckdb"
            self._streams = {}
            con = self._connect(fresh)
            try:
                applied = self._catch_up(con, progress, batch)
                con.execute("CHECKPOINT")
            finally:
                con.close()
            self._check_replaceable()
            if self.path.exists():
                self.path.with_name(self.path.name + ".wal").unlink(missing_ok=True)
            os.replace(fresh, self.path)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return applied

    def _check_replaceable(self) -> None:
        """Refuse to replace anything but a warehouse of this ledger (or an empty DuckDB file)."""
        import duckdb

        check_warehouse_path(self.ledger, self.path)
        if not self.path.exists():
            return
        try:
            con = duckdb.connect(str(self.path), read_only=True, config=duckdb_config())
        except duckdb.Error as e:
            raise self._cannot_open(self.path, e) from e
        try:
            self._meta(con)
        finally:
            con.close()

    def status(self) -> dict[str, Any]:
        """Where the warehouse is, how far it has applied the log, and its row counts."""
        check_warehouse_path(self.ledger, self.path)
        exists = self.path.exists()
        top = self.ledger.store.max_notification_id()
        data: dict[str, Any] = {
            "path": str(self.path),
            "exists": exists,
            "store": self.ledger.store.describe(),
            "store_position": top,
            "position": 0,
            "behind": top,
            "tables": {},
        }
        if not exists:
            return data
        try:
            con = self._connect()
        except SchemaChanged:
            data["outdated"] = True
            return data
        try:
            # A system's own layout, which a catch-up finds only when it applies its events.
            if any(self._marker.get(f"system {n}") != own for n, own in schema().systems.items()):
                data["outdated"] = True
                return data
            pos = self.position(con)
            data["position"] = pos
            data["behind"] = max(0, top - pos)
            for table in tables():
                data["tables"][table.name] = con.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]
        finally:
            con.close()
        return data


REBUILD_MARK = ".rebuild-"
"""A rebuild fills ``.<warehouse name>.rebuild-<pid>-<random>/`` beside the warehouse."""

SCRATCH_PREFIX = "ledger-wh-"
"""Scratch folders are named ``ledger-wh-<pid>-<random>``: a catch-up that was killed
leaves its folder, which the next catch-up removes once that process is gone."""


def _sweep(scratch: str | None, prefix: str = SCRATCH_PREFIX) -> None:
    """Remove the scratch folders of catch-ups (or rebuilds) whose process no longer runs (a
    process killed mid-page cannot remove its own; on shared memory they would hold RAM)."""
    if os.name != "posix":  # os.kill(pid, 0) only asks on POSIX
        return
    root = Path(scratch or tempfile.gettempdir())
    for folder in root.glob(f"{glob.escape(prefix)}*-*"):
        pid = folder.name[len(prefix) :].split("-", 1)[0]
        if not folder.is_dir() or not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:  # alive, another user's
            continue


def _scratch() -> str | None:
    """Where pages wait for DuckDB: the folder ``LEDGER_SCRATCH`` names, else shared memory
    when the machine has it (the pages are read once and dropped, so they need never reach
    a disk), else the temporary folder."""
    chosen = os.environ.get("LEDGER_SCRATCH")
    if chosen:
        return chosen
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def open_warehouse(ledger: Ledger, path: str | None = None, *, catch_up: bool = True) -> Warehouse:
    """The ledger's warehouse, caught up with the log."""
    wh = Warehouse(ledger, path)
    if catch_up:
        wh.catch_up()
    return wh


EXPORT_MARK = "ledger-export.json"
"""The file ``ledger export parquet`` leaves in its folder: which ledger it is from and which
table folders it wrote (a later export into the same folder replaces exactly those)."""


_TABLE_NAME = re.compile(r"[a-z][a-z0-9_]*")


def _export_target(out: Path, ledger_id: str) -> list[str]:
    """The table folders an earlier export of this ledger left in ``out`` (which this export
    replaces); refuses a file, another ledger's export, and a folder that holds anything
    else, which is never touched."""
    if out.exists() and not out.is_dir():
        raise WarehouseError(f"{out} is a file; give a folder for the Parquet tables")
    if not out.exists():
        return []
    mark = out / EXPORT_MARK
    if mark.is_file():
        try:
            earlier = msgspec.json.decode(mark.read_bytes())
            tables = [str(t) for t in earlier["tables"]]
            other = earlier["ledger"] != ledger_id
        except (OSError, msgspec.DecodeError, KeyError, TypeError) as e:
            raise WarehouseError(
                f"{mark} cannot be read ({_first_line(e)}); the folder was left as it is: choose another folder",
            ) from e
        if other:
            raise WarehouseError(
                f"{out} holds another ledger's Parquet export; it was left as it is: choose another folder",
            )
        for t in tables:
            if _TABLE_NAME.fullmatch(t) and (out / t).is_symlink():
                raise WarehouseError(
                    f"{out / t} is a symlink, not a table folder an export wrote; the folder was left as it "
                    "is: remove the symlink, or choose another folder",
                )
        return [t for t in tables if _TABLE_NAME.fullmatch(t) and (out / t).is_dir()]
    if any(p for p in out.iterdir() if not p.name.startswith(f".{EXPORT_MARK}-")):
        raise WarehouseError(
            f"{out} is not empty and holds no Parquet export of this ledger; it was left as it is: "
            "give a new or empty folder",
        )
    return []


def export_parquet(ledger: Ledger, directory: str, *, warehouse: str | None = None) -> list[str]:
    """Write every warehouse table as Parquet under ``directory/<table>/system=<s>/``.

    The folder must be new, empty, or an earlier export of this ledger (its
    :data:`EXPORT_MARK` names the table folders it holds, and exactly those are
    replaced); anything else in it is refused untouched. The tables are written
    into a scratch folder inside it first, then moved into place.

    Read it back with ``read_parquet('DIR/rolls/**/*.parquet', hive_partitioning=true)``."""
    wh = open_warehouse(ledger, warehouse)
    out = Path(directory)
    try:
        return _export_parquet(wh, ledger, out)
    except OSError as e:
        raise WarehouseStorageError(
            f"cannot write the Parquet export in {out}: {e.strerror or e}; free some space, or choose another folder"
        ) from e


def _export_parquet(wh: Warehouse, ledger: Ledger, out: Path) -> list[str]:
    ledger_id = wh._ledger_id()
    earlier = _export_target(out, ledger_id)
    out.mkdir(parents=True, exist_ok=True)
    _sweep(str(out), f".{EXPORT_MARK}-")
    stage = Path(tempfile.mkdtemp(prefix=f".{EXPORT_MARK}-{os.getpid()}-", dir=out))
    written: list[str] = []
    try:
        con = wh._connect()
        try:
            for table in tables():
                count = con.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]
                if not count:
                    continue
                select = f'SELECT * FROM "{table.name}"'
                if "system" not in table.names:  # dice: the system comes from its roll
                    select = "SELECT d.*, r.system FROM dice d JOIN rolls r USING (roll_id)"
                con.execute(
                    f"COPY ({select}) TO '{_sql_str(stage / table.name)}' (FORMAT parquet, PARTITION_BY (system))"
                )
                written.append(table.name)
        finally:
            con.close()
        for name in written:
            there = out / name
            if os.path.lexists(there) and (name not in earlier or there.is_symlink()):
                raise WarehouseError(
                    f"{there} was not written by an export of this ledger; the folder was left as it is: "
                    "remove it, or choose another folder",
                )
        (out / EXPORT_MARK).unlink(missing_ok=True)  # from here until the end, no export is whole
        for name in earlier:
            shutil.rmtree(out / name)
        for name in written:
            os.replace(stage / name, out / name)
        mark = {"ledger": ledger_id, "store": ledger.store.describe(), "tables": written}
        (out / EXPORT_MARK).write_bytes(msgspec.json.encode(mark))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return [str(p) for name in written for p in sorted((out / name).rglob("*.parquet"))]


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")


# --- ad-hoc SQL --------------------------------------------------------------------------

DEFAULT_LIMIT = 1000
"""Rows ``ledger query`` prints unless told otherwise (``--limit 0``: every row)."""
PAGE_ROWS = 1000
"""Rows fetched from DuckDB at a time: a result is streamed, never held whole."""
COUNT_LEFT_OUT = 100_000
"""Rows past the limit that are still counted (for at most :data:`COUNT_SECONDS`)."""
COUNT_SECONDS = 0.5
MAX_ELEMENTS = 1_000_000
"""Most elements one value of a result may hold (lists, maps, structs, counted all the way
down): DuckDB's Python binding converts a value in one piece, out of the time limit's
reach, so a bigger one is refused before it is converted."""
_TOO_BIG = "ledger-value-too-big:"
MAX_VALUE_BYTES = 16 * 1024 * 1024
"""Most bytes one value of a result may hold (a text, a blob, or a nested value written out):
more than any event of the ledger (8 MiB), far less than DuckDB lets a string grow, which
its memory limit does not count. A bigger one is refused before it is converted."""
_TOO_LONG = "ledger-value-too-long:"
MAX_RESULT_BYTES = 256 * 1024 * 1024
"""Most bytes the rows of one result may hold, as they stream out."""
PAGE_BYTES = 8 * 1024 * 1024
"""About the most bytes one page of rows holds: a page of wide rows is fetched in fewer rows."""


class QueryLimits(msgspec.Struct, frozen=True):
    """What one untrusted query may use."""

    timeout: float = 20.0
    """Seconds before DuckDB is interrupted (the rows streamed out count too)."""
    memory_mb: int = 512
    threads: int = 2
    temp_mb: int = 1024
    """Largest total size of the files DuckDB may spill to."""

    def __post_init__(self) -> None:
        if not (0 < self.timeout <= 86_400):  # also refuses NaN
            raise WarehouseError(
                f"`timeout` must be between 0 and 86400 seconds, got {self.timeout}", field="timeout"
            )
        for name in ("memory_mb", "threads"):
            if getattr(self, name) < 1:
                raise WarehouseError(f"query {name} must be at least 1, got {getattr(self, name)}")
        if self.temp_mb < 0:
            raise WarehouseError(f"query temp_mb must be 0 or more, got {self.temp_mb}")


class QueryResult(msgspec.Struct, frozen=True):
    columns: list[str]
    types: list[str]
    rows: list[tuple[Any, ...]]
    left_out: int = 0
    """Rows past the limit, counted up to :data:`COUNT_LEFT_OUT` (for :data:`COUNT_SECONDS`)."""
    left_out_exact: bool = True
    """Whether :attr:`left_out` is all of them."""

    def note(self, *, spell: Callable[[str], str] = named) -> str | None:
        """What was left out, in words (None: nothing; ``spell`` as :func:`left_out_note`)."""
        return left_out_note(len(self.rows), self.left_out, self.left_out_exact, spell=spell)


def left_out_note(
    shown: int, left_out: int, exact: bool, *, spell: Callable[[str], str] = named
) -> str | None:
    """``12 more rows were left out`` and the like, or None when every row was shown
    (``spell`` names the input that shows more, ``limit``, in the reader's words)."""
    if exact and not left_out:
        return None
    if exact:
        more = f"{left_out} more row{'s were' if left_out != 1 else ' was'} left out"
    elif left_out:
        more = f"at least {left_out} more row{'s were' if left_out != 1 else ' was'} left out"
    else:
        more = "more rows may have been left out (counting them failed)"
    return f"{shown} row{'s' if shown != 1 else ''} shown; {more}: {spell('limit')} N shows more, {spell('limit')} 0 every row"


class QueryStream:
    """A running query: its columns, then its rows page by page, up to the limit."""

    def __init__(
        self,
        cursor: duckdb.DuckDBPyConnection,
        limit: int,
        guard: _Guard,
        columns: list[str],
        types: list[str],
        wide: bool = True,
    ) -> None:
        self._cursor = cursor
        self._limit = limit
        self._guard = guard
        self.columns = columns
        self.types = types
        self.wide = wide
        """Whether a column holds values of any size (texts, blobs, nested values)."""
        self.left_out = 0
        """Known once :meth:`pages` is exhausted: rows past the limit that were counted."""
        self.left_out_exact = True
        """Whether :attr:`left_out` is every row past the limit (counting stops early)."""

    def pages(self) -> Iterator[list[tuple[Any, ...]]]:
        if not self.columns:
            return
        sent = total = 0
        rows = 1 if self.wide else PAGE_ROWS  # a first row shows how wide they are
        while not self._limit or sent < self._limit:
            want = rows if not self._limit else min(rows, self._limit - sent)
            with self._guard:
                page = self._cursor.fetchmany(want)
            if not page:
                return
            held = sum(_size(v) for row in page for v in row)
            total += held
            if total > MAX_RESULT_BYTES:
                raise WarehouseError(
                    f"the result holds more than {MAX_RESULT_BYTES // (1024 * 1024)} MiB, more than ledger query "
                    f"gives, past its first {sent} rows; narrow it: fewer rows (WHERE, {named('limit')}) or "
                    "fewer or shorter columns"
                )
            # A page of wide rows: fetch fewer at a time, so that one page stays near PAGE_BYTES.
            rows = max(1, min(PAGE_ROWS, PAGE_BYTES * len(page) // max(held, 1)))
            sent += len(page)
            yield page
        self.left_out, self.left_out_exact = self._count_rest()

    def _count_rest(self) -> tuple[int, bool]:
        """The rows past the limit, counted while that stays cheap, and whether that is all."""
        import duckdb

        counted, until = 0, time.monotonic() + COUNT_SECONDS
        try:
            while counted < COUNT_LEFT_OUT and time.monotonic() < until:
                page = self._cursor.fetchmany(PAGE_ROWS * 10)
                if not page:
                    return counted, True
                counted += len(page)
        except duckdb.Error:  # interrupted or failed past the limit: the rows shown stand
            pass
        return counted, False


class _Guard:
    """Turns DuckDB's errors into one-line refusals, and owns the timer that interrupts it."""

    def __init__(self, con: duckdb.DuckDBPyConnection, limits: QueryLimits) -> None:
        self.con = con
        self.limits = limits
        self.fired = False
        self._timer = threading.Timer(limits.timeout, self._interrupt)
        self._timer.daemon = True

    def _interrupt(self) -> None:
        self.fired = True
        self.con.interrupt()

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.cancel()

    def __enter__(self) -> _Guard:
        return self

    def __exit__(self, _t: object, e: BaseException | None, _tb: object) -> None:
        import duckdb

        if not isinstance(e, duckdb.Error):
            return
        if _TOO_BIG in str(e):
            column = str(e).split(_TOO_BIG, 1)[1].split("\n", 1)[0].strip()
            raise WarehouseError(
                f"a value of column {column!r} holds more than {MAX_ELEMENTS:,} elements, more than ledger query "
                "prints; count or slice it in SQL (len(x), x[1:100])"
            ) from e
        if _TOO_LONG in str(e):
            column = str(e).split(_TOO_LONG, 1)[1].split("\n", 1)[0].strip()
            raise WarehouseError(
                f"a value of column {column!r} holds more than {MAX_VALUE_BYTES // (1024 * 1024)} MiB, more than "
                "ledger query gives; take a part of it in SQL (left(x, 1000), strlen(x))"
            ) from e
        if isinstance(e, duckdb.InterruptException) or self.fired:
            raise WarehouseError(
                f"the query ran past its time limit of {self.limits.timeout:g} s and was stopped; "
                "narrow it, or give `timeout` SECONDS",
                field="timeout",
            ) from e
        if isinstance(e, duckdb.OutOfMemoryException):
            raise WarehouseError(
                f"the query needs more memory than ledger query allows ({self.limits.memory_mb} MB, "
                f"spilling at most {self.limits.temp_mb} MB to disk): {_first_line(e)}; narrow it"
            ) from e
        if isinstance(e, duckdb.PermissionException) or _names_a_file(e):
            raise WarehouseError(
                "ledger query cannot read files or reach the network (external access is off); "
                "query the warehouse tables, e.g. SELECT * FROM rolls"
            ) from e
        raise WarehouseError(f"query failed: {_first_line(e)}") from e


def _names_a_file(e: Exception) -> bool:
    """A table DuckDB could not find whose name is a file path: with external access off DuckDB
    does not look for the file (``SELECT * FROM '/etc/passwd'``)."""
    import duckdb

    if not isinstance(e, duckdb.CatalogException):
        return False
    first = _first_line(e)
    marker = "Table with name "
    if marker not in first:
        return False
    name = first.split(marker, 1)[1].rsplit(" does not exist", 1)[0]
    return "/" in name or "\\" in name or "." in name.lstrip(".")


def check_query_text(sql: str, limit: int) -> str:
    """The checks of :func:`check_query` that need no parser: the limit, and a query at all."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise WarehouseError(
            f"`limit` must be a whole number of rows, 0 for every row; got {limit!r}", field="limit"
        )
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise WarehouseError('the query is empty; give a SELECT, e.g. "SELECT count(*) FROM rolls"')
    return text


def check_query(sql: str, limit: int = DEFAULT_LIMIT, con: duckdb.DuckDBPyConnection | None = None) -> str:
    """The one SELECT statement of ``sql``; anything else is refused before it runs, as is a
    ``limit`` that is not a number of rows. Parsed by ``con`` when given: without one DuckDB
    parses on its default connection, a database of its own that costs as much to start as
    opening the warehouse (20-40 ms)."""
    import duckdb

    text = check_query_text(sql, limit)
    try:
        statements = (con if con is not None else duckdb).extract_statements(text)
    except duckdb.Error as e:
        raise WarehouseError(f"the query cannot be parsed: {_first_line(e)}") from e
    if len(statements) != 1:
        raise WarehouseError(f"give one statement, not {len(statements)}; run them one at a time")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        name = str(kind).rsplit(".", 1)[-1]
        raise WarehouseError(f"ledger query is read-only: {name} statements are refused; use SELECT")
    return text


def _elements(expr: str, kind: Any, depth: int = 1) -> str | None:
    """SQL counting the elements of a nested value of type ``kind``, all the way down (None:
    the type is not nested, its values are small)."""
    name = kind.id
    if name in ("list", "array"):
        x = f"x{depth}"
        inner = _elements(x, kind.children[0][1], depth + 1)
        count = f"coalesce(len({expr}), 0)"
        if inner is None:
            return count
        return f"{count} + coalesce(list_sum(list_transform({expr}, lambda {x}: {inner})), 0)"
    if name == "map":
        parts = [f"coalesce(cardinality({expr}), 0)"]
        for fn, (_, child) in zip(("map_keys", "map_values"), kind.children, strict=True):
            inner = _elements(f"{fn}({expr})", duckdb_list_of(child), depth)
            if inner is not None:
                parts.append(inner)
        return " + ".join(parts)
    if name in ("struct", "union"):
        fn = "struct_extract" if name == "struct" else "union_extract"
        parts = []
        for field, child in kind.children:
            if not field:  # a union's tag
                continue
            inner = _elements(f"{fn}({expr}, {_literal(field)})", child, depth)
            if inner is not None:
                parts.append(f"coalesce({inner}, 0)")
        return " + ".join(parts) or None
    return None


def _bytes(expr: str, kind: Any) -> str | None:
    """SQL for how many bytes a value of type ``kind`` holds, when that can be large: a text,
    a blob, a bit string, or a nested value (written out as text, after its elements were
    counted); None for the fixed-size types."""
    name = kind.id
    if name == "varchar":
        return f"strlen({expr})"
    if name in ("blob", "bit"):
        return f"octet_length({expr})"
    if name in ("list", "array", "map", "struct", "union"):
        return f"strlen(CAST({expr} AS VARCHAR))"
    return None


def _size(value: Any) -> int:
    """About how many bytes a fetched value holds (its text's, for the strings in it)."""
    if isinstance(value, str | bytes | bytearray):
        return len(value) + 8
    if isinstance(value, list | tuple):
        return sum(map(_size, value)) + 8
    if isinstance(value, dict):
        return sum(_size(k) + _size(v) for k, v in value.items()) + 8
    return 8


def duckdb_list_of(kind: Any) -> Any:
    import duckdb

    return duckdb.list_type(kind)


def _bounded(text: str, columns: Sequence[str], types: Sequence[Any]) -> str:
    """``text`` as it runs: unchanged when no column is nested, else wrapped so that a value
    holding more than :data:`MAX_ELEMENTS` elements stops the query (columns renamed by
    position, so that duplicate names stay apart; the output keeps the original names)."""
    names = [f"c{i}" for i in range(1, len(types) + 1)]
    select, guarded = [], False
    for name, original, kind in zip(names, columns, types, strict=True):
        count = _elements(f'"{name}"', kind)
        size = _bytes(f'"{name}"', kind)
        if count is None and size is None:
            select.append(f'"{name}"')
            continue
        guarded = True
        whens = []
        if count is not None:
            whens.append(f"WHEN ({count}) > {MAX_ELEMENTS} THEN error({_literal(f'{_TOO_BIG} {original}')})")
        if size is not None:
            whens.append(
                f"WHEN ({size}) > {MAX_VALUE_BYTES} THEN error({_literal(f'{_TOO_LONG} {original}')})"
            )
        select.append(f'CASE {" ".join(whens)} ELSE "{name}" END AS "{name}"')
    if not guarded:
        return text
    aliases = ", ".join(f'"{n}"' for n in names)
    return f"SELECT {', '.join(select)} FROM (\n{text}\n) AS q({aliases})"


@contextlib.contextmanager
def open_query(
    wh: Warehouse, sql: str, *, limit: int = DEFAULT_LIMIT, limits: QueryLimits | None = None
) -> Iterator[QueryStream]:
    """Run one read-only SELECT over the warehouse and stream its rows (``limit`` 0: all of them).

    Anything but a single SELECT is refused before it runs. The connection is read-only
    with external access, extensions and Python objects off; its memory, threads and
    spill files are bounded and its settings locked; a timer interrupts DuckDB once the
    time limit has passed, while the query runs or while its rows stream out."""
    check_query_text(sql, limit)  # the limit and an empty query, before opening anything
    limits = limits or QueryLimits()
    con = wh.connect_read_only(limits)
    try:
        text = check_query(sql, limit, con)  # parsed on the connection that will run it
    except BaseException:
        con.close()
        raise
    guard = _Guard(con, limits)
    try:
        guard.start()
        with guard:
            relation = con.sql(text)  # bound, not run: its columns and their types
            columns, types = list(relation.columns), list(relation.types)
            cursor = con.execute(_bounded(text, columns, types))
        wide = any(_bytes("x", t) is not None for t in types)
        yield QueryStream(cursor, limit, guard, columns, [str(t) for t in types], wide)
    finally:
        guard.stop()
        con.close()


def run_query(
    wh: Warehouse, sql: str, *, limit: int = DEFAULT_LIMIT, limits: QueryLimits | None = None
) -> QueryResult:
    """:func:`open_query`, with the rows up to ``limit`` in a list."""
    with open_query(wh, sql, limit=limit, limits=limits) as q:
        rows = [row for page in q.pages() for row in page]
        return QueryResult(q.columns, q.types, rows, q.left_out, q.left_out_exact)
