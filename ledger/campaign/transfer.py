"""Campaigns made from others: a fork (a new branch sharing its parent's history up to a
version), and the glue of verify, export and import (``ledger.trust.integrity``), with the
export signed and the import's signature checked (``ledger.trust.provenance``).

Imports the campaigns, the history, the provable dice (``ledger.dice.provable``), the
integrity checks and the provenance; loaded only when one of these runs.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import IO, Any

import msgspec

from ledger.campaign.campaigns import Campaigns
from ledger.campaign.history import History
from ledger.dice import provable as fairness
from ledger.errors import GiveOption, Input, VersionError
from ledger.i18n import _
from ledger.log import chain
from ledger.log.events import RESETS, BranchForked, CampaignRegistered, Envelope
from ledger.log.records import Campaign, Rows, VerifyReport
from ledger.text import check_name
from ledger.trust import integrity, provenance


class Transfer:
    """Forks, verification, export and import over one store's campaigns and history."""

    def __init__(self, campaigns: Campaigns, history: History) -> None:
        self.campaigns = campaigns
        self.history = history
        self.store = history.store

    def fork(
        self, parent: Campaign, new_name: str, *, at: int | None = None, day: int | None = None
    ) -> Campaign:
        """A new branch sharing the parent's history up to ``at`` (default: head)."""
        history = self.history
        new_name = check_name(new_name, "campaign")
        head = history.head(parent)
        if day is not None:
            at = history.version_at_day(parent, day)
        at = head if at is None else at
        if not 1 <= at <= head:
            raise VersionError(
                _(
                    "cannot fork {campaign!r} at version {version}: its head is version {head}",
                    campaign=parent.name,
                    version=at,
                    head=head,
                ),
                fix=GiveOption(
                    text=_("use `at` 1 to {head}", head=head),
                    inputs=(Input("at", _("1 to {head}", head=head)),),
                ),
            )
        base = history.envelope(parent, at)
        at_fork = history.dice_at(parent, at)
        # The fork opens its own commitment: revealing it must tell nothing about the parent.
        cid = str(uuid.uuid4())
        commitment = fairness.new_seed(self.store, at_fork.client_seed, cid) if at_fork.commitment else None
        last_reset = at if isinstance(base.event, RESETS) else base.last_reset
        env = Envelope(
            v=at + 1,
            campaign=cid,
            action=chain.new_action(),
            at=chain.now(),
            day=base.day,
            last_reset=last_reset,
            prev=base.hash,
            event=BranchForked(
                name=new_name,
                parent_id=parent.id,
                parent_name=parent.name,
                at=at,
                commitment=commitment or msgspec.UNSET,
                client_seed=at_fork.client_seed if commitment else msgspec.UNSET,
            ),
        )
        raw, __ = chain.seal(env)

        def make() -> tuple[CampaignRegistered, Rows]:
            return (
                CampaignRegistered(
                    campaign_id=cid,
                    name=new_name,
                    system=parent.system,
                    parent_id=parent.id,
                    parent_version=at,
                ),
                [(cid, at + 1, "branch.forked", raw)],
            )

        self.campaigns.register(make, keep_current=False)
        fork = self.campaigns.named(new_name)
        chosen = self.campaigns.chosen(parent)
        if chosen is not None:  # a branch goes on with the parent's acting character
            self.campaigns.choose(fork, chosen)
        return fork

    def verify(self, name: str | None = None, *, every: bool = False) -> VerifyReport:
        """Walk the registry's chain, then the campaign's (every campaign's with ``every``);
        raise TamperError at the first bad event."""
        report = integrity.verify_registry(self.history)
        held = self.campaigns.all()
        targets = held if every else [self.campaigns.named(name)]
        return integrity.verify_campaigns(self.history, targets, report, held)

    def export(self, out: IO[bytes], c: Campaign, *, sign: bool = True, players: bool = False) -> int:
        """Write a campaign's whole branch as JSON lines, its header signed by this
        ledger's key unless ``sign`` is False; returns the event count. ``players``: leave
        out the sealed actions' contents (their commitments are in the events)."""
        return integrity.export(
            self.history,
            out,
            c,
            sign=(lambda header: provenance.sign(self.store, header)) if sign else None,
            players=players,
        )

    def import_(
        self,
        data: IO[bytes],
        name: str | None = None,
        *,
        require_signed: bool = False,
        file: str | None = None,
    ) -> Campaign:
        """Import an export after verifying its chain and signature."""
        store = self.store

        def signer(header: Mapping[str, Any]) -> str | None:
            return provenance.check_header(store, header, require_signed=require_signed, file=file).key

        return integrity.import_campaign(self.campaigns, data, name, signer=signer)
