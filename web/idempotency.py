"""Exactly once: a request sent with an ``Idempotency-Key`` is answered once, then replayed.

The key is claimed in the store's requests table (``ledger.log.store.REQUESTS_TABLE``) in
the same transaction as the action's append (``Store.claiming``): the claim is taken
exactly when the action is recorded, so a request cut off before its action committed
(a crash, a lost connection, a refusal of the store) leaves the key free, and its retry
runs as if it were the first. A request that records nothing (a refusal) claims the key
with its answer in one transaction. The answer is kept beside the claim; a retry with the
same key, from the same seat, gets it (after a restart too, from any process) and records
nothing more. The claim and the answer are one stream per seat and key, version 1 and 2,
so two processes cannot both claim one key: the second's append is refused whole, and it
answers with the first's answer.

No secret is kept: a part of an answer that is a :class:`Secret` (a fork's GM link) is sent
once and left out of what is kept, and a replay of that answer is refused with the
sentence the secret carries, which says what was made and how to get a new link.

A retry whose body differs from the first is refused (422). One that finds the claim
without its answer (the server stopped between recording and answering) is a 409: the
action was recorded; read the events to see what it recorded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import msgspec

from ledger.errors import LedgerError
from ledger.i18n import _
from ledger.log.store import REQUESTS_TABLE, Claim, ClaimTaken, Store
from ledger.web.errors import BadRequest, ShownOnce, StaleVersion, Unprocessable, error_object, status_of

MAX_KEY = 200


class Secret:
    """A secret in an answer: sent to the client that asked, never kept. ``gone`` is the
    whole sentence a replay of the answer is refused with (what was made, and how to get
    a new secret for it)."""

    __slots__ = ("gone", "value")

    def __init__(self, value: str, gone: str) -> None:
        self.value = value
        self.gone = gone

    def __repr__(self) -> str:
        return "Secret(…)"


class _Claimed(msgspec.Struct, frozen=True):
    fingerprint: str


class _Answered(msgspec.Struct, frozen=True):
    status: int
    body: bytes
    gone: str | None = None
    """Set when the answer held a secret: the body kept is empty, and a replay is refused
    with this sentence."""


class Answer(msgspec.Struct, frozen=True):
    """A request's answer as sent, and as kept for a replay (no secret in it)."""

    status: int
    body: bytes
    kept: bytes
    gone: str | None = None


def answer(status: int, data: Any) -> Answer:
    """The answer to send (secrets shown) and the one to keep: the same, or, when it holds
    a secret, nothing but the first secret's sentence, which its replay is refused with."""
    withheld: list[str] = []

    def shown(value: Any) -> Any:
        if isinstance(value, Secret):
            withheld.append(value.gone)
            return value.value
        raise NotImplementedError(type(value).__name__)

    body = msgspec.json.encode(data, enc_hook=shown)
    if withheld:  # nothing of the answer is kept but the sentence its replay is refused with
        return Answer(status, body, b"", withheld[0])
    return Answer(status, body, body)


def check_key(key: str) -> str:
    if not 1 <= len(key) <= MAX_KEY or not all("!" <= ch <= "~" for ch in key):
        raise BadRequest(
            _("an Idempotency-Key is 1 to {most} printable ASCII characters without spaces", most=MAX_KEY),
            field="key",
        )
    return key


def fingerprint(method: str, path: str, body: bytes) -> str:
    return hashlib.sha256(b"\0".join([method.encode(), path.encode(), body])).hexdigest()


def once(store: Store, seat: str, key: str, print_: str, run: Callable[[], Answer]) -> tuple[int, bytes]:
    """The answer to a request: the first one kept under (seat, key), else ``run()``'s,
    with the key claimed as its action is recorded. A refusal is an answer too (a retry
    gets the same refusal); an answer of the server's own fault (5xx) claims nothing."""
    stream = f"{seat}\x1f{key}"
    found = store.private_records(REQUESTS_TABLE, stream)
    if found:
        return _replay(found, print_)
    claim = Claim(REQUESTS_TABLE, stream, "request.claimed", msgspec.json.encode(_Claimed(print_)))
    try:
        with store.claiming(claim):
            try:
                got = run()
            except LedgerError as e:
                body = msgspec.json.encode(error_object(e))
                got = Answer(status_of(e), body, body)
    except ClaimTaken:  # another process answered the same request first
        return _replay(store.private_records(REQUESTS_TABLE, stream), print_)
    if got.status < 500:
        kept = msgspec.json.encode(_Answered(got.status, got.kept, got.gone))
        rows = [] if claim.taken else [claim.row]
        rows.append((stream, 2, "request.answered", kept))
        if not store.put_private_rows(REQUESTS_TABLE, rows):
            # Nothing of this one was recorded (its claim would have been taken with it):
            # another process answered the same request first.
            return _replay(store.private_records(REQUESTS_TABLE, stream), print_)
    return got.status, got.body


def _replay(found: Any, print_: str) -> tuple[int, bytes]:
    claim = msgspec.json.decode(bytes(found[0].state), type=_Claimed)
    if claim.fingerprint != print_:
        raise Unprocessable(
            _("this Idempotency-Key was sent before with another request; send a new key for a new request"),
            field="key",
        )
    if len(found) < 2:
        raise StaleVersion(
            _(
                "a request with this Idempotency-Key was recorded, but the server stopped before it "
                "answered; read the events to see what it recorded, and send a new key for a new request"
            ),
            field="key",
        )
    kept = msgspec.json.decode(bytes(found[1].state), type=_Answered)
    if kept.gone is not None:
        raise ShownOnce(kept.gone, field="key")
    return kept.status, kept.body
