"""What both stores share: the tables and their names, the target a ledger opens, the
refusal of a lost race, and a database's error in a user's words."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import msgspec

from ledger.errors import RunCommand
from ledger.i18n import _

if TYPE_CHECKING:
    from ledger.log.store.sqlite import SQLiteReads


def new_ledger() -> RunCommand:
    """The fix of a target that holds no ledger."""
    return RunCommand(
        text=_("check `target`, or start one with `new`"), command="new", arguments=("SYSTEM", "NAME")
    )


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
SEALED_TABLE = "ledger_sealed"
"""The content and salt of each sealed action (``action.sealed``), keyed by its commitment:
the GM's, beside the log; a GM's export carries them, a players' export does not."""
PRIVATE_TABLES = (SNAPSHOTS_TABLE, KEYS_TABLE, SEEDS_TABLE, SEATS_TABLE, REQUESTS_TABLE, SEALED_TABLE)
"""The tables beside the events, each an eventsourcing aggregate recorder's."""
PAGE = 4096
"""Rows read at a time."""


class Opened(msgspec.Struct):
    """A store as one of the two modules opened it: its datastore, the recorder of the
    events and one aggregate recorder per table of :data:`PRIVATE_TABLES`; or, for a
    SQLite file, the function that makes these on first use (``make``) and the plain reads
    that need none of them (``reads``)."""

    datastore: Any
    recorder: Any
    tables: dict[str, Any]
    read_only: bool
    found: set[str] | None = None
    """The tables a SQLite file held when it was opened read-only (None: all of them)."""
    listen: dict[str, Any] = msgspec.field(default_factory=dict)
    """How a PostgreSQL listener connects (``psycopg.connect``'s arguments)."""
    make: Callable[[], tuple[Any, Any, dict[str, Any]]] | None = None
    """Makes the datastore, the recorder and the tables' recorders, when they are left to
    be made on first use (a SQLite file: a command that only reads the log in notification
    order imports no eventsourcing)."""
    reads: SQLiteReads | None = None
    """The log's top, a page in notification order and a stream's first event, read
    without the recorder (None: through it)."""


class VersionConflict(Exception):
    """Another writer appended to the same stream first; nothing of the append was written."""


class Claim(msgspec.Struct):
    """A row of a private table (:data:`REQUESTS_TABLE`) that rides with the next append
    and commits in its transaction, or not at all (``ledger.log.store.front.Store.claiming``):
    a request's claim is then taken exactly when its action is recorded."""

    table: str
    stream: str
    topic: str
    state: bytes
    version: int = 1
    taken: bool = False
    """Whether an append carrying it has committed."""

    @property
    def row(self) -> tuple[str, int, str, bytes]:
        return (self.stream, self.version, self.topic, self.state)


class ClaimTaken(Exception):  # noqa: N818: a race lost, as VersionConflict is
    """The row a :class:`Claim` would write was written first by another writer (another
    process answering the same request); nothing of the append was written."""


def resolve_target(db: str | None) -> str:
    """The database target: ``--db``, else ``LEDGER_DB``, else a file here."""
    return db or os.environ.get("LEDGER_DB") or DEFAULT_FILE


def is_postgres(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


def describe(target: str) -> str:
    """The target as a message names it (never its password)."""
    if is_postgres(target):
        u = urlparse(target)
        return _(
            "PostgreSQL database {name} at {host}:{port}",
            name=u.path.lstrip("/") or "postgres",
            host=u.hostname,
            port=u.port or 5432,
        )
    return _("ledger file {path}", path=target)


def reason(e: BaseException) -> str:
    """A database's error as the end of a one-line message: what happened and what to do."""
    text = str(e).strip() or type(e).__name__
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        return _("it is read-only; use a writable file or folder")
    if "disk is full" in low or "database or disk is full" in low:
        return _("the disk is full; free space and try again (nothing was recorded)")
    if "disk i/o error" in low:
        return _(
            "the disk refused the write (full, over a size limit or failing); free space and try again (nothing was recorded)"
        )
    if "locked" in low:
        return _("another process holds it locked; try again")
    if "unable to open" in low:
        return _("the file cannot be opened; check the path and its folder's permissions")
    return text.splitlines()[0]
