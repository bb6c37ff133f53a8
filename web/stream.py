"""The live feed: every new event of a campaign to every open page, as Server-Sent Events.

Each message is one log entry (``web.api.entry``) with ``id:`` its version, so a client
that reconnects with ``Last-Event-ID`` (``EventSource`` does it by itself) gets exactly
the events after it: the stream reads from the store what follows the last version it
sent, never from a queue that could drop or repeat one. An undo or redo is an event like
any other (``ActionUndone`` names the versions it takes back), so every page strikes the
action through. A stream wakes at once on an append in its own process, and at most
:data:`POLL` seconds after one in another process (a cheap read of each watched
campaign's head, on SQLite and PostgreSQL alike). A revoked seat's streams end with a
``revoked`` message within :data:`POLL` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from ledger.web.app import Table

POLL = 0.25
"""Seconds between two reads of the watched campaigns' heads and of the seats."""
KEEPALIVE = 15.0
"""Seconds of quiet after which a comment line keeps proxies from closing the stream."""
PAGE = 500


class Feeds:
    """The open streams of one process, by campaign id, and the watch over their heads."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.waiting: dict[str, set[asyncio.Event]] = {}
        self.heads: dict[str, int] = {}
        self.revoked: set[str] = set()
        self._watch: asyncio.Task[None] | None = None

    def notify(self, campaign_id: str) -> None:
        for wake in self.waiting.get(campaign_id, ()):
            wake.set()

    def _start(self) -> None:
        if self._watch is None or self._watch.done():
            self._watch = asyncio.get_running_loop().create_task(self._watching())

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watch
            self._watch = None

    async def _watching(self) -> None:
        while self.waiting:
            await asyncio.sleep(POLL)
            watched = [cid for cid, waiters in self.waiting.items() if waiters]
            try:
                heads, revoked = await self.table.run(self.table.heads_and_revoked, watched)
            except Exception:  # the store is away for a moment: the next round reads again
                continue
            for cid, head in heads.items():
                if self.heads.get(cid) != head:
                    self.heads[cid] = head
                    self.notify(cid)
            if revoked != self.revoked:
                self.revoked = revoked
                for cid in watched:
                    self.notify(cid)
        self._watch = None

    async def follow(
        self,
        campaign_id: str,
        after: int,
        read: Callable[[int], tuple[list[dict[str, Any]], bool]],
        still_seated: Callable[[], bool],
    ) -> AsyncIterator[bytes]:
        """The stream's bytes: entries after ``after`` as the store holds them, then each
        new one as it is recorded, until the seat is revoked or the client leaves."""
        wake = asyncio.Event()
        self.waiting.setdefault(campaign_id, set()).add(wake)
        self._start()
        try:
            yield b"retry: 1000\n\n"
            while True:
                if not still_seated():
                    body = {
                        "error": {"type": "Unauthorized", "message": "this seat was revoked", "exit_code": 1}
                    }
                    yield b"event: revoked\ndata: " + msgspec.json.encode(body) + b"\n\n"
                    return
                wake.clear()
                entries, more = await self.table.run(read, after)
                for item in entries:
                    yield b"id: %d\ndata: %s\n\n" % (item["version"], msgspec.json.encode(item))
                    after = item["version"]
                if more:
                    continue
                try:
                    await asyncio.wait_for(wake.wait(), KEEPALIVE)
                except TimeoutError:
                    yield b": keepalive\n\n"
        finally:
            waiters = self.waiting.get(campaign_id)
            if waiters is not None:
                waiters.discard(wake)
                if not waiters:
                    del self.waiting[campaign_id]
