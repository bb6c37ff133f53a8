"""The :class:`Store`: what the ledger calls to append and read streams, over a SQLite file
(``ledger.log.store.sqlite``) or a PostgreSQL schema (``ledger.log.store.postgres``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ledger.errors import StoreError
from ledger.i18n import _
from ledger.log.store.common import (
    ACTING_STREAM,
    CURRENT_STREAM,
    KEYS_TABLE,
    PAGE,
    REQUESTS_TABLE,
    SEALED_TABLE,
    SEATS_TABLE,
    SEEDS_TABLE,
    SNAPSHOTS_TABLE,
    Claim,
    ClaimTaken,
    Opened,
    VersionConflict,
    describe,
    is_postgres,
    reason,
)
from ledger.log.store.sqlite import flush_log, open_sqlite, synchronous

if TYPE_CHECKING:
    from eventsourcing.persistence import Notification, StoredEvent

    from ledger.log.store.listener import AppendListener
    from ledger.log.store.sqlite import SQLiteReads


def _es() -> ModuleType:
    """eventsourcing's persistence module (its errors and ``StoredEvent``), imported when a
    recorder is used: a handler names one of its errors only once a recorder has raised."""
    # lazy: a warm statistics command reads the log without eventsourcing (tests/test_cli_startup.py)
    import eventsourcing.persistence

    return eventsourcing.persistence


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
        self.create = create
        self._claim: Claim | None = None
        self._reads: SQLiteReads | None = None
        try:
            if self.kind == "postgresql":
                # lazy: a command on a SQLite ledger imports no PostgreSQL driver (tests/test_cli_startup.py)
                from ledger.log.store.postgres import open_postgres

                opened = open_postgres(target, create=create, read_only=read_only)
            else:
                opened = open_sqlite(target, create=create, read_only=read_only)
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot open {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e
        self._opened(opened)

    def _opened(self, opened: Opened) -> None:
        self._parts = opened
        self.read_only = opened.read_only
        self.found = opened.found
        self.listen_params = opened.listen
        self._reads = opened.reads

    def _made(self) -> Opened:
        """The store's recorders, made on first use where the store left them to be (a
        SQLite file's: a command that reads only what :class:`~ledger.log.store.sqlite.SQLiteReads` answers makes none)."""
        parts = self._parts
        if parts.recorder is None and parts.make is not None:
            make, parts.make = parts.make, None
            try:
                parts.datastore, parts.recorder, parts.tables = make()
            except _es().PersistenceError as e:
                raise StoreError(
                    _("cannot open {store}: {reason}", store=self.describe(), reason=reason(e))
                ) from e
        return parts

    @property
    def datastore(self) -> Any:
        """eventsourcing's datastore (None once the store is closed)."""
        return self._made().datastore

    @property
    def recorder(self) -> Any:
        """eventsourcing's recorder of the events."""
        return self._made().recorder

    @property
    def snapshots(self) -> Any:
        return self._made().tables[SNAPSHOTS_TABLE]

    @property
    def keys(self) -> Any:
        return self._made().tables[KEYS_TABLE]

    @property
    def seeds(self) -> Any:
        return self._made().tables[SEEDS_TABLE]

    @property
    def seats(self) -> Any:
        return self._made().tables[SEATS_TABLE]

    @property
    def requests(self) -> Any:
        return self._made().tables[REQUESTS_TABLE]

    @property
    def sealed(self) -> Any:
        return self._made().tables[SEALED_TABLE]

    def describe(self) -> str:
        return describe(self.target)

    def close(self) -> None:
        if self._reads is not None:
            self._reads.close()
        parts = self._parts
        parts.make = None  # nothing is made once closed
        if parts.datastore is not None:
            parts.datastore.close()
            parts.datastore = None

    def _has(self, table: str) -> bool:
        """Whether the table is there: a ledger older than it, opened read-only, has none."""
        return self.found is None or table in self.found

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
        if self.kind != "sqlite" or self.read_only or self.datastore is None:
            yield
            return
        synchronous(self.datastore, "NORMAL", self.target)
        try:
            yield
        finally:
            try:
                flush_log(self.target)
            finally:
                synchronous(self.datastore, "FULL", self.target)

    def append(self, events: Sequence[tuple[str, int, str, bytes]]) -> None:
        """Append (stream, version, topic, state) rows in one transaction, with the row of
        the open :meth:`claiming` block's claim, if it is not yet taken.

        Raises :class:`VersionConflict` when a version is taken, :class:`ClaimTaken` when
        the claim's row is; either way nothing was written."""
        claim = self._claim if self._claim is not None and not self._claim.taken else None
        try:
            self.recorder.insert_rows(events, claim)
        except _es().IntegrityError as e:
            if claim is not None and self._written(claim):
                raise ClaimTaken(claim.stream) from e
            raise VersionConflict(str(e)) from e
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot write to {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e
        if claim is not None:
            claim.taken = True

    @contextlib.contextmanager
    def claiming(self, claim: Claim) -> Iterator[Claim]:
        """Inside the block, the first append that commits writes ``claim``'s row (of the
        requests table) in its own transaction: the claim is taken exactly when, and only
        if, that append is recorded (``claim.taken`` says whether it was). An append
        that finds the row written first by another writer raises :class:`ClaimTaken`."""
        if claim.table != REQUESTS_TABLE:
            raise ValueError(f"only a request rides with an append, not a row of {claim.table!r}")
        if self._claim is not None:
            raise RuntimeError("a claim is already riding with this store's appends")
        self._claim = claim
        try:
            yield claim
        finally:
            self._claim = None

    def _written(self, claim: Claim) -> bool:
        found = self.private_records(claim.table, claim.stream, gt=claim.version - 1)
        return any(row.originator_version == claim.version for row in found)

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
            return self.recorder.select_events(stream, gt=gt, lte=lte, desc=desc, limit=limit)  # type: ignore[no-any-return]
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

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
            yield from self.recorder.select_states(stream, gt, lte)
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    def rows(
        self, stream: str, gt: int = 0, lte: int | None = None
    ) -> Generator[tuple[int, str, bytes], None, None]:
        """(version, kind, stored bytes) of a stream's events in version order: what
        ``verify`` reads, without a ``StoredEvent`` per row (:meth:`scan`)."""
        try:
            yield from self.recorder.select_rows(stream, gt, lte)
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    def first(self, stream: str) -> bytes | None:
        """The stored bytes of a stream's first event (None: the stream is empty)."""
        if self._reads is not None:
            return self._reads.first_state(stream)
        found = self.read(stream, lte=1, limit=1)
        return bytes(found[0].state) if found else None

    def head(self, stream: str) -> int:
        last = self.read(stream, desc=True, limit=1)
        return last[0].originator_version if last else 0

    def marked(self, stream: str, gt: int, lte: int, marker: bytes, limit: int) -> list[tuple[int, bytes]]:
        """Up to ``limit`` (version, state) rows of a stream in (gt, lte] whose stored bytes
        contain ``marker``, newest first: the scan runs in the database, not row by row here."""
        try:
            return self.recorder.select_marked(stream, gt, lte, marker, limit)  # type: ignore[no-any-return]
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    # --- every stream in the order it was recorded: followers -------------------------

    def notifications(self, start: int, limit: int) -> Sequence[Notification]:
        """Events of every stream in the order they were recorded."""
        try:
            return self.recorder.select_notifications(start, limit)  # type: ignore[no-any-return]
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    def states_after(self, position: int, limit: int) -> list[tuple[int, str, bytes]]:
        """Up to ``limit`` (notification id, stream, state) rows after ``position``,
        in notification order: the lean read the warehouse pages through."""
        if self._reads is not None:
            return self._reads.states_after(position, limit)
        try:
            return self.recorder.select_states_after(position, limit)  # type: ignore[no-any-return]
        except _es().PersistenceError as e:
            if "lock timeout" in str(e):
                raise StoreError(
                    _(
                        "cannot follow {store}: a write has held the event table for "
                        "longer than the lock timeout (a bulk import?); try again when it ends",
                        store=self.describe(),
                    )
                ) from e
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    def max_notification_id(self) -> int:
        if self._reads is not None:
            return self._reads.max_notification_id()
        try:
            return self.recorder.max_notification_id() or 0  # type: ignore[no-any-return]
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    def listen(self, heard: Callable[[str | None], None]) -> AppendListener | None:
        """On PostgreSQL, an :class:`~ledger.log.store.listener.AppendListener` telling
        ``heard`` of every append any process commits here, as it commits; ``None`` on
        SQLite, whose writers tell no one (read what is new with :meth:`states_after`)."""
        if self.kind != "postgresql":
            return None
        # lazy: a command on a SQLite ledger imports no PostgreSQL driver (tests/test_cli_startup.py)
        from ledger.log.store.listener import AppendListener

        rec = self.recorder
        return AppendListener(
            self.listen_params,
            rec.channel_name,
            rec.listen_key,
            heard,
            table=rec.table,
            changed=rec.forget_listened,
        )

    # --- snapshots: a cache of folded states, never the truth ------------------

    def put_snapshots(self, rows: Sequence[tuple[str, int, str, bytes]]) -> None:
        """Store snapshots; one that another process wrote first is skipped."""
        if self.read_only:
            return  # a cache, and reading never writes
        stored = [_es().StoredEvent(s, v, t, b) for s, v, t, b in rows]
        try:
            self.snapshots.insert_events(stored)
        except _es().IntegrityError:
            for one in stored:
                with contextlib.suppress(_es().IntegrityError):
                    self.snapshots.insert_events([one])
        except _es().PersistenceError:
            pass  # a cache that cannot be written (read-only, disk full) is just not used

    def snapshot(self, key: str, lte: int) -> StoredEvent | None:
        """The latest snapshot under ``key`` at or before version ``lte``."""
        try:
            rows = self.snapshots.select_events(key, lte=lte, desc=True, limit=1)
        except _es().PersistenceError:
            return None
        return rows[0] if rows else None

    # --- keys: the ledger's signing key and the keys it trusts (never exported) ---

    def put_key(self, stream: str, version: int, topic: str, state: bytes) -> bool:
        """Store one key record; False when that version was taken by another writer."""
        try:
            self.keys.insert_events([_es().StoredEvent(stream, version, topic, state)])
        except _es().IntegrityError:
            return False
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot write to {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e
        return True

    def key_records(self, stream: str, *, last: bool = False) -> Sequence[StoredEvent]:
        """Every key record of a stream, oldest first (``last``: only the newest)."""
        if not self._has(KEYS_TABLE):
            return []
        try:
            if last:
                return self.keys.select_events(stream, desc=True, limit=1)  # type: ignore[no-any-return]
            return self.keys.select_events(stream)  # type: ignore[no-any-return]
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    # --- the current campaign and each campaign's acting character: this ledger's choices

    def current_campaign(self) -> str | None:
        """The id of the campaign last chosen with ``ledger use`` or ``ledger new``."""
        rows = self.key_records(CURRENT_STREAM, last=True)
        return rows[0].state.decode() if rows else None

    def use_campaign(self, campaign_id: str) -> None:
        """Make a campaign current: one more row on the current-campaign stream."""
        self._choose(CURRENT_STREAM, "campaign.used", campaign_id, _("the current campaign"))

    def acting_character(self, campaign_id: str) -> str | None:
        """The character last chosen to act in a campaign on this ledger, if any."""
        rows = self.key_records(ACTING_STREAM + campaign_id, last=True)
        return rows[0].state.decode() if rows else None

    def act_as(self, campaign_id: str, name: str) -> None:
        """Choose the acting character of a campaign: one more row on its stream."""
        self._choose(ACTING_STREAM + campaign_id, "character.acting", name, _("the acting character"))

    def _choose(self, stream: str, topic: str, value: str, what: str) -> None:
        """One more row on a stream of this ledger's choices (the last row is the choice),
        retried while another writer takes the same version."""
        for __ in range(50):
            rows = self.key_records(stream, last=True)
            version = rows[0].originator_version + 1 if rows else 1
            if self.put_key(stream, version, topic, value.encode()):
                return
        raise StoreError(
            _("cannot record {what} in {store}: it is busy; try again", what=what, store=self.describe())
        )

    # --- dice seeds: secret until revealed, never in the log or an export ---------

    def put_seed(self, stream: str, state: bytes, *, exist_ok: bool = False) -> None:
        """Store one record of the seed table (a commitment's secret seed, or a branch's
        note that it has commitments); with ``exist_ok`` one written first is kept."""
        try:
            self.seeds.insert_events([_es().StoredEvent(stream, 1, "dice.seed", state)])
        except _es().IntegrityError:
            if not exist_ok:
                raise StoreError(
                    _(
                        "the seed table of {store} already holds {stream}",
                        store=self.describe(),
                        stream=stream,
                    )
                ) from None
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot write to {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    def seed_record(self, stream: str) -> bytes | None:
        try:
            rows = self.seeds.select_events(stream, limit=1)
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e
        return bytes(rows[0].state) if rows else None

    # --- the live table's seats and answered requests (never exported) -------------

    def put_private(self, table: str, stream: str, version: int, topic: str, state: bytes) -> bool:
        """Store one row of the seats or requests table (``SEATS_TABLE``,
        ``REQUESTS_TABLE``); False when that version was taken by another writer."""
        try:
            self._private(table).insert_events([_es().StoredEvent(stream, version, topic, state)])
        except _es().IntegrityError:
            return False
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot write to {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e
        return True

    def put_private_rows(self, table: str, rows: Sequence[tuple[str, int, str, bytes]]) -> bool:
        """Store rows of the seats or requests table in one transaction, all or none;
        False when one of their versions was taken by another writer."""
        if not rows:
            return True
        try:
            self._private(table).insert_events([_es().StoredEvent(*row) for row in rows])
        except _es().IntegrityError:
            return False
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot write to {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e
        return True

    def private_records(self, table: str, stream: str, gt: int | None = None) -> Sequence[StoredEvent]:
        """The rows of one stream of the seats or requests table after version ``gt``."""
        if not self._has(table):
            return []
        try:
            return self._private(table).select_events(stream, gt=gt)  # type: ignore[no-any-return]
        except _es().PersistenceError as e:
            raise StoreError(
                _("cannot read {store}: {reason}", store=self.describe(), reason=reason(e))
            ) from e

    def _private(self, table: str) -> Any:
        return {SEATS_TABLE: self.seats, REQUESTS_TABLE: self.requests, SEALED_TABLE: self.sealed}[table]
