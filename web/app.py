"""The live table's application: ``create_app(ledger_target)`` is what ``ledger serve`` runs.

One :class:`Table` per process holds the ledger (opened on first use, on the table's own
thread: every ledger call runs there, one at a time), the seats, the open streams and the
count of guessed secrets. The guards wrap every response: a Content-Security-Policy that
allows this origin's own files only (no inline script, no other origin), and headers that
keep the page out of frames and its links' secrets out of referrers.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.campaign import Ledger
from ledger.seats import Seat, Seats
from ledger.web import api
from ledger.web.auth import Guesses
from ledger.web.stream import Feeds

T = TypeVar("T")

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
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="ledger")
        self._book: Ledger | None = None
        self._seats: Seats | None = None
        self.guesses = guesses or Guesses()
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
        return self.seats.resolve(secret)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` on the ledger thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, functools.partial(work, *args))

    def heads_and_revoked(self, campaign_ids: list[str]) -> tuple[dict[str, int], set[str]]:
        """The head of each watched campaign, and the labels of the revoked seats."""
        book = self.book
        heads = {cid: book.head(book.campaign_by_id(cid)) for cid in campaign_ids}
        return heads, {s.label for s in self.seats.all() if s.revoked is not None}

    def close(self) -> None:
        def closing() -> None:
            if self._book is not None:
                self._book.close()
                self._book = None
                self._seats = None

        self._thread.submit(closing).result()


class Guards:
    """Adds the Content-Security-Policy and the other guard headers to every response, and
    answers a fault of the server's own (a bug) with the error object, never a traceback."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def guarded(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [h for h in message.get("headers", []) if h[0].lower() not in dict(GUARD_HEADERS)]
                message = {**message, "headers": [*headers, *GUARD_HEADERS]}
            await send(message)

        try:
            await self.app(scope, receive, guarded)
        except Exception as e:
            if started:
                raise
            await api.server_error(e)(scope, receive, guarded)


def create_app(ledger_target: str, *, guesses: Guesses | None = None) -> Starlette:
    """The live table over the ledger at ``ledger_target`` (a file path or a PostgreSQL URL)."""
    table = Table(ledger_target, guesses=guesses)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
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
    return app
