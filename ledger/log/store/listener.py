"""Hearing appends on PostgreSQL as they commit, in any process: the live table's
:class:`AppendListener`, and eventsourcing's subscription built on it.

A listener holds a shared advisory lock (:data:`LISTEN_CLASS` and the event table's key)
while it listens: writers look for it and notify only while one is held, so a ledger
nobody listens to pays nothing for it (``ledger.log.store.postgres``). Imported for a
PostgreSQL target only.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from eventsourcing.persistence import Notification
from eventsourcing.persistence import Subscription as StockSubscription
from psycopg.sql import SQL, Identifier

LISTEN_CLASS = 0x4C454447
"""The first half of the advisory-lock key a listener holds (shared) while it listens;
the second half is a hash of the event table's schema and name."""

RECONNECT = 0.5
"""Seconds a listener waits before it connects again after a fault."""


class AppendListener:
    """Tells ``heard`` of each append any process commits to a PostgreSQL ledger: the
    stream it went to, or ``None`` when it may have missed some (at its start, after a
    lost connection, or for an insert spanning several streams), so that its caller
    reads everything it follows. It listens on a connection and a thread of its own,
    holding the shared advisory lock writers look for before they notify, until
    :meth:`close`."""

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
                    # Let go before closing: the server ends a closed connection's session
                    # (and frees its lock) a moment later, and writers would notify till then.
                    self.listening.clear()
                    conn.execute("SELECT pg_advisory_unlock_shared(%s, %s)", [LISTEN_CLASS, self._key])
            except Exception:  # the server is away, or its answer broke: listen again after a pause
                self.listening.clear()
                self._stop.wait(RECONNECT)
        self.listening.clear()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


class Subscription(StockSubscription[Any]):
    """eventsourcing's subscription to a PostgreSQL ledger: every notification after
    ``gt`` (of ``topics``, if given), in order, then each new one as it commits, until
    :meth:`stop`. The pages are read on the iterating thread, from the recorder's
    ``select_notifications`` (which never passes a write still in flight); an
    :class:`AppendListener` wakes it. It is listening before the constructor returns,
    and reads everything again whenever its listener may have missed an append, so no
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
            recorder.listen_params, recorder.channel_name, recorder.listen_key, self._heard
        )
        self._listener.listening.wait(self.WAIT)

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
