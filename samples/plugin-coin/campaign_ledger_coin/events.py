"""The coin system's events.

A tag is the stored name of an event: it is written into every ledger that
records one, so it never changes and is never reused. New fields get defaults;
a field's type never changes (docs/schema.md).
"""

from __future__ import annotations

from ledger.log.events import Event

FACES = ("heads", "tails")
"""The coin's faces, in the order a d2 gives them: 1 is heads, 2 is tails."""


class Flipped(Event, frozen=True, kw_only=True, tag="coin.flipped"):
    """A coin was flipped against a call: the call wins when it names the face."""

    call: str
    face: str
    manual: bool = False
    """A physical coin, its face given as it fell (not flipped by the ledger's dice)."""

    @property
    def won(self) -> bool:
        return self.call == self.face

    def summary(self) -> str:
        how = " (physical coin)" if self.manual else ""
        verdict = "won" if self.won else "lost"
        return f"flip: called {self.call}, {self.face}: {verdict}{how}"


EVENTS: tuple[type[Event], ...] = (Flipped,)
