"""The :class:`Ledger`, the library's entry point: one store's campaigns as
append-only branches of sealed events, each method handed to the part that holds
its idea (the package's docstring names them)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ledger.campaign.campaigns import Campaigns, Registration
from ledger.campaign.history import History, Redo, Undo
from ledger.errors import GiveOption, Input, LedgerError, NotALedgerError, StoreError
from ledger.i18n import _
from ledger.log.events import Decision, Envelope, Event
from ledger.log.records import Campaign, LogEntry, Recorded, Rows, Tip, VerifyReport
from ledger.log.state import CampaignState
from ledger.log.store import Store, is_postgres, resolve_target
from ledger.systems import System, get_system
from ledger.trust import outfile

# The parts that record, prove dice, verify, export or import are made (and their modules
# imported) on first use: a command that reads (a sheet, the log, the statistics) loads
# none of them (tests/test_cli_startup.py).
if TYPE_CHECKING:
    from ledger.campaign.batch import Batch
    from ledger.campaign.commitments import Commitments
    from ledger.campaign.recording import Recording
    from ledger.campaign.transfer import Transfer
    from ledger.deciding.commands import Command
    from ledger.dice.sources import Dice


def _warn(warning: LedgerError) -> None:
    # lazy: a command that reads imports none of the recording (tests/test_cli_startup.py)
    from ledger.campaign.recording import warn_chain

    warn_chain(warning)


def check_ledger_path(target: str) -> None:
    """Refuse, before anything opens it, a ledger path that is there but is no regular file
    (through a symlink): a folder, a named pipe, a socket or a device
    (:func:`ledger.trust.outfile.not_a_file`, the check of every path the ledger is given).
    Opening a named pipe would wait for a writer for ever, and reading a device might never
    end. A missing path is the store's to refuse or create."""
    if is_postgres(target):
        return
    try:
        kind = outfile.not_a_file(Path(target), follow_symlinks=True)
    except OSError as e:
        raise StoreError(
            _("cannot look at {path}: {reason}; check its permissions", path=target, reason=e.strerror),
            target,
        ) from e
    if kind is not None:
        raise NotALedgerError(
            _(
                "{path} is {kind}, not a ledger file; nothing was read from it",
                path=target,
                kind=outfile.kind_said(kind),
            ),
            target,
            fix=GiveOption(
                text=_("give `db` a ledger file, or the path of a new one"), inputs=(Input("db"),)
            ),
        )


class Ledger:
    """A campaign ledger over one database target (SQLite file or PostgreSQL)."""

    def __init__(
        self,
        db: str | None = None,
        *,
        create: bool = True,
        read_only: bool = False,
        warn: Callable[[LedgerError], None] | None = None,
    ) -> None:
        """Open the ledger at ``db``. ``create``: a missing SQLite file may be made (else
        it is refused naming the path); ``read_only``: open it for reading only, so
        nothing is written and read-only media work. ``warn`` receives the warnings,
        each a :class:`LedgerError` that is not raised (its message and fix; default: a
        :class:`ledger.campaign.recording.ChainWarning` through :mod:`warnings`)."""
        target = resolve_target(db)
        check_ledger_path(target)
        self.store = Store(target, create=create, read_only=read_only)
        self.warn = warn or _warn
        self.history = History(self.store)
        self.registry = Campaigns(self.store)

    @cached_property
    def recording(self) -> Recording:
        # lazy: a command that reads imports none of the recording (tests/test_cli_startup.py)
        from ledger.campaign.recording import Recording

        return Recording(self.history, self.warn)

    @cached_property
    def commitments(self) -> Commitments:
        # lazy: a command that reads imports no dice commitments (tests/test_cli_startup.py)
        from ledger.campaign.commitments import Commitments

        return Commitments(self.history, self.recording)

    @cached_property
    def transfer(self) -> Transfer:
        # lazy: a command that reads imports no verify, export or import (tests/test_cli_startup.py)
        from ledger.campaign.transfer import Transfer

        return Transfer(self.registry, self.history)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- campaigns (ledger.campaign.campaigns) -----------------------------------------

    def campaigns(self) -> list[Campaign]:
        return self.registry.all()

    def campaign(self, name: str | None = None) -> Campaign:
        """A campaign by name; without one, the current campaign (see :meth:`current`)."""
        return self.registry.named(name)

    def campaign_by_id(self, campaign_id: str) -> Campaign:
        return self.registry.by_id(campaign_id)

    def summary(self, event: Event) -> str:
        return self.registry.summary(event)

    def current(self) -> Campaign:
        return self.registry.current()

    def current_id(self) -> str | None:
        return self.registry.current_id()

    def use(self, name: str) -> Campaign:
        return self.registry.use(name)

    def system(self, campaign: Campaign) -> System:
        return get_system(campaign.system)

    def register(self, make: Registration, *, keep_current: bool = True) -> None:
        self.registry.register(make, keep_current=keep_current)

    def new_campaign(
        self,
        system: str,
        name: str,
        *,
        seed: int | None = None,
        tables: str | None = None,
        settings: dict[str, Any] | None = None,
        commit: bool = True,
        client_seed: str = "",
    ) -> Campaign:
        """Start a campaign; unless ``commit`` is False or the dice are seeded, its first
        dice commitment opens with it (see ledger.dice.provable)."""
        return self.registry.start(
            system, name, seed=seed, tables=tables, settings=settings, commit=commit, client_seed=client_seed
        )

    def acting(self, campaign: str | None = None, state: CampaignState | None = None) -> str | None:
        """The character a command acts as when none is named (in ``state``, the head's
        by default)."""
        c = self.campaign(campaign)
        return self.registry.acting(c, self.history.tip(c).state if state is None else state)

    def act_as(self, name: str, campaign: str | None = None) -> str:
        """Choose the character commands of ``campaign`` act as when none is named: a
        choice kept in this ledger, never recorded in the campaign nor exported."""
        c = self.campaign(campaign)
        return self.registry.act_as(c, self.history.tip(c).state, name)

    # --- history (ledger.campaign.history) ---------------------------------------------

    def head(self, campaign: Campaign) -> int:
        return self.history.head(campaign)

    def effective_version(self, campaign: Campaign, head: int | None = None) -> int:
        return self.history.effective_version(campaign, head)

    def envelope(self, campaign: Campaign, version: int) -> Envelope[Any]:
        return self.history.envelope(campaign, version)

    def stored(self, campaign: Campaign, lo: int = 0, hi: int | None = None) -> Iterator[bytes]:
        return self.history.stored(campaign, lo, hi)

    def envelopes(self, campaign: Campaign, lo: int = 0, hi: int | None = None) -> Iterator[Envelope[Any]]:
        return self.history.envelopes(campaign, lo, hi)

    def segments(self, campaign: Campaign, version: int) -> list[tuple[int, int]]:
        return self.history.segments(campaign, version)

    def effective(self, campaign: Campaign, version: int | None = None) -> Iterator[Envelope[Any]]:
        return self.history.effective(campaign, version)

    def state(
        self, campaign: Campaign | str | None = None, *, at: int | None = None, day: int | None = None
    ) -> CampaignState:
        """The campaign's state at its head, at a version, or at the end of a game day."""
        c = campaign if isinstance(campaign, Campaign) else self.campaign(campaign)
        return self.history.state(c, at=at, day=day)

    def state_at(
        self, c: Campaign, version: int, system: System, *, use_snapshots: bool = True
    ) -> CampaignState:
        return self.history.state_at(c, version, system, use_snapshots=use_snapshots)

    def version_at_day(self, campaign: Campaign, day: int) -> int:
        return self.history.version_at_day(campaign, day)

    def tip(self, c: Campaign) -> Tip:
        return self.history.tip(c)

    def dice_tip(self, c: Campaign, tip: Tip | None = None) -> Tip:
        return self.history.dice_tip(c, tip)

    def log(
        self, campaign: str | None = None, *, show_all: bool = False, at: int | None = None
    ) -> list[LogEntry]:
        return self.history.log(self.campaign(campaign), self.summary, show_all=show_all, at=at)

    def replay(
        self, campaign: str | None = None, *, to: int | None = None
    ) -> Iterator[tuple[list[Envelope[Any]], CampaignState, CampaignState]]:
        """Each effective action in order: (its events, state before, state after)."""
        return self.history.replay(self.campaign(campaign), to)

    # --- recording (ledger.campaign.recording): one path for every action --------------

    def execute(
        self,
        command: Command,
        campaign: str | None = None,
        *,
        faces: list[int] | None = None,
        actor: str | None = None,
        seat: str | None = None,
        expected_version: int | None = None,
        visibility: str = "public",
        to: tuple[str, ...] = (),
    ) -> Recorded:
        """Decide a command against the current state and append its events.

        With ``faces`` the dice are physical; all of them must be used. On a version
        conflict the state is read again and the command decided again; with
        ``expected_version`` (the version its caller saw) it is not: the command is
        decided on that version and recorded right after it, or refused with
        :class:`~ledger.errors.StaleVersionError` when the campaign is elsewhere or another
        writer, in any process, records first. ``seat`` names the device or seat it was
        recorded from, kept on its decision. The party's action
        (``Command.by_party``) is recorded under no character, whoever ``actor`` names."""
        c = self.campaign(campaign)
        newcomer = command.introduces()
        known = self.history.known_tip(c)  # the head this Ledger last saw: no read in steady use
        before = (known if known is not None else self.history.tip(c)).state
        actor = actor or command.actor
        if command.by_party():
            actor = None  # the party's action acts as no character
        elif actor is None and newcomer is None:
            actor = self.registry.acting_or_refuse(c, before)
        recorded = self.recording.record(
            c,
            command,
            faces=faces,
            actor=actor,
            newcomer=newcomer,
            seat=seat,
            expected=expected_version,
            visibility=visibility,
            to=tuple(to),
        )
        if newcomer is not None:
            self.registry.keep_acting(c, before, recorded.state)
        return recorded

    def record(
        self,
        decide: Callable[[CampaignState, Dice], list[Event]],
        campaign: str | None = None,
        *,
        faces: list[int] | None = None,
        actor: str | None = None,
        newcomer: str | None = None,
        command: Command | None = None,
        seat: str | None = None,
        expected_version: int | None = None,
    ) -> Recorded:
        """Append what ``decide`` returns for the head state and dice, all or nothing,
        under ``newcomer``, else ``actor``; with the ``command`` it stands for, the
        action keeps it and its dice (``Envelope.decision``). ``expected_version``: as
        :meth:`execute` takes it."""
        # lazy: a command that reads imports none of the recording (tests/test_cli_startup.py)
        from ledger.campaign.recording import Given

        c = self.campaign(campaign)
        given = Given(decide, command)
        return self.recording.record(
            c, given, faces=faces, actor=actor, newcomer=newcomer, seat=seat, expected=expected_version
        )

    def recorded_under(self, state: CampaignState, actor: str | None, newcomer: str | None) -> str | None:
        return self.recording.recorded_under(state, actor, newcomer)

    def check_tail(self, c: Campaign, head: int) -> str | None:
        return self.recording.check_tail(c, head)

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
    ) -> tuple[Rows, list[Envelope[Any]], Tip]:
        return self.recording.seal(c, tip, events, actor, action=action, system=system, decision=decision)

    def remember(self, c: Campaign, tip: Tip) -> None:
        """Keep a tip known to be the campaign's head; its acting character is read again."""
        self.history.remember(c, tip)
        self.registry.forget_choice(c)

    def batch(self, campaign: str | None = None) -> Batch:
        """Record many commands on one campaign in one transaction (simulate, bulk work)."""
        # lazy: a command that reads imports no bulk path (tests/test_cli_startup.py)
        from ledger.campaign.batch import Batch

        return Batch(self.recording, self.registry, self.campaign(campaign))

    def roll(
        self,
        notation: str,
        campaign: str | None = None,
        *,
        label: str = "",
        faces: list[int] | None = None,
        actor: str | None = None,
        seat: str | None = None,
        visibility: str = "public",
    ) -> Recorded:
        # lazy: a command that reads imports no dice and no deciding (tests/test_cli_startup.py)
        from ledger.deciding.commands import Roll

        return self.execute(
            Roll(notation=notation, label=label),
            campaign,
            faces=faces,
            actor=actor,
            seat=seat,
            visibility=visibility,
        )

    def note(
        self,
        text: str,
        campaign: str | None = None,
        *,
        actor: str | None = None,
        seat: str | None = None,
        to: tuple[str, ...] = (),
    ) -> Recorded:
        """A note; with recipients ``to`` (characters), a whisper only they and the GM read."""
        # lazy: a command that reads imports no dice and no deciding (tests/test_cli_startup.py)
        from ledger.deciding.commands import Note

        return self.execute(Note(text=text), campaign, actor=actor, seat=seat, to=to)

    def add_character(
        self,
        name: str,
        campaign: str | None = None,
        attrs: dict[str, str] | None = None,
        *,
        seat: str | None = None,
    ) -> Recorded:
        """Add a character with the core's command, its attributes stored as given."""
        # lazy: a command that reads imports no dice and no deciding (tests/test_cli_startup.py)
        from ledger.deciding.commands import AddCharacter

        return self.execute(AddCharacter(name=name, attrs=attrs or {}), campaign, actor=None, seat=seat)

    def create_character(
        self,
        name: str,
        campaign: str | None = None,
        attrs: dict[str, str] | None = None,
        *,
        seat: str | None = None,
    ) -> Recorded:
        """Add a character checked as the system's own creation checks it."""
        # lazy: a command that reads imports none of the recording (tests/test_cli_startup.py)
        from ledger.deciding.action import creation

        c = self.campaign(campaign)
        return self.execute(creation(self.system(c), name, attrs or {}), c.name, actor=None, seat=seat)

    def undo(
        self,
        campaign: str | None = None,
        count: int = 1,
        *,
        seat: str | None = None,
        expected_version: int | None = None,
    ) -> Recorded:
        """Retract the last ``count`` effective actions (every event of each). An undo
        keeps no decision, so ``seat`` is checked and not stored. ``expected_version``:
        as :meth:`execute` takes it (the undo takes back what its caller saw, or nothing)."""
        if count < 1:
            raise LedgerError(_("undo needs a count of at least 1, got {count}", count=count))
        c = self.campaign(campaign)
        return self.recording.record(c, Undo(self.history, c, count), seat=seat, expected=expected_version)

    def redo(
        self,
        campaign: str | None = None,
        count: int = 1,
        *,
        seat: str | None = None,
        expected_version: int | None = None,
    ) -> Recorded:
        """Bring back the last ``count`` undone actions (only while nothing new was
        recorded). A redo keeps no decision, so ``seat`` is checked and not stored.
        ``expected_version``: as :meth:`execute` takes it."""
        if count < 1:
            raise LedgerError(_("redo needs a count of at least 1, got {count}", count=count))
        c = self.campaign(campaign)
        return self.recording.record(c, Redo(self.history, c, count), seat=seat, expected=expected_version)

    # --- sealed actions (ledger.campaign.sealing) ---------------------------------------

    def reveal(
        self,
        campaign: str | None = None,
        version: int | None = None,
        *,
        seat: str | None = None,
        expected_version: int | None = None,
    ) -> Recorded:
        """Reveal a sealed action (its ``version``), or with None every sealed roll not
        revealed yet (a whisper is revealed by its version only): its content and salt go
        into the log, where anyone checks them against the commitment made with it."""
        # lazy: loaded only when a sealed action is revealed
        from ledger.campaign.sealing import RevealSealed

        c = self.campaign(campaign)
        return self.recording.record(
            c, RevealSealed(self.history, c, version), seat=seat, expected=expected_version
        )

    def sealed_content(self, campaign: str | None, version: int, viewer: Any) -> dict[str, Any]:
        """What the sealed action at ``version`` holds, for a ``viewer``
        (:class:`ledger.log.sealing.Viewer`) the visibility rule lets see it; refused in one
        line, naming nothing of it, for any other."""
        # lazy: loaded only when a sealed action is read
        from ledger.campaign.sealing import content_for

        c = self.campaign(campaign)
        return content_for(self.history, c, version, viewer, self.summary)

    # --- provable dice (ledger.campaign.commitments); none keeps a decision, nor a seat --

    def commit_dice(
        self, campaign: str | None = None, *, client_seed: str = "", seat: str | None = None
    ) -> Recorded:
        return self.commitments.commit(self.campaign(campaign), client_seed, seat=seat)

    def seed_dice(
        self, client_seed: str, campaign: str | None = None, *, seat: str | None = None
    ) -> Recorded:
        return self.commitments.seed(self.campaign(campaign), client_seed, seat=seat)

    def reveal_dice(
        self, campaign: str | None = None, *, client_seed: str | None = None, seat: str | None = None
    ) -> Recorded:
        return self.commitments.reveal(self.campaign(campaign), client_seed, seat=seat)

    def dice_status(self, campaign: str | None = None) -> dict[str, Any]:
        return self.commitments.status(self.campaign(campaign))

    # --- forks, verify, export and import (ledger.campaign.transfer) -------------------

    def fork(
        self,
        name: str | None,
        new_name: str,
        *,
        at: int | None = None,
        day: int | None = None,
        seat: str | None = None,
    ) -> Campaign:
        """A new branch sharing the parent's history up to ``at`` (default: head). A fork
        keeps no decision, so ``seat`` is checked and not stored."""
        # lazy: a command that reads imports none of the recording (tests/test_cli_startup.py)
        from ledger.campaign.recording import check_seat

        parent = self.campaign(name)
        check_seat(seat)
        return self.transfer.fork(parent, new_name, at=at, day=day)

    def verify(self, campaign: str | None = None, *, every: bool = False) -> VerifyReport:
        """Walk the chain; raise TamperError at the first bad event."""
        return self.transfer.verify(campaign, every=every)

    def export(
        self, out: IO[bytes], campaign: str | None = None, *, sign: bool = True, players: bool = False
    ) -> int:
        """Write a campaign's whole branch as JSON lines, signed unless ``sign`` is False: the
        GM's backup, with the sealed actions' contents, or (``players``) the players' copy,
        with their commitments only."""
        return self.transfer.export(out, self.campaign(campaign), sign=sign, players=players)

    def import_(
        self,
        data: IO[bytes],
        name: str | None = None,
        *,
        require_signed: bool = False,
        file: str | None = None,
    ) -> Campaign:
        """Import an export after verifying its chain and signature; ``file`` names it in messages."""
        return self.transfer.import_(data, name, require_signed=require_signed, file=file)
