"""The sha256 chain that makes the log tamper-evident.

A stored event is the JSON of its :class:`~ledger.log.events.Envelope` with the
``hash`` field last. The hash is sha256 over every byte before ``,"hash":``,
which include the version, the event's kind and payload, and ``prev`` (the
hash of the event before it on the branch; a fork's first event names the
parent's event it continues from). Any edited byte, removed, inserted or
swapped row breaks either a hash or a ``prev`` link.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime

from ledger.i18n import _
from ledger.log.events import Envelope, encoder

GENESIS = "0" * 64
_EMPTY_TAIL = b',"hash":""}'
_TAIL_PREFIX = b',"hash":"'
_TAIL_LEN = len(_TAIL_PREFIX) + 64 + 2


def seal(envelope: Envelope) -> tuple[bytes, str]:
    """Encode an envelope (its ``hash`` empty) and return (stored bytes, hash)."""
    raw = encoder.encode(envelope)
    if not raw.endswith(_EMPTY_TAIL):  # pragma: no cover - programming error
        raise ValueError("envelope must be sealed with an empty hash")
    body = raw[: -len(_EMPTY_TAIL)]
    digest = hashlib.sha256(body).hexdigest()
    return body + _TAIL_PREFIX + digest.encode() + b'"}', digest


def check(state: bytes) -> str | None:
    """Return the problem with stored bytes, or None when the hash holds."""
    end = len(state) - _TAIL_LEN
    if end < 0 or type(state) is not bytes or not state.startswith(_TAIL_PREFIX, end):
        return _("stored event has no chain hash at its end")
    stored = state[end + len(_TAIL_PREFIX) : -2]
    if hashlib.sha256(memoryview(state)[:end]).hexdigest().encode() != stored:
        return _("hash does not match the stored bytes (the event was edited)")
    return None


def stored_hash(state: bytes) -> str:
    """The hash a stored event records at its end (checked by :func:`check`)."""
    return state[-_TAIL_LEN + len(_TAIL_PREFIX) : -2].decode("ascii", "replace")


def now() -> str:
    """The time an event is sealed at, as the ledger writes it (UTC, milliseconds, ``Z``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_action() -> str:
    """A fresh action id: 16 hex digits, shared by every event one command records."""
    return uuid.uuid4().hex[:16]
