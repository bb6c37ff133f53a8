"""The SQLite store: a ledger file checked before it is opened, eventsourcing's SQLite
recorders over it (write-ahead log), and the few statements the ledger runs itself."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from eventsourcing.persistence import PersistenceError
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteApplicationRecorder, SQLiteDatastore

from ledger.errors import GiveOption, Input, NotALedgerError, RunCommand, StoreError
from ledger.log.store.common import (
    EVENTS_TABLE,
    NEW_LEDGER,
    PAGE,
    PRIVATE_TABLES,
    Claim,
    Opened,
    describe,
    reason,
)


def open_sqlite(target: str, *, create: bool, read_only: bool) -> Opened:
    """Open (or, with ``create``, make) the ledger file at ``target``: refused, untouched,
    when it is not a ledger; read-only when asked, or when it cannot be written."""
    path = Path(target)
    if not path.exists() and not path.is_dir() and not (create and not read_only):
        raise StoreError(f"no ledger at {path}", path=str(path), fix=NEW_LEDGER)
    tables = check_sqlite_file(path)
    if not read_only and tables and not _writable(path):
        read_only = True  # read-only media or permissions: reads work, writes are refused
    if read_only and not tables:
        raise StoreError(
            f"{path} is empty: not a ledger yet",
            fix=RunCommand(text="start one with `new`", command="new", arguments=("SYSTEM", "NAME")),
        )
    name = _read_only_uri(path) if read_only else str(path)
    datastore = SQLiteDatastore(name, lock_timeout=30, pool_size=1, originator_id_type="text")
    recorder = BulkSQLiteRecorder(datastore, events_table_name=EVENTS_TABLE)
    private = {table: SQLiteAggregateRecorder(datastore, events_table_name=table) for table in PRIVATE_TABLES}
    if read_only:
        return Opened(datastore, recorder, private, read_only=True, found=tables)
    try:
        if EVENTS_TABLE not in tables:
            recorder.create_table()
        for table, kept in private.items():
            if table not in tables:
                kept.create_table()
    except PersistenceError as e:
        raise StoreError(f"cannot write {describe(target)}: {reason(e)}") from e
    return Opened(datastore, recorder, private, read_only=False)


# --- group commit: many commits, one flush ------------------------------------------


def synchronous(datastore: SQLiteDatastore, level: str, target: str) -> None:
    """Set the file's ``synchronous`` level (``NORMAL``: a commit is not flushed by
    itself; ``FULL``, the ledger's setting: each commit is)."""
    try:
        with datastore.get_connection(commit=True) as conn, conn.cursor() as curs:
            curs.execute(f"PRAGMA synchronous={level}")
    except (PersistenceError, sqlite3.Error) as e:
        raise StoreError(f"cannot write to {describe(target)}: {reason(e)}") from e


def flush_log(target: str) -> None:
    """Flush the write-ahead log to disk (``fsync``): what ``synchronous=FULL`` does at
    each commit, once for the commits before it."""
    try:
        fd = os.open(f"{target}-wal", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except FileNotFoundError:
        return  # no log: every commit went into the file itself
    except OSError as e:
        raise StoreError(f"cannot write to {describe(target)}: {reason(e)}") from e


# --- the recorder ---------------------------------------------------------------------


def select_states_sql(table: str, gt: int, lte: int | None, mark: str) -> tuple[str, list[Any]]:
    """A stream's states in (gt, lte], in version order: the statement and its
    parameters after the stream's (``mark`` is the driver's placeholder)."""
    sql = f"SELECT state FROM {table} WHERE originator_id = {mark} AND originator_version > {mark}"
    if lte is not None:
        sql += f" AND originator_version <= {mark}"
    return sql + " ORDER BY originator_version", [gt] if lte is None else [gt, lte]


class BulkSQLiteRecorder(SQLiteApplicationRecorder):
    """The SQLite application recorder, inserting a transaction's rows with
    one ``executemany`` (the stock one issues one ``execute`` per row to
    collect notification ids, which the ledger does not need), and reading
    a stream's states as a stream of bytes."""

    def insert_rows(self, rows: Sequence[tuple[str, int, str, bytes]], claim: Claim | None = None) -> None:
        """Insert (stream, version, topic, state) tuples in one transaction, and the
        ``claim``'s row in its table in the same one."""
        with self.datastore.transaction(commit=True) as c:
            if claim is not None:
                c.execute(f"INSERT INTO {claim.table} VALUES (?, ?, ?, ?)", claim.row)
            c.executemany(self.insert_events_statement, rows)

    def select_states(self, stream: str, gt: int, lte: int | None) -> Iterator[bytes]:
        sql, params = select_states_sql(self.events_table_name, gt, lte, "?")
        with self.datastore.transaction(commit=False) as c:
            cursor = c.sqlite_cursor
            cursor.row_factory = None
            cursor.execute(sql, [stream, *params])
            while rows := cursor.fetchmany(PAGE):
                for row in rows:
                    yield row[0]

    def select_rows(self, stream: str, gt: int, lte: int | None) -> Iterator[tuple[int, str, bytes]]:
        """(version, topic, state) of a stream's events in (gt, lte], in version order:
        what :meth:`select_states` streams, with the two columns ``verify`` checks."""
        sql, params = select_states_sql(self.events_table_name, gt, lte, "?")
        sql = sql.replace("SELECT state", "SELECT originator_version, topic, state", 1)
        with self.datastore.transaction(commit=False) as c:
            cursor = c.sqlite_cursor
            cursor.row_factory = None
            cursor.execute(sql, [stream, *params])
            while rows := cursor.fetchmany(PAGE):
                yield from rows

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


# --- the file, checked before it is opened --------------------------------------------

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
