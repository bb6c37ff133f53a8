"""Exactly once: a request sent with an ``Idempotency-Key`` is answered once, then replayed.

The key is claimed in the store's requests table (``ledger.store.REQUESTS_TABLE``) before
the action runs, and the answer is kept beside the claim after it: a retry with the same
key, from the same seat, gets the first answer (after a restart too, from any process)
and records nothing more. The claim and the answer are one stream per seat and key,
version 1 and 2, so two processes cannot both claim one key. A retry whose body differs
from the first is refused (422); one that finds a claim without its answer (the first is
still running, or the server stopped between recording and answering) is a 409: read the
events to see whether it was recorded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import msgspec

from ledger.errors import LedgerError
from ledger.store import REQUESTS_TABLE, Store
from ledger.web.errors import BadRequest, StaleVersion, Unprocessable, error_object, status_of

MAX_KEY = 200


class _Claimed(msgspec.Struct, frozen=True):
    fingerprint: str


class _Answered(msgspec.Struct, frozen=True):
    status: int
    body: bytes


def check_key(key: str) -> str:
    if not 1 <= len(key) <= MAX_KEY or not all("!" <= ch <= "~" for ch in key):
        raise BadRequest(
            f"an Idempotency-Key is 1 to {MAX_KEY} printable ASCII characters without spaces", field="key"
        )
    return key


def fingerprint(method: str, path: str, body: bytes) -> str:
    return hashlib.sha256(b"\0".join([method.encode(), path.encode(), body])).hexdigest()


def once(
    store: Store, seat: str, key: str, print_: str, run: Callable[[], tuple[int, bytes]]
) -> tuple[int, bytes]:
    """The answer to a request: the first one kept under (seat, key), else ``run()``'s,
    kept. A refusal is an answer too (a retry gets the same refusal)."""
    stream = f"{seat}\x1f{key}"
    found = store.private_records(REQUESTS_TABLE, stream)
    if not found:
        if store.put_private(
            REQUESTS_TABLE, stream, 1, "request.claimed", msgspec.json.encode(_Claimed(print_))
        ):
            try:
                status, body = run()
            except LedgerError as e:
                status, body = status_of(e), msgspec.json.encode(error_object(e))
            if status < 500:
                answer = _Answered(status, body)
                store.put_private(REQUESTS_TABLE, stream, 2, "request.answered", msgspec.json.encode(answer))
            return status, body
        found = store.private_records(REQUESTS_TABLE, stream)
    claim = msgspec.json.decode(bytes(found[0].state), type=_Claimed)
    if claim.fingerprint != print_:
        raise Unprocessable(
            "this Idempotency-Key was sent before with another request; send a new key for a new request",
            field="key",
        )
    if len(found) < 2:
        raise StaleVersion(
            "a request with this Idempotency-Key is under way, or was cut off before it was answered; "
            "read the events to see whether it was recorded, then send a new key",
            field="key",
        )
    answer = msgspec.json.decode(bytes(found[1].state), type=_Answered)
    return answer.status, answer.body
