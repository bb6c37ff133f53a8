"""The log's entries as the live table sends them: ``ledger log --json``'s fields, the
event's data and how its action was decided, for the API's event pages and the live feed
alike (``web.schema.Entry`` describes one)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from ledger import i18n
from ledger.deciding.commands import Told, told_actions
from ledger.log.events import RESETS, ActionSealed
from ledger.log.records import Campaign, Recorded
from ledger.log.sealing import THE_GM, Viewer, content_seen, entry_seen
from ledger.log.state import told_as

Languages = tuple[str, ...] | None
"""The languages an entry's words are said in for a live feed (each stream sends its own
connection's, ``web.stream``); None: the language of the moment alone."""


def said_in(langs: tuple[str, ...], say: Any) -> dict[str, str]:
    """``say()`` in each of ``langs``."""
    found = {}
    for lang in langs:
        with i18n.using(lang):
            found[lang] = say()
    return found


def feed_languages() -> tuple[str, ...]:
    """The languages a live feed's entries are said in: every one the ledger speaks, and
    the language of the moment (the pseudo-language, where a test runs in it)."""
    return tuple(dict.fromkeys((*i18n.LANGUAGES, i18n.language())))


def entry(book: Any, told: Told, live: list[tuple[int, int]], langs: Languages = None) -> dict[str, Any]:
    """One event (with whether its action is the party's and its seat) as the page and
    any client read it: ``ledger log --json``'s fields, the event's data and how its
    action was decided (``web.schema.Entry``). With ``langs``, its words (``summary``,
    ``who``) are a dict, said in each language (``web.stream.message`` sends each stream
    its own)."""
    env, party, seat = told
    reset = isinstance(env.event, RESETS)
    how = env.decision
    decision = None
    if how is not None:
        dice = (
            "physical" if how.manual else "committed" if how.commitment else "unproven" if how.faces else None
        )
        decision = {
            "command": how.command,
            "seat": how.seat,
            "faces": list(how.faces),
            "dice": dice,
            "commitment": how.commitment,
        }
    return {
        "version": env.v,
        "action": env.action,
        "kind": env.event.kind,
        "at": env.at,
        "day": env.day,
        "actor": env.actor,
        "who": (
            told_as(env.event, env.actor, party)
            if langs is None
            else said_in(langs, lambda: told_as(env.event, env.actor, party))
        ),
        "party": party,
        "seat": seat,
        "summary": book.summary(env.event)
        if langs is None
        else said_in(langs, lambda: book.summary(env.event)),
        "undone": not reset and not any(lo < env.v <= hi for lo, hi in live),
        "event": json.loads(msgspec.json.encode(env.event)),
        "decision": decision,
    }


OPENING = ("dice.", "campaign.", "branch.")
"""The kinds of the core events that are an action's first, recorded by no command."""


def told(book: Any, c: Campaign, envelopes: Iterable[Any]) -> Iterator[Told]:
    """The events with whether each one's action is the party's and the seat it was
    recorded from; a page that begins inside an action reads that action's first event."""

    def first(env: Any) -> Any:
        if isinstance(env.event, RESETS) or env.event.kind.startswith(OPENING):
            return None  # an undo, a redo, the dice's and the campaign's own: no command
        v = env.v
        while v > 1:
            v -= 1
            before = book.envelope(c, v)
            if before.action != env.action:
                return None
            if before.decision is not None:
                return before.decision
        return None

    return told_actions(book.system(c), envelopes, first)


def entries_after(
    book: Any, c: Campaign, after: int, limit: int = 500, viewer: Viewer = THE_GM
) -> tuple[list[dict[str, Any]], int, bool]:
    """The entries after version ``after`` (at most ``limit``) that ``viewer`` may read (a
    whisper is its recipients' and the GM's: ``ledger.log.sealing.entry_seen``), the head,
    and whether more follow."""
    head = book.head(c)
    if after >= head:
        return [], head, False
    last = min(head, after + limit)
    live = book.segments(c, head)
    found = told(book, c, book.envelopes(c, after, last))
    return [entry(book, t, live) for t in found if entry_seen(viewer, t[0])], head, last < head


WHISPER_MARK = b'"visibility":"whisper"'
"""In the bytes of a whisper's entry, and of no other (a quote inside a text is escaped)."""


def message_seen(viewer: Viewer, sent: bytes) -> bool:
    """Whether a live feed's message (an entry, encoded once for every stream) is one
    ``viewer`` may read: the visibility rule of :func:`entries_after`, on the entry sent."""
    if WHISPER_MARK not in sent:
        return True
    data = msgspec.json.decode(sent.split(b"data: ", 1)[1].strip())
    event = msgspec.convert(data["event"], ActionSealed)
    return content_seen(viewer, event, data["actor"])


def recorded_entries(book: Any, rec: Recorded, langs: Languages = None) -> list[dict[str, Any]]:
    """The entries of an action just recorded, from its envelopes, without reading them
    back: none of them is undone, at the head they made (said in ``langs``: :func:`entry`)."""
    live = [(0, rec.version)]
    return [entry(book, t, live, langs) for t in told(book, rec.campaign, rec.envelopes)]


def entries_since(
    book: Any, c: Campaign, after: int, limit: int = 500, langs: Languages = None
) -> tuple[list[dict[str, Any]], bool]:
    """The entries after version ``after`` as a live feed reads them, in one read of the
    store (at most ``limit``), and whether more may follow. An event after the last one a
    feed sent can only be undone by a reset after it: with no reset among them every entry
    is live, and the effective history is read only when one is there."""
    envelopes = list(book.envelopes(c, after, after + limit))
    if not envelopes:
        return [], False
    last = envelopes[-1].v
    live = book.segments(c, last) if any(isinstance(e.event, RESETS) for e in envelopes) else [(0, last)]
    return [entry(book, t, live, langs) for t in told(book, c, envelopes)], len(envelopes) == limit
