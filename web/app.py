"""The live table's application: ``create_app(ledger_target)`` is what ``ledger serve`` runs.

One :class:`Table` per process holds the ledger (opened on first use, on the table's own
thread, ``web.ledger_thread``: every ledger call runs there, one at a time, and the calls
waiting together commit as one group), the seats, the open streams and the count of
guessed secrets. The guards wrap every response: a Content-Security-Policy that
allows this origin's own files only (no inline script, no other origin), and headers that
keep the page out of frames and its links' secrets out of referrers; a fault of the
server's own is answered with the error object and told, with its traceback, on
:data:`LOG` (``ledger serve`` writes it to stderr).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.campaign import Ledger
from ledger.trust.seats import Seat, SeatKey, Seats
from ledger.web import api
from ledger.web import stream as feed
from ledger.web.auth import Guesses, in_path, unknown_secret
from ledger.web.entries import entries_since, feed_languages
from ledger.web.language import Language
from ledger.web.ledger_thread import LedgerThread
from ledger.web.stream import Feeds

if TYPE_CHECKING:
    from ledger.log.store.listener import AppendListener

T = TypeVar("T")
LOG = logging.getLogger("ledger.web")
"""Where the server tells its own faults, with their tracebacks (``ledger serve``: stderr)."""
APPENDS = 1000
"""Appends one look of the SQLite watch reads; past that, every feed reads what is new."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""This origin's own files only: no inline script or style, nothing from elsewhere."""
GUARD_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class Table:
    """What one process serves: a ledger, its seats, the open streams, the guesses."""

    def __init__(self, target: str, *, guesses: Guesses | None = None) -> None:
        self.target = target
        self._thread = LedgerThread(self.flushed_together)
        self._book: Ledger | None = None
        self._seats: Seats | None = None
        self._read_at = 0.0
        self.guesses = guesses if guesses is not None else Guesses()
        self.shared_url: str | None = None
        """The address ``ledger serve`` announced (its LAN address with ``--lan``), for links."""
        self.feeds = Feeds(self)

    @property
    def book(self) -> Ledger:
        """The ledger (on the ledger thread only: see :meth:`run`)."""
        if self._book is None:
            self._book = Ledger(self.target, create=False)
        return self._book

    @property
    def seats(self) -> Seats:
        if self._seats is None:
            self._seats = Seats(self.book.store)
        return self._seats

    def resolve(self, secret: str) -> Seat | None:
        """The seat a secret opens (on the ledger thread, like every ledger call)."""
        self._read_at = time.monotonic()
        return self.seats.resolve(secret)

    def invitation(self, secret: str, lately: bool = False) -> tuple[Seat, str]:
        """The seat a link would seat, and its campaign's name (on the ledger thread); with
        ``lately``, the seats read again only if they were not read in the last second."""
        read = not lately or time.monotonic() - self._read_at > 1.0
        if read:
            self._read_at = time.monotonic()
        seat = self.seats.invitation(secret, read=read)
        return seat, self.book.campaign_by_id(seat.campaign).name

    def join(self, secret: str) -> tuple[Seat, str, str]:
        """Seat a device with a link: the seat, its campaign's name and the device's secret."""
        seat, device = self.seats.join(secret)
        return seat, self.book.campaign_by_id(seat.campaign).name, device

    def resolve_lately(self, secret: str) -> Seat | None:
        """The seat a secret opens, the seats read again only if they were not read in the
        last second (for an address past its guesses: on the ledger thread)."""
        if time.monotonic() - self._read_at > 1.0:
            return self.resolve(secret)
        return self.seats.known(secret)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` on the ledger thread, once what it recorded is durable."""
        return await asyncio.wrap_future(self._thread.submit(functools.partial(work, *args)))  # type: ignore[no-any-return]

    def flushed_together(self) -> contextlib.AbstractContextManager[None]:
        """The calls queued together commit as one group (on the ledger thread)."""
        if self._book is None:
            return contextlib.nullcontext()
        return self._book.store.flushed_together()

    def known_seat(self, secret: str) -> Seat | None:
        """The seat a secret opened when the seats were last read, without reading them
        (on the event loop): every ledger call checks it again (:meth:`confirm`)."""
        seats = self._seats
        return seats.known(secret) if seats is not None else None

    def confirm(self, seat: Seat) -> None:
        """Refuse a seat revoked since it was looked up (on the ledger thread)."""
        if self.seats.current(seat.key) is None:
            raise unknown_secret()

    # --- what the live feed reads (on the ledger thread) ------------------------------

    def news(self, campaign_id: str, after: int | None) -> tuple[str, int, list[feed.Message], bool]:
        """A campaign's stream, the version read up to, the messages after ``after`` (none
        on a first read, ``after`` None: it starts at the head) and whether more follow."""
        book = self.book
        c = book.campaign_by_id(campaign_id)
        stream = c.lineage[-1][0]
        if after is None:
            return stream, book.head(c), [], False
        found, more = entries_since(book, c, after, langs=feed_languages())
        messages = [feed.message(item) for item in found]
        return stream, messages[-1][0] if messages else after, messages, more

    def listen(self, heard: Callable[[str | None], None]) -> AppendListener | None:
        """A listener for every process's appends (PostgreSQL), None on SQLite."""
        return self.book.store.listen(heard)

    def look(
        self, position: int | None, appends: bool
    ) -> tuple[int | None, set[str | None], set[SeatKey], dict[SeatKey, tuple[feed.Offer, ...]]]:
        """What the watch reads every :data:`ledger.web.stream.POLL` seconds, in one trip:
        with ``appends`` (SQLite, whose writers tell no one), the streams appended to after
        ``position`` and the new position (the first look only takes the position; ``None``
        among the streams when more were appended than one read takes: every feed reads);
        the revoked seats; and the offers each seat has not taken."""
        streams: set[str | None] = set()
        if appends:
            store = self.book.store
            if position is None:
                position = store.max_notification_id()
            else:
                rows = store.states_after(position, APPENDS)
                if len(rows) == APPENDS:
                    position, streams = store.max_notification_id(), {None}
                elif rows:
                    position, streams = rows[-1][0], {stream for _, stream, _ in rows}
        return position, streams, self.revoked(), self.offers()

    def revoked(self) -> set[SeatKey]:
        """The revoked seats (campaign id, label)."""
        return {s.key for s in self.seats.all() if s.revoked is not None}

    def offers(self, only: SeatKey | None = None) -> dict[SeatKey, tuple[feed.Offer, ...]]:
        """The seats at forks offered to each seat (or to ``only``) and not taken yet, as
        the seats were last read (on the ledger thread)."""
        book, seats = self.book, self.seats
        found: dict[SeatKey, tuple[feed.Offer, ...]] = {}
        if only is not None:
            seats.refresh()
        for key, (seat, forks) in seats.offers(only).items():
            parent = book.campaign_by_id(key[0]).name
            found[key] = tuple(
                feed.Offer(
                    campaign=(name := book.campaign_by_id(fork).name),
                    url=f"/api/c/{in_path(parent)}/offers/{in_path(name)}",
                    role=seat.role,
                    character=seat.character,
                )
                for fork in forks
            )
        return found

    def close(self) -> None:
        def closing() -> None:
            if self._book is not None:
                self._book.close()
                self._book = None
                self._seats = None

        self._thread.submit(closing).result()
        self._thread.stop()


class Guards:
    """Adds the Content-Security-Policy and the other guard headers to every response, and
    answers a fault of the server's own (a bug) with the error object, never a traceback.
    Each response also says how long the server took to answer it, in milliseconds from
    the request's arrival to the answer's headers (``Server-Timing: app;dur=1.84``), so a
    client can tell the server's part of a round trip from the network's and its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        arrived = time.perf_counter()

        async def guarded(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [h for h in message.get("headers", []) if h[0].lower() not in dict(GUARD_HEADERS)]
                took = b"app;dur=%.2f" % ((time.perf_counter() - arrived) * 1000)
                message = {**message, "headers": [*headers, *GUARD_HEADERS, (b"server-timing", took)]}
            await send(message)

        try:
            await self.app(scope, receive, guarded)
        except Exception as e:
            if started:
                raise
            LOG.error("the server failed on %s %s", scope.get("method"), scope.get("path"), exc_info=e)
            await api.server_error(e)(scope, receive, guarded)


def create_app(ledger_target: str, *, guesses: Guesses | None = None) -> Starlette:
    """The live table over the ledger at ``ledger_target`` (a file path or a PostgreSQL URL)."""
    table = Table(ledger_target, guesses=guesses)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        table.feeds.closing = False  # a lifespan may run again (tests)
        try:
            yield
        finally:
            table.feeds.close()
            await table.feeds.stop()
            await table.run(lambda: None)
            table.close()

    app = Starlette(
        routes=api.routes(),
        exception_handlers={404: api.not_found, 405: api.not_allowed},
        lifespan=lifespan,
    )
    app.state.table = table
    app.add_middleware(Guards)
    app.add_middleware(Language)  # outermost: the guards' own answers are in the language too
    return app
