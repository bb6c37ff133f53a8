"""Sealed actions: what is committed when one is made, how a reveal is checked, and the one
rule of who may see what (:func:`entry_seen`, :func:`content_seen`), which every read path
asks (the API's events, the live feed, a sealed action's content, the command line).

An action asked sealed (``--private``, ``--blind``, a whisper) is decided as any other; its
events are not recorded. The log records an ``action.sealed`` event instead, carrying who
made it, what was rolled, the visibility, the recipients and a commitment: the sha256 of
``SALT:CONTENT``, ``CONTENT`` the canonical JSON text of :class:`Sealed` (the events the
action decided, and its decision: command, arguments, faces) and ``SALT`` 32 random hex
digits. The content and salt wait in the GM's store; ``action.revealed`` publishes both, and
anyone holding the export hashes them again (docs/dice.md, "Sealed rolls").
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from typing import Any, Union

import msgspec

from ledger.i18n import _
from ledger.log.events import (
    CORE_EVENTS,
    ActionRedone,
    ActionSealed,
    ActionUndone,
    Decision,
    Envelope,
    Rolled,
    system_events,
)

PUBLIC = "public"
PRIVATE = "private"
"""The roller and the GM see the result."""
BLIND = "blind"
"""Only the GM sees the result; the roller sees that the roll was made."""
WHISPER = "whisper"
"""A note its recipients and the GM read; no other seat sees that it was made."""
VISIBILITIES = (PUBLIC, PRIVATE, BLIND)
"""The roll modes a command is asked with (``visibility``)."""

GM = "gm"
"""The role that sees everything (the ledger's owner at the command line is the GM)."""

_SALT_HEX = 32


class Sealed(msgspec.Struct, frozen=True, gc=False):
    """What a sealed action holds back: its decision (the command, its arguments, the
    faces drawn) and the events it decided, in order."""

    decision: Decision | None
    events: list[Any]


class Viewer(msgspec.Struct, frozen=True):
    """Who reads: a seat's role (``gm``, ``player``, ``watch``), its label and character."""

    role: str
    seat: str | None = None
    character: str | None = None


THE_GM = Viewer(GM)
"""The command line: the ledger's owner, its GM."""


class Kept(msgspec.Struct, frozen=True):
    """A sealed action's content and salt, as the GM's store keeps them."""

    content: str
    salt: str


class Carried(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A line of a GM's export after its events: the content and salt of the sealed action
    at version ``sealed`` (a players' export has no such line)."""

    sealed: int
    commitment: str
    content: str
    salt: str


CARRIED = b'{"sealed":'
"""How a carried line begins (an event's line begins ``{"v":``)."""


def commitment_of(salt: str, content: str) -> str:
    """The commitment to a sealed content: the sha256 of ``SALT:CONTENT`` (UTF-8), in hex."""
    return hashlib.sha256(f"{salt}:{content}".encode()).hexdigest()


def encode(sealed: Sealed) -> str:
    """The canonical text of a sealed content: compact JSON, fields in their declared order."""
    return msgspec.json.encode(sealed).decode()


@cache
def _decoder(system: str) -> msgspec.json.Decoder[Any]:
    union = Union[CORE_EVENTS + system_events(system)]  # noqa: UP007 - a runtime union of classes
    content = msgspec.defstruct(
        "Content",
        [("decision", Decision | None), ("events", list[union])],  # type: ignore[valid-type]
        frozen=True,
        forbid_unknown_fields=True,
    )
    return msgspec.json.Decoder(content)


def decode(content: str, system: str) -> Sealed:
    """A revealed content read back with the events of ``system``; raises ValueError, in a
    line, when it is not one."""
    try:
        found = _decoder(system).decode(content)
    except msgspec.DecodeError as e:
        raise ValueError(
            _("its revealed content cannot be read ({value})", value=str(e).splitlines()[0])
        ) from None
    return Sealed(found.decision, list(found.events))


def revealed_rolls(content: str) -> list[Any]:
    """The core rolls (``dice.rolled``) a revealed content holds, read without its system:
    what the statistics count once a sealed roll is revealed (none before)."""
    try:
        found = msgspec.json.decode(content, type=dict[str, Any])
        events = found.get("events", [])
        return [
            msgspec.convert(e, Rolled)
            for e in events
            if isinstance(e, dict) and e.get("kind") == "dice.rolled"
        ]
    except (msgspec.DecodeError, msgspec.ValidationError, AttributeError):
        return []


def reveal_problem(sealed: ActionSealed, content: str, salt: str) -> str | None:
    """Why a reveal does not open a sealed action (None: it does): the salt is not one the
    ledger draws, or ``SALT:CONTENT`` does not hash to the commitment recorded at roll time."""
    if len(salt) != _SALT_HEX or any(ch not in "0123456789abcdef" for ch in salt):
        return _("its salt is not {salt_hex} hex digits", salt_hex=_SALT_HEX)
    if commitment_of(salt, content) != sealed.commitment:
        return _(
            "its content and salt do not hash to the commitment {commitment} the sealed action recorded when it was made",
            commitment=sealed.commitment[:16],
        )
    return None


def live_at(env_at: Callable[[int], Envelope[Any]], version: int, sealed: int) -> bool:
    """Whether version ``sealed`` is in the effective history at ``version`` (no undo
    standing at ``version`` took it back), walking the resets as the history's segments do."""
    v = version
    while v > 0:
        env = env_at(v)
        ev = env.event
        reset = v if isinstance(ev, ActionUndone | ActionRedone) else env.last_reset
        if reset < sealed <= v:
            return True
        if reset == 0 or sealed > v:
            return False
        target = (ev if reset == v else env_at(reset).event).target
        if not 0 <= target < reset:
            return False
        v = target
    return False


# --- who may see what: the one rule every read path asks ----------------------------


def entry_seen(viewer: Viewer, env: Envelope[Any]) -> bool:
    """Whether an event is in the log ``viewer`` reads at all: every event but a whisper,
    which its recipients, its sender and the GM only read."""
    ev = env.event
    if not isinstance(ev, ActionSealed) or ev.visibility != WHISPER:
        return True
    return content_seen(viewer, ev, env.actor)


def content_seen(viewer: Viewer, ev: ActionSealed, actor: str | None) -> bool:
    """Whether ``viewer`` may see what a sealed action holds before it is revealed: the GM
    always; a private roll's roller (its seat, or a seat of its character); a whisper's
    sender and recipients; a blind roll, nobody else."""
    if viewer.role == GM:
        return True
    if ev.visibility == BLIND:
        return False
    mine = (viewer.seat is not None and viewer.seat == ev.seat) or (
        viewer.character is not None and viewer.character == actor
    )
    if ev.visibility == PRIVATE:
        return mine
    if ev.visibility == WHISPER:
        return mine or (viewer.character is not None and viewer.character in ev.to)
    return False
