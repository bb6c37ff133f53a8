"""Who is asking: a seat, from its secret (a bearer token or the page's cookie).

A client sends ``Authorization: Bearer SECRET``; the page has the cookie that
``GET /join/SECRET`` set (HttpOnly, SameSite=Strict, sent to that campaign's API only,
so one browser holds a seat at several tables). A write sent with the cookie must
come from this server's own page (its ``Origin``), so no other site can make a visitor's
browser act. Unknown secrets are counted per address: past :data:`GUESSES` in
:data:`WINDOW` seconds, that address gets 429 until the window has passed.
"""

from __future__ import annotations

import time
from collections import deque

from starlette.requests import Request

from ledger.deciding.commands import nfc
from ledger.log.records import Campaign
from ledger.trust.seats import Seat
from ledger.web.errors import Forbidden, TooManyRequests, Unauthorized

COOKIE = "ledger_seat"
"""The seat's cookie, one per campaign: its path is that campaign's API (``/api/c/NAME``)."""
URI_COMPONENT = "-_.!~*'()"
"""What JavaScript's ``encodeURIComponent`` leaves as it is, besides letters and digits:
the page writes the campaign into its API's path so, and the cookie's path must match."""
GUESSES = 20
"""Unknown secrets one address may send in :data:`WINDOW` seconds."""
WINDOW = 60.0
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class Guesses:
    """The unknown secrets each address sent lately."""

    def __init__(self, limit: int = GUESSES, window: float = WINDOW) -> None:
        self.limit = limit
        self.window = window
        self._seen: dict[str, deque[float]] = {}

    def _recent(self, who: str) -> deque[float]:
        found = self._seen.setdefault(who, deque())
        cut = time.monotonic() - self.window
        while found and found[0] < cut:
            found.popleft()
        return found

    def check(self, who: str) -> None:
        """Refuse an address that guessed too often lately (429)."""
        recent = self._recent(who)
        if len(recent) >= self.limit:
            wait = max(1, int(recent[0] + self.window - time.monotonic()) + 1)
            raise TooManyRequests(
                f"too many unknown secrets from this address; try again in {wait} s", field="retry_after"
            )
        if not recent:
            self._seen.pop(who, None)

    def failed(self, who: str) -> None:
        self._recent(who).append(time.monotonic())


def address(request: Request) -> str:
    return request.client.host if request.client else "?"


def secret_of(request: Request) -> tuple[str | None, bool]:
    """The secret sent, and whether it came in the cookie (else as a bearer token)."""
    given = request.headers.get("authorization")
    if given is not None:
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized(
                "the Authorization header must be `Bearer SECRET`, the secret of your seat's link"
            )
        return token.strip(), False
    cookie = request.cookies.get(COOKIE)
    return (cookie, True) if cookie else (None, False)


def check_origin(request: Request) -> None:
    """Refuse a write sent with the cookie from anywhere but this server's own page."""
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin = request.headers.get("origin")
    if origin is None:
        raise Forbidden(
            "a write sent with the seat's cookie must come from this server's page (no Origin header)"
        )
    if origin != own:
        raise Forbidden(
            f"a write from {origin[:100]!r} is cross-site: only {own!r} may write with the cookie"
        )


def may_read(seat: Seat, campaign: Campaign, asked: str) -> None:
    """Refuse a seat another campaign's table (it is bound to one)."""
    if seat.campaign != campaign.id or nfc(asked) != campaign.name:
        raise Forbidden(f"seat {seat.label!r} is for campaign {campaign.name!r}, not {asked[:100]!r}")


def gm_only(seat: Seat, what: str) -> None:
    if seat.role != "gm":
        raise Forbidden(f"only the GM's seat may {what}; seat {seat.label!r} is a {_role(seat)}'s")


def may_act(seat: Seat) -> None:
    if seat.role == "watch":
        raise Forbidden(f"seat {seat.label!r} is a watcher's: it reads the table and records nothing")


def _role(seat: Seat) -> str:
    return {"gm": "GM", "player": "player", "watch": "watcher"}[seat.role]


def actor_for(seat: Seat, actor: str | None, newcomer: str | None) -> str | None:
    """Who a command acts as from this seat: a player acts as their own character only
    (and brings none in); the GM as anyone."""
    if seat.role != "player":
        return actor
    if newcomer is not None:
        raise Forbidden(
            f"seat {seat.label!r} plays {seat.character!r} and cannot bring in a character; the GM does"
        )
    if actor is not None and nfc(actor) != seat.character:
        raise Forbidden(f"seat {seat.label!r} acts as {seat.character!r} only, not as {actor[:100]!r}")
    return seat.character


def unknown_secret() -> Unauthorized:
    return Unauthorized(
        "the seat's secret is unknown or was revoked; ask the GM for a new link (`ledger table invite`)"
    )
