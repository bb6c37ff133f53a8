"""Seats at the live table: who may reach a campaign through ``ledger serve``, and as whom.

A seat is bound to one campaign, labelled uniquely within it, and has a role: ``gm``
(everything), ``player`` (acts as its own character only) or ``watch`` (reads only).
Inviting one makes a fresh 256-bit secret (:func:`secrets.token_urlsafe`), shown once, in
its link. A browser that opens the link and confirms (:meth:`Seats.join`) is seated with
a secret of its own, made then and sent only in its cookie, and the link opens nothing
more: a link seats one device, unless the seat was invited ``reusable`` (a kiosk, a
watcher's screen), whose link is its cookie on every device that opens it. A client that
is not a browser sends the link's secret as a bearer token, until the link seats a device.

When the GM forks a campaign at the table, each seat of the parent is offered a seat at the
fork (:meth:`Seats.offer`); a seat takes its offer (:meth:`Seats.take`) and is seated there
with the same role, character and label, and a secret of its own: no link is made.

The ledger keeps only each secret's sha256, in the store's seats table
(``ledger.log.store.SEATS_TABLE``), which no export, log or warehouse reads. The table is
one stream of rows (an invitation, a device seated, an offer, a revocation), so every
process that serves the ledger reads the same seats (each reads only the rows appended
since it last looked) and a revocation holds at once.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

import msgspec

from ledger.errors import DuplicateNameError, GiveOption, Input, LedgerError, RunCommand
from ledger.i18n import _, n_
from ledger.log import chain
from ledger.log.store import SEATS_TABLE, Store
from ledger.text import check_name

if TYPE_CHECKING:
    from ledger.campaign import Ledger

Role = Literal["gm", "player", "watch"]
ROLES: tuple[Role, ...] = ("gm", "player", "watch")
STREAM = "seats"
"""The one stream of the seats table: every invitation, join, offer and revocation, in order."""
SECRET_BYTES = 32
"""256 bits of randomness in each secret."""
SeatKey = tuple[str, str]
"""A seat's campaign id and label: unique in the ledger."""


class Seat(msgspec.Struct, frozen=True, omit_defaults=True):
    """One seat: its label (unique in its campaign), campaign (its id), role, character,
    and whether its link seats any number of devices."""

    label: str
    campaign: str
    role: Role
    character: str | None = None
    invited: str = ""
    revoked: str | None = None
    """When the seat was revoked (None while it holds)."""
    reusable: bool = False
    joined: str | None = None
    """When a device was last seated by the seat's link or offer (None: not yet)."""

    @property
    def key(self) -> SeatKey:
        return self.campaign, self.label


class _Invited(msgspec.Struct, frozen=True, tag="seat.invited"):
    seat: Seat
    sha256: str | None
    """The link's secret's sha256 (None: a seat taken from an offer has no link)."""
    device: str | None = None
    """The sha256 of the secret a seat taken from an offer was seated with."""


class _Joined(msgspec.Struct, frozen=True, tag="seat.joined"):
    campaign: str
    label: str
    link: str
    """The sha256 of the link that seated the device: it opens nothing from now on."""
    device: str
    """The sha256 of the device's own secret (its cookie)."""
    at: str


class _Offered(msgspec.Struct, frozen=True, tag="seat.offered"):
    parent: str
    fork: str
    labels: tuple[str, ...]
    """The parent's seats offered a seat at the fork."""
    at: str


class _Revoked(msgspec.Struct, frozen=True, tag="seat.revoked"):
    label: str
    at: str
    campaign: str | None = None
    """The seat's campaign (None in rows written while labels were unique in a ledger)."""


_decode = msgspec.json.Decoder(_Invited | _Joined | _Offered | _Revoked).decode


class UnknownSeatError(LedgerError):
    """No seat has that label."""

    def __init__(self, label: str, known: list[str]) -> None:
        hint = _("seats: {labels}", labels=", ".join(known)) if known else _("none was invited yet")
        super().__init__(
            _("no seat is labelled {label!r} ({hint})", label=label, hint=hint),
            fix=RunCommand(text=_("list them with `table seats`"), command="table seats"),
        )
        self.label = label


class SeatElsewhereError(LedgerError):
    """A label that names seats at several campaigns' tables."""

    def __init__(self, label: str, campaigns: list[str]) -> None:
        super().__init__(
            n_(
                "seats labelled {label!r} sit at the tables of {n} campaign ({campaigns})",
                "seats labelled {label!r} sit at the tables of {n} campaigns ({campaigns})",
                len(campaigns),
                label=label,
                campaigns=", ".join(campaigns),
            ),
            fix=GiveOption(text=_("say which with `campaign` NAME"), inputs=(Input("campaign"),)),
        )
        self.label = label


class LinkUsedError(LedgerError):
    """An invitation link that seated its device already."""

    def __init__(self) -> None:
        super().__init__(
            _("this invitation link was used already: it seats one device; ask the GM for a new link")
        )


class OfferTakenError(LedgerError):
    """A seat at a fork that was taken already."""


def digest(secret: str) -> str:
    """The sha256 of a secret, as the seats table keeps it."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Seats:
    """The seats of one ledger, read from its store (the rows appended since the last
    read, on every call that needs them current)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._version = 0
        self._seats: dict[SeatKey, Seat] = {}
        self._links: dict[str, SeatKey] = {}
        """Each unused (or reusable) link's sha256, and its seat."""
        self._devices: dict[str, SeatKey] = {}
        """Each seated device's sha256, and its seat."""
        self._used: set[str] = set()
        """The links that seated their device."""
        self._offers: dict[SeatKey, list[str]] = {}
        """Each parent seat's offered forks (campaign ids), in the order offered."""

    # --- reading --------------------------------------------------------------------------

    def refresh(self) -> None:
        for row in self.store.private_records(SEATS_TABLE, STREAM, gt=self._version or None):
            self._version = row.originator_version
            self._fold(_decode(bytes(row.state)))

    def _fold(self, record: _Invited | _Joined | _Offered | _Revoked) -> None:
        if isinstance(record, _Invited):
            seat = record.seat
            self._seats[seat.key] = seat
            if record.sha256 is not None:
                self._links[record.sha256] = seat.key
            if record.device is not None:
                self._devices[record.device] = seat.key
                self._seats[seat.key] = msgspec.structs.replace(seat, joined=seat.invited)
        elif isinstance(record, _Joined):
            key = (record.campaign, record.label)
            seat = self._seats.get(key)
            if seat is None:
                return
            if not seat.reusable:
                self._links.pop(record.link, None)
                self._used.add(record.link)
            self._devices[record.device] = key
            self._seats[key] = msgspec.structs.replace(seat, joined=record.at)
        elif isinstance(record, _Offered):
            for label in record.labels:
                self._offers.setdefault((record.parent, label), []).append(record.fork)
        else:
            for key, seat in self._seats.items():
                mine = seat.label == record.label and record.campaign in (None, seat.campaign)
                if mine and seat.revoked is None:
                    self._seats[key] = msgspec.structs.replace(seat, revoked=record.at)

    def _append(self, record: _Invited | _Joined | _Offered | _Revoked) -> bool:
        return self.store.put_private(
            SEATS_TABLE, STREAM, self._version + 1, record.__struct_config__.tag, msgspec.json.encode(record)
        )

    def all(self, campaign_id: str | None = None) -> list[Seat]:
        """Every seat (of one campaign), revoked ones too, in the order they were invited."""
        self.refresh()
        return [s for s in self._seats.values() if campaign_id is None or s.campaign == campaign_id]

    # --- inviting -------------------------------------------------------------------------

    def invite(
        self,
        campaign_id: str,
        role: Role,
        character: str | None = None,
        label: str | None = None,
        *,
        reusable: bool = False,
    ) -> tuple[Seat, str]:
        """A new seat and its link's secret (shown once: only its sha256 is kept)."""

        if role not in ROLES:
            raise LedgerError(
                _("a seat's role is gm, player or watch, not {role!r}", role=role), field="role"
            )
        if (role == "player") != (character is not None):
            raise LedgerError(
                _("a player's seat names its character, and only a player's does"), field="character"
            )
        wanted = check_name(label, "seat") if label is not None else None
        secret = secrets.token_urlsafe(SECRET_BYTES)
        for __ in range(50):
            self.refresh()
            chosen = wanted or self._free_label(campaign_id, character or role)
            if (campaign_id, chosen) in self._seats:
                raise DuplicateNameError(
                    _("this campaign's table has a seat labelled {chosen!r} already", chosen=chosen),
                    fix=GiveOption(text=_("choose another `label`"), inputs=(Input("label"),)),
                )
            seat = Seat(chosen, campaign_id, role, character, invited=chain.now(), reusable=reusable)
            if self._append(_Invited(seat, digest(secret))):
                self.refresh()
                return self._seats[seat.key], secret
        raise LedgerError(_("the seats table is busy; try again"))

    def _free_label(self, campaign_id: str, base: str) -> str:
        label, n = base, 1
        while (campaign_id, label) in self._seats:
            n += 1
            label = f"{base}-{n}"
        return label

    def revoke(self, label: str, campaign_id: str | None = None, names: dict[str, str] | None = None) -> Seat:
        """End a seat at once: its link and every device it seated open nothing from now
        on, in every process. ``campaign_id`` says whose seat, when several campaigns'
        tables have one labelled ``label`` (``names`` names the campaigns in the refusal)."""
        for __ in range(50):
            self.refresh()
            found = [
                s for s in self._seats.values() if s.label == label and campaign_id in (None, s.campaign)
            ]
            if not found:
                known = [s.label for s in self._seats.values() if campaign_id in (None, s.campaign)]
                raise UnknownSeatError(label, list(dict.fromkeys(known)))
            if len(found) > 1:
                raise SeatElsewhereError(label, [(names or {}).get(s.campaign, s.campaign) for s in found])
            (seat,) = found
            if seat.revoked is not None:
                return seat
            if self._append(_Revoked(label, chain.now(), seat.campaign)):
                self.refresh()
                return self._seats[seat.key]
        raise LedgerError(_("the seats table is busy; try again"))

    # --- a device at the table -------------------------------------------------------------

    def resolve(self, secret: str) -> Seat | None:
        """The seat a secret opens, None when it opens none (unknown, revoked, or a link
        that seated its device)."""
        self.refresh()
        return self.known(secret)

    def known(self, secret: str) -> Seat | None:
        """The seat a secret opened when the seats were last read, without reading them
        again (None: unknown then, or revoked): a revocation since is seen by the next
        :meth:`resolve` or :meth:`current`."""
        # Looked up by its sha256: what is compared is a hash of the secret, never the
        # secret, so the time a lookup takes tells nothing about a stored secret.
        hashed = digest(secret)
        key = self._devices.get(hashed) or self._links.get(hashed)
        seat = self._seats.get(key) if key is not None else None
        return seat if seat is not None and seat.revoked is None else None

    def invitation(self, secret: str, *, read: bool = True) -> Seat:
        """The seat a link would seat (the seats read now, unless not ``read``): refused
        when the link seated its device already, or is unknown, or its seat was revoked."""
        if read:
            self.refresh()
        hashed = digest(secret)
        if hashed in self._used:
            raise LinkUsedError()
        key = self._links.get(hashed)
        seat = self._seats.get(key) if key is not None else None
        if seat is None or seat.revoked is not None:
            raise UnknownLinkError()
        return seat

    def join(self, secret: str) -> tuple[Seat, str]:
        """Seat a device with a link: the seat, and the device's own secret (for its
        cookie; shown once, only its sha256 kept). The link opens nothing from then on,
        unless the seat is reusable, whose link is every device's secret."""
        for __ in range(50):
            seat = self.invitation(secret)
            if seat.reusable:
                return seat, secret
            device = secrets.token_urlsafe(SECRET_BYTES)
            if self._append(_Joined(seat.campaign, seat.label, digest(secret), digest(device), chain.now())):
                self.refresh()
                return self._seats[seat.key], device
        raise LedgerError(_("the seats table is busy; try again"))

    def current(self, key: SeatKey) -> Seat | None:
        """The seat ``key`` (campaign id, label) as the store holds it now (None when revoked)."""
        self.refresh()
        seat = self._seats.get(key)
        return seat if seat is not None and seat.revoked is None else None

    # --- a fork takes the table along ------------------------------------------------------

    def offer(self, parent_id: str, fork_id: str, characters: Iterable[str]) -> list[Seat]:
        """Offer every seat of the parent that holds a seat at the fork: a player's only
        when their character is one of the fork's ``characters``. The seats offered."""
        there = set(characters)
        for __ in range(50):
            self.refresh()
            offered = [
                s
                for s in self._seats.values()
                if s.campaign == parent_id
                and s.revoked is None
                and (s.character is None or s.character in there)
                and (fork_id, s.label) not in self._seats
            ]
            if not offered:
                return []
            if self._append(_Offered(parent_id, fork_id, tuple(s.label for s in offered), chain.now())):
                self.refresh()
                return offered
        raise LedgerError(_("the seats table is busy; try again"))

    def offers(self, key: SeatKey | None = None) -> dict[SeatKey, tuple[Seat, list[str]]]:
        """Each seat that holds (or the seat ``key``), and the forks (campaign ids) it was
        offered a seat at and has not taken, as last read (:meth:`refresh` reads anew)."""
        found: dict[SeatKey, tuple[Seat, list[str]]] = {}
        for parent, forks in self._offers.items() if key is None else [(key, self._offers.get(key, []))]:
            seat = self._seats.get(parent)
            if seat is None or seat.revoked is not None:
                continue
            pending = [f for f in dict.fromkeys(forks) if (f, parent[1]) not in self._seats]
            if pending:
                found[parent] = (seat, pending)
        return found

    def take(self, seat: Seat, fork_id: str, fork: str) -> tuple[Seat, str]:
        """Seat the device of ``seat`` at the fork it was offered (``fork`` names it): a
        seat there with the same role, character and label, and the device's secret
        (shown once, only its sha256 kept). One device takes an offer."""
        for __ in range(50):
            self.refresh()
            if self.current(seat.key) is None:
                raise UnknownLinkError()
            if fork_id not in self._offers.get(seat.key, []):
                raise LedgerError(
                    _("seat {label!r} was offered no seat at {fork!r}", label=seat.label, fork=fork),
                    field="fork",
                )
            if (fork_id, seat.label) in self._seats:
                raise OfferTakenError(
                    _(
                        "seat {label!r} at {fork!r} was taken already, from another device; ask the GM for a link to it",
                        label=seat.label,
                        fork=fork,
                    )
                )
            device = secrets.token_urlsafe(SECRET_BYTES)
            taken = Seat(seat.label, fork_id, seat.role, seat.character, invited=chain.now())
            if self._append(_Invited(taken, None, digest(device))):
                self.refresh()
                return self._seats[taken.key], device
        raise LedgerError(_("the seats table is busy; try again"))


class UnknownLinkError(LedgerError):
    """A secret that opens no seat: unknown, or its seat revoked."""

    def __init__(self) -> None:
        super().__init__(_("the seat's secret is unknown or was revoked; ask the GM for a new link"))


def seats_of(book: Ledger) -> Seats:
    """The seats of a ledger."""
    return Seats(book.store)
