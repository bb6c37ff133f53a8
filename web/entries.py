"""The log's entries as the live table sends them: ``ledger log --json``'s fields, the
event's data and how its action was decided, for the API's event pages and the live feed
alike (``web.schema.Entry`` describes one)."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from ledger.log.events import RESETS
from ledger.log.records import Campaign, Recorded
from ledger.log.state import told_as


def entry(book: Any, env: Any, live: list[tuple[int, int]]) -> dict[str, Any]:
    """One event as the page and any client read it: ``ledger log --json``'s fields, the
    event's data and how its action was decided (``web.schema.Entry``)."""
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
        "who": told_as(env.event, env.actor),
        "summary": book.summary(env.event),
        "undone": not reset and not any(lo < env.v <= hi for lo, hi in live),
        "event": json.loads(msgspec.json.encode(env.event)),
        "decision": decision,
    }


def entries_after(
    book: Any, c: Campaign, after: int, limit: int = 500
) -> tuple[list[dict[str, Any]], int, bool]:
    """The entries after version ``after`` (at most ``limit``), the head, and whether more follow."""
    head = book.head(c)
    if after >= head:
        return [], head, False
    last = min(head, after + limit)
    live = book.segments(c, head)
    return [entry(book, env, live) for env in book.envelopes(c, after, last)], head, last < head


def recorded_entries(book: Any, rec: Recorded) -> list[dict[str, Any]]:
    """The entries of an action just recorded, from its envelopes, without reading them
    back: none of them is undone, at the head they made."""
    live = [(0, rec.version)]
    return [entry(book, env, live) for env in rec.envelopes]


def entries_since(book: Any, c: Campaign, after: int, limit: int = 500) -> tuple[list[dict[str, Any]], bool]:
    """The entries after version ``after`` as a live feed reads them, in one read of the
    store (at most ``limit``), and whether more may follow. An event after the last one a
    feed sent can only be undone by a reset after it: with no reset among them every entry
    is live, and the effective history is read only when one is there."""
    envelopes = list(book.envelopes(c, after, after + limit))
    if not envelopes:
        return [], False
    last = envelopes[-1].v
    live = book.segments(c, last) if any(isinstance(e.event, RESETS) for e in envelopes) else [(0, last)]
    return [entry(book, env, live) for env in envelopes], len(envelopes) == limit
