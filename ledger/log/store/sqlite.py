"""The SQLite store: a ledger file checked before it is opened, eventsourcing's SQLite
recorders over it (write-ahead log), and the few statements the ledger runs itself.

eventsourcing is imported when the recorders are first needed (:func:`ledger.log.store.sqlite_recorders.recorders`): the
reads of a warm ``ledger stats`` or ``query`` (the log's top, the events after a position,
the registry's first event) go through :class:`SQLiteReads`, a plain ``sqlite3``
connection, and import none of it (tests/test_cli_startup.py)."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ledger.errors import GiveOption, Input, NotALedgerError, RunCommand, StoreError
from ledger.i18n import _
from ledger.log.store.common import (
    EVENTS_TABLE,
    PRIVATE_TABLES,
    Opened,
    describe,
    new_ledger,
    reason,
)

if TYPE_CHECKING:
    from eventsourcing.sqlite import SQLiteDatastore


def open_sqlite(target: str, *, create: bool, read_only: bool) -> Opened:
    """Open (or, with ``create``, make) the ledger file at ``target``: refused, untouched,
    when it is not a ledger; read-only when asked, or when it cannot be written."""
    path = Path(target)
    if not path.exists() and not path.is_dir() and not (create and not read_only):
        raise StoreError(_("no ledger at {path}", path=path), path=str(path), fix=new_ledger())
    tables = check_sqlite_file(path)
    if not read_only and tables and not _writable(path):
        read_only = True  # read-only media or permissions: reads work, writes are refused
    if read_only and not tables:
        raise StoreError(
            _("{path} is empty: not a ledger yet", path=path),
            fix=RunCommand(text=_("start one with `new`"), command="new", arguments=("SYSTEM", "NAME")),
        )
    name = _read_only_uri(path) if read_only else str(path)
    reads = SQLiteReads(name, target)
    if read_only:
        return Opened(
            None, None, {}, read_only=True, found=tables, make=lambda: _recorders(name), reads=reads
        )
    if EVENTS_TABLE in tables and all(table in tables for table in PRIVATE_TABLES):
        # Every table there: the recorders are made when something needs them.
        return Opened(None, None, {}, read_only=False, make=lambda: _recorders(name), reads=reads)
    # lazy: only a new ledger's tables are made on opening; eventsourcing comes with them
    from eventsourcing.persistence import PersistenceError

    datastore, recorder, private = _recorders(name)
    try:
        if EVENTS_TABLE not in tables:
            recorder.create_table()
        for table, kept in private.items():
            if table not in tables:
                kept.create_table()
    except PersistenceError as e:
        raise StoreError(_("cannot write {store}: {reason}", store=describe(target), reason=reason(e))) from e
    return Opened(datastore, recorder, private, read_only=False, reads=reads)


class SQLiteReads:
    """The log's top, a page of events in notification order and a stream's first event,
    read on a plain ``sqlite3`` connection of their own (opened on first use, one statement
    at a time, each read whole so that no read transaction stays open), with the
    statements eventsourcing's recorder runs for them. What a warm ``ledger stats`` asks of
    the log, without importing eventsourcing."""

    def __init__(self, name: str, target: str) -> None:
        self.name = name
        self.target = target
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        try:
            with self._lock:
                if self._conn is None:
                    self._conn = sqlite3.connect(
                        self.name, uri=True, check_same_thread=False, isolation_level=None, timeout=30
                    )
                return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=describe(self.target), reason=reason(e))
            ) from e

    def max_notification_id(self) -> int:
        return self._rows(f"SELECT MAX(rowid) FROM {EVENTS_TABLE}", ())[0][0] or 0  # type: ignore[no-any-return]

    def states_after(self, position: int, limit: int) -> list[tuple[int, str, bytes]]:
        return self._rows(
            f"SELECT rowid, originator_id, state FROM {EVENTS_TABLE} WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (position, limit),
        )

    def first_state(self, stream: str) -> bytes | None:
        found = self._rows(
            f"SELECT state FROM {EVENTS_TABLE} WHERE originator_id = ? AND originator_version <= 1 "
            "ORDER BY originator_version LIMIT 1",
            (stream,),
        )
        return bytes(found[0][0]) if found else None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


# --- group commit: many commits, one flush ------------------------------------------


def synchronous(datastore: SQLiteDatastore, level: str, target: str) -> None:
    """Set the file's ``synchronous`` level (``NORMAL``: a commit is not flushed by
    itself; ``FULL``, the ledger's setting: each commit is)."""
    # lazy: the datastore given is eventsourcing's, imported already when it was made
    from eventsourcing.persistence import PersistenceError

    try:
        with datastore.get_connection(commit=True) as conn, conn.cursor() as curs:
            curs.execute(f"PRAGMA synchronous={level}")
    except (PersistenceError, sqlite3.Error) as e:
        raise StoreError(
            _("cannot write to {store}: {reason}", store=describe(target), reason=reason(e))
        ) from e


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
        raise StoreError(
            _("cannot write to {store}: {reason}", store=describe(target), reason=reason(e))
        ) from e


# --- the recorder ---------------------------------------------------------------------


def _recorders(name: str) -> tuple[Any, Any, dict[str, Any]]:
    # lazy: a warm statistics command reads through SQLiteReads alone (tests/test_cli_startup.py)
    from ledger.log.store.sqlite_recorders import recorders

    return recorders(name)


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
            _("{path} is a folder", path=path),
            fix=GiveOption(text=_("give `db` a file path"), inputs=(Input("db"),)),
        )
    if not path.exists():
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.exists():
            raise StoreError(
                _("folder {path} does not exist", path=parent),
                fix=GiveOption(text=_("create it or choose another `db`"), inputs=(Input("db"),)),
            )
        if not os.access(parent, os.W_OK):
            raise StoreError(
                _("folder {path} is read-only", path=parent),
                fix=GiveOption(text=_("choose a writable `db` location"), inputs=(Input("db"),)),
            )
        return set()
    try:
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as e:
        raise StoreError(
            _("cannot read {path}: {reason}; check its permissions", path=path, reason=e.strerror)
        ) from e
    if not header:
        return set()  # an empty file: a new ledger
    if header[: len(_SQLITE_HEADER)] != _SQLITE_HEADER:
        raise NotALedgerError(
            _("{path} is not a campaign-ledger file (not SQLite)", path=path),
            fix=GiveOption(text=_("check `db`, nothing was changed"), inputs=(Input("db"),)),
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
            _(
                "{path} is damaged or truncated ({problem}); restore it from a backup or export, nothing was changed",
                path=path,
                problem=e,
            )
        ) from e
    if tables and EVENTS_TABLE not in tables:
        raise NotALedgerError(
            _(
                "{path} is another application's SQLite database (no {table} table)",
                path=path,
                table=EVENTS_TABLE,
            ),
            fix=GiveOption(text=_("choose another `db`, nothing was changed"), inputs=(Input("db"),)),
        )
    return tables


def _check_length(path: Path, header: bytes) -> None:
    """Refuse a file shorter than the pages its header counts (a cut-off copy)."""
    if len(header) < 100:
        raise NotALedgerError(
            _("{path} is truncated (its header is cut off); restore it from a backup or export", path=path)
        )
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return  # recent pages may still live in the write-ahead log
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if pages and path.stat().st_size < page_size * pages:
        raise NotALedgerError(
            _(
                "{path} is truncated ({size} bytes of {expected}); "
                "restore it from a backup or export, nothing was changed",
                path=path,
                size=path.stat().st_size,
                expected=page_size * pages,
            )
        )
