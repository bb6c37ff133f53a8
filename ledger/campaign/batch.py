"""The bulk path: many commands on one campaign, one transaction.

``ledger simulate`` and bulk work decide and seal each command on the batch's
head in memory, through the same path that records one action
(``Recording.draft``), and append them all at once: either every action of the
batch is recorded or none is. A batch cannot undo (an undo needs the stored
history); record the batch, then undo.

Imports the records and the store; it is handed the recording and the campaigns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.errors import ConflictError, LedgerError
from ledger.i18n import _
from ledger.log.records import Campaign, Recorded
from ledger.log.store import VersionConflict
from ledger.systems import get_system

if TYPE_CHECKING:
    from ledger.campaign.campaigns import Campaigns
    from ledger.campaign.recording import Recording
    from ledger.deciding.commands import Command
    from ledger.log.state import CampaignState


class Batch:
    """Commands decided against an in-memory head, appended together on commit.

    A batch takes what an autoplayer plays through (:meth:`state`, :meth:`execute`)
    and :meth:`commit`."""

    def __init__(self, recording: Recording, campaigns: Campaigns, campaign: Campaign) -> None:
        self.recording = recording
        self.campaigns = campaigns
        self.campaign = campaign
        self.system = get_system(campaign.system)
        self.tip = recording.history.dice_tip(campaign)
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
                _(
                    "this batch records to {campaign!r}, not {other!r}; open one batch per campaign",
                    campaign=self.campaign.name,
                    other=campaign,
                )
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
        seat: str | None = None,
    ) -> Recorded:
        """Decide and seal ``command`` on the batch's head (acting as ``actor``, else the
        character it names), kept for :meth:`commit`."""
        self._check(campaign)
        newcomer = command.introduces()
        first = newcomer is not None and not self.tip.state.core.characters
        drafted = self.recording.draft(
            self.campaign,
            self.tip,
            command,
            faces=faces,
            actor=actor,
            newcomer=newcomer,
            seat=seat,
            system=self.system,
        )
        if first:
            self.first = newcomer
        self.tip = drafted.tip
        self.rows.extend(drafted.rows)
        self.actions += 1
        return Recorded(self.campaign, drafted.envelopes[0].action, drafted.envelopes, self.tip.state)

    def commit(self) -> int:
        """Append every buffered event in one transaction; returns how many."""
        if not self.rows:
            return 0
        rows, self.rows = self.rows, []
        store = self.recording.store
        try:
            store.append(rows)
        except VersionConflict as e:
            raise ConflictError(
                _(
                    "campaign {campaign!r} changed while the batch was built; "
                    "nothing of the batch was recorded, run it again",
                    campaign=self.campaign.name,
                )
            ) from e
        if self.first is not None and store.acting_character(self.campaign.id) is None:
            store.act_as(self.campaign.id, self.first)
        self.recording.history.remember(self.campaign, self.tip)
        self.campaigns.forget_choice(self.campaign)  # the batch may have chosen it: read again
        return len(rows)
