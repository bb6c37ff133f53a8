"""Who is asking: a seat, from its secret (a bearer token or the page's cookie).

A client sends ``Authorization: Bearer SECRET``; the page has the cookie that joining set
(``POST /join/SECRET`` from the confirm page: HttpOnly, SameSite=Strict, sent to that
campaign's API only, so one browser holds a seat at several tables). A write sent with the
cookie, and the join itself, must come from this server's own page (its ``Origin``), so no
other site can make a visitor's browser act, or seat it at another table.

Unknown secrets are counted per address (an IPv6 address by its /64, what one machine
holds): past :data:`GUESSES` in :data:`WINDOW` seconds, an unknown secret from that address
gets 429 without a look at the store, while a secret of a seat the server read lately
(the seats are read again at most once a second for such an address) still opens its seat:
a guesser behind a shared NAT locks out only further guessing, never a valid seat there.
The limit bounds what guessing costs the server, a read of the store per unknown secret;
the chance of a guess is 256 bits against the guesser whatever the rate. At most
:data:`ADDRESSES` addresses are counted, the least recent forgotten first, each with at
most :data:`GUESSES` times.

A player's seat sends only its own character's deeds: every command declares whom it
reaches (``ledger.deciding.authority``), and what reaches further is the GM's.
"""

from __future__ import annotations

import ipaddress
import time
import urllib.parse
from collections import OrderedDict, deque

import msgspec
from starlette.requests import Request

from ledger import i18n
from ledger.deciding.authority import Reach, by_player, declared
from ledger.deciding.commands import Command, nfc
from ledger.i18n import N_, _, p_
from ledger.log.records import Campaign
from ledger.log.sealing import Viewer
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
ADDRESSES = 4096
"""The most addresses whose guesses are counted at once."""
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class Guesses:
    """The unknown secrets each address sent lately: at most ``limit`` times for each of
    at most ``addresses`` addresses."""

    def __init__(self, limit: int = GUESSES, window: float = WINDOW, addresses: int = ADDRESSES) -> None:
        self.limit = limit
        self.window = window
        self.addresses = addresses
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def __len__(self) -> int:
        """How many addresses are counted."""
        return len(self._seen)

    def _recent(self, who: str) -> deque[float] | None:
        found = self._seen.get(who)
        if found is None:
            return None
        cut = time.monotonic() - self.window
        while found and found[0] < cut:
            found.popleft()
        if not found:
            del self._seen[who]
            return None
        return found

    def over(self, who: str) -> bool:
        """Whether the address sent :attr:`limit` unknown secrets within the window."""
        recent = self._recent(who)
        return recent is not None and len(recent) >= self.limit

    def refusal(self, who: str) -> TooManyRequests:
        recent = self._recent(who)
        wait = max(1, int(recent[0] + self.window - time.monotonic()) + 1) if recent else 1
        return TooManyRequests(
            _("too many unknown secrets from this address; try again in {wait} s", wait=wait),
            field="retry_after",
        )

    def failed(self, who: str) -> None:
        """Count an unknown secret from the address (its oldest time is dropped past the
        limit; the least recent address is forgotten past :attr:`addresses`)."""
        found = self._recent(who)
        if found is None:
            found = self._seen[who] = deque(maxlen=self.limit)
        found.append(time.monotonic())
        self._seen.move_to_end(who)
        while len(self._seen) > self.addresses:
            self._seen.popitem(last=False)


def address(request: Request) -> str:
    """Who is asking, as guesses are counted: the client's address (a trusted proxy's
    ``X-Forwarded-For``, ``ledger serve --forwarded-allow-ips``), an IPv6 one by its /64."""
    host = request.client.host if request.client else "?"
    try:
        found = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.ip_network(f"{found}/64", strict=False))
    return str(found)


def in_path(name: str) -> str:
    """A campaign's name as the page's script writes it into a path (``encodeURIComponent``):
    the cookie's path and every URL the server gives must match it."""
    return urllib.parse.quote(name, safe=URI_COMPONENT)


def secret_of(request: Request) -> tuple[str | None, bool]:
    """The secret sent, and whether it came in the cookie (else as a bearer token)."""
    given = request.headers.get("authorization")
    if given is not None:
        scheme, _sep, token = given.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized(
                "the Authorization header must be `Bearer SECRET`, the secret of your seat's link"
            )
        return token.strip(), False
    cookie = request.cookies.get(COOKIE)
    return (cookie, True) if cookie else (None, False)


def check_origin(request: Request) -> None:
    """Refuse a write sent with the cookie from anywhere but this server's own page. A
    browser that sends ``Origin: null`` (a form posted under ``Referrer-Policy:
    no-referrer``) is taken at its ``Sec-Fetch-Site: same-origin``, which no page of another
    site can send."""
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    origin = request.headers.get("origin")
    if origin == "null" and request.headers.get("sec-fetch-site") == "same-origin":
        return
    if origin is None:
        raise Forbidden(
            _("a write sent with the seat's cookie must come from this server's page (no Origin header)")
        )
    if origin != own:
        raise Forbidden(
            _(
                "a write from {origin!r} is cross-site: only {own!r} may write with the cookie",
                origin=origin[:100],
                own=own,
            )
        )


def may_read(seat: Seat, campaign: Campaign, asked: str) -> None:
    """Refuse a seat another campaign's table (it is bound to one)."""
    if seat.campaign != campaign.id or nfc(asked) != campaign.name:
        raise Forbidden(
            _(
                "seat {seat!r} is for campaign {campaign!r}, not {asked!r}",
                seat=seat.label,
                campaign=campaign.name,
                asked=asked[:100],
            )
        )


def gm_only(seat: Seat, what: str) -> None:
    """Refuse a seat that is not the GM's ``what`` (an English phrase marked ``N_``, put
    into words here: ``undo actions``)."""
    if seat.role != "gm":
        raise Forbidden(
            _(
                "only the GM's seat may {what}; seat {seat!r} is a {role}'s",
                what=i18n.translate(what),
                seat=seat.label,
                role=_role(seat),
            )
        )


def viewer_of(seat: Seat) -> Viewer:
    """A seat as the visibility rule of sealed actions reads it (``ledger.log.sealing``)."""
    return Viewer(seat.role, seat.label, seat.character)


def may_act(seat: Seat) -> None:
    if seat.role == "watch":
        raise Forbidden(
            _("seat {seat!r} is a watcher's: it reads the table and records nothing", seat=seat.label)
        )


def _role(seat: Seat) -> str:
    return {
        "gm": p_("seat role", "GM"),
        "player": p_("seat role", "player"),
        "watch": p_("seat role", "watcher"),
    }[seat.role]


GM_ONLY: dict[Reach | None, str] = {
    Reach.PARTY: N_(
        "only the GM's seat may send {command}: it acts for the whole party; seat {seat!r} plays {character!r}"
    ),
    Reach.CLOCK: N_(
        "only the GM's seat may send {command}: it moves the game's clock for everyone; "
        "seat {seat!r} plays {character!r}"
    ),
    Reach.AWARD: N_(
        "only the GM's seat may send {command}: it is the GM's to award; seat {seat!r} plays {character!r}"
    ),
    Reach.RULING: N_(
        "only the GM's seat may send {command}: it is the GM's ruling; seat {seat!r} plays {character!r}"
    ),
    Reach.NEWCOMER: N_(
        "only the GM's seat may send {command}: it brings a character in; seat {seat!r} plays {character!r}"
    ),
    None: N_(
        "only the GM's seat may send {command}: its system does not say who may; "
        "seat {seat!r} plays {character!r}"
    ),
}
"""A player's seat refused a command, by whom the command reaches (None: it declares nothing),
said in the language of the moment (``i18n.translate``)."""


def shown(name: str, command: Command) -> str:
    """The command as a refusal names it: its one name (the command line's, ``yz eat``),
    with the value of a field that made it the GM's (```yz eat` {"everyone": true}``)."""
    found = declared(type(command))
    for when in found.when if found is not None else ():
        if when.reach is not None and when.holds(command):
            return f"`{name}` {msgspec.json.encode({when.field: when.value}).decode()}"
    return f"`{name}`"


def may_issue(seat: Seat, name: str, command: Command) -> None:
    """Refuse a player's seat a command (``name``: its one name, ``yz tick``) that is not
    its character's own deed (403): what
    acts for the whole party, moves the clock, awards, rules or brings a character in is
    the GM's (``ledger.deciding.authority``). The GM's seat may send every command."""
    if seat.role != "player":
        return
    reach = command.reaches()
    if not by_player(reach):
        raise Forbidden(
            i18n.translate(GM_ONLY[reach]).format(
                command=shown(name, command), seat=seat.label, character=seat.character
            ),
            field="command",
        )


def actor_for(seat: Seat, actor: str | None) -> str | None:
    """Who a command acts as from this seat: a player acts as their own character only
    (:func:`may_issue` refused them a command that brings one in); the GM as anyone."""
    if seat.role != "player":
        return actor
    if actor is not None and nfc(actor) != seat.character:
        raise Forbidden(
            _(
                "seat {seat!r} acts as {character!r} only, not as {actor!r}",
                seat=seat.label,
                character=seat.character,
                actor=actor[:100],
            )
        )
    return seat.character


def unknown_secret() -> Unauthorized:
    return Unauthorized(
        _(
            "the seat's secret is unknown or was revoked, or its link seated a device already; "
            "ask the GM for a new link (`ledger table invite`)"
        )
    )
