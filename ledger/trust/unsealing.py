"""What an import (and ``verify``) checks of sealed actions: an ``action.sealed`` as the
ledger records one, and an ``action.revealed`` that opens it: its content and salt hash to
the commitment fixed when the action was made, its content is events of the campaign's
system, and it is revealed once (docs/dice.md, "Sealed rolls")."""

from __future__ import annotations

import re
from typing import Any

from ledger.i18n import _
from ledger.log import sealing
from ledger.log.events import ActionRevealed, ActionSealed, Envelope
from ledger.log.sealing import live_at

__all__ = ["content_of", "live_at", "revealed_problem", "sealed_problem"]
from ledger.text import LABEL_LIMIT, check_name, check_text

_HEX64 = re.compile(r"[0-9a-f]{64}")


def sealed_problem(ev: ActionSealed, characters: tuple[str, ...]) -> str | None:
    """Why the ledger could not have recorded ``ev`` (None: it could)."""
    if not _HEX64.fullmatch(ev.commitment):
        return _("its sealed commitment is not a sha256 in hex")
    if ev.visibility not in (sealing.PRIVATE, sealing.BLIND, sealing.WHISPER):
        return _(
            "its visibility {visibility!r} is none of private, blind, whisper", visibility=ev.visibility[:20]
        )
    if (ev.visibility == sealing.WHISPER) != bool(ev.to):
        return _("a whisper, and only a whisper, names recipients")
    for name in ev.to:
        if name not in characters:
            return _("it whispers to {name!r}, no character of the campaign", name=name[:40])
    if ev.label and check_text(ev.label, _("a sealed action's label"), LABEL_LIMIT) != ev.label:
        return _("its label is not written as the ledger writes one")
    if ev.seat is not None and check_name(ev.seat, "seat") != ev.seat:
        return _("its seat is not written as the ledger writes a name")
    if ev.drawn < 0 or (ev.dice is None) != (ev.nonce is None) or (ev.dice is None and ev.drawn):
        return _("its sealed dice are not recorded as the ledger records them")
    if ev.dice is not None and not _HEX64.fullmatch(ev.dice):
        return _("its dice commitment is not a sha256 in hex")
    return None


def content_of(ev: ActionRevealed, system: str) -> sealing.Sealed:
    """A revealed content read back (once :func:`revealed_problem` found it readable)."""
    return sealing.decode(ev.content, system)


def revealed_problem(
    ev: ActionRevealed, env: Envelope[Any], sealed_env: Envelope[Any] | None, revealed: set[int], system: str
) -> str | None:
    """Why a reveal does not open the sealed action it names (None: it does)."""
    if sealed_env is None or not isinstance(sealed_env.event, ActionSealed) or not 0 < ev.sealed < env.v:
        return _("it reveals version {sealed}, which is no sealed action before it", sealed=ev.sealed)
    if ev.sealed in revealed:
        return _("version {sealed} was revealed already", sealed=ev.sealed)
    problem = sealing.reveal_problem(sealed_env.event, ev.content, ev.salt)
    if problem is not None:
        return problem
    try:
        content = sealing.decode(ev.content, system)
    except ValueError as e:
        return str(e)
    if not content.events:
        return _("its revealed content holds no event")
    if ev.actor != sealed_env.actor:
        return _(
            "it names {actor!r} as the roller, where the sealed action was recorded under {sealed_actor!r}",
            actor=ev.actor,
            sealed_actor=sealed_env.actor,
        )
    how = content.decision
    if how is not None and how.command != sealed_env.event.command:
        return _("its revealed command {command!r} is not the one sealed", command=how.command[:40])
    if ev.what and ev.what != content.events[0].stored_summary():
        return _("what it says it reveals is not its content")
    return None
