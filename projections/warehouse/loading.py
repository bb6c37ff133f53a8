"""Filling the warehouse from the event log: catch-up, rebuild and the staged pages.

It catches up from the store's notification order, a page at a time: the stored JSON goes
to DuckDB as it is, DuckDB parses it in parallel and SQL fills every table; each page is
written together with the last notification id it applied, in one DuckDB transaction, so
every event lands exactly once however often or however abruptly catch-up runs. An undo or
redo recomputes the ``undone`` flag of its branch. ``rebuild`` builds a fresh warehouse
beside the old one and swaps it in. Rows come from the core events (a ``ledger roll`` is a
roll with purpose ``roll``) and from each system's facts: its ``ReadModel.facts_sql`` queries,
or its Python ``ReadModel.facts`` when it declares no queries.

A fact belongs to the branch that recorded it: a fork's rows start after its fork point,
and the shared history is counted once, in the parent.

It imports the kernel (events, facts, errors), the systems registry, and of the warehouse
its layout (:mod:`.schema`), its paths (:mod:`.paths`) and, for the read-only connection
:meth:`Warehouse.connect_read_only` hands out and the SQL literals it writes, the query
sandbox (:mod:`.query`). DuckDB is imported inside the functions that use it: a command
that opens no warehouse never loads it (tests/test_warehouse.py).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.errors import Fix, Input, RunCommand, WarehouseError, WarehouseStorageError
from ledger.facts import Fact, FactQuery, RollFact, field_defaults
from ledger.i18n import _
from ledger.log.events import (
    CORE_EVENTS,
    CampaignRegistered,
    Envelope,
    envelope_decoder,
)
from ledger.projections.warehouse.paths import (
    REBUILD,
    REBUILD_MARK,
    SCRATCH_PREFIX,
    WarehousePathError,
    check_warehouse_path,
    duckdb_config,
    first_line,
    scratch_folder,
    sweep,
    warehouse_path,
)
from ledger.projections.warehouse.query import QueryLimits, read_only_connection, sql_literal, sql_str
from ledger.projections.warehouse.schema import (
    ACTIONS_VIEW,
    CAMPAIGNS,
    COMMON,
    COMMON_SELECT,
    SchemaChanged,
    layout_for,
    schema,
    tables,
)
from ledger.systems import get_system, system_names
from ledger.trust import outfile

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import duckdb

    from ledger.campaign import Ledger
    from ledger.systems import System

BATCH = 250_000
SMALL_PAGE = 1_000
"""A page of at most this many events (a warm command's catch-up) is checked in Python."""
WAL_FOLD = 16 * 1024
"""A writable connection leaves DuckDB's write-ahead log unfolded on close while it is
smaller than this (see :meth:`Warehouse.close`)."""
REGISTRY = "registry"
FACTS_PER_EVENT = 1000
"""Ids of fact rows are ``position * FACTS_PER_EVENT + n``: stable across rebuilds."""


def _verify_campaign(name: str) -> Fix:
    return RunCommand(text=f"verify campaign {name!r}", command="verify", options=(Input("campaign", name),))


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

REVEALED_SQL = FactQuery(
    RollFact,
    ("action.revealed",),
    ROLLED_SQL.sql.replace(
        "SELECT position, json_transform(event,",
        "SELECT position, event->>'actor' AS who, json_transform(json(event->>'content')->'events'->0,",
    )
    .replace(
        "FROM ev WHERE kind = 'dice.rolled')",
        "FROM ev WHERE kind = 'action.revealed' "
        "AND json(event->>'content')->'events'->0->>'kind' = 'dice.rolled')",
    )
    .replace(
        "e.p_success AS p_success\n       FROM r", "e.p_success AS p_success, who AS character\n       FROM r"
    ),
)
"""A sealed core roll, counted once revealed, where the reveal stands, as its roller's
(:func:`ledger.facts.event_facts` is its Python twin); until then it is no fact."""

CORE_FACTS_SQL: tuple[FactQuery, ...] = (ROLLED_SQL, REVEALED_SQL)


_COMMON_NAMES = frozenset(name for name, _ in COMMON)


def _insert_facts(con: duckdb.DuckDBPyConnection, query: FactQuery, system: str | None) -> None:
    """Run one fact query over the staged batch and insert its rows (and a roll's dice)."""
    where = "" if system is None else f" WHERE system = {sql_literal(system)}"
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
            _(
                "a fact query writes {name} (table {table!r}), a fact type no installed system declares; add it to the system's fact_types",
                name=cls.__name__,
                table=cls.table,
            )
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
            select.append(f"CAST({sql_literal(defaults[name])} AS {sql_type})")
    con.execute(
        f'INSERT INTO "{table.name}" SELECT {", ".join(select)} FROM fact f JOIN batch b USING (position)'
    )
    if cls is RollFact or issubclass(cls, RollFact):
        manual = "f.manual" if "manual" in given else sql_literal(defaults["manual"])
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
    return None if found is None or found.read.facts_sql else found.read.facts


def _fact_queries(system: str) -> Sequence[FactQuery]:
    found = _system(system)
    return () if found is None else found.read.facts_sql


def _system(system: str) -> System | None:
    return get_system(system) if system in system_names() else None


def _installed() -> str:
    """The installed systems' names, as the marker keeps them (read from the entry points,
    no system loaded): a system installed or removed changes the layout."""
    return ",".join(system_names())


def _read_installed() -> None:
    """Read the installed systems' names into their cache, in a thread while DuckDB opens
    (it lets go of the interpreter meanwhile): the marker's check then waits for neither.
    A failure here is met again, and told, when the check reads them itself."""
    with contextlib.suppress(Exception):
        system_names()


_CORE_TYPES = frozenset(CORE_EVENTS)
_CORE_KINDS = frozenset(str(t.__struct_config__.tag) for t in CORE_EVENTS)
_ENCODER = msgspec.json.Encoder()


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
        self._opened: tuple[duckdb.DuckDBPyConnection, int] | None = None
        """The writable connection last opened and the position its marker held as it opened,
        until that connection applies a page or closes (:meth:`position` answers from it)."""

    # --- connections ------------------------------------------------------------------

    def _connect(self, path: Path | None = None) -> duckdb.DuckDBPyConnection:
        """The writable connection: to the warehouse (after :func:`check_warehouse_path`), or to
        the fresh file a rebuild fills."""
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
        import duckdb

        target = path or self.path
        if path is None:
            check_warehouse_path(self.ledger, target)
        if target.parent and not target.parent.exists():
            raise WarehouseError(
                _(
                    "folder {parent} does not exist; create it or choose another `warehouse`",
                    parent=target.parent,
                ),
                field="warehouse",
            )
        if path is None and not target.exists():
            self._lay_out_new()
        reading = threading.Thread(target=_read_installed, name="installed systems", daemon=True)
        reading.start()
        try:
            con = duckdb.connect(str(target), config=duckdb_config())
        except duckdb.Error as e:
            raise self._cannot_open(target, e) from e
        finally:
            reading.join()
        try:
            self._ensure_schema(con)
        except duckdb.Error as e:
            con.close()
            raise self._cannot_open(target, e) from e
        except BaseException:
            con.close()
            raise
        self._opened = (con, int(self._marker.get("position", "0")))
        return con

    def _lay_out_new(self) -> None:
        """Make a new warehouse: laid out beside it and renamed into place (:meth:`_beside`);
        a full disk leaves no empty or half-made warehouse (which every later open would
        refuse: an empty file there is nobody's warehouse, and is left as it is)."""
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
        import duckdb

        try:
            with self._beside() as fresh:
                con = self._connect(fresh)
                try:
                    con.execute("CHECKPOINT")
                except duckdb.Error as e:
                    raise self._cannot_open(self.path, e) from e
                finally:
                    con.close()
                self._swap_in(fresh)
        except OSError as e:
            raise WarehouseStorageError(
                _("cannot make warehouse {path}: {strerror}", path=self.path, strerror=e.strerror)
            ) from e

    @contextlib.contextmanager
    def _beside(self) -> Iterator[Path]:
        """The file a whole new warehouse is built in, in a scratch folder of its own beside the
        warehouse, to be renamed into place (:meth:`_swap_in`); the folder is removed after,
        and those of processes killed before they could remove theirs are swept first."""
        parent = self.path.parent if str(self.path.parent) else Path(".")
        prefix = f".{self.path.name}{REBUILD_MARK}"
        sweep(str(parent), prefix)
        folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))
        try:
            yield folder / "warehouse.duckdb"
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _swap_in(self, fresh: Path) -> None:
        """The warehouse built in ``fresh`` renamed into place, over the old one if any."""
        # A log left beside the warehouse replaced (or one that is gone) belongs to no database
        # from now on (checked not to be the ledger's); DuckDB would refuse to replay it over this one.
        self.path.with_name(self.path.name + ".wal").unlink(missing_ok=True)
        os.replace(fresh, self.path)

    def _storage_fault(self, e: BaseException) -> WarehouseStorageError | None:
        """A DuckDB error that is the disk's (full, failing), in one line; None for any other."""
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
        import duckdb

        if isinstance(e, duckdb.Error) and any(os.strerror(n) in str(e) for n in outfile.STORAGE_ERRNOS):
            return WarehouseStorageError(
                _(
                    "cannot write warehouse {path}: {first_line}; free some space, or choose another `warehouse`",
                    path=self.path,
                    first_line=first_line(e),
                )
            )
        return None

    def _cannot_open(self, target: Path, e: Exception) -> WarehouseError:
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
        import duckdb

        full = self._storage_fault(e)
        if full is not None:
            return full
        if "lock" in str(e).lower():
            return WarehouseError(
                _("warehouse {target} is in use by another process; try again", target=target)
            )
        if isinstance(e, duckdb.IOException) and "not a valid" in str(e):
            return WarehouseError(
                _(
                    "warehouse {target} is not a DuckDB database ({first_line}); remove it if it is a damaged warehouse, or choose another `warehouse`",
                    target=target,
                    first_line=first_line(e),
                ),
                field="warehouse",
            )
        if isinstance(e, duckdb.IOException) and "version number" in str(e):
            return WarehouseError(
                _(
                    "warehouse {target} was written by another version of DuckDB than the one installed "
                    "({first_line}); install that version again, or remove the file and rebuild it",
                    target=target,
                    first_line=first_line(e),
                ),
                fix=REBUILD,
            )
        return WarehouseError(
            _("cannot open warehouse {target}: {first_line}", target=target, first_line=first_line(e))
        )

    def _meta(self, con: duckdb.DuckDBPyConnection) -> dict[str, str] | None:
        """The warehouse's marker table (which ledger, which layout, how far), or None when the
        database holds none; refuses a database that holds other things or another ledger's.

        The marker is read first: listing the database's tables and views (what is checked
        when there is no marker) took 17-36 ms of each warm command's open."""
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
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
                    _(
                        "{path} is a DuckDB database but not a ledger warehouse (it has no warehouse_meta table); it was left as it is: choose another `warehouse`",
                        path=self.path,
                    ),
                    self.path,
                    field="warehouse",
                ) from None
            return None
        meta: dict[str, str] = dict(rows)
        if meta and meta.get("ledger") != self._ledger_id():
            raise WarehousePathError(
                _(
                    "warehouse {path} was built from another ledger ({get}); it was left as it is: choose another `warehouse`, or remove it to build this ledger's there",
                    path=self.path,
                    get=meta.get("store"),
                ),
                self.path,
                field="warehouse",
            )
        return meta or None

    def _ensure_schema(self, con: duckdb.DuckDBPyConnection) -> None:
        """Check the marker of an existing warehouse, or lay out an empty database as one (in one
        transaction, so the marker is there whenever a table is)."""
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
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
        first = self.ledger.store.first(REGISTRY)
        return first[-66:-2].decode() if first is not None else ""

    def connect_read_only(self, limits: QueryLimits | None = None) -> duckdb.DuckDBPyConnection:
        """A connection for SQL: read-only, no files, no network, no extensions, no Python
        objects, locked settings; with ``limits`` (untrusted SQL) its memory, threads and
        spill files are bounded too (:func:`~ledger.projections.warehouse.query.read_only_connection`)."""
        return read_only_connection(self, limits)

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
        if self._opened is not None and self._opened[0] is con:
            # Read with the marker as it opened, and nothing applied on it since: a warm command
            # reads it with no statement of its own (about 2 M instructions, 1-10 ms the first time).
            return self._opened[1]
        row = con.execute("SELECT value FROM warehouse_meta WHERE key = 'position'").fetchone()
        return int(row[0]) if row else 0

    def close(self, con: duckdb.DuckDBPyConnection) -> None:
        """Close a writable connection. DuckDB folds its write-ahead log into the file when the
        last connection closes, which cost a warm ``ledger stats`` 15-25 ms for the few hundred
        bytes of one small catch-up; every open replays the log instead (about 0.7 ms per small
        catch-up in it), so the log is folded once it holds :data:`WAL_FOLD` bytes. Either way
        each catch-up's transaction is durable in the log when it commits."""
        if self._opened is not None and self._opened[0] is con:
            self._opened = None
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
        scratch = scratch_folder()
        sweep(scratch)
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
                            # lazy: a warm catch-up of one page imports no concurrent.futures, and so
                            # no logging (tests/test_cli_startup.py)
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
        for i, (_position, stream, _version) in enumerate(rows, start=1):
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
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
        import duckdb

        rows = page.rows
        self._opened = None  # the position changes with this page
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
        registry = [(position, state) for position, stream, state in rows if stream == REGISTRY]
        if not registry:  # a warm catch-up's page: no decoder of every core event built
            return
        decode = envelope_decoder(None).decode
        new = []
        for position, state in registry:
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
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
        import duckdb

        rows = page.rows
        read = (
            f"read_json('{sql_str(page.states)}', format = 'newline_delimited', columns = {STAGED_COLUMNS}, "
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
        these and what the rest of the page's work depends on (see :meth:`_stage`): the rows
        themselves for a small page, their summary for a larger one."""
        mine = [r for r in rows if r[1] in self._streams]
        sample = {mine[i][0]: mine[i] for i in (*range(0, len(mine), 997), len(mine) - 1)} if mine else {}
        if len(rows) <= SMALL_PAGE:
            # A few rows are read back whole and summed up here: the first use of DuckDB's list
            # and struct functions in a process costs more (about 6 ms) than reading them.
            staged_rows = con.execute("SELECT position, stream, version, system, kind FROM batch").fetchall()
            count = len(staged_rows)
            present = {(system, kind) for _, _, _, system, kind in staged_rows}
            undo = any(kind in ("action.undone", "action.redone") for _, _, _, _, kind in staged_rows)
            found = [
                (position, stream, version)
                for position, stream, version, _, _ in staged_rows
                if position in sample
            ]
        else:
            summary = con.execute(
                "SELECT count(*), list(DISTINCT {'system': system, 'kind': kind}), "
                "coalesce(bool_or(kind IN ('action.undone', 'action.redone')), false), "
                "list({'position': position, 'stream': stream, 'version': version}) "
                "FILTER (WHERE list_contains($sample::BIGINT[], position)) FROM batch",
                {"sample": list(sample)},
            ).fetchone()
            if not summary:
                raise self._unreadable(rows, None)
            count, kinds, undo, staged = summary
            present = {(k["system"], k["kind"]) for k in kinds or ()}
            found = [(f["position"], f["stream"], f["version"]) for f in staged or ()]
        if count != len(mine):
            raise self._unreadable(rows, None)
        if not mine:
            return present, undo
        for position, stream, version in found:
            stored = sample[position]
            v = _HEAD.decode(stored[2]).v
            if (stored[1], v) != (stream, version):
                raise WarehouseError(
                    _(
                        "event {position} was staged out of place ({stream} v{version}, stored as {value} v{v})",
                        position=position,
                        stream=stream,
                        version=version,
                        value=stored[1],
                        v=v,
                    ),
                    fix=RunCommand(
                        text=_("report it and run `warehouse rebuild`"), command="warehouse rebuild"
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
                    _(
                        "event {position} of campaign {name!r} cannot be read ({problem})",
                        position=position,
                        name=name,
                        problem=problem,
                    ),
                    fix=_verify_campaign(name),
                )
        reason = first_line(cause) if cause else "DuckDB read another number of events than were stored"
        return WarehouseError(
            _(
                "events {value}-{value2} cannot be loaded ({reason})",
                value=rows[0][0],
                value2=rows[-1][0],
                reason=reason,
            ),
            fix=RunCommand(text="verify the whole ledger", command="verify", options=(Input("all"),)),
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
        # A system's facts come from its own events (a core event's are the core's, as
        # ledger.facts.event_facts reads them): a system whose campaigns' new events are all
        # core ones (a note, a roll, a character added) is not loaded.
        present = {(system, kind) for system, kind in present if kind not in _CORE_KINDS}
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
                    _(
                        "event {position} of campaign {name!r} cannot be read ({e})",
                        position=position,
                        name=info.name,
                        e=e,
                    ),
                    fix=_verify_campaign(info.name),
                ) from e
            if type(env.event) in _CORE_TYPES:
                continue
            try:
                facts = hook(env)
            except Exception as e:
                raise WarehouseError(
                    _(
                        "the {system} system cannot turn event {v} ({kind}) of {name!r} into statistics ({name2}: {e}); report it, the log itself is intact",
                        system=info.system,
                        v=env.v,
                        kind=env.event.kind,
                        name=info.name,
                        name2=type(e).__name__,
                        e=e,
                    )
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
                    f"INSERT INTO \"{name}\" SELECT {cast} FROM read_json('{sql_str(path)}', "
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
        systems = frozenset(self._streams[stream].system for stream, _ in touched if stream in self._streams)
        for system in sorted(systems):  # their tables are written: laid out as they are now
            self._check_system(system)
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
        """Build the warehouse from scratch beside the old one (:meth:`_beside`), then swap it
        in (only over a warehouse of this ledger: :func:`check_warehouse_path`)."""
        self._check_replaceable()
        parent = self.path.parent if str(self.path.parent) else Path(".")
        if not parent.is_dir():
            raise WarehouseError(
                _("folder {parent} does not exist; create it or choose another `warehouse`", parent=parent),
                field="warehouse",
            )
        with self._beside() as fresh:
            self._streams = {}
            con = self._connect(fresh)
            try:
                applied = self._catch_up(con, progress, batch)
                con.execute("CHECKPOINT")
            finally:
                con.close()
            self._check_replaceable()
            self._swap_in(fresh)
        return applied

    def _check_replaceable(self) -> None:
        """Refuse to replace anything but a warehouse of this ledger (or an empty DuckDB file)."""
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
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


def open_warehouse(ledger: Ledger, path: str | None = None, *, catch_up: bool = True) -> Warehouse:
    """The ledger's warehouse, caught up with the log."""
    wh = Warehouse(ledger, path)
    if catch_up:
        wh.catch_up()
    return wh
