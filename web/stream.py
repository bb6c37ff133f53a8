"""The live feed: every new event of a campaign to every open page, as Server-Sent Events.

Each message is one log entry (``web.entries``) with ``id:`` its version, so a client that
reconnects with ``Last-Event-ID`` (``EventSource`` does it by itself) gets exactly the
events after it. An undo or redo is an event like any other (``ActionUndone`` names the
versions it takes back), so every page strikes the action through.

One :class:`Feed` per followed campaign reads what is new once, on the ledger thread, and
encodes each message once; every stream of that campaign in this process sends the same
bytes. A stream that is behind what its feed holds (a new stream, a resumed one, one that
fell far behind) reads its own pages from the store until it is caught up: the store is the
truth, and the feed only spares each stream its own read, so no message is ever skipped or
sent twice.

What wakes a feed: an append through this process, at once (the endpoint that made it
says so); on PostgreSQL an append through any process, at its commit (the store's
notification, :meth:`ledger.log.store.Store.listen`); on SQLite, whose writers tell no
one, the appends since the last look, read every :data:`POLL` seconds (another process's,
a command line's). The seats are read every :data:`POLL` seconds too: a revoked seat's
streams end with a ``revoked`` message, and a seat offered a seat at a fork (the GM forked
and took the table along) is told on its streams by an ``offer`` message, which is no log
entry and has no ``id``.

A seat follows a table from at most :data:`STREAMS_PER_SEAT` streams in a process: one more
ends the seat's oldest with a ``replaced`` message. When the server stops, every stream
ends (:meth:`Feeds.close`), whole, and each page's ``EventSource`` reconnects by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import msgspec

from ledger import i18n
from ledger.i18n import _, n_

if TYPE_CHECKING:
    from ledger.log.store.listener import AppendListener
    from ledger.web.app import Table

POLL = 0.25
"""Seconds between two looks at the seats (and, on SQLite, at what was appended)."""
KEEPALIVE = 15.0
"""Seconds of quiet after which a comment line keeps proxies from closing the stream."""
HELD = 256
"""The latest messages a feed holds for its streams; one further behind reads the store."""
STREAMS_PER_SEAT = 8
"""The most streams one seat holds open in a process: a ninth ends the seat's oldest."""

Sent = bytes | dict[str, bytes]
"""A Server-Sent Events message: one for every stream, or one per language (an entry's words
said in each, ``web.entries.feed_languages``), each stream sending its own connection's."""
Message = tuple[int, Sent]
"""A version and its Server-Sent Events message, encoded once for every stream."""
SeatKey = tuple[str, str]
"""A seat's campaign id and label."""


class Offer(msgspec.Struct, frozen=True):
    """A seat at a fork offered to a seat of its parent: the fork's name and where to
    take it (``POST`` that URL with the parent seat's cookie or token)."""

    campaign: str
    url: str
    role: str
    character: str | None


def ended(kind: str, error: str, text: str) -> bytes:
    """The last message of a stream that ends for ``kind`` (``revoked``, ``replaced``)."""
    body = {"error": {"type": error, "message": text, "exit_code": 1}}
    return b"event: %s\ndata: %s\n\n" % (kind.encode(), msgspec.json.encode(body))


class Following:
    """One open stream: its seat, what wakes it, and whether a newer one replaced it."""

    def __init__(self, seat: SeatKey) -> None:
        self.seat = seat
        self.wake = asyncio.Event()
        self.replaced = False


WORDED = ("summary", "who")
"""An entry's fields said in words (a dict by language, when it is said in several)."""


def message(item: dict[str, Any]) -> Message:
    """An entry as its stream message: ``id:`` its version, ``data:`` the entry; one per
    language when its words are said in several (``web.entries.entry``'s ``langs``)."""
    version = item["version"]
    langs = next((list(item[k]) for k in WORDED if isinstance(item.get(k), dict)), None)
    if langs is None:
        return version, b"id: %d\ndata: %s\n\n" % (version, msgspec.json.encode(item))
    each = {}
    for lang in langs:
        said = {k: item[k][lang] if isinstance(item.get(k), dict) else item.get(k) for k in WORDED}
        each[lang] = b"id: %d\ndata: %s\n\n" % (version, msgspec.json.encode({**item, **said}))
    return version, each


def in_language(sent: Sent, lang: str) -> bytes:
    """A message as a stream in ``lang`` sends it (English where it was not said in ``lang``)."""
    if isinstance(sent, bytes):
        return sent
    return sent.get(lang) or sent.get("en") or next(iter(sent.values()))


class Feed:
    """One followed campaign in this process: the version its last read reached, the latest
    messages, and the streams waiting for more."""

    def __init__(self, campaign_id: str) -> None:
        self.campaign_id = campaign_id
        self.head: int | None = None
        """The version the feed has read up to (None before its first read)."""
        self.held: deque[Message] = deque(maxlen=HELD)
        self.waiting: set[asyncio.Event] = set()
        self.stale = True
        """Something may have been appended since the last read."""
        self.reader: asyncio.Task[None] | None = None

    def since(self, after: int) -> list[Message] | None:
        """The held messages after version ``after``; None when the feed cannot say (not
        read yet, or no longer holding the version after ``after``): read the store."""
        if self.head is None:
            return None
        if after >= self.head:
            return []
        if not self.held or self.held[0][0] > after + 1:
            return None
        return [m for m in self.held if m[0] > after]

    def publish(self, head: int, messages: list[Message]) -> None:
        """Hold the messages up to version ``head`` (those past the feed's head: a read and
        a write may both bring one) and wake the streams."""
        if self.head is not None:
            if head <= self.head:
                return
            messages = [m for m in messages if m[0] > self.head]
        self.held.extend(messages)
        self.head = head
        for wake in self.waiting:
            wake.set()


class Feeds:
    """The feeds of one process, by campaign id, and the watch that wakes them."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.feeds: dict[str, Feed] = {}
        self.streams: dict[str, str] = {}
        """The store stream each followed campaign appends to, and that campaign's id."""
        self.revoked: set[SeatKey] = set()
        self.offers: dict[SeatKey, tuple[Offer, ...]] = {}
        """The offers each seat has not taken, as the watch last read them."""
        self.seated: dict[SeatKey, list[Following]] = {}
        """Each seat's open streams, the oldest first."""
        self.closing = False
        """The server is stopping: every stream ends."""
        self._watch: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # --- waking -------------------------------------------------------------------------

    def changed(self, campaign_id: str) -> None:
        """Something was appended to the campaign: its feed reads what is new."""
        feed = self.feeds.get(campaign_id)
        if feed is None:
            return
        feed.stale = True
        if feed.reader is None or feed.reader.done():
            feed.reader = asyncio.get_running_loop().create_task(self._read(feed))

    def recorded(self, campaign_id: str, messages: list[Message]) -> None:
        """What a write through this process just recorded in the campaign, as messages:
        held at once when they follow the feed's head, else the feed reads what is new."""
        feed = self.feeds.get(campaign_id)
        if feed is None:
            return
        if messages and feed.head is not None and messages[0][0] == feed.head + 1:
            feed.publish(messages[-1][0], messages)
        else:
            self.changed(campaign_id)

    def _heard(self, stream: str | None) -> None:
        """An append to ``stream`` (None: to any, maybe several)."""
        if stream is None:
            for campaign_id in list(self.feeds):
                self.changed(campaign_id)
        elif stream in self.streams:
            self.changed(self.streams[stream])

    def heard(self, stream: str | None) -> None:
        """The store's listener heard an append (on its own thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._heard, stream)

    async def _read(self, feed: Feed) -> None:
        while feed.stale and feed.waiting:
            feed.stale = False
            try:
                stream, head, messages, more = await self.table.run(
                    self.table.news, feed.campaign_id, feed.head
                )
            except Exception:  # the store is away for a moment: read again after a pause
                feed.stale = True
                await asyncio.sleep(POLL)
                continue
            self.streams[stream] = feed.campaign_id
            feed.publish(head, messages)
            feed.stale = feed.stale or more

    # --- the watch ----------------------------------------------------------------------

    def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self._watch is None or self._watch.done():
            self._watch = self._loop.create_task(self._watching())

    def close(self) -> None:
        """End every stream, whole (the server is stopping)."""
        self.closing = True
        self._wake_all()

    def _wake_all(self) -> None:
        for feed in self.feeds.values():
            for wake in feed.waiting:
                wake.set()

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watch
            self._watch = None
        for feed in self.feeds.values():
            if feed.reader is not None:
                feed.reader.cancel()

    async def _watching(self) -> None:
        table = self.table
        listener: AppendListener | None = None
        position: int | None = None
        try:
            listener = await table.run(table.listen, self.heard)
            while self.feeds:
                try:
                    position, streams, revoked, offers = await table.run(
                        table.look, position, listener is None
                    )
                except asyncio.CancelledError:
                    raise
                except Exception:  # the store is away for a moment: the next round reads again
                    streams, revoked, offers = set(), self.revoked, self.offers
                for stream in streams:
                    self._heard(stream)
                if revoked != self.revoked or offers != self.offers:
                    self.revoked, self.offers = revoked, offers
                    self._wake_all()
                await asyncio.sleep(POLL)
        finally:
            self._watch = None
            if listener is not None:
                await asyncio.to_thread(listener.close)

    # --- a stream -----------------------------------------------------------------------

    def _feed(self, campaign_id: str) -> Feed:
        feed = self.feeds.get(campaign_id)
        if feed is None:
            feed = self.feeds[campaign_id] = Feed(campaign_id)
        return feed

    async def follow(
        self,
        campaign_id: str,
        after: int,
        read: Callable[[int], tuple[list[dict[str, Any]], bool]],
        seat: SeatKey,
        sees: Callable[[bytes], bool] = lambda _sent: True,
        lang: str | None = None,
    ) -> AsyncIterator[bytes]:
        """The stream's bytes: entries after ``after`` as the store holds them, then each
        new one as it is recorded, and the seat's offers, until the seat is revoked, a newer
        stream of the seat replaces this one, the server stops or the client leaves. Its
        words are in ``lang`` (default: the language of the moment), its connection's."""
        lang = lang or i18n.language()
        feed = self._feed(campaign_id)
        mine = Following(seat)
        wake = mine.wake
        held_by_seat = self.seated.setdefault(seat, [])
        held_by_seat.append(mine)
        if len(held_by_seat) > STREAMS_PER_SEAT:
            oldest = held_by_seat.pop(0)
            oldest.replaced = True
            oldest.wake.set()
        feed.waiting.add(wake)
        self._start()
        if feed.head is None:
            self.changed(campaign_id)
        told: set[Offer] = set()
        try:
            yield b"retry: 1000\n\n"
            while not self.closing:
                if seat in self.revoked:
                    with i18n.using(lang):
                        text = _("this seat was revoked")
                    yield ended("revoked", "Unauthorized", text)
                    return
                if mine.replaced:
                    with i18n.using(lang):
                        text = n_(
                            "this seat follows the table from {n} newer page; "
                            "this one stopped (close one and reload this one)",
                            "this seat follows the table from {n} newer pages; "
                            "this one stopped (close one and reload this one)",
                            STREAMS_PER_SEAT,
                        )
                    yield ended("replaced", "TooManyStreams", text)
                    return
                wake.clear()
                for offer in self.offers.get(seat, ()):
                    if offer not in told:
                        told.add(offer)
                        yield b"event: offer\ndata: %s\n\n" % msgspec.json.encode(offer)
                held = feed.since(after)
                if held is None:  # behind the feed, or the feed not read yet: the store's pages
                    entries, more = await self.table.run(read, after)
                    for item in entries:
                        version, sent = message(item)
                        yield in_language(sent, lang)
                        after = version
                    if more:
                        continue
                    held = feed.since(after) or []
                for version, each in held:
                    sent = in_language(each, lang)
                    if sees(sent):  # a whisper is its recipients' and the GM's alone
                        yield sent
                    after = version
                if wake.is_set():
                    continue
                try:
                    await asyncio.wait_for(wake.wait(), KEEPALIVE)
                except TimeoutError:
                    yield b": keepalive\n\n"
        finally:
            feed.waiting.discard(wake)
            if mine in held_by_seat:
                held_by_seat.remove(mine)
            if not held_by_seat and self.seated.get(seat) is held_by_seat:
                del self.seated[seat]
            if not feed.waiting and self.feeds.get(campaign_id) is feed:
                del self.feeds[campaign_id]
