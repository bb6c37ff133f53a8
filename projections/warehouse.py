"""The statistics warehouse: a DuckDB database derived from the event log.

The warehouse holds typed tables an analyst can read without knowing the
event classes: ``campaigns`` (branches included), ``events``, ``actions`` (a
view), ``characters``, ``rolls``, ``dice`` and one table per kind of fact
(``meals``, ``nights``, ``days``, ``wounds``, ``pushes``, ``conditions``,
``rot``, ``deaths``). Rows come from the core events (a ``ledger roll`` is a
roll with purpose ``roll``) and from each system's ``extra["facts"]`` hook.

It catches up from the store's notification order: each batch of events is
written together with the last notification id it applied, in one DuckDB
transaction, so every event lands exactly once however often or however
abruptly catch-up runs. An undo or redo recomputes the ``undone`` flag of its
branch. ``rebuild`` builds a fresh warehouse beside the old one and swaps it in.

A fact belongs to the branch that recorded it: a fork's rows start after its
fork point, and the shared history is counted once, in the parent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.errors import LedgerError
from ledger.events import (
    CORE_EVENTS,
    RESETS,
    CampaignRegistered,
    CharacterAdded,
    Envelope,
    Rolled,
    envelope_decoder,
)
from ledger.facts import FACT_TYPES, DieFace, Fact, RollFact

if TYPE_CHECKING:
    import duckdb

    from ledger.campaign import Ledger

DEFAULT_PG_WAREHOUSE = "ledger-warehouse.duckdb"
BATCH = 100_000
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

_PY_TO_SQL = {str: "VARCHAR", int: "BIGINT", float: "DOUBLE", bool: "BOOLEAN"}


class WarehouseError(LedgerError):
    """The warehouse cannot be opened, written or queried."""


class SchemaChanged(WarehouseError):
    """The warehouse was written with another table layout (it is rebuilt, never migrated)."""


# --- table layout ------------------------------------------------------------


@dataclass(frozen=True)
class Table:
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
    ),
    "One row per campaign or branch (a fork names its parent and fork version).",
)
EVENTS = Table("events", (*COMMON, ("kind", "VARCHAR")), "One row per stored event.")
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
FACT_TABLES: tuple[Table, ...] = tuple(_fact_table(cls) for cls in FACT_TYPES)
TABLES: tuple[Table, ...] = (CAMPAIGNS, EVENTS, CHARACTERS, *FACT_TABLES[:1], DICE, *FACT_TABLES[1:])
BY_NAME = {t.name: t for t in TABLES}
EVENT_TABLES = [t.name for t in TABLES if "undone" in t.names]
"""Tables whose rows an undo can flag."""

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


SCHEMA = hashlib.sha256("\n".join([*(t.ddl() for t in TABLES), ACTIONS_VIEW]).encode()).hexdigest()[:16]
"""Fingerprint of the table layout: a warehouse written with another is rebuilt."""


# --- where the warehouse lives ------------------------------------------------------


def warehouse_path(ledger: Ledger, explicit: str | None = None) -> Path:
    """``--warehouse``, else ``LEDGER_WAREHOUSE``, else ``<ledger file>.duckdb``
    for SQLite or ``./ledger-warehouse.duckdb`` for PostgreSQL."""
    chosen = explicit or os.environ.get("LEDGER_WAREHOUSE")
    if chosen:
        return Path(chosen)
    if ledger.store.kind == "sqlite":
        return Path(ledger.store.target + ".duckdb")
    return Path(DEFAULT_PG_WAREHOUSE)


# --- turning envelopes into rows ------------------------------------------------------


def rolled_fact(ev: Rolled) -> RollFact:
    """A core ``ledger roll`` as a roll with purpose ``roll``.

    Success-counting notation (``8d6>=5``) is a success when at least one die
    succeeds; its exact probability is recorded when no die is kept, dropped
    or exploded. Other rolls are successless: their outcome is the total."""
    result = ev.result
    dice: list[DieFace] = []
    for group in result.groups:
        start = len(dice)
        for d in group.dice:
            reroll = None if d.explodes is None else start + d.explodes
            dice.append(DieFace(size=d.sides, face=d.face, kept=d.kept, reroll_of=reroll))
    if result.successes is None:
        return RollFact(
            purpose="roll",
            dice=tuple(dice),
            outcome=str(result.total),
            manual=ev.manual,
            p_success=ev.p_success,
        )
    success = result.successes > 0
    p = ev.p_success if ev.p_success is not None else _p_any_success(ev)
    return RollFact(
        purpose="roll",
        dice=tuple(dice),
        outcome="success" if success else "failure",
        successes=result.successes,
        success=success,
        manual=ev.manual,
        p_success=p,
    )


_P_CACHE: dict[str, float | None] = {}


def _p_any_success(ev: Rolled) -> float | None:
    key = ev.result.notation
    if key not in _P_CACHE:
        _P_CACHE[key] = _p_from_groups(ev)
    return _P_CACHE[key]


def _p_from_groups(ev: Rolled) -> float | None:
    p_none = 1.0
    for g in ev.result.groups:
        if g.keep or g.explode or g.sign < 0:
            return None
        if not g.success:
            continue
        op = g.success.rstrip("0123456789")
        target = int(g.success[len(op) :])
        hits = sum(1 for f in range(1, g.sides + 1) if _meets(f, op, target))
        p_none *= (1 - hits / g.sides) ** g.count
    return 1 - p_none


def _meets(value: int, op: str, target: int) -> bool:
    return {
        ">=": value >= target,
        "<=": value <= target,
        ">": value > target,
        "<": value < target,
        "=": value == target,
    }[op]


@dataclass
class StreamInfo:
    name: str
    system: str
    facts: Callable[[Envelope[Any]], list[Fact]] | None
    decode: Callable[[bytes], Envelope[Any]]


def _stream_info(name: str, system: str) -> StreamInfo:
    from ledger.systems import system_names

    hook = None
    if system in system_names():
        from ledger.systems import get_system

        hook = get_system(system).extra.get("facts")
    return StreamInfo(name, system, hook, envelope_decoder(system).decode)


_CORE_TYPES = frozenset(CORE_EVENTS)
_ENCODER = msgspec.json.Encoder()


@dataclass
class Batch:
    """Rows of one catch-up batch, table by table, and the branches to re-flag."""

    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=lambda: {t.name: [] for t in TABLES})
    heads: dict[str, int] = field(default_factory=dict)
    reset_streams: set[str] = field(default_factory=set)
    last: int = 0
    count: int = 0


def _at(text: str) -> str:
    return text[:-1] if text.endswith("Z") else text


@dataclass(frozen=True)
class Layout:
    """How one kind of fact becomes a row of its table."""

    table: Table
    keep: tuple[int, ...] | None
    """Indices of the common columns kept (None: all of them)."""
    fields: tuple[str, ...]
    dice_at: int | None

    def row(self, common: tuple[Any, ...], fact: Fact, fact_id: int) -> tuple[Any, ...]:
        head = common if self.keep is None else tuple(common[i] for i in self.keep)
        if type(fact) in LAYOUTS:
            values = msgspec.structs.astuple(fact)
        else:  # a subclass: read the base fields by name
            values = tuple(getattr(fact, f) for f in self.fields)
        if self.dice_at is None:
            return (*head, fact_id, *values)
        dice = values[self.dice_at]
        return (*head, fact_id, len(dice), *values[: self.dice_at], *values[self.dice_at + 1 :])


def _layout(cls: type[Fact]) -> Layout:
    table = BY_NAME[cls.table]
    own = set(cls.__struct_fields__)
    keep = tuple(i for i, (name, _) in enumerate(COMMON) if name not in own)
    fields = tuple(cls.__struct_fields__)
    dice_at = fields.index("dice") if "dice" in fields else None
    return Layout(table, None if len(keep) == len(COMMON) else keep, fields, dice_at)


LAYOUTS: dict[type[Fact], Layout] = {cls: _layout(cls) for cls in FACT_TYPES}
_BY_TABLE: dict[str, Layout] = {layout.table.name: layout for layout in LAYOUTS.values()}


class Warehouse:
    """The DuckDB warehouse of one ledger."""

    def __init__(self, ledger: Ledger, path: str | Path | None = None) -> None:
        self.ledger = ledger
        self.path = Path(path) if path is not None else warehouse_path(ledger)
        self._streams: dict[str, StreamInfo] = {}

    # --- connections ------------------------------------------------------------------

    def _connect(self, path: Path | None = None) -> duckdb.DuckDBPyConnection:
        import duckdb

        target = path or self.path
        if target.parent and not target.parent.exists():
            raise WarehouseError(
                f"folder {target.parent} does not exist; create it or choose another --warehouse"
            )
        try:
            con = duckdb.connect(str(target))
        except duckdb.Error as e:
            if "lock" in str(e).lower():
                raise WarehouseError(f"warehouse {target} is in use by another process; try again") from e
            if not isinstance(e, duckdb.IOException) or "not a valid" not in str(e):
                raise WarehouseError(f"cannot open warehouse {target}: {_first_line(e)}") from e
            raise WarehouseError(
                f"warehouse {target} is not a DuckDB database ({_first_line(e)}); "
                "run `ledger warehouse rebuild` or choose another --warehouse"
            ) from e
        self._ensure_schema(con)
        return con

    def _ensure_schema(self, con: duckdb.DuckDBPyConnection) -> None:
        con.execute("CREATE TABLE IF NOT EXISTS warehouse_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
        meta = dict(con.execute("SELECT key, value FROM warehouse_meta").fetchall())
        if meta:
            if meta.get("ledger") != self._ledger_id():
                raise WarehouseError(
                    f"warehouse {self.path} was built from another ledger ({meta.get('store')}); "
                    "choose another --warehouse or run `ledger warehouse rebuild`"
                )
            if meta.get("schema") != SCHEMA:
                raise SchemaChanged(f"warehouse {self.path} has an older layout; it is rebuilt on catch-up")
            return
        for table in TABLES:
            con.execute(table.ddl())
        con.execute(ACTIONS_VIEW)
        con.execute(
            "INSERT INTO warehouse_meta VALUES ('schema', ?), ('position', '0'), ('store', ?), ('ledger', ?)",
            [SCHEMA, self.ledger.store.describe(), self._ledger_id()],
        )

    def _ledger_id(self) -> str:
        """The hash of the ledger's first registry event: different for every ledger."""
        first = self.ledger.store.read(REGISTRY, lte=1)
        return bytes(first[0].state)[-66:-2].decode() if first else ""

    def connect_read_only(self) -> duckdb.DuckDBPyConnection:
        """A connection for untrusted SQL: read-only, no files, no network, locked settings."""
        import duckdb

        if not self.path.exists():
            raise WarehouseError(f"no warehouse at {self.path}; run `ledger warehouse rebuild`")
        config = {
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "allow_community_extensions": False,
        }
        try:
            con = duckdb.connect(str(self.path), read_only=True, config=config)
        except duckdb.Error as e:
            raise WarehouseError(f"cannot open warehouse {self.path}: {_first_line(e)}") from e
        con.execute("SET lock_configuration = true")
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

    def catch_up(self, progress: Callable[[int], None] | None = None, batch: int = BATCH) -> int:
        """Apply every event recorded since the last catch-up; returns how many."""
        try:
            con = self._connect()
        except SchemaChanged:
            return self.rebuild(progress, batch)
        try:
            return self._catch_up(con, progress, batch)
        finally:
            con.close()

    def _catch_up(
        self, con: duckdb.DuckDBPyConnection, progress: Callable[[int], None] | None, size: int
    ) -> int:
        self._load_streams(con)
        pos = self.position(con)
        top = self.ledger.store.max_notification_id()
        applied = 0
        with tempfile.TemporaryDirectory(prefix="ledger-wh-") as tmp:
            while pos < top:
                notes = self.ledger.store.notifications(pos + 1, size)
                if not notes:
                    break
                b = self._rows(notes)
                self._write(con, b, Path(tmp))
                applied += b.count
                pos = b.last
                if progress is not None:
                    progress(b.count)
        return applied

    def _load_streams(self, con: duckdb.DuckDBPyConnection) -> None:
        for stream, name, system in con.execute("SELECT stream, campaign, system FROM campaigns").fetchall():
            if stream not in self._streams:
                self._streams[stream] = _stream_info(name, system)

    def _rows(self, notes: Sequence[Any]) -> Batch:
        b = Batch()
        registry = envelope_decoder(None).decode
        for n in notes:
            b.last = n.id
            b.count += 1
            stream = str(n.originator_id)
            if stream == REGISTRY:
                self._registered(b, n.id, registry(n.state))
                continue
            info = self._streams.get(stream)
            if info is None:
                continue  # a stream the registry does not name: not a campaign
            try:
                env = info.decode(n.state)
            except msgspec.DecodeError as e:
                raise WarehouseError(
                    f"event {n.id} of campaign {info.name!r} cannot be read ({e}); "
                    f"run `ledger verify -c {info.name}`"
                ) from e
            self._event_rows(b, n.id, stream, info, env)
        return b

    def _registered(self, b: Batch, position: int, env: Envelope[Any]) -> None:
        ev = env.event
        if not isinstance(ev, CampaignRegistered):
            return
        parent = self._streams.get(ev.parent_id) if ev.parent_id else None
        b.rows["campaigns"].append(
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
            )
        )
        self._streams[ev.campaign_id] = _stream_info(ev.name, ev.system)

    def _event_rows(self, b: Batch, position: int, stream: str, info: StreamInfo, env: Envelope[Any]) -> None:
        ev = env.event
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
        rows = b.rows
        rows["events"].append((*common, ev.kind))
        b.heads[stream] = env.v
        if isinstance(ev, RESETS):
            b.reset_streams.add(stream)
            return
        facts: list[Fact]
        if isinstance(ev, Rolled):
            facts = [rolled_fact(ev)]
        elif isinstance(ev, CharacterAdded):
            rows["characters"].append((*common, ev.name, msgspec.json.encode(ev.attrs).decode()))
            return
        elif type(ev) in _CORE_TYPES or info.facts is None:
            return
        else:
            try:
                facts = info.facts(env)
            except Exception as e:
                raise WarehouseError(
                    f"the {info.system} system cannot turn event {env.v} ({ev.kind}) of {info.name!r} "
                    f"into statistics ({type(e).__name__}: {e}); report it, the log itself is intact"
                ) from e
        for i, fact in enumerate(facts):
            layout = LAYOUTS.get(type(fact)) or _BY_TABLE.get(fact.table)
            if layout is None:
                continue
            fid = position * FACTS_PER_EVENT + i
            rows[layout.table.name].append(layout.row(common, fact, fid))
            if isinstance(fact, RollFact):
                dice = rows["dice"]
                manual = fact.manual
                for idx, die in enumerate(fact.dice):
                    dice.append((fid, idx, die.size, die.face, die.kept, die.reroll_of, manual))

    def _write(self, con: duckdb.DuckDBPyConnection, b: Batch, tmp: Path) -> None:
        """Insert a batch's rows and record its position, in one transaction.

        Rows travel as JSON arrays (msgspec writes them far faster than any
        per-row insert) and DuckDB casts each element to its column's type."""
        files: dict[str, Path] = {}
        for name, rows in b.rows.items():
            if rows:
                path = tmp / f"{name}.jsonl"
                path.write_bytes(_ENCODER.encode_lines(rows))
                files[name] = path
        segments = self._segments(b)
        con.execute("BEGIN TRANSACTION")
        try:
            for name, path in files.items():
                table = BY_NAME[name]
                cast = ", ".join(f"CAST(j[{i}] AS {t})" for i, (_, t) in enumerate(table.columns, start=1))
                con.execute(
                    f"INSERT INTO \"{name}\" SELECT {cast} FROM read_json(?, format = 'newline_delimited', "
                    "records = false, columns = {'j': 'VARCHAR[]'})",
                    [str(path)],
                )
            if segments:
                self._flag_undone(con, segments)
            con.execute("UPDATE warehouse_meta SET value = ? WHERE key = 'position'", [str(b.last)])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _segments(self, b: Batch) -> list[tuple[str, int, int, int]]:
        """(stream, after, upto, head) of every live range of the branches an undo or redo touched."""
        if not b.reset_streams:
            return []
        by_id = {c.id: c for c in self.ledger.campaigns()}
        out = []
        for stream in sorted(b.reset_streams):
            campaign = by_id.get(stream)
            if campaign is None:
                continue
            head = b.heads[stream]
            for lo, hi in self.ledger.segments(campaign, head):
                out.append((stream, lo, hi, head))
        return out

    def _flag_undone(self, con: duckdb.DuckDBPyConnection, segments: list[tuple[str, int, int, int]]) -> None:
        con.execute(
            "CREATE OR REPLACE TEMP TABLE live (stream VARCHAR, lo INTEGER, hi INTEGER, head INTEGER)"
        )
        cols = list(zip(*segments, strict=True))
        con.execute(
            "INSERT INTO live SELECT unnest(?), unnest(?), unnest(?), unnest(?)", [list(c) for c in cols]
        )
        for name in EVENT_TABLES:
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
        """Build the warehouse from scratch beside the old one, then swap it in."""
        fresh = self.path.with_name(self.path.name + ".rebuild")
        for leftover in (fresh, fresh.with_name(fresh.name + ".wal")):
            leftover.unlink(missing_ok=True)
        self._streams = {}
        con = self._connect(fresh)
        try:
            applied = self._catch_up(con, progress, batch)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        self.path.with_name(self.path.name + ".wal").unlink(missing_ok=True)
        os.replace(fresh, self.path)
        return applied

    def status(self) -> dict[str, Any]:
        """Where the warehouse is, how far it has applied the log, and its row counts."""
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
            pos = self.position(con)
            data["position"] = pos
            data["behind"] = max(0, top - pos)
            for table in TABLES:
                data["tables"][table.name] = con.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]
        finally:
            con.close()
        return data


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def open_warehouse(ledger: Ledger, path: str | None = None, *, catch_up: bool = True) -> Warehouse:
    """The ledger's warehouse, caught up with the log."""
    wh = Warehouse(ledger, path)
    if catch_up:
        wh.catch_up()
    return wh


def export_parquet(ledger: Ledger, directory: str, *, warehouse: str | None = None) -> list[str]:
    """Write every warehouse table as Parquet under ``directory/<table>/system=<s>/``.

    Read it back with ``read_parquet('DIR/rolls/**/*.parquet', hive_partitioning=true)``."""
    wh = open_warehouse(ledger, warehouse)
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise WarehouseError(f"{out} is a file; give a folder for the Parquet tables")
    out.mkdir(parents=True, exist_ok=True)
    con = wh._connect()
    written: list[str] = []
    try:
        for table in TABLES:
            dest = out / table.name
            if dest.exists():
                shutil.rmtree(dest)
            count = con.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]
            if not count:
                continue
            select = f'SELECT * FROM "{table.name}"'
            if "system" not in table.names:  # dice: the system comes from its roll
                select = "SELECT d.*, r.system FROM dice d JOIN rolls r USING (roll_id)"
            con.execute(
                f"COPY ({select}) TO '{_sql_str(dest)}' "
                "(FORMAT parquet, PARTITION_BY (system), OVERWRITE_OR_IGNORE)"
            )
            written.extend(sorted(str(p) for p in dest.rglob("*.parquet")))
    finally:
        con.close()
    return written


def _sql_str(path: Path) -> str:
    return str(path).replace("'", "''")


# --- ad-hoc SQL --------------------------------------------------------------------------


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    types: list[str]
    rows: list[tuple[Any, ...]]


def run_query(wh: Warehouse, sql: str, *, max_rows: int | None = None) -> QueryResult:
    """Run one read-only SELECT over the warehouse.

    Anything but a single SELECT is refused before it runs; the connection is
    read-only with external access off, so files and the network are out of reach."""
    import duckdb

    text = sql.strip().rstrip(";").strip()
    if not text:
        raise WarehouseError('the query is empty; give a SELECT, e.g. "SELECT count(*) FROM rolls"')
    try:
        statements = duckdb.extract_statements(text)
    except duckdb.Error as e:
        raise WarehouseError(f"the query cannot be parsed: {_first_line(e)}") from e
    if len(statements) != 1:
        raise WarehouseError(f"give one statement, not {len(statements)}; run them one at a time")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        name = str(kind).rsplit(".", 1)[-1]
        raise WarehouseError(f"ledger query is read-only: {name} statements are refused; use SELECT")
    con = wh.connect_read_only()
    try:
        cur = con.execute(text)
        columns = [d[0] for d in cur.description] if cur.description else []
        types = [str(d[1]) for d in cur.description] if cur.description else []
        rows = cur.fetchall() if max_rows is None else cur.fetchmany(max_rows)
    except duckdb.PermissionException as e:
        raise WarehouseError(
            "ledger query cannot read files or reach the network (external access is off); "
            "query the warehouse tables, e.g. SELECT * FROM rolls"
        ) from e
    except duckdb.Error as e:
        raise WarehouseError(f"query failed: {_first_line(e)}") from e
    finally:
        con.close()
    return QueryResult(columns, types, rows)
