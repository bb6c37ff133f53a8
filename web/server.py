"""How ``ledger serve`` listens: uvicorn on httptools, its edges held.

uvicorn's httptools protocol reads a request's head with no limit of size or time: llhttp
keeps none, and uvicorn's ``h11_max_incomplete_event_size`` is the h11 protocol's only. It
takes connections without a bound (``limit_concurrency`` answers 503 only once a head has
arrived, and counts the half-sent ones), and a client that stops reading holds its
response where it stands for ever. :class:`TableProtocol` is that protocol with:

- a head of at most :data:`HEAD_LIMIT` bytes (the request line and every header): past
  it, 431 and the connection closed, before more is parsed;
- a head that arrives within :data:`HEAD_TIMEOUT` seconds of the connection or of its first
  byte, else 408 (or, with nothing sent, the connection closed);
- at most ``limit`` connections: one more closes the connection that has waited longest
  without a whole request head (a half-sent request, an idle keep-alive), and only when
  every one of them is being answered is the new one refused with 503;
- a response whose client has read nothing for :data:`STALL` seconds while the server
  holds a full write buffer (the transport's high-water mark, 64 KiB) is cut: a stream that
  does not read holds no more than that.

Every refusal is the API's error object. :class:`TableServer` ends the open streams as it
stops (before it waits for the connections), so a stop prints no traceback and each page's
``EventSource`` reconnects by itself; it tells the command line where it listens once it
does, and when it has stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import socket
import time
from collections.abc import Callable
from typing import Any

import msgspec
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ledger.errors import LedgerError
from ledger.i18n import _
from ledger.web.errors import HeadersTooLarge, RequestTimeout, Unavailable, error_object, status_of

HEAD_LIMIT = 16 * 1024
"""The most bytes a request's head may take: its request line and every header."""
HEAD_TIMEOUT = 10.0
"""Seconds a request's head may take to arrive, from the connection or its first byte."""
STALL = 10.0
"""Seconds a response may wait on a client that reads nothing before it is cut."""
RESERVED_FILES = 64
"""Open files kept for the ledger and the process itself, below the connections."""


def connection_limit() -> int:
    """How many connections this process may hold: its open-file limit less
    :data:`RESERVED_FILES`."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 60_000
    return max(16, soft - RESERVED_FILES)


def refusal_bytes(error: LedgerError) -> bytes:
    """A whole HTTP/1.1 answer with the error object, that closes the connection."""
    body = msgspec.json.encode(error_object(error))
    status = status_of(error)
    reason = {408: b"Request Timeout", 431: b"Request Header Fields Too Large", 503: b"Service Unavailable"}
    return b"".join(
        [
            b"HTTP/1.1 %d %s\r\n" % (status, reason.get(status, b"")),
            b"content-type: application/json\r\n",
            b"content-length: %d\r\n" % len(body),
            b"connection: close\r\n\r\n",
            body,
        ]
    )


class TableProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a bounded head, a head timeout, a bound on the
    connections and a cut for a client that stops reading (the module's docstring)."""

    limit = 1000
    """The most connections held at once (:func:`serve` sets it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.waiting_since: float | None = None
        """Since when this connection has waited for a whole request head (None: a
        request is being answered)."""
        self._in_head = True
        self._head = 0
        self._tail = b""
        self._head_timer: asyncio.TimerHandle | None = None
        self._stall_timer: asyncio.TimerHandle | None = None
        self._refused = False

    # --- the connection -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.limit and not self._evict():
            self.transport = transport
            self._refuse(
                Unavailable(
                    _("the table holds {n} connections, every one busy; try again in a moment", n=self.limit)
                )
            )
            return
        super().connection_made(transport)
        self.waiting_since = time.monotonic()
        self._arm_head_timer()

    def _evict(self) -> bool:
        """Close the connection that has waited longest without a whole request head."""
        waiting = [
            c
            for c in self.connections
            if isinstance(c, TableProtocol) and c.waiting_since is not None and not c.transport.is_closing()
        ]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c.waiting_since or 0.0)
        oldest.waiting_since = None
        oldest.transport.close()
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        if self._refused and self.flow is None:
            return
        super().connection_lost(exc)

    def _cancel_timers(self) -> None:
        for timer in (self._head_timer, self._stall_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._stall_timer = None

    def _refuse(self, error: LedgerError) -> None:
        """Answer with the error object and close, reading nothing more."""
        self._refused = True
        self._cancel_timers()
        if not self.transport.is_closing():
            self.transport.write(refusal_bytes(error))
            self.transport.close()

    # --- the head -----------------------------------------------------------------------

    def _answering(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(HEAD_TIMEOUT, self._head_timed_out)

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or not self._in_head or self._answering():
            return
        if self._head:
            self._refuse(
                RequestTimeout(
                    _(
                        "the request's head did not arrive within {seconds:g} s; send it whole",
                        seconds=HEAD_TIMEOUT,
                    )
                )
            )
        else:
            self._refused = True
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused or self.transport.is_closing():
            return
        if self._in_head:
            if not self._answering():
                self._arm_head_timer()
            seen = self._tail + data
            end = seen.find(b"\r\n\r\n")
            self._head += end + 4 - len(self._tail) if end >= 0 else len(data)
            self._tail = seen[-3:]
            if self._head > HEAD_LIMIT:
                self._refuse(
                    HeadersTooLarge(
                        _(
                            "the request's head takes more than {kib} KiB; send fewer or shorter headers",
                            kib=HEAD_LIMIT // 1024,
                        )
                    )
                )
                return
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self.waiting_since = None
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head, self._head, self._tail = True, 0, b""

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.cycle is None or self.cycle.response_complete:
            self.waiting_since = time.monotonic()

    # --- a client that does not read ----------------------------------------------------

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall_timer is None:
            self._stall_timer = self.loop.call_later(STALL, self._stalled)

    def resume_writing(self) -> None:
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None
        super().resume_writing()

    def _stalled(self) -> None:
        self._stall_timer = None
        if not self.transport.is_closing():
            self.transport.abort()


class TableServer(uvicorn.Server):
    """uvicorn's server that says where it listens, ends the streams first when it stops,
    and says when it has stopped."""

    def __init__(
        self,
        config: uvicorn.Config,
        *,
        listening: Callable[[list[tuple[str, int]]], None],
        closing: Callable[[], None],
        stopped: Callable[[], None],
    ) -> None:
        super().__init__(config)
        self._listening = listening
        self._closing = closing
        self._stopped = stopped

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._listening([s.getsockname()[:2] for server in self.servers for s in server.sockets])

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()  # no new connection, then the streams end, then the rest waits
        self._closing()
        try:
            await super().shutdown(sockets)
        finally:
            self._stopped()


def serve(
    app: Any,
    *,
    host: str,
    port: int,
    certfile: str | None = None,
    keyfile: str | None = None,
    forwarded_allow_ips: list[str] | None = None,
    max_connections: int | None = None,
    listening: Callable[[list[tuple[str, int]]], None] = lambda found: None,
    closing: Callable[[], None] = lambda: None,
    stopped: Callable[[], None] = lambda: None,
) -> None:
    """Serve ``app`` until Ctrl-C (or SIGTERM): ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` are read only from ``forwarded_allow_ips`` (none by default)."""
    protocol = type("TableProtocol", (TableProtocol,), {"limit": max_connections or connection_limit()})
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol,
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
        log_level="warning",
        lifespan="on",
        proxy_headers=bool(forwarded_allow_ips),
        forwarded_allow_ips=forwarded_allow_ips or [],
        timeout_graceful_shutdown=2,
    )
    server = TableServer(config, listening=listening, closing=closing, stopped=stopped)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the server has stopped
        server.run()
