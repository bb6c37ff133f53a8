"""The bulk path: many commands on one campaign, one transaction.

``ledger simulate`` and bulk work decide and fold commands in memory, seal
their events, and append them all at once: either every action of the batch
is recorded or none is. A batch cannot undo (an undo needs the stored
history); record the batch, then undo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from ledger.deciding import decide_and_draw, decision
from ledger.errors import ConflictError, LedgerError
from ledger.records import Campaign, Recorded
from ledger.store import VersionConflict

if TYPE_CHECKING:
    from ledger.commands import Command
    from ledger.records import Recorder
    from ledger.state import CampaignState


class Batch:
    """Commands decided against an in-memory head, appended together on commit.

    A batch takes what an autoplayer plays through (:meth:`state`, :meth:`execute`)
    and :meth:`commit`; everything else is read from :attr:`ledger`."""

    def __init__(self, ledger: Recorder, campaign: Campaign) -> None:
        self.ledger = ledger
        self.campaign = campaign
        self.system = ledger.system(campaign)
        self.tip = ledger.dice_tip(campaign)
        self.rows: list[tuple[str, int, str, bytes]] = []
        self.actions = 0
        self.first: str | None = None
        """The campaign's first character, when this batch brings it in: it acts from then on."""

    def __enter__(self) -> Batch:
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.rows.clear()

    def _check(self, campaign: str | None) -> None:
        if campaign is not None and campaign != self.campaign.name:
            raise LedgerError(
                f"this batch records to {self.campaign.name!r}, not {campaign!r}; open one batch per campaign"
            )

    def state(self, campaign: str | None = None) -> CampaignState:
        """The state after everything decided so far in this batch."""
        self._check(campaign)
        return self.tip.state

    def execute(
        self,
        command: Command,
        campaign: str | None = None,
        *,
        faces: list[int] | None = None,
        actor: str | None = None,
    ) -> Recorded:
        self._check(campaign)
        decide = self.ledger.decider(self.campaign, command, actor)
        events, dice = decide_and_draw(decide, self.tip, faces)
        who = self.ledger.recorded_under(self.tip.state, actor or command.actor, command.introduces())
        if command.introduces() is not None and not self.tip.state.core.characters:
            self.first = who
        how = decision(msgspec.structs.replace(command, actor=actor or command.actor), dice, self.system)
        rows, envelopes, self.tip = self.ledger.seal(
            self.campaign, self.tip, events, who, system=self.system, decision=how
        )
        self.rows.extend(rows)
        self.actions += 1
        return Recorded(self.campaign, envelopes[0].action, envelopes, self.tip.state)

    def commit(self) -> int:
        """Append every buffered event in one transaction; returns how many."""
        if not self.rows:
            return 0
        rows, self.rows = self.rows, []
        try:
            self.ledger.store.append(rows)
        except VersionConflict as e:
            raise ConflictError(
                f"campaign {self.campaign.name!r} changed while the batch was built; "
                "nothing of the batch was recorded, run it again"
            ) from e
        if self.first is not None and self.ledger.store.acting_character(self.campaign.id) is None:
            self.ledger.store.act_as(self.campaign.id, self.first)
        self.ledger.remember(self.campaign, self.tip)
        return len(rows)
