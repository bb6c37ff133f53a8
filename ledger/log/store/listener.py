"""Hearing appends on PostgreSQL as they commit, in any process: the live table's
:class:`AppendListener`, and eventsourcing's subscription built on it.

A listener holds a shared advisory lock (:data:`LISTEN_CLASS` and the event table's key)
while it listens: writers look for it and notify only while one is held, so a ledger
nobody listens to pays nothing for it (``ledger.log.store.postgres``). Imported for a
PostgreSQL target only.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from eventsourcing.persistence import Notification
from eventsourcing.persistence import Subscription as StockSubscription
from psycopg.errors import InsufficientPrivilege, LockNotAvailable
from psycopg.sql import SQL, Identifier

LISTEN_CLASS = 0x4C454447
"""The first half of the advisory-lock key a listener holds (shared) while it listens;
the second half is a hash of the event table's schema and name."""

LISTEN_CACHE = 1.0
"""Seconds a writer keeps its answer to whether anyone listens (``pg_locks``, asked at
an append once this long has passed): an append notifies while a listener holds its
lock, as a writer last saw it."""

SETTLE = LISTEN_CACHE + 0.25
"""Seconds after taking its lock a listener waits before it says it listens: by then
every writer's answer was given after the lock was taken, so every append from then on
notifies, and the one read of everything it asks for (``None``), made once the appends
in flight have ended, holds whatever was appended before."""

RECONNECT = 0.5
"""Seconds a listener waits before it connects again after a fault."""

SETTLE_TRY = "5ms"
"""How long a listener's look for the moment no append is in flight waits in the queue
for the table's lock (a queued request holds new writers back), before it tries again."""


class AppendListener:
    """Tells ``heard`` of each append any process commits to a PostgreSQL ledger: the
    stream it went to, or ``None`` when it may have missed some (once it listens, after a
    lost connection, or for an insert spanning several streams), so that its caller
    reads everything it follows. It listens on a connection and a thread of its own,
    holding the shared advisory lock writers look for before they notify, until
    :meth:`close`; ``changed`` is called when it takes or lets go of that lock (this
    process's writers then look again at once).

    Writers look for the lock once a second, not at every append. So the listener says
    it listens (:attr:`listening`, then ``None``) only :data:`SETTLE` seconds after
    taking its lock, once no append is in flight (a moment's ``SHARE`` lock on the event
    table): an append it is not told of then committed before that, and the read it asks
    for finds it."""

    def __init__(
        self,
        params: dict[str, Any],
        channel: str,
        key: int,
        heard: Callable[[str | None], None],
        *,
        table: str | None = None,
        changed: Callable[[], None] | None = None,
    ) -> None:
        self._params = params
        self._channel = channel
        self._key = key
        self._table = table
        self._heard = heard
        self._changed = changed or (lambda: None)
        self._stop = threading.Event()
        self.locked = threading.Event()
        """Set while the listener holds its lock: appends of this process notify."""
        self.listening = threading.Event()
        """Set while the listener listens and every append, of any process, notifies."""
        self._thread = threading.Thread(target=self._run, name="ledger-listen", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(**self._params, connect_timeout=3, autocommit=True) as conn:
                    conn.execute("SELECT pg_advisory_lock_shared(%s, %s)", [LISTEN_CLASS, self._key])
                    conn.execute(SQL("LISTEN {0}").format(Identifier(self._channel)))
                    self.locked.set()
                    self._changed()
                    settled_at = time.monotonic() + SETTLE
                    while not self._stop.is_set():
                        if (
                            not self.listening.is_set()
                            and time.monotonic() >= settled_at
                            and self._settle(conn)
                        ):
                            self.listening.set()
                            self._heard(None)  # whatever was appended before it listened
                        for note in conn.notifies(timeout=0.25):
                            self._heard(note.payload or None)
                    # Let go before closing: the server ends a closed connection's session
                    # (and frees its lock) a moment later, and writers would notify till then.
                    self.listening.clear()
                    self.locked.clear()
                    conn.execute("SELECT pg_advisory_unlock_shared(%s, %s)", [LISTEN_CLASS, self._key])
                    self._changed()
            except Exception:  # the server is away, or its answer broke: listen again after a pause
                self.listening.clear()
                self.locked.clear()
                self._stop.wait(RECONNECT)
        self.listening.clear()
        self.locked.clear()

    def _settle(self, conn: psycopg.Connection[Any]) -> bool:
        """Wait for the appends in flight to end (a ``SHARE`` lock on the event table is
        granted only then), without queueing for long; False to try again shortly. A role
        that may not take the lock settles by the time waited alone."""
        if self._table is None:
            return True
        try:
            with conn.transaction():
                conn.execute(f"SET LOCAL lock_timeout = '{SETTLE_TRY}'")
                conn.execute(f"LOCK TABLE {self._table} IN SHARE MODE")
        except LockNotAvailable:
            return False
        except InsufficientPrivilege:
            return True
        return True

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


class Subscription(StockSubscription[Any]):
    """eventsourcing's subscription to a PostgreSQL ledger: every notification after
    ``gt`` (of ``topics``, if given), in order, then each new one as it commits, until
    :meth:`stop`. The pages are read on the iterating thread, from the recorder's
    ``select_notifications`` (which never passes a write still in flight); an
    :class:`AppendListener` wakes it. The appends of its own process wake it from the
    moment the constructor returns, every process's once the listener settles; it
    reads everything again whenever its listener may have missed an append, so no
    notification is skipped."""

    PAGE = 500
    WAIT = 10.0
    """Seconds the constructor waits for its listener to listen."""

    def __init__(self, recorder: Any, gt: int | None = None, topics: Sequence[str] = ()) -> None:
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        self._reader = recorder
        self._position = gt or 0
        self._kinds = tuple(topics)
        self._ready: deque[Notification] = deque()
        self._woken = threading.Event()
        self._woken.set()  # the first read, at once
        self._ended = threading.Event()
        self._listener = AppendListener(
            recorder.listen_params,
            recorder.channel_name,
            recorder.listen_key,
            self._heard,
            table=recorder.table,
            changed=recorder.forget_listened,
        )
        self._listener.locked.wait(self.WAIT)

    def _heard(self, stream: str | None) -> None:
        self._woken.set()

    def stop(self) -> None:
        """Stop: the iteration ends, and the listener lets go of its connection."""
        super().stop()
        self._ended.set()
        self._woken.set()
        self._listener.close()

    def __next__(self) -> Notification:
        while not self._ready:
            self._woken.wait()
            if self._ended.is_set():
                raise StopIteration
            self._woken.clear()
            got = self._reader.select_notifications(
                start=self._position, limit=self.PAGE, topics=self._kinds, inclusive_of_start=False
            )
            if got:
                self._ready.extend(got)
                self._position = got[-1].id
            if len(got) == self.PAGE:
                self._woken.set()  # a full page: there may be more
        if self._ended.is_set():
            raise StopIteration
        return self._ready.popleft()
