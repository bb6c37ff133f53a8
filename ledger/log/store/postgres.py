"""The PostgreSQL store: eventsourcing's PostgreSQL recorders in a schema of their own,
an insert of one statement (one round trip) that wakes listeners only while one listens,
and reads in notification order that never pass a write still in flight.

Imported only for a ``postgresql://`` target: a command on a SQLite ledger loads no
PostgreSQL driver (tests/test_cli_startup.py).
"""

from __future__ import annotations

import threading
import time
import weakref
import zlib
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import psycopg
from eventsourcing.persistence import Notification, PersistenceError, StoredEvent
from eventsourcing.postgres import (
    ConnectionPool,
    PostgresAggregateRecorder,
    PostgresApplicationRecorder,
    PostgresDatastore,
)
from psycopg.errors import LockNotAvailable
from psycopg.rows import DictRow, dict_row

from ledger.errors import GiveOption, Input, StoreError
from ledger.i18n import _
from ledger.log.store.common import (
    EVENTS_TABLE,
    PAGE,
    PRIVATE_TABLES,
    Claim,
    Opened,
    describe,
    new_ledger,
    reason,
)
from ledger.log.store.listener import LISTEN_CACHE, LISTEN_CLASS, Subscription

IDLE_CHECK = 1.0
"""A pooled PostgreSQL connection idle for longer than this many seconds is
checked alive before use (one round trip); one in steady use is not."""

FOLLOW_TRIES = 40
"""How many times a follower tries, without queueing behind writers, for the
moment no write is in flight, before it waits in the queue (see
:meth:`LedgerPostgresRecorder.settled`)."""

COLUMNS = "(originator_id, originator_version, topic, state)"

LISTENED_SQL = (
    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
    "AND classid = %s AND objid = %s AND objsubid = 2 AND mode = 'ShareLock' AND granted) AS listened"
)

POOL_SIZE, POOL_OVERFLOW, CONNECT_TIMEOUT, LOCK_TIMEOUT = 1, 2, 5, 30


def connection_params(target: str) -> tuple[dict[str, Any], str]:
    """``psycopg.connect``'s arguments for a ``postgresql://`` target, and its schema."""
    u = urlparse(target)
    schema = parse_qs(u.query).get("schema", [""])[0]
    if schema and not schema.replace("_", "").isalnum():
        raise StoreError(
            _("schema {schema!r} in `db` is not a plain name; use letters, digits and _", schema=schema),
            field="db",
        )
    params = {
        "dbname": unquote(u.path.lstrip("/")) or "postgres",
        "host": u.hostname or "localhost",
        "port": u.port or 5432,
        "user": unquote(u.username or "postgres"),
        "password": unquote(u.password or ""),
    }
    return params, schema


def open_postgres(target: str, *, create: bool, read_only: bool) -> Opened:
    """Open the ledger in the target's schema; unless ``read_only`` (or not ``create``
    and no ledger is there), make its schema and tables first, one process at a time."""
    params, schema = connection_params(target)
    try:
        setup = psycopg.connect(**params, connect_timeout=3, autocommit=True)
    except psycopg.OperationalError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise StoreError(
            _("cannot reach {store}: {reason}", store=describe(target), reason=first),
            fix=GiveOption(text=_("start the server or fix `target`"), inputs=(Input("target"),)),
        ) from e
    except psycopg.Error as e:
        raise StoreError(_("cannot open {store}: {reason}", store=describe(target), reason=reason(e))) from e
    datastore = _datastore(params, schema)
    recorder = LedgerPostgresRecorder(datastore, events_table_name=EVENTS_TABLE)
    recorder.listen_params = params
    private = {
        table: PostgresAggregateRecorder(datastore, events_table_name=table) for table in PRIVATE_TABLES
    }
    opened = Opened(datastore, recorder, private, read_only=read_only, listen=params)
    with setup:
        if not create or read_only:
            # A read, or a command that may not make a ledger: a missing one is refused
            # (a mistyped schema is not created), and a read creates nothing.
            try:
                found = setup.execute(
                    "SELECT to_regclass(%s)", (f'"{schema or "public"}"."{EVENTS_TABLE}"',)
                ).fetchone()
            except psycopg.Error as e:
                raise StoreError(
                    _("cannot open {store}: {reason}", store=describe(target), reason=reason(e))
                ) from e
            if found is None or found[0] is None:
                raise StoreError(
                    _(
                        "no ledger in {store} (schema {schema})",
                        store=describe(target),
                        schema=schema or "public",
                    ),
                    path=describe(target),
                    fix=new_ledger(),
                )
            if read_only:
                return opened
        # One process at a time creates the schema, types, tables and functions.
        lock = f"campaign-ledger:{schema or 'public'}"
        try:
            setup.execute("SELECT pg_advisory_lock(hashtext(%s))", (lock,))
            try:
                if schema:
                    setup.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                recorder.create_table()
                for kept in private.values():
                    kept.create_table()
            finally:
                setup.execute("SELECT pg_advisory_unlock(hashtext(%s))", (lock,))
        except (psycopg.Error, PersistenceError) as e:
            raise StoreError(
                _("cannot open {store}: {reason}", store=describe(target), reason=reason(e))
            ) from e
    return opened


def _datastore(params: dict[str, Any], schema: str) -> PostgresDatastore:
    """eventsourcing's datastore, its pool made again with a check narrowed to
    connections that sat idle (its ``pre_ping`` checks every connection alive before
    each use, a round trip per statement)."""
    datastore = PostgresDatastore(
        **params,
        connect_timeout=CONNECT_TIMEOUT,
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
        lock_timeout=LOCK_TIMEOUT,
        schema=schema,
        originator_id_type="text",
    )
    datastore.pool.close()  # never opened: it holds no connection yet
    datastore.pool = ConnectionPool(
        connection_class=psycopg.Connection[DictRow],
        kwargs={**params, "row_factory": dict_row},
        min_size=POOL_SIZE,
        max_size=POOL_SIZE + POOL_OVERFLOW,
        open=False,
        configure=datastore.after_connect_func(),
        timeout=CONNECT_TIMEOUT,
        check=_idle_check(),
    )
    return datastore


def _idle_check() -> Any:
    """A pool check that pings a connection only after it has sat idle: a server
    restart is noticed before the next command, without a round trip per statement."""
    seen: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()

    def check(conn: Any) -> None:
        now = time.monotonic()
        last = seen.get(conn)
        seen[conn] = now
        if last is not None and now - last > IDLE_CHECK:
            ConnectionPool.check_connection(conn)

    return check


def _told(rows: Sequence[tuple[str, int, str, bytes]]) -> str:
    """What an insert's notification says: the stream its rows belong to, or nothing when
    they span several (a listener then reads every stream it follows)."""
    streams = {row[0] for row in rows}
    return streams.pop() if len(streams) == 1 else ""


def _lowest(stop: int | None, cap: int) -> int:
    return cap if stop is None else min(stop, cap)


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
    An insert notifies the channel listeners listen to, in the same statement
    (or, for ``COPY``, the same transaction), while a listener is open
    (``ledger.log.store.listener``; :meth:`listened`), so a live append wakes it.
    A transaction that notified takes a database-wide lock at commit, which makes
    every writer wait for the one before it; with no listener nothing is notified
    and nothing is asked of the lock manager either: whether anyone listens is
    asked once a second, not once per insert.
    The stock insert adapts every row to a composite type in Python, which
    takes minutes for a 100,000-event import, and takes a table lock that
    serialises writers."""

    horizon = 0
    """The highest notification id below which every row is known committed or
    never to be."""

    listen_params: dict[str, Any]
    """How a listener connects (``psycopg.connect``'s arguments)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._horizon_lock = threading.Lock()
        self.table = f'"{self.datastore.schema}"."{self.events_table_name}"'
        self.listen_key = (
            zlib.crc32(f"{self.datastore.schema}.{self.events_table_name}".encode()) & 0x7FFFFFFF
        )
        # Channels are per database: one per schema, so ledgers beside each other
        # do not wake each other's listeners.
        self.channel_name = f"{self.events_table_name}_{self.listen_key:08x}"
        self._listened = False
        self._listened_until = 0.0

    def listened(self) -> bool:
        """Whether a listener (of any process) holds its shared advisory lock on this
        ledger, as ``pg_locks`` said at most :data:`LISTEN_CACHE` seconds ago: an append
        notifies only then. A listener that starts reads everything once every writer's
        answer is that fresh (``ledger.log.store.listener``), so an append it is not told
        of is one it reads."""
        now = time.monotonic()
        if now >= self._listened_until:
            with self.datastore.get_connection() as conn:
                row = conn.execute(LISTENED_SQL, [LISTEN_CLASS, self.listen_key]).fetchone()
            self._listened = bool(row and row["listened"])
            self._listened_until = now + LISTEN_CACHE
        return self._listened

    def forget_listened(self) -> None:
        """Ask ``pg_locks`` again at the next append: a listener of this process started
        or stopped."""
        self._listened_until = 0.0

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Any:
        """eventsourcing's subscription: every notification after ``gt``, then each new
        one as it commits (``ledger.log.store.listener.Subscription``)."""
        return Subscription(self, gt=gt, topics=topics)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        """The stock entry point, on the ledger's own insert (:meth:`insert_rows`)."""
        rows = [(e.originator_id, e.originator_version, e.topic, e.state) for e in stored_events]
        return self.insert_rows(rows)

    def insert_rows(
        self, rows: Sequence[tuple[str, int, str, bytes]], claim: Claim | None = None
    ) -> list[int] | None:
        """Insert (stream, version, topic, state) rows in one transaction and wake
        listeners, with the ``claim``'s row in its table in the same transaction; the
        notification ids of a small insert, ``None`` for a bulk one (``COPY`` returns
        none) or an empty one (nothing is sent)."""
        if not rows:
            return None
        notify = [self.channel_name, _told(rows)] if self.listened() else []
        if len(rows) <= 64:
            # One statement is one transaction in autocommit mode: all rows or none (the
            # claim's too), and the notification is sent when (and only if) it commits.
            values = ", ".join(["(%s, %s, %s, %s)"] * len(rows))
            params: list[Any] = [field for row in rows for field in row]
            told = ", (SELECT pg_notify(%s, %s)) AS told" if notify else ""
            sql = f"INSERT INTO {self.table} {COLUMNS} VALUES {values} RETURNING notification_id{told}"
            if claim is not None:
                sql = f"WITH claimed AS ({self._claim_sql(claim)}) {sql}"
                params = [*claim.row, *params]
            with self.datastore.get_connection() as conn:
                found = conn.execute(sql, [*params, *notify]).fetchall()
            return [r["notification_id"] for r in found]
        with self.datastore.transaction(commit=True) as curs:
            if claim is not None:
                curs.execute(self._claim_sql(claim), claim.row)
            with curs.copy(f"COPY {self.table} {COLUMNS} FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            if notify:
                curs.execute("SELECT pg_notify(%s, %s)", notify)
        if len(rows) > 10_000:
            # Fresh statistics, so paged reads of a bulk import use the primary key.
            with self.datastore.get_connection() as conn:
                conn.execute(f"ANALYZE {self.table}")
        return None

    def _claim_sql(self, claim: Claim) -> str:
        return f'INSERT INTO "{self.datastore.schema}"."{claim.table}" {COLUMNS} VALUES (%s, %s, %s, %s)'

    def select_states(self, stream: str, gt: int, lte: int | None) -> Iterator[bytes]:
        while True:
            sql = (
                f"SELECT originator_version, state FROM {self.table} WHERE originator_id = %s "
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

    def select_rows(self, stream: str, gt: int, lte: int | None) -> Iterator[tuple[int, str, bytes]]:
        """(version, topic, state) of a stream's events in (gt, lte], a page at a time."""
        while True:
            sql = (
                f"SELECT originator_version, topic, state FROM {self.table} WHERE originator_id = %s "
                "AND originator_version > %s"
                + ("" if lte is None else " AND originator_version <= %s")
                + f" ORDER BY originator_version LIMIT {PAGE}"
            )
            with self.datastore.get_connection() as conn, conn.cursor() as curs:
                curs.execute(sql, [stream, gt] if lte is None else [stream, gt, lte])
                rows = curs.fetchall()
            for row in rows:
                yield row["originator_version"], row["topic"], bytes(row["state"])
            if len(rows) < PAGE:
                return
            gt = rows[-1]["originator_version"]

    def select_marked(
        self, stream: str, gt: int, lte: int, marker: bytes, limit: int
    ) -> list[tuple[int, bytes]]:
        sql = (
            f"SELECT originator_version, state FROM {self.table} WHERE originator_id = %s "
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
        for attempt in range(FOLLOW_TRIES + 1):
            patient = attempt == FOLLOW_TRIES
            try:
                with self.datastore.transaction(commit=True) as curs:
                    if not patient:
                        curs.execute("SET LOCAL lock_timeout = '5ms'")
                    else:
                        curs.execute(f"SET LOCAL lock_timeout = '{self.datastore.lock_timeout}s'")
                    curs.execute(f"LOCK TABLE {self.table} IN SHARE MODE")
                    curs.execute(f"SELECT MAX(notification_id) AS top FROM {self.table}")
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
        sql = (
            f"SELECT notification_id, originator_id, state FROM {self.table} "
            "WHERE notification_id > %s AND notification_id <= %s ORDER BY notification_id LIMIT %s"
        )
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(sql, [position, self.horizon, limit])
            rows = curs.fetchall()
        return [(r["notification_id"], r["originator_id"], bytes(r["state"])) for r in rows]
