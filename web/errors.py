"""Refusals as HTTP: the command line's ``--json`` error object, with the status that fits.

Every error the server sends is ``{"error": {"type", "message", "exit_code", ...}}``, the
object ``ledger --json`` prints for the same refusal (its message and fix in the command
line's words, ``ledger.fixes``), so a client reads one shape wherever it asks.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from ledger import fixes
from ledger.errors import (
    ConflictError,
    DuplicateNameError,
    LedgerError,
    SealedError,
    SignatureError,
    StoreError,
    TamperError,
    UnknownCampaignError,
)
from ledger.trust.seats import LinkUsedError, OfferTakenError, UnknownLinkError


class HTTPRefusal(LedgerError):
    """A refusal of the server itself (who asks, how much, how often), with its status."""

    status = 400


class BadRequest(HTTPRefusal):
    status = 400


class Unauthorized(HTTPRefusal):
    status = 401


class Forbidden(HTTPRefusal):
    status = 403


class NotFound(HTTPRefusal):
    status = 404


class MethodNotAllowed(HTTPRefusal):
    status = 405


class RequestTimeout(HTTPRefusal):
    """A request's head (or body) did not arrive in time."""

    status = 408


class StaleVersion(HTTPRefusal):
    """``expected_version`` is not the head: someone acted first (``head``: where it is)."""

    status = 409
    head: int | None = None


class ShownOnce(HTTPRefusal):
    """A replay of an answer that held a secret (a fork's GM link): the secret was sent
    once and never kept."""

    status = 409


class Gone(HTTPRefusal):
    """An invitation link that seated its device already."""

    status = 410


class RequestTooLarge(HTTPRefusal):
    status = 413


class UnsupportedMediaType(HTTPRefusal):
    status = 415


class Unprocessable(HTTPRefusal):
    status = 422


class TooManyRequests(HTTPRefusal):
    status = 429


class HeadersTooLarge(HTTPRefusal):
    status = 431


class ServerFault(HTTPRefusal):
    """An error of the server's own (a bug): answered as every other, with 500."""

    status = 500


class Unavailable(HTTPRefusal):
    """The server holds as many connections as it may, every one of them busy."""

    status = 503


STATUSES: tuple[tuple[type[LedgerError], int], ...] = (
    (UnknownLinkError, 401),
    (LinkUsedError, 410),
    (OfferTakenError, 409),
    (UnknownCampaignError, 404),
    (SealedError, 404),
    (ConflictError, 409),
    (DuplicateNameError, 409),
    (TamperError, 409),
    (SignatureError, 409),
    (StoreError, 503),
)
"""The status of each library refusal that is not the rules' or the input's (422)."""


def status_of(error: LedgerError) -> int:
    if isinstance(error, HTTPRefusal):
        return error.status
    for kind, status in STATUSES:
        if isinstance(error, kind):
            return status
    return 422


def error_object(error: LedgerError) -> dict[str, Any]:
    """The command line's ``--json`` object for ``error`` (``ledger.cli.main.fail``)."""
    fields = {k: v for k, v in vars(error).items() if k not in ("message", "fix") and not k.startswith("_")}
    if error.fix is not None:
        fields["fix"] = fixes.as_json(error.fix)
    body = {"type": type(error).__name__, "message": fixes.message(error), "exit_code": error.exit_code}
    return {"error": {**body, **fields}}


def refusal(error: LedgerError, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_object(error), status_code=status_of(error), headers=headers)
