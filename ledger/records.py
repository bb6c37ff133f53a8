"""What the ledger hands out and keeps: a campaign as the registry knows it, the head
of a branch, what one command recorded, a log entry and a verify report.

Plain data, shared by the Ledger (``ledger.campaign``) and the modules below it
(``ledger.batch``, ``ledger.integrity``, ``ledger.provenance``), and the Ledger as
those modules see it (:class:`Book`, :class:`Recorder`): they take it as an argument
and never import it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from ledger.errors import VersionError
from ledger.events import Envelope, Event
from ledger.state import CampaignState

if TYPE_CHECKING:
    from ledger.commands import Command
    from ledger.dice import Dice
    from ledger.events import CampaignRegistered, Decision
    from ledger.fairness import DiceStatus
    from ledger.store import Store
    from ledger.systems import System

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
        raise VersionError(f"version {version} is outside campaign {self.name!r}")


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
    (:meth:`Ledger.dice_tip`)."""


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


class VerifyReport(msgspec.Struct):
    checked: dict[str, int] = msgspec.field(default_factory=dict)
    heads: dict[str, str] = msgspec.field(default_factory=dict)


class Keys(Protocol):
    """A ledger as its keys and signers are read (``ledger.provenance``)."""

    @property
    def store(self) -> Store: ...

    def campaigns(self) -> list[Campaign]: ...


class Book(Keys, Protocol):
    """A ledger as it is verified, exported and imported into (``ledger.integrity``)."""

    def campaign(self, name: str | None = None) -> Campaign: ...

    def system(self, campaign: Campaign) -> System: ...

    def head(self, campaign: Campaign) -> int: ...

    def envelope(self, campaign: Campaign, version: int) -> Envelope[Any]: ...

    def envelopes(
        self, campaign: Campaign, lo: int = 0, hi: int | None = None
    ) -> Iterator[Envelope[Any]]: ...

    def stored(self, campaign: Campaign, lo: int = 0, hi: int | None = None) -> Iterator[bytes]: ...

    def register(self, make: Callable[[], tuple[CampaignRegistered, Rows]]) -> None: ...


class Recorder(Protocol):
    """A ledger as a batch decides, seals and appends through it (``ledger.batch``)."""

    @property
    def store(self) -> Store: ...

    def system(self, campaign: Campaign) -> System: ...

    def dice_tip(self, c: Campaign, tip: Tip | None = None) -> Tip: ...

    def decider(
        self, c: Campaign, command: Command, actor: str | None = None
    ) -> Callable[[CampaignState, Dice], list[Event]]: ...

    def recorded_under(self, state: CampaignState, actor: str | None, newcomer: str | None) -> str | None: ...

    def seal(
        self,
        c: Campaign,
        tip: Tip,
        events: list[Event],
        actor: str | None,
        *,
        action: str | None = None,
        system: System | None = None,
        decision: Decision | None = None,
    ) -> tuple[Rows, list[Envelope[Any]], Tip]: ...

    def remember(self, c: Campaign, tip: Tip) -> None: ...
