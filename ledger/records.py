"""What the ledger hands out and keeps: a campaign as the registry knows it, the head
of a branch, what one command recorded, a log entry and a verify report.

Plain data, shared by the Ledger (``ledger.campaign``) and the modules below it
(``ledger.batch``, ``ledger.integrity``, ``ledger.provenance``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.errors import VersionError
from ledger.events import Envelope, Event
from ledger.state import CampaignState

if TYPE_CHECKING:
    from ledger.fairness import DiceStatus


@dataclass(frozen=True)
class Campaign:
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
        raise VersionError(f"version {version} is outside campaign {self.name!r}")


@dataclass(frozen=True)
class Recorded:
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


@dataclass(frozen=True)
class Tip:
    """The head of a branch: its version, hash, last reset and state."""

    version: int
    prev: str
    last_reset: int
    state: CampaignState
    dice: DiceStatus | None = None
    """The branch's open dice commitment and next nonce; None until looked up
    (:meth:`Ledger.dice_tip`)."""


@dataclass(frozen=True)
class LogEntry:
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


@dataclass
class VerifyReport:
    checked: dict[str, int] = field(default_factory=dict)
    heads: dict[str, str] = field(default_factory=dict)
