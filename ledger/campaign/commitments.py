"""Provable dice (docs/dice.md): opening a dice commitment on a branch, seeding it with
the players' client seed, revealing it (which opens the next), and its status. Each is
an action recorded through the one recording path.

Imports the provable dice (``ledger.dice.provable``), the history and the recording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ledger.campaign.history import History
from ledger.campaign.recording import Recording
from ledger.dice import provable as fairness
from ledger.errors import GiveOption, Input, LedgerError, RunCommand
from ledger.i18n import _, n_
from ledger.log.events import DiceCommitted, DiceRevealed, DiceSeeded, Event
from ledger.log.records import Campaign, Recorded, Tip

if TYPE_CHECKING:
    from ledger.dice.sources import Dice


def _none_open(c: Campaign, seeding: bool = False) -> LedgerError:
    """The refusal of a dice operation on a branch with no commitment open (``seeding``: to
    give it a client seed)."""
    if seeding:
        return LedgerError(
            _("no dice commitment is open in {campaign!r} to seed", campaign=c.name),
            fix=RunCommand(text=_("open one first with `dice commit`"), command="dice commit"),
        )
    return LedgerError(
        _("no dice commitment is open in {campaign!r}", campaign=c.name),
        fix=RunCommand(text=_("open one with `dice commit`"), command="dice commit"),
    )


def check_provable(c: Campaign, tip: Tip) -> None:
    """Refuse a commitment on a campaign that rolls seeded dice."""
    if tip.state.core.seed is not None:
        raise LedgerError(
            _(
                "campaign {campaign!r} rolls seeded dice (`seed`): reproducible, never provable",
                campaign=c.name,
            ),
            field="seed",
            fix=GiveOption(
                text=_("start a campaign without `seed` for committed dice"), inputs=(Input("seed"),)
            ),
        )


class Commit:
    """Opening a commitment, decided on the head's dice status: refused while one is open."""

    by_actor: ClassVar[bool] = False

    def __init__(self, c: Campaign, commitment: str, client_seed: str) -> None:
        self.c, self.commitment, self.client_seed = c, commitment, client_seed

    def decide(self, tip: Tip, _dice: Dice) -> list[Event]:
        c = self.c
        check_provable(c, tip)
        status = tip.dice
        assert status is not None
        if status.commitment is not None and status.seed is not None:
            raise LedgerError(
                _(
                    "dice commitment {commitment} is open in {campaign!r}",
                    commitment=status.commitment[:16],
                    campaign=c.name,
                ),
                fix=RunCommand(
                    text=_("reveal it first with `dice reveal` (it opens the next one)"),
                    command="dice reveal",
                ),
            )
        return [DiceCommitted(commitment=self.commitment, client_seed=self.client_seed)]


class Seed:
    """Giving the open commitment its client seed, before any die is drawn under it."""

    by_actor: ClassVar[bool] = False

    def __init__(self, history: History, c: Campaign, client_seed: str) -> None:
        self.history, self.c, self.client_seed = history, c, client_seed

    def decide(self, tip: Tip, _dice: Dice) -> list[Event]:
        c = self.c
        check_provable(c, tip)
        status = tip.dice
        assert status is not None
        if status.commitment is None:
            raise _none_open(c, seeding=True)
        if status.seed is None:
            raise fairness.refuse_foreign(status)
        if status.next_nonce:
            raise LedgerError(
                n_(
                    "{n} die was drawn under dice commitment {commitment} in {campaign!r}, "
                    "so its client seed can no longer change",
                    "{n} dice were drawn under dice commitment {commitment} in {campaign!r}, "
                    "so its client seed can no longer change",
                    status.next_nonce,
                    commitment=status.commitment[:16],
                    campaign=c.name,
                ),
                fix=RunCommand(
                    text=_("reveal it with `dice reveal` (that opens the next one) and seed the next one"),
                    command="dice reveal",
                ),
            )
        fairness.note_seeded(self.history.store, c.lineage[-1][0], status.commitment)
        return [DiceSeeded(commitment=status.commitment, client_seed=self.client_seed)]


class Reveal:
    """Revealing the commitment that was open when asked (``commitment``) and opening
    the next one (``upcoming``) with ``following`` for its client seed."""

    by_actor: ClassVar[bool] = False

    def __init__(self, commitment: str, upcoming: str, following: str) -> None:
        self.commitment, self.upcoming, self.following = commitment, upcoming, following

    def decide(self, tip: Tip, _dice: Dice) -> list[Event]:
        status = tip.dice
        assert status is not None
        if status.commitment != self.commitment or status.seed is None:
            raise LedgerError(
                _("dice commitment {commitment} was closed meanwhile", commitment=self.commitment[:16]),
                fix=RunCommand(text=_("see `dice status`"), command="dice status"),
            )
        return [
            DiceRevealed(commitment=status.commitment, seed=status.seed.hex()),
            DiceCommitted(commitment=self.upcoming, client_seed=self.following),
        ]


class Commitments:
    """The dice commitments of the branches of one history."""

    def __init__(self, history: History, recording: Recording) -> None:
        self.history = history
        self.recording = recording
        self.store = history.store

    def commit(self, c: Campaign, client_seed: str = "", *, seat: str | None = None) -> Recorded:
        """Open a dice commitment: a fresh secret seed, its sha256 in the log."""
        client_seed = fairness.check_client_seed(client_seed)
        check_provable(c, self.history.tip(c))
        commitment = fairness.new_seed(self.store, client_seed, c.id)
        return self.recording.record(c, Commit(c, commitment, client_seed), seat=seat)

    def seed(self, c: Campaign, client_seed: str, *, seat: str | None = None) -> Recorded:
        """Give the players' client seed for the open commitment (docs/dice.md)."""
        client_seed = fairness.check_seeding(client_seed)
        check_provable(c, self.history.tip(c))
        return self.recording.record(c, Seed(self.history, c, client_seed), seat=seat)

    def reveal(self, c: Campaign, client_seed: str | None = None, *, seat: str | None = None) -> Recorded:
        """Reveal the open commitment's seed and open the next commitment (with the same
        client seed unless another is given)."""
        given = None if client_seed is None else fairness.check_client_seed(client_seed)
        now = self.history.dice_tip(c, self.history.tip(c)).dice
        assert now is not None
        if now.commitment is None:
            raise _none_open(c)
        if now.seed is None and now.lost:
            raise fairness.refuse_foreign(now)
        if now.seed is None:
            raise LedgerError(
                _(
                    "the seed of dice commitment {commitment} is kept by the ledger this campaign "
                    "was imported from",
                    commitment=now.commitment[:16],
                ),
                fix=RunCommand(
                    text=_("reveal it there, or open a new one here with `dice commit`"),
                    command="dice commit",
                ),
            )
        from ledger.campaign.sealing import not_revealed  # lazy: sealed actions are rare

        hidden = not_revealed(self.history, c, now.commitment)
        if hidden:
            shown = ", ".join(str(v) for v in hidden[:10])
            raise LedgerError(
                _(
                    "the seed of dice commitment {commitment} would tell the faces of sealed "
                    "rolls not revealed yet (version {versions}); reveal them first",
                    commitment=now.commitment[:16],
                    versions=shown,
                ),
                fix=RunCommand(text=_("reveal every sealed roll"), command="reveal", options=(Input("all"),)),
            )
        following = now.client_seed if given is None else given
        upcoming = fairness.new_seed(self.store, following, c.id)
        return self.recording.record(c, Reveal(now.commitment, upcoming, following), seat=seat)

    def status(self, c: Campaign) -> dict[str, Any]:
        """The open commitment of a campaign and how many dice were drawn under it."""
        tip = self.history.dice_tip(c, self.history.tip(c))
        status = tip.dice
        assert status is not None
        seeded_dice = tip.state.core.seed is not None
        return {
            "campaign": c.name,
            "branch": c.id,
            "commitment": status.commitment,
            "client_seed": status.client_seed if status.commitment else None,
            "drawn": status.next_nonce if status.commitment else 0,
            "seeded_at": status.seeded_at if status.commitment else None,
            "seed_here": status.seed is not None,
            "seed_lost": status.commitment is not None and status.seed is None and status.lost,
            "seeded": seeded_dice,
            "provable": status.commitment is not None and status.seed is not None and not seeded_dice,
        }
