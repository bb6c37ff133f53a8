"""Seats at the live table: who may reach a campaign through ``ledger serve``, and as whom.

A seat is bound to one campaign and has a role: ``gm`` (everything), ``player`` (acts as
its own character only) or ``watch`` (reads only). Inviting one makes a fresh 256-bit
secret (:func:`secrets.token_urlsafe`) that is shown once, in the link; the ledger keeps
only its sha256, in the store's seats table (``ledger.log.store.SEATS_TABLE``), which no
export, log or warehouse reads. The table is one stream of rows, an invitation or a
revocation each, so every process that serves the ledger reads the same seats (each
reads only the rows appended since it last looked) and a revocation holds at once.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import TYPE_CHECKING, Literal

import msgspec

from ledger.errors import DuplicateNameError, GiveOption, Input, LedgerError, RunCommand
from ledger.log import chain
from ledger.log.store import SEATS_TABLE, Store
from ledger.text import check_name

if TYPE_CHECKING:
    from ledger.campaign import Ledger

Role = Literal["gm", "player", "watch"]
ROLES: tuple[Role, ...] = ("gm", "player", "watch")
STREAM = "seats"
"""The one stream of the seats table: every invitation and revocation, in order."""
SECRET_BYTES = 32
"""256 bits of randomness in each secret."""


class Seat(msgspec.Struct, frozen=True, omit_defaults=True):
    """One seat: its label (unique in the ledger), campaign (its id), role and character."""

    label: str
    campaign: str
    role: Role
    character: str | None = None
    invited: str = ""
    revoked: str | None = None
    """When the seat was revoked (None while it holds)."""


class _Invited(msgspec.Struct, frozen=True, tag="seat.invited"):
    seat: Seat
    sha256: str


class _Revoked(msgspec.Struct, frozen=True, tag="seat.revoked"):
    label: str
    at: str


_decode = msgspec.json.Decoder(_Invited | _Revoked).decode


class UnknownSeatError(LedgerError):
    """No seat has that label."""

    def __init__(self, label: str, known: list[str]) -> None:
        hint = f"seats: {', '.join(known)}" if known else "none was invited yet"
        super().__init__(
            f"no seat is labelled {label!r} ({hint})",
            fix=RunCommand(text="list them with `table seats`", command="table seats"),
        )
        self.label = label


def digest(secret: str) -> str:
    """The sha256 of a secret, as the seats table keeps it."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Seats:
    """The seats of one ledger, read from its store (the rows appended since the last
    read, on every call that needs them current)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._version = 0
        self._by_label: dict[str, Seat] = {}
        self._by_hash: dict[str, str] = {}

    def refresh(self) -> None:
        for row in self.store.private_records(SEATS_TABLE, STREAM, gt=self._version or None):
            self._version = row.originator_version
            record = _decode(bytes(row.state))
            if isinstance(record, _Invited):
                self._by_label[record.seat.label] = record.seat
                self._by_hash[record.sha256] = record.seat.label
            elif record.label in self._by_label:
                seat = self._by_label[record.label]
                self._by_label[record.label] = msgspec.structs.replace(seat, revoked=record.at)

    def _append(self, record: _Invited | _Revoked) -> bool:
        return self.store.put_private(
            SEATS_TABLE, STREAM, self._version + 1, record.__struct_config__.tag, msgspec.json.encode(record)
        )

    def all(self, campaign_id: str | None = None) -> list[Seat]:
        """Every seat (of one campaign), revoked ones too, in the order they were invited."""
        self.refresh()
        return [s for s in self._by_label.values() if campaign_id is None or s.campaign == campaign_id]

    def invite(
        self, campaign_id: str, role: Role, character: str | None = None, label: str | None = None
    ) -> tuple[Seat, str]:
        """A new seat and its secret (shown once: only its sha256 is kept)."""

        if role not in ROLES:
            raise LedgerError(f"a seat's role is gm, player or watch, not {role!r}", field="role")
        if (role == "player") != (character is not None):
            raise LedgerError(
                "a player's seat names its character, and only a player's does", field="character"
            )
        wanted = check_name(label, "seat") if label is not None else None
        secret = secrets.token_urlsafe(SECRET_BYTES)
        for _ in range(50):
            self.refresh()
            chosen = wanted or self._free_label(character or role)
            if chosen in self._by_label:
                raise DuplicateNameError(
                    f"a seat labelled {chosen!r} exists; choose another label",
                    fix=GiveOption(text="choose another `label`", inputs=(Input("label"),)),
                )
            seat = Seat(chosen, campaign_id, role, character, invited=chain.now())
            if self._append(_Invited(seat, digest(secret))):
                self.refresh()
                return seat, secret
        raise LedgerError("the seats table is busy; try again")

    def _free_label(self, base: str) -> str:
        label, n = base, 1
        while label in self._by_label:
            n += 1
            label = f"{base}-{n}"
        return label

    def revoke(self, label: str) -> Seat:
        """End a seat at once: its secret opens nothing from now on, in every process."""
        for _ in range(50):
            self.refresh()
            seat = self._by_label.get(label)
            if seat is None:
                raise UnknownSeatError(label, list(self._by_label))
            if seat.revoked is not None:
                return seat
            if self._append(_Revoked(label, chain.now())):
                self.refresh()
                return self._by_label[label]
        raise LedgerError("the seats table is busy; try again")

    def resolve(self, secret: str) -> Seat | None:
        """The seat a secret opens, None when it opens none (unknown or revoked)."""
        self.refresh()
        return self.known(secret)

    def known(self, secret: str) -> Seat | None:
        """The seat a secret opened when the seats were last read, without reading them
        again (None: unknown then, or revoked): a revocation since is seen by the next
        :meth:`resolve` or :meth:`current`."""
        # Looked up by its sha256: what is compared is a hash of the secret, never the
        # secret, so the time a lookup takes tells nothing about a stored secret.
        label = self._by_hash.get(digest(secret))
        seat = self._by_label.get(label) if label is not None else None
        return seat if seat is not None and seat.revoked is None else None

    def current(self, label: str) -> Seat | None:
        """The seat labelled ``label`` as the store holds it now (None when revoked)."""
        self.refresh()
        seat = self._by_label.get(label)
        return seat if seat is not None and seat.revoked is None else None


def seats_of(book: Ledger) -> Seats:
    """The seats of a ledger."""
    return Seats(book.store)
