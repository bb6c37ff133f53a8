"""Where events are kept: the eventsourcing package's recorders.

A SQLite file is the default target (WAL mode); a ``postgresql://`` URL
selects PostgreSQL. Both use the recorders' unique (stream, version) key for
optimistic concurrency: an append that loses the race raises
:class:`VersionConflict`, and nothing of it is written. This module knows
streams, versions and bytes, never a game.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import weakref
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlparse

from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    Notification,
    PersistenceError,
    StoredEvent,
)
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteApplicationRecorder, SQLiteDatastore

from ledger.errors import GiveOption, Input, NotALedgerError, RunCommand, StoreError

NEW_LEDGER = RunCommand(
    text="check `target`, or start one with `new`", command="new", arguments=("SYSTEM", "NAME")
)
"""The fix of a target that holds no ledger."""

DEFAULT_FILE = "campaigns.ledger"
EVENTS_TABLE = "ledger_events"
SNAPSHOTS_TABLE = "ledger_snapshots"
KEYS_TABLE = "ledger_keys"
CURRENT_STREAM = "current-campaign"
"""The stream of the keys table that records which campaign is current (its id, one
row per ``ledger use``); kept beside the signing keys, never exported."""
ACTING_STREAM = "acting-character:"
"""The prefix of the keys-table streams that record, per campaign (its id follows), the
acting character chosen on this ledger (one row per choice); never exported."""
SEEDS_TABLE = "ledger_seeds"
SEATS_TABLE = "ledger_seats"
"""The seats of the live table (``ledger table invite``): each seat's label, campaign, role
and the sha256 of its secret, and its revocation; never exported, logged or warehoused."""
REQUESTS_TABLE = "ledger_requests"
"""The answers ``ledger serve`` gave to requests sent with an ``Idempotency-Key``, so a
retry gets the first answer; never exported, logged or warehoused."""
PAGE = 4096


class VersionConflict(Exception):
    """Another writer appended to the same stream first."""


def resolve_target(db: str | None) -> str:
    """The database target: ``--db``, else ``LEDGER_DB``, else a file here."""
    return db or os.environ.get("LEDGER_DB") or DEFAULT_FILE


def is_postgres(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


class Store:
    """Append and read event streams through an eventsourcing recorder.

    ``create`` allows a missing SQLite file to be made; without it a missing file is
    refused naming the path. ``read_only`` opens a SQLite file with ``mode=ro`` (and
    ``immutable=1`` when its folder cannot hold the -shm file): nothing is created or
    written, and it works on read-only media. A file or folder that cannot be written
    is opened read-only anyway; a write to it is then refused."""

    def __init__(self, target: str, *, create: bool = True, read_only: bool = False) -> None:
        self.target = target
        self.kind = "postgresql" if is_postgres(target) else "sqlite"
        self._datastore: Any = None
        self.create = create
        self.read_only = read_only
        try:
            if self.kind == "postgresql":
                self.recorder = self._open_postgres(target)
            else:
                self.recorder = self._open_sqlite(target)
        except PersistenceError as e:
            raise StoreError(f"cannot open {self.describe()}: {_reason(e)}") from e

    def describe(self) -> str:
        if self.kind == "postgresql":
            u = urlparse(self.target)
            return f"PostgreSQL database {u.path.lstrip('/') or 'postgres'} at {u.hostname}:{u.port or 5432}"
        return f"ledger file {self.target}"

    # --- opening -------------------------------------------------------------

    def _open_sqlite(self, target: str) -> ApplicationRecorder:
        path = Path(target)
        if not path.exists() and not path.is_dir() and not (self.create and not self.read_only):
            raise StoreError(
                f"no ledger at {path}",
                path=str(path),
                fix=NEW_LEDGER,
            )
        tables = check_sqlite_file(path)
        if not self.read_only and tables and not _writable(path):
            self.read_only = True  # read-only media or permissions: reads work, writes are refused
        if self.read_only and not tables:
            raise StoreError(
                f"{path} is empty: not a ledger yet",
                fix=RunCommand(text="start one with `new`", command="new", arguments=("SYSTEM", "NAME")),
            )
        name = _read_only_uri(path) if self.read_only else str(path)
        self._datastore = SQLiteDatastore(name, lock_timeout=30, pool_size=1, originator_id_type="text")
        recorder = _bulk_sqlite_recorder()(self._datastore, events_table_name=EVENTS_TABLE)
        self.snapshots = SQLiteAggregateRecorder(self._datastore, events_table_name=SNAPSHOTS_TABLE)
        self.keys = SQLiteAggregateRecorder(self._datastore, events_table_name=KEYS_TABLE)
        self.seeds = SQLiteAggregateRecorder(self._datastore, events_table_name=SEEDS_TABLE)
        self.seats = SQLiteAggregateRecorder(self._datastore, events_table_name=SEATS_TABLE)
        self.requests = SQLiteAggregateRecorder(self._datastore, events_table_name=REQUESTS_TABLE)
        if self.read_only:
            self.tables = tables
            return recorder
        try:
            if EVENTS_TABLE not in tables:
                recorder.create_table()
            if SNAPSHOTS_TABLE not in tables:
                self.snapshots.create_table()
            if KEYS_TABLE not in tables:
                self.keys.create_table()
            if SEEDS_TABLE not in tables:
                self.seeds.create_table()
            if SEATS_TABLE not in tables:
                self.seats.create_table()
            if REQUESTS_TABLE not in tables:
                self.requests.create_table()
        except PersistenceError as e:
            raise StoreError(f"cannot write {self.describe()}: {_reason(e)}") from e
        return recorder

    def _open_postgres(self, target: str) -> ApplicationRecorder:
        # lazy: a command on a SQLite ledger imports no PostgreSQL driver (tests/test_cli_startup.py)
        import psycopg
        from eventsourcing.postgres import PostgresAggregateRecorder, PostgresDatastore

        u = urlparse(target)
        query = parse_qs(u.query)
        schema = query.get("schema", [""])[0]
        params = {
            "dbname": unquote(u.path.lstrip("/")) or "postgres",
            "host": u.hostname or "localhost",
            "port": u.port or 5432,
            "user": unquote(u.username or "postgres"),
            "password": unquote(u.password or ""),
        }
        if schema and not schema.replace("_", "").isalnum():
            raise StoreError(
                f"schema {schema!r} in `db` is not a plain name; use letters, digits and _", field="db"
            )
        try:
            setup = psycopg.connect(**params, connect_timeout=3, autocommit=True)
        except psycopg.OperationalError as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise StoreError(
                f"cannot reach {self.describe()}: {first}",
                fix=GiveOption(text="start the server or fix `target`", inputs=(Input("target"),)),
            ) from e
        except psycopg.Error as e:
            raise StoreError(f"cannot open {self.describe()}: {_reason(e)}") from e
        self._listen_params = params
        self._datastore = PostgresDatastore(
            **params,
            connect_timeout=5,
            pool_size=1,
            max_overflow=2,
            lock_timeout=30,
            schema=schema,
            pre_ping=True,
            originator_id_type="text",
        )
        # pre_ping checks every connection alive before each use, a round trip per
        # statement; the pool's check is narrowed to connections that sat idle.
        self._datastore.pool._check = _idle_check()
        recorder = _postgres_recorder()(self._datastore, events_table_name=EVENTS_TABLE)
        self.snapshots = PostgresAggregateRecorder(self._datastore, events_table_name=SNAPSHOTS_TABLE)
        self.keys = PostgresAggregateRecorder(self._datastore, events_table_name=KEYS_TABLE)
        self.seeds = PostgresAggregateRecorder(self._datastore, events_table_name=SEEDS_TABLE)
        self.seats = PostgresAggregateRecorder(self._datastore, events_table_name=SEATS_TABLE)
        self.requests = PostgresAggregateRecorder(self._datastore, events_table_name=REQUESTS_TABLE)
        if not self.create or self.read_only:
            # A read, or a command that may not make a ledger: a missing one is refused
            # (a mistyped schema is not created), and a read creates nothing.
            try:
                found = setup.execute(
                    "SELECT to_regclass(%s)", (f'"{schema or "public"}"."{EVENTS_TABLE}"',)
                ).fetchone()
            except psycopg.Error as e:
                setup.close()
                raise StoreError(f"cannot open {self.describe()}: {_reason(e)}") from e
            if found is None or found[0] is None or self.read_only:
                setup.close()
            if found is None or found[0] is None:
                raise StoreError(
                    f"no ledger in {self.describe()} (schema {schema or 'public'})",
                    path=self.describe(),
                    fix=NEW_LEDGER,
                )
            if self.read_only:
                return recorder
        # One process at a time creates the schema, types, tables and functions.
        lock = f"campaign-ledger:{schema or 'public'}"
        try:
            with setup:
                setup.execute("SELECT pg_advisory_lock(hashtext(%s))", (lock,))
                try:
                    if schema:
                        setup.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                    recorder.create_table()
                    self.snapshots.create_table()
                    self.keys.create_table()
                    self.seeds.create_table()
                    self.seats.create_table()
                    self.requests.create_table()
                finally:
                    setup.execute("SELECT pg_advisory_unlock(hashtext(%s))", (lock,))
        except psycopg.Error as e:
            raise StoreError(f"cannot open {self.describe()}: {_reason(e)}") from e
        return recorder

    def close(self) -> None:
        if self._datastore is not None:
            self._datastore.close()
            self._datastore = None

    # --- writing and reading -------------------------------------------------

    @contextlib.contextmanager
    def flushed_together(self) -> Iterator[None]:
        """Group commit: the transactions committed inside are flushed to disk together,
        once, as the block ends, instead of one flush each. Each is still whole or absent,
        in order, and seen by every reader at its commit; what is durable against a power
        loss is everything committed inside once the block has ended, so a caller answers
        for none of them before that. On SQLite its commits run with
        ``synchronous=NORMAL`` and the write-ahead log is flushed (``fsync``) at the end,
        which is what ``synchronous=FULL``, the ledger's setting everywhere else, does at
        each commit; on PostgreSQL every commit is flushed as always."""
        if self.kind != "sqlite" or self.read_only or self._datastore is None:
            yield
            return
        self._synchronous("NORMAL")
        try:
            yield
        finally:
            try:
                self._flush_log()
            finally:
                self._synchronous("FULL")

    def _synchronous(self, level: str) -> None:
        try:
            with self._datastore.get_connection(commit=True) as conn, conn.cursor() as curs:
                curs.execute(f"PRAGMA synchronous={level}")
        except (PersistenceError, sqlite3.Error) as e:
            raise StoreError(f"cannot write to {self.describe()}: {_reason(e)}") from e

    def _flush_log(self) -> None:
        try:
            fd = os.open(f"{self.target}-wal", os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except FileNotFoundError:
            return  # no log: every commit went into the file itself
        except OSError as e:
            raise StoreError(f"cannot write to {self.describe()}: {_reason(e)}") from e

    def append(self, events: Sequence[tuple[str, int, str, bytes]]) -> None:
        """Append (stream, version, topic, state) rows in one transaction.

        Raises :class:`VersionConflict` when a version is taken; then nothing
        was written."""
        try:
            self.recorder.insert_rows(events)  # type: ignore[attr-defined]
        except IntegrityError as e:
            raise VersionConflict(str(e)) from e
        except PersistenceError as e:
            raise StoreError(f"cannot write to {self.describe()}: {_reason(e)}") from e

    def read(
        self,
        stream: str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        try:
            return self.recorder.select_events(stream, gt=gt, lte=lte, desc=desc, limit=limit)
        except PersistenceError as e:
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e

    def scan(self, stream: str, gt: int = 0, lte: int | None = None) -> Iterator[StoredEvent]:
        """Every event of a stream in version order, a page at a time."""
        while True:
            page = self.read(stream, gt=gt, lte=lte, limit=PAGE)
            yield from page
            if len(page) < PAGE:
                return
            gt = page[-1].originator_version

    def states(self, stream: str, gt: int = 0, lte: int | None = None) -> Iterator[bytes]:
        """The stored bytes of a stream's events in version order.

        The hot path of every fold: it streams only the ``state`` column, where
        :meth:`scan` builds a ``StoredEvent`` per row."""
        try:
            yield from self.recorder.select_states(stream, gt, lte)  # type: ignore[attr-defined]
        except PersistenceError as e:
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e

    # --- snapshots: a cache of folded states, never the truth ------------------

    def put_snapshots(self, rows: Sequence[tuple[str, int, str, bytes]]) -> None:
        """Store snapshots; one that another process wrote first is skipped."""
        if self.read_only:
            return  # a cache, and reading never writes
        stored = [StoredEvent(s, v, t, b) for s, v, t, b in rows]
        try:
            self.snapshots.insert_events(stored)
        except IntegrityError:
            for one in stored:
                with contextlib.suppress(IntegrityError):
                    self.snapshots.insert_events([one])
        except PersistenceError:
            pass  # a cache that cannot be written (read-only, disk full) is just not used

    def snapshot(self, key: str, lte: int) -> StoredEvent | None:
        """The latest snapshot under ``key`` at or before version ``lte``."""
        try:
            rows = self.snapshots.select_events(key, lte=lte, desc=True, limit=1)
        except PersistenceError:
            return None
        return rows[0] if rows else None

    # --- keys: the ledger's signing key and the keys it trusts (never exported) ---

    def put_key(self, stream: str, version: int, topic: str, state: bytes) -> bool:
        """Store one key record; False when that version was taken by another writer."""
        try:
            self.keys.insert_events([StoredEvent(stream, version, topic, state)])
        except IntegrityError:
            return False
        except PersistenceError as e:
            raise StoreError(f"cannot write to {self.describe()}: {_reason(e)}") from e
        return True

    def key_records(self, stream: str, *, last: bool = False) -> Sequence[StoredEvent]:
        """Every key record of a stream, oldest first (``last``: only the newest)."""
        if self.read_only and KEYS_TABLE not in getattr(self, "tables", {KEYS_TABLE}):
            return []  # a ledger older than the keys table, opened read-only
        try:
            if last:
                return self.keys.select_events(stream, desc=True, limit=1)
            return self.keys.select_events(stream)
        except PersistenceError as e:
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e

    # --- the current campaign: state of the ledger, not of any campaign -------------

    def current_campaign(self) -> str | None:
        """The id of the campaign last chosen with ``ledger use`` or ``ledger new``."""
        rows = self.key_records(CURRENT_STREAM, last=True)
        return rows[0].state.decode() if rows else None

    def use_campaign(self, campaign_id: str) -> None:
        """Make a campaign current: one more row on the current-campaign stream."""
        self._choose(CURRENT_STREAM, "campaign.used", campaign_id, "the current campaign")

    def _choose(self, stream: str, topic: str, value: str, what: str) -> None:
        """One more row on a stream of this ledger's choices (the last row is the choice),
        retried while another writer takes the same version."""
        for _ in range(50):
            rows = self.key_records(stream, last=True)
            version = rows[0].originator_version + 1 if rows else 1
            if self.put_key(stream, version, topic, value.encode()):
                return
        raise StoreError(f"cannot record {what} in {self.describe()}: it is busy; try again")

    # --- the acting character of each campaign: a choice of this ledger, not an event ---

    def acting_character(self, campaign_id: str) -> str | None:
        """The character last chosen to act in a campaign on this ledger, if any."""
        rows = self.key_records(ACTING_STREAM + campaign_id, last=True)
        return rows[0].state.decode() if rows else None

    def act_as(self, campaign_id: str, name: str) -> None:
        """Choose the acting character of a campaign: one more row on its stream."""
        self._choose(ACTING_STREAM + campaign_id, "character.acting", name, "the acting character")

    def marked(self, stream: str, gt: int, lte: int, marker: bytes, limit: int) -> list[tuple[int, bytes]]:
        """Up to ``limit`` (version, state) rows of a stream in (gt, lte] whose stored bytes
        contain ``marker``, newest first: the scan runs in the database, not row by row here."""
        try:
            return self.recorder.select_marked(stream, gt, lte, marker, limit)  # type: ignore[attr-defined, no-any-return]
        except PersistenceError as e:
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e

    # --- dice seeds: secret until revealed, never in the log or an export ---------

    def put_seed(self, stream: str, state: bytes, *, exist_ok: bool = False) -> None:
        """Store one record of the seed table (a commitment's secret seed, or a branch's
        note that it has commitments); with ``exist_ok`` one written first is kept."""
        try:
            self.seeds.insert_events([StoredEvent(stream, 1, "dice.seed", state)])
        except IntegrityError:
            if not exist_ok:
                raise StoreError(f"the seed table of {self.describe()} already holds {stream}") from None
        except PersistenceError as e:
            raise StoreError(f"cannot write to {self.describe()}: {_reason(e)}") from e

    def seed_record(self, stream: str) -> bytes | None:
        try:
            rows = self.seeds.select_events(stream, limit=1)
        except PersistenceError as e:
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e
        return bytes(rows[0].state) if rows else None

    # --- the live table's seats and answered requests (never exported) -------------

    def put_private(self, table: str, stream: str, version: int, topic: str, state: bytes) -> bool:
        """Store one row of the seats or requests table (``SEATS_TABLE``,
        ``REQUESTS_TABLE``); False when that version was taken by another writer."""
        try:
            self._private(table).insert_events([StoredEvent(stream, version, topic, state)])
        except IntegrityError:
            return False
        except PersistenceError as e:
            raise StoreError(f"cannot write to {self.describe()}: {_reason(e)}") from e
        return True

    def private_records(self, table: str, stream: str, gt: int | None = None) -> Sequence[StoredEvent]:
        """The rows of one stream of the seats or requests table after version ``gt``."""
        if self.read_only and table not in getattr(self, "tables", {table}):
            return []  # a ledger older than the table, opened read-only
        try:
            return self._private(table).select_events(stream, gt=gt)
        except PersistenceError as e:
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e

    def _private(self, table: str) -> Any:
        return {SEATS_TABLE: self.seats, REQUESTS_TABLE: self.requests}[table]

    def listen(self, heard: Callable[[str | None], None]) -> AppendListener | None:
        """On PostgreSQL, an :class:`AppendListener` telling ``heard`` of every append any
        process commits here, as it commits; ``None`` on SQLite, whose writers tell no one
        (read what is new with :meth:`states_after`)."""
        if self.kind != "postgresql":
            return None
        rec = self.recorder
        return AppendListener(self._listen_params, rec.channel_name, rec.listen_key, heard)  # type: ignore[attr-defined]

    def head(self, stream: str) -> int:
        last = self.read(stream, desc=True, limit=1)
        return last[0].originator_version if last else 0

    def notifications(self, start: int, limit: int) -> Sequence[Notification]:
        """Events of every stream in the order they were recorded."""
        try:
            return self.recorder.select_notifications(start, limit)
        except PersistenceError as e:
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e

    def states_after(self, position: int, limit: int) -> list[tuple[int, str, bytes]]:
        """Up to ``limit`` (notification id, stream, state) rows after ``position``,
        in notification order: the lean read the warehouse pages through."""
        try:
            return self.recorder.select_states_after(position, limit)  # type: ignore[attr-defined, no-any-return]
        except PersistenceError as e:
            if "lock timeout" in str(e):
                raise StoreError(
                    f"cannot follow {self.describe()}: a write has held the event table for "
                    "longer than the lock timeout (a bulk import?); try again when it ends"
                ) from e
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e

    def max_notification_id(self) -> int:
        try:
            return self.recorder.max_notification_id() or 0
        except PersistenceError as e:
            raise StoreError(f"cannot read {self.describe()}: {_reason(e)}") from e


def _select_states_sql(table: str, gt: int, lte: int | None, mark: str) -> tuple[str, list[Any]]:
    sql = f"SELECT state FROM {table} WHERE originator_id = {mark} AND originator_version > {mark}"
    if lte is not None:
        sql += f" AND originator_version <= {mark}"
    return sql + " ORDER BY originator_version", [gt] if lte is None else [gt, lte]


def _bulk_sqlite_recorder() -> type:
    class BulkSQLiteRecorder(SQLiteApplicationRecorder):
        """The SQLite application recorder, inserting a transaction's rows with
        one ``executemany`` (the stock one issues one ``execute`` per row to
        collect notification ids, which the ledger does not need), and reading
        a stream's states as a stream of bytes."""

        def insert_rows(self, rows: Sequence[tuple[str, int, str, bytes]]) -> None:
            """Insert (stream, version, topic, state) tuples in one transaction."""
            with self.datastore.transaction(commit=True) as c:
                c.executemany(self.insert_events_statement, rows)

        def select_states(self, stream: str, gt: int, lte: int | None) -> Iterator[bytes]:
            sql, params = _select_states_sql(self.events_table_name, gt, lte, "?")
            with self.datastore.transaction(commit=False) as c:
                cursor = c.sqlite_cursor
                cursor.row_factory = None
                cursor.execute(sql, [stream, *params])
                while rows := cursor.fetchmany(PAGE):
                    for row in rows:
                        yield row[0]

        def select_marked(
            self, stream: str, gt: int, lte: int, marker: bytes, limit: int
        ) -> list[tuple[int, bytes]]:
            sql = (
                f"SELECT originator_version, state FROM {self.events_table_name} WHERE originator_id = ? "
                "AND originator_version > ? AND originator_version <= ? AND instr(state, ?) > 0 "
                "ORDER BY originator_version DESC LIMIT ?"
            )
            with self.datastore.transaction(commit=False) as c:
                cursor = c.sqlite_cursor
                cursor.row_factory = None
                cursor.execute(sql, [stream, gt, lte, marker, limit])
                return [(v, bytes(state)) for v, state in cursor.fetchall()]

        def select_states_after(self, position: int, limit: int) -> list[tuple[int, str, bytes]]:
            sql = (
                f"SELECT rowid, originator_id, state FROM {self.events_table_name} "
                "WHERE rowid > ? ORDER BY rowid LIMIT ?"
            )
            with self.datastore.transaction(commit=False) as c:
                cursor = c.sqlite_cursor
                cursor.row_factory = None
                cursor.execute(sql, [position, limit])
                return cursor.fetchall()  # type: ignore[no-any-return]

    return BulkSQLiteRecorder


IDLE_CHECK = 1.0
"""A pooled PostgreSQL connection idle for longer than this many seconds is
checked alive before use (one round trip); one in steady use is not."""

FOLLOW_TRIES = 40
"""How many times a follower tries, without queueing behind writers, for the
moment no write is in flight, before it waits in the queue (see
``select_states_after``)."""


def _idle_check() -> Any:
    """A pool check that pings a connection only after it has sat idle: a server
    restart is noticed before the next command, without a round trip per statement."""
    # lazy: a command on a SQLite ledger imports no PostgreSQL driver (tests/test_cli_startup.py)
    from psycopg_pool import ConnectionPool

    seen: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

    def check(conn: Any) -> None:
        now = time.monotonic()
        last = seen.get(conn)
        seen[conn] = now
        if last is not None and now - last > IDLE_CHECK:
            ConnectionPool.check_connection(conn)

    return check


def _postgres_recorder() -> type:
    # lazy: a command on a SQLite ledger imports no PostgreSQL driver (tests/test_cli_startup.py)
    from eventsourcing.postgres import PostgresApplicationRecorder
    from psycopg.errors import LockNotAvailable

    class LedgerPostgresRecorder(PostgresApplicationRecorder):
        """The PostgreSQL application recorder, inserting a command's rows with
        one statement (its own transaction, one round trip) or many with
        ``COPY``, and reading a stream's states a page at a time.

        Writers take no table lock: the (stream, version) key alone keeps each
        stream's versions whole and contiguous, so writers to different
        campaigns commit side by side. Every reader of the notification order
        (``select_states_after``, and eventsourcing's own ``max_notification_id``,
        ``select_notifications`` and ``subscribe``) instead reads only up to a
        position below which no write can still be in flight (:meth:`settled`).
        An insert notifies the channel the stock subscription listens to, in the
        same statement (or, for ``COPY``, the same transaction), whenever a
        subscription is open (:meth:`subscribe`), so a live append wakes it. A
        transaction that notified takes a database-wide lock at commit, which
        would make every writer wait for the one before it; with no subscriber
        nothing is notified. The stock insert adapts every row to a composite
        type in Python, which takes minutes for a 100,000-event import, and
        takes a table lock that serialises writers."""

        horizon = 0
        """The highest notification id below which every row is known committed or
        never to be."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._horizon_lock = threading.Lock()
            self.listen_key = (
                zlib.crc32(f"{self.datastore.schema}.{self.events_table_name}".encode()) & 0x7FFFFFFF
            )
            # Channels are per database: one per schema, so ledgers beside each other
            # do not wake each other's subscriptions (the stock one listens to this name).
            self.channel_name = f"{self.events_table_name}_{self.listen_key:08x}"
            # Whether a subscription holds its (shared) advisory lock, asked once per
            # statement: an exclusive try, held to the commit, succeeds when none does
            # (a few microseconds); only when it fails (a subscription, or another writer
            # in flight) is pg_locks read, which costs about 0.1 ms.
            self._notify_sql = (
                f"(SELECT CASE WHEN pg_try_advisory_xact_lock({LISTEN_CLASS}, {self.listen_key}) THEN NULL "
                "WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
                "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                f"AND classid = {LISTEN_CLASS} AND objid = {self.listen_key} AND objsubid = 2 "
                "AND mode = 'ShareLock' AND granted) "
                "THEN pg_notify(%s, %s) IS NULL END)"
            )

        def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Any:
            return _subscription()(self, gt=gt, topics=topics)

        def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
            """The stock entry point, on the ledger's own insert (:meth:`insert_rows`)."""
            rows = [(e.originator_id, e.originator_version, e.topic, e.state) for e in stored_events]
            return self.insert_rows(rows)  # type: ignore[arg-type]

        def insert_rows(self, rows: Sequence[tuple[str, int, str, bytes]]) -> list[int] | None:
            """Insert (stream, version, topic, state) rows in one transaction and wake
            subscribers; the notification ids of a small insert, ``None`` for a bulk one
            (``COPY`` returns none) or an empty one (nothing is sent)."""
            if not rows:
                return None
            table = f'"{self.datastore.schema}"."{self.events_table_name}"'
            columns = "(originator_id, originator_version, topic, state)"
            if len(rows) <= 64:
                # One statement is one transaction in autocommit mode: all rows or none,
                # and the notification is sent when (and only if) it commits.
                values = ", ".join(["(%s, %s, %s, %s)"] * len(rows))
                params: list[Any] = [field for row in rows for field in row]
                sql = f"INSERT INTO {table} {columns} VALUES {values} RETURNING notification_id, {self._notify_sql}"
                with self.datastore.get_connection() as conn:
                    found = conn.execute(sql, [*params, self.channel_name, _told(rows)]).fetchall()
                return [r["notification_id"] for r in found]
            with self.datastore.transaction(commit=True) as curs:
                with curs.copy(f"COPY {table} {columns} FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
                curs.execute(f"SELECT {self._notify_sql}", [self.channel_name, _told(rows)])
            if len(rows) > 10_000:
                # Fresh statistics, so paged reads of a bulk import use the primary key.
                with self.datastore.get_connection() as conn:
                    conn.execute(f"ANALYZE {table}")
            return None

        def select_states(self, stream: str, gt: int, lte: int | None) -> Iterator[bytes]:
            table = f'"{self.datastore.schema}"."{self.events_table_name}"'
            while True:
                sql = (
                    f"SELECT originator_version, state FROM {table} WHERE originator_id = %s "
                    "AND originator_version > %s"
                    + ("" if lte is None else " AND originator_version <= %s")
                    + f" ORDER BY originator_version LIMIT {PAGE}"
                )
                with self.datastore.get_connection() as conn, conn.cursor() as curs:
                    curs.execute(sql, [stream, gt] if lte is None else [stream, gt, lte])
                    rows = curs.fetchall()
                for row in rows:
                    yield bytes(row["state"])
                if len(rows) < PAGE:
                    return
                gt = rows[-1]["originator_version"]

        def select_marked(
            self, stream: str, gt: int, lte: int, marker: bytes, limit: int
        ) -> list[tuple[int, bytes]]:
            table = f'"{self.datastore.schema}"."{self.events_table_name}"'
            sql = (
                f"SELECT originator_version, state FROM {table} WHERE originator_id = %s "
                "AND originator_version > %s AND originator_version <= %s AND position(%s::bytea in state) > 0 "
                "ORDER BY originator_version DESC LIMIT %s"
            )
            with self.datastore.get_connection() as conn, conn.cursor() as curs:
                curs.execute(sql, [stream, gt, lte, marker, limit])
                return [(r["originator_version"], bytes(r["state"])) for r in curs.fetchall()]

        def settled(self) -> int:
            """The highest notification id at a moment no insert was in flight.

            Notification ids are handed out as rows are inserted, but transactions
            commit in their own order: a reader that moved past a committed id while
            a lower one was still in flight would skip the lower one for good. A
            ``SHARE`` lock on the table is granted only once every transaction that
            inserted into it has ended, and holds new inserts back while it is held
            (for one index lookup); as the id sequence hands out values in order (no
            per-session cache), every id up to the maximum read under it is then
            committed or will never be. The lock is asked for without queueing
            behind writers (a queued request holds back new writers) until the table
            is free, and in the queue only after ``FOLLOW_TRIES`` tries."""
            table = f'"{self.datastore.schema}"."{self.events_table_name}"'
            for attempt in range(FOLLOW_TRIES + 1):
                patient = attempt == FOLLOW_TRIES
                try:
                    with self.datastore.transaction(commit=True) as curs:
                        if not patient:
                            curs.execute("SET LOCAL lock_timeout = '5ms'")
                        else:
                            curs.execute(f"SET LOCAL lock_timeout = '{self.datastore.lock_timeout}s'")
                        curs.execute(f"LOCK TABLE {table} IN SHARE MODE")
                        curs.execute(f"SELECT MAX(notification_id) AS top FROM {table}")
                        row = curs.fetchone()
                except PersistenceError as e:
                    if patient or not isinstance(e.__cause__, LockNotAvailable):
                        raise
                    time.sleep(0.002 * (1 + attempt % 5))
                    continue
                top = row["top"] if row and row["top"] is not None else 0
                with self._horizon_lock:
                    self.horizon = max(self.horizon, top)
                break
            return self.horizon

        def max_notification_id(self) -> int | None:
            """The highest notification id a reader may go up to: every id below it
            is committed or never will be (see :meth:`settled`); ``None`` when empty."""
            return self.settled() or None

        def select_notifications(
            self,
            start: int | None,
            limit: int,
            stop: int | None = None,
            topics: Sequence[str] = (),
            *,
            inclusive_of_start: bool = True,
        ) -> Sequence[Notification]:
            """The stock read, never past a position where an earlier id could still
            commit: a reader that moves on from the last row it got skips nothing."""
            cap = self.horizon
            got: Sequence[Notification] = []
            below = cap > 0 and (start is None or start < cap or (inclusive_of_start and start == cap))
            if below:
                got = super().select_notifications(
                    start, limit, _lowest(stop, cap), topics, inclusive_of_start=inclusive_of_start
                )
            if len(got) < limit and (stop is None or stop > cap) and self.settled() > cap:
                got = super().select_notifications(
                    start, limit, _lowest(stop, self.horizon), topics, inclusive_of_start=inclusive_of_start
                )
            return got

        def select_states_after(self, position: int, limit: int) -> list[tuple[int, str, bytes]]:
            """Rows after ``position`` in notification order, never past a position
            where an earlier id could still commit (see :meth:`settled`)."""
            if position >= self.horizon:
                self.settled()
            table = f'"{self.datastore.schema}"."{self.events_table_name}"'
            sql = (
                f"SELECT notification_id, originator_id, state FROM {table} "
                "WHERE notification_id > %s AND notification_id <= %s ORDER BY notification_id LIMIT %s"
            )
            with self.datastore.get_connection() as conn, conn.cursor() as curs:
                curs.execute(sql, [position, self.horizon, limit])
                rows = curs.fetchall()
            return [(r["notification_id"], r["originator_id"], bytes(r["state"])) for r in rows]

    return LedgerPostgresRecorder


LISTEN_CLASS = 0x4C454447
"""The first half of the advisory-lock key a subscription holds (shared) while it
listens; the second half is a hash of the event table's schema and name."""


def _subscription() -> type:
    # lazy: a command on a SQLite ledger imports no PostgreSQL driver (tests/test_cli_startup.py)
    from eventsourcing.postgres import PostgresSubscription
    from psycopg.sql import SQL, Identifier

    class LedgerSubscription(PostgresSubscription):
        """The stock subscription, listening before its first read and saying so:
        it holds a shared advisory lock that writers look for before they notify.
        A writer that looked before the lock was taken still holds its insert open
        or has committed, and the first read waits for it (see ``settled``)."""

        def __init__(self, recorder: Any, gt: int | None = None, topics: Sequence[str] = ()) -> None:
            self._held = recorder.datastore.get_connection()
            conn = self._held.__enter__()
            try:
                conn.execute("SELECT pg_advisory_lock_shared(%s, %s)", [LISTEN_CLASS, recorder.listen_key])
                conn.execute(SQL("LISTEN {0}").format(Identifier(recorder.channel_name)))
            except BaseException as e:
                self._held.__exit__(type(e), e, e.__traceback__)
                raise
            self._conn = conn
            super().__init__(recorder=recorder, gt=gt, topics=topics)

        def _listen(self) -> None:
            conn = self._conn
            try:
                while not self._has_been_stopped and not self._thread_error:
                    for _ in conn.notifies(timeout=0.1, stop_after=1):
                        self._has_been_notified.set()
            except BaseException as e:
                if self._thread_error is None:
                    self._thread_error = e
                self.stop()
            finally:
                try:
                    conn.execute("UNLISTEN *")
                    conn.execute(
                        "SELECT pg_advisory_unlock_shared(%s, %s)", [LISTEN_CLASS, self._recorder.listen_key]
                    )
                except Exception:  # a broken connection: the server dropped both with it
                    pass
                self._held.__exit__(None, None, None)

    return LedgerSubscription


def _told(rows: Sequence[tuple[str, int, str, bytes]]) -> str:
    """What an insert's notification says: the stream its rows belong to, or nothing when
    they span several (a listener then reads every stream it follows)."""
    streams = {row[0] for row in rows}
    return streams.pop() if len(streams) == 1 else ""


class AppendListener:
    """Tells ``heard`` of each append any process commits to a PostgreSQL ledger: the
    stream it went to, or ``None`` when it may have missed some (at its start, after a
    lost connection, or for an insert spanning several streams), so that its caller
    reads everything it follows. It listens on a connection and a thread of its own,
    holding the shared advisory lock writers look for before they notify (see
    ``LedgerPostgresRecorder``), until :meth:`close`."""

    def __init__(
        self, params: dict[str, Any], channel: str, key: int, heard: Callable[[str | None], None]
    ) -> None:
        self._params = params
        self._channel = channel
        self._key = key
        self._heard = heard
        self._stop = threading.Event()
        self.listening = threading.Event()
        """Set while the listener's connection is listening."""
        self._thread = threading.Thread(target=self._run, name="ledger-listen", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # lazy: a command on a SQLite ledger imports no PostgreSQL driver (tests/test_cli_startup.py)
        import psycopg
        from psycopg.sql import SQL, Identifier

        while not self._stop.is_set():
            try:
                with psycopg.connect(**self._params, connect_timeout=3, autocommit=True) as conn:
                    conn.execute("SELECT pg_advisory_lock_shared(%s, %s)", [LISTEN_CLASS, self._key])
                    conn.execute(SQL("LISTEN {0}").format(Identifier(self._channel)))
                    self.listening.set()
                    self._heard(None)  # whatever was appended before it listened
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.25):
                            self._heard(note.payload or None)
            except Exception:  # the server is away, or its answer broke: listen again after a pause
                self.listening.clear()
                self._stop.wait(0.5)
        self.listening.clear()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


def _lowest(stop: int | None, cap: int) -> int:
    return cap if stop is None else min(stop, cap)


def _reason(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        return "it is read-only; use a writable file or folder"
    if "disk is full" in low or "database or disk is full" in low:
        return "the disk is full; free space and try again (nothing was recorded)"
    if "disk i/o error" in low:
        return "the disk refused the write (full, over a size limit or failing); free space and try again (nothing was recorded)"
    if "locked" in low:
        return "another process holds it locked; try again"
    if "unable to open" in low:
        return "the file cannot be opened; check the path and its folder's permissions"
    return text.splitlines()[0]


_SQLITE_HEADER = b"SQLite format 3\x00"


def _writable(path: Path) -> bool:
    """Whether a ledger file and its folder (for the -wal and -shm files) can be written."""
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK) and not _read_only_mount(path)


def _read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _read_only_uri(path: Path) -> str:
    """A ``mode=ro`` URI for the file; ``immutable=1`` too where the folder cannot hold
    the -shm file SQLite needs to read a WAL ledger and no writer can be there."""
    uri = f"file:{quote(str(path.absolute()))}?mode=ro"
    folder = path.parent if str(path.parent) else Path(".")
    wal = path.with_name(path.name + "-wal")
    if (not os.access(folder, os.W_OK) or _read_only_mount(path)) and not wal.exists():
        uri += "&immutable=1"
    return uri


def check_sqlite_file(path: Path) -> set[str]:
    """Refuse, without touching it, a file that is not a ledger; return its tables."""
    if path.is_dir():
        raise NotALedgerError(
            f"{path} is a folder", fix=GiveOption(text="give `db` a file path", inputs=(Input("db"),))
        )
    if not path.exists():
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.exists():
            raise StoreError(
                f"folder {parent} does not exist",
                fix=GiveOption(text="create it or choose another `db`", inputs=(Input("db"),)),
            )
        if not os.access(parent, os.W_OK):
            raise StoreError(
                f"folder {parent} is read-only",
                fix=GiveOption(text="choose a writable `db` location", inputs=(Input("db"),)),
            )
        return set()
    try:
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as e:
        raise StoreError(f"cannot read {path}: {e.strerror}; check its permissions") from e
    if not header:
        return set()  # an empty file: a new ledger
    if header[: len(_SQLITE_HEADER)] != _SQLITE_HEADER:
        raise NotALedgerError(
            f"{path} is not a campaign-ledger file (not SQLite)",
            fix=GiveOption(text="check `db`, nothing was changed", inputs=(Input("db"),)),
        )
    _check_length(path, header)
    try:
        conn = sqlite3.connect(_read_only_uri(path), uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if EVENTS_TABLE in tables:
                # Reads the table's root and last pages; a count would read every page
                # on every command (12 ms at 64,000 events, growing with the log). A
                # damaged page further in is found by the read that reaches it.
                conn.execute(f"SELECT max(rowid) FROM {EVENTS_TABLE}").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise NotALedgerError(
            f"{path} is damaged or truncated ({e}); restore it from a backup or export, nothing was changed"
        ) from e
    if tables and EVENTS_TABLE not in tables:
        raise NotALedgerError(
            f"{path} is another application's SQLite database (no {EVENTS_TABLE} table)",
            fix=GiveOption(text="choose another `db`, nothing was changed", inputs=(Input("db"),)),
        )
    return tables


def _check_length(path: Path, header: bytes) -> None:
    """Refuse a file shorter than the pages its header counts (a cut-off copy)."""
    if len(header) < 100:
        raise NotALedgerError(
            f"{path} is truncated (its header is cut off); restore it from a backup or export"
        )
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return  # recent pages may still live in the write-ahead log
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if pages and path.stat().st_size < page_size * pages:
        raise NotALedgerError(
            f"{path} is truncated ({path.stat().st_size} bytes of {page_size * pages}); "
            "restore it from a backup or export, nothing was changed"
        )
