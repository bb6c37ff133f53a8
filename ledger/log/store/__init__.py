"""Where events are kept: eventsourcing's recorders, over a SQLite file (the default,
write-ahead log) or a ``postgresql://`` schema.

Both keep each stream's versions whole and contiguous with the recorders' unique
(stream, version) key: an append that loses the race raises :class:`VersionConflict`,
and nothing of it is written. The package knows streams, versions and bytes, never a
game. One idea per module:

- ``common``: the tables and their names, the target a ledger opens, the refusal of a
  lost race, a database's error in a user's words;
- ``front``: the :class:`Store` the ledger calls, over either database;
- ``sqlite``: the SQLite file, checked before it is opened, and its recorder;
- ``postgres``: the PostgreSQL schema and its recorder (one-statement appends, reads in
  notification order that never pass a write in flight); imported for a PostgreSQL
  target only;
- ``listener``: hearing appends as they commit (the live table's listener, and
  eventsourcing's subscription on it).

Only eventsourcing's public API is used (its recorders, datastores and connection pool,
and its ``Subscription`` base class).
"""

from ledger.log.store.common import (
    ACTING_STREAM,
    CURRENT_STREAM,
    DEFAULT_FILE,
    EVENTS_TABLE,
    KEYS_TABLE,
    PAGE,
    REQUESTS_TABLE,
    SEALED_TABLE,
    SEATS_TABLE,
    SEEDS_TABLE,
    SNAPSHOTS_TABLE,
    Claim,
    ClaimTaken,
    VersionConflict,
    is_postgres,
    new_ledger,
    resolve_target,
)
from ledger.log.store.front import Store
from ledger.log.store.sqlite import check_sqlite_file

__all__ = [
    "ACTING_STREAM",
    "CURRENT_STREAM",
    "DEFAULT_FILE",
    "EVENTS_TABLE",
    "KEYS_TABLE",
    "PAGE",
    "REQUESTS_TABLE",
    "SEALED_TABLE",
    "SEATS_TABLE",
    "SEEDS_TABLE",
    "SNAPSHOTS_TABLE",
    "Claim",
    "ClaimTaken",
    "Store",
    "VersionConflict",
    "check_sqlite_file",
    "is_postgres",
    "new_ledger",
    "resolve_target",
]
