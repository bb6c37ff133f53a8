"""The coin system's events.

A tag is the stored name of an event: it is written into every ledger that
records one, so it never changes and is never reused. New fields get defaults;
a field's type never changes (docs/schema.md).
"""

from __future__ import annotations

from campaign_ledger_coin.i18n import _, face
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
        words = {"call": face(self.call), "face": face(self.face)}
        if self.manual:
            if self.won:
                return _("flip: called {call}, {face}: won (physical coin)", **words)
            return _("flip: called {call}, {face}: lost (physical coin)", **words)
        if self.won:
            return _("flip: called {call}, {face}: won", **words)
        return _("flip: called {call}, {face}: lost", **words)


EVENTS: tuple[type[Event], ...] = (Flipped,)
