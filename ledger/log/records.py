"""What the ledger hands out and keeps: a campaign as the registry knows it, the head
of a branch, what one command recorded, a log entry and a verify report, and the
refusal of a stored event that cannot be read.

Plain data, shared by the parts of the campaign package and the modules that are
handed those parts (``ledger.campaign.batch``, ``ledger.trust.integrity``, ``ledger.trust.provenance``);
it imports only the events, the state and the errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from ledger.errors import Input, RunCommand, TamperError, VersionError
from ledger.i18n import _
from ledger.log.events import Envelope, Event
from ledger.log.state import CampaignState

if TYPE_CHECKING:
    from ledger.dice.provable import DiceStatus

Rows = list[tuple[str, int, str, bytes]]
"""Rows to append: (stream, version, kind, sealed bytes)."""


class Campaign(msgspec.Struct, frozen=True):
    """A campaign (a branch) as the registry knows it."""

    id: str
    name: str
    system: str
    parent_id: str | None = None
    parent_version: int | None = None
    imported: bool = False
    lineage: tuple[tuple[str, int, int | None], ...] = ()
    """(stream, after version, up to version or None): where each range of
    this branch's versions is stored, oldest first."""
    signed_by: str | None = None
    """The public key that signed the export this campaign was imported from."""

    def stream_for(self, version: int) -> str:
        for stream, lo, hi in self.lineage:
            if version > lo and (hi is None or version <= hi):
                return stream
        raise VersionError(
            _("version {version} is outside campaign {name!r}", version=version, name=self.name)
        )


class Recorded(msgspec.Struct, frozen=True):
    """What one command appended."""

    campaign: Campaign
    action: str
    envelopes: list[Envelope[Any]]
    state: CampaignState

    @property
    def events(self) -> list[Event]:
        return [e.event for e in self.envelopes]

    @property
    def version(self) -> int:
        return self.envelopes[-1].v


class Tip(msgspec.Struct, frozen=True):
    """The head of a branch: its version, hash, last reset and state."""

    version: int
    prev: str
    last_reset: int
    state: CampaignState
    dice: DiceStatus | None = None
    """The branch's open dice commitment and next nonce; None until looked up
    (:meth:`ledger.campaign.history.History.dice_tip`)."""


class LogEntry(msgspec.Struct, frozen=True):
    version: int
    action: str
    kind: str
    at: str
    day: int | None
    actor: str | None
    summary: str
    undone: bool
    event: Event
    hash: str
    party: bool = False
    """The action is the party's (``Decision.party``, or its command reaches the party)."""
    seat: str | None = None
    """The seat the action was recorded from (None: the command line, or no decision)."""


class VerifyReport(msgspec.Struct):
    checked: dict[str, int] = msgspec.field(default_factory=dict)
    heads: dict[str, str] = msgspec.field(default_factory=dict)


def unreadable(name: str, version: int, error: Exception) -> TamperError:
    """The refusal of a stored event (of campaign ``name``, at ``version``) that cannot be decoded."""
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return TamperError(
        name,
        version,
        _("the stored event cannot be read ({first})", first=first),
        fix=RunCommand(text=_("verify the whole ledger"), command="verify", options=(Input("all"),)),
    )


def recorded_json(rec: Recorded) -> dict[str, Any]:
    """The JSON form of what an action recorded: campaign, action, version, events (what
    ``--json`` prints for it, and the live table answers)."""
    return {
        "campaign": rec.campaign.name,
        "action": rec.action,
        "version": rec.version,
        "events": [msgspec.json.decode(msgspec.json.encode(e.event)) for e in rec.envelopes],
    }
