"""The ledger: campaigns as append-only branches of sealed events.

:class:`Ledger` is the library's entry point. It appends the events a
command decides in one transaction (retrying when another writer wins the
race), folds the effective history into state, and implements undo, redo,
fork, time travel, replay, verify, export and import over the store.

How undo works: an undo or redo is a *reset* event that says "the state is
now the state at version T". The state at version v is therefore the fold
of the events after the last reset at or before v, on top of the state at
that reset's target. Every envelope carries ``last_reset`` so the segments
to fold are found by a few point reads, and nothing is ever rewritten.
"""

from __future__ import annotations

import contextlib
import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

import msgspec

from ledger import chain, snapshots, words
from ledger.errors import (
    ConflictError,
    DuplicateNameError,
    LedgerError,
    NoActorError,
    NoCurrentCampaignError,
    NotALedgerError,
    NothingToUndoError,
    TamperError,
    UnknownCampaignError,
    VersionError,
    option,
)
from ledger.errors import command as fix_command
from ledger.events import (
    DICE_EVENTS,
    FORMAT,
    MAX_DAY,
    MAX_LINE,
    RESETS,
    ActionRedone,
    ActionUndone,
    BranchForked,
    CampaignRegistered,
    CampaignStarted,
    CharacterAdded,
    Decision,
    DiceCommitted,
    DiceRevealed,
    DiceSeeded,
    Envelope,
    Event,
    LedgerCreated,
    envelope_decoder,
    redoable,
)
from ledger.records import Campaign, LogEntry, Recorded, Tip, VerifyReport
from ledger.state import CampaignState, evolve
from ledger.store import Store, VersionConflict, resolve_target
from ledger.systems import System, get_system

# What only recording, verifying, exporting or importing needs is imported where it is
# used: a command that reads (a sheet, the log, the statistics) loads none of it.
if TYPE_CHECKING:
    from ledger.batch import Batch
    from ledger.commands import Command
    from ledger.dice import Dice
    from ledger.fairness import DiceStatus

REGISTRY = "registry"
MAX_ATTEMPTS = 50


TAIL = 16
"""How many of a campaign's last events are checked before the first append to it."""


class ChainWarning(UserWarning):
    """A campaign's recent events fail the chain check; new actions are still recorded."""


def _warn(warning: LedgerError) -> None:
    import warnings

    warnings.warn(str(warning), ChainWarning, stacklevel=4)


def known_as(c: Campaign, state: CampaignState) -> CampaignState:
    """The state under the name the ledger knows the campaign by: an import under
    another name (``--name``) keeps the exported name in its first event."""
    if state.core.name == c.name or state.core.version == 0:
        return state
    return msgspec.structs.replace(state, core=msgspec.structs.replace(state.core, name=c.name))


def unreadable(name: str, version: int, error: Exception) -> TamperError:
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return TamperError(
        name,
        version,
        f"the stored event cannot be read ({first})",
        fix=fix_command("verify", "verify the whole ledger", options=("all",)),
    )


def _check_size(raw: bytes) -> None:
    """Refuse an event longer than an import reads (its tables or attributes too big)."""
    if len(raw) > MAX_LINE:
        raise LedgerError(
            f"the event would take {len(raw) // 1024} KiB, above the {MAX_LINE // 2**20} MiB "
            "one event may take; use smaller tables or fewer, shorter attributes"
        )


def _none_open(c: Campaign, purpose: str = "", when: str = "") -> LedgerError:
    """The refusal of a dice operation on a branch with no commitment open."""
    first = f" {when}" if when else ""
    return LedgerError(
        f"no dice commitment is open in {c.name!r}{purpose}",
        fix=fix_command("dice commit", f"open one{first}", f"open one{first} with"),
    )


def _backoff(attempt: int) -> None:
    """Random exponential back-off after losing a race, so no writer starves."""
    time.sleep(random.uniform(0, min(0.2, 0.001 * 2 ** min(attempt, 10))))


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
        :class:`ChainWarning` through :mod:`warnings`)."""
        self.store = Store(resolve_target(db), create=create, read_only=read_only)
        self.warn = warn or _warn
        self._tail_checked: set[str] = set()
        self._registry_version = 0
        self._by_name: dict[str, Campaign] = {}
        self._by_id: dict[str, Campaign] = {}
        self._registry_hash = chain.GENESIS
        self._heads: dict[str, Tip] = {}
        self._chosen: dict[str, str | None] = {}
        """The acting character chosen per campaign id, as read once from the store."""
        self._init_registry()

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the registry ---------------------------------------------------------

    def _init_registry(self) -> None:
        first = self.store.read(REGISTRY, lte=1)
        if not first:
            env = Envelope(
                v=1,
                campaign=REGISTRY,
                action=chain.new_action(),
                at=chain.now(),
                prev=chain.GENESIS,
                event=LedgerCreated(),
            )
            raw, _ = chain.seal(env)
            with contextlib.suppress(VersionConflict):  # another process created it first
                self.store.append([(REGISTRY, 1, "ledger.created", raw)])
            first = self.store.read(REGISTRY, lte=1)
        try:
            env = envelope_decoder(None).decode(first[0].state)
        except msgspec.DecodeError as e:
            raise NotALedgerError(
                f"{self.store.describe()} has an unreadable registry ({e}); restore it from a backup"
            ) from e
        created = env.event
        if not isinstance(created, LedgerCreated):
            raise NotALedgerError(f"{self.store.describe()} is not a campaign-ledger store")
        if created.format > FORMAT:
            raise NotALedgerError(
                f"{self.store.describe()} was written by a newer campaign-ledger "
                f"(format {created.format}, this one reads up to {FORMAT}); upgrade campaign-ledger"
            )

    def _refresh(self) -> None:
        decoder = envelope_decoder(None)
        for stored in self.store.scan(REGISTRY, gt=self._registry_version):
            try:
                env = decoder.decode(stored.state)
            except msgspec.DecodeError as e:
                raise unreadable("(registry)", stored.originator_version, e) from e
            self._registry_version = env.v
            self._registry_hash = env.hash
            ev = env.event
            if isinstance(ev, CampaignRegistered):
                lineage: tuple[tuple[str, int, int | None], ...] = ((ev.campaign_id, 0, None),)
                if ev.parent_id is not None and ev.parent_version is not None:
                    parent = self._by_id[ev.parent_id]
                    cut = ev.parent_version
                    lineage = (
                        *(
                            (s, lo, cut if hi is None or hi > cut else hi)
                            for s, lo, hi in parent.lineage
                            if lo < cut
                        ),
                        (ev.campaign_id, cut, None),
                    )
                c = Campaign(
                    ev.campaign_id,
                    ev.name,
                    ev.system,
                    ev.parent_id,
                    ev.parent_version,
                    ev.imported,
                    lineage,
                    ev.signed_by,
                )
                self._by_name[c.name] = c
                self._by_id[c.id] = c

    def campaigns(self) -> list[Campaign]:
        self._refresh()
        return list(self._by_name.values())

    def campaign(self, name: str | None = None) -> Campaign:
        """A campaign by name; without one, the current campaign (see :meth:`current`)."""
        if name is not None and name in self._by_name:
            return self._by_name[name]  # a registered name never changes what it names
        self._refresh()
        if name is None:
            return self.current()
        from ledger.commands import nfc

        try:
            return self._by_name[nfc(name)]
        except KeyError:
            raise UnknownCampaignError(name, sorted(self._by_name)) from None

    def summary(self, event: Event) -> str:
        """What ``event`` says, as this ledger tells it: a fork names its parent only when
        the ledger holds a campaign with the parent's id (see ``BranchForked.told``)."""
        if not isinstance(event, BranchForked):
            return event.summary()
        if event.parent_id not in self._by_id:
            self._refresh()
        held = self._by_id.get(event.parent_id)
        return event.told(held.name if held is not None else None)

    def campaign_by_id(self, campaign_id: str) -> Campaign:
        """A campaign by its id (a fork's ``parent_id``, say)."""
        if campaign_id not in self._by_id:
            self._refresh()
        try:
            return self._by_id[campaign_id]
        except KeyError:
            raise LedgerError(f"no campaign has the id {campaign_id!r}") from None

    def current(self) -> Campaign:
        """The current campaign: the one last chosen with :meth:`use` (``ledger use``,
        ``ledger new``, ``ledger fork``); the only campaign when none was chosen.
        Bulk work (simulate, import) never changes it."""
        self._refresh()
        chosen = self.current_id()
        if chosen is not None and chosen in self._by_id:
            return self._by_id[chosen]
        if len(self._by_name) == 1:
            return next(iter(self._by_name.values()))
        if not self._by_name:
            raise NoCurrentCampaignError(
                "no campaigns yet",
                [],
                fix=fix_command("new SYSTEM NAME", "create a campaign first", "create one with"),
            )
        known = sorted(self._by_name)
        shown = ", ".join(known[:8]) + (f" and {len(known) - 8} more" if len(known) > 8 else "")
        raise NoCurrentCampaignError(
            f"no current campaign (there are {len(known)}: {shown})",
            known,
            fix=fix_command(
                "use NAME", "choose the campaign to act on", "choose one with", " or give -c NAME"
            ),
        )

    def current_id(self) -> str | None:
        """The id of the campaign chosen with :meth:`use`, if any."""
        return self.store.current_campaign()

    def _keep_current(self) -> None:
        """Choose the only campaign, current without being chosen, before another arrives."""
        self._refresh()
        if len(self._by_name) == 1 and self.current_id() not in self._by_id:
            self.store.use_campaign(next(iter(self._by_name.values())).id)

    def use(self, name: str) -> Campaign:
        """Make the campaign ``name`` current: commands without a campaign act on it."""
        c = self.campaign(name)
        if self.store.current_campaign() != c.id:
            self.store.use_campaign(c.id)
        return c

    def system(self, campaign: Campaign) -> System:
        return get_system(campaign.system)

    # --- reading --------------------------------------------------------------

    def _decode(self, campaign: Campaign, raw: bytes, version: int) -> Envelope[Any]:
        try:
            return envelope_decoder(campaign.system).decode(raw)
        except msgspec.DecodeError as e:
            raise unreadable(campaign.name, version, e) from e

    def head(self, campaign: Campaign) -> int:
        return self.store.head(campaign.lineage[-1][0])

    def effective_version(self, campaign: Campaign, head: int | None = None) -> int:
        """The version a campaign's state stands at: its head, or after an undo or redo
        (the head is then the reset), the version that reset went back to."""
        head = self.head(campaign) if head is None else head
        if not head or not isinstance(self.envelope(campaign, head).event, RESETS):
            return head
        return self.tip(campaign).state.core.version

    def envelope(self, campaign: Campaign, version: int) -> Envelope[Any]:
        stream = campaign.stream_for(version)
        rows = self.store.read(stream, gt=version - 1, lte=version)
        if not rows:
            raise TamperError(campaign.name, version, "the event is missing")
        env = self._decode(campaign, rows[0].state, version)
        if env.v != version:
            raise TamperError(
                campaign.name,
                version,
                f"the event stored there says it is version {env.v}",
                fix=fix_command("verify", "verify the whole ledger", options=("all",)),
            )
        return env

    def stored(self, campaign: Campaign, lo: int = 0, hi: int | None = None) -> Iterator[bytes]:
        """The stored bytes of versions lo < v <= hi along the branch's lineage."""
        for stream, after, upto in campaign.lineage:
            if hi is not None and hi <= after:
                break
            top = upto if hi is None else (hi if upto is None else min(hi, upto))
            if top is not None and top <= lo:
                continue
            yield from self.store.states(stream, gt=max(lo, after), lte=top)

    def envelopes(self, campaign: Campaign, lo: int = 0, hi: int | None = None) -> Iterator[Envelope[Any]]:
        decode = envelope_decoder(campaign.system).decode
        for v, raw in enumerate(self.stored(campaign, lo, hi), start=lo + 1):
            try:
                yield decode(raw)
            except msgspec.DecodeError as e:
                raise unreadable(campaign.name, v, e) from e

    def segments(self, campaign: Campaign, version: int) -> list[tuple[int, int]]:
        """The (after, upto) ranges whose events fold into the state at ``version``."""
        segs: list[tuple[int, int]] = []
        v = version
        while v > 0:
            env = self.envelope(campaign, v)
            r = v if isinstance(env.event, RESETS) else env.last_reset
            if r == 0:
                segs.append((0, v))
                break
            segs.append((r, v))
            v = self._reset_target(campaign, env, r)
        segs.reverse()
        return segs

    def _reset_target(self, c: Campaign, env: Envelope[Any], r: int) -> int:
        """The target of the reset at version ``r`` (``env``'s last reset, or ``env`` itself),
        refused unless it lies strictly before the reset: every walk over resets goes down."""
        if not 0 < r <= env.v:
            raise TamperError(
                c.name,
                env.v,
                f"its last undo or redo (version {r}) is not at or before it",
                fix=fix_command("verify", "verify the campaign"),
            )
        reset = env if r == env.v else self.envelope(c, r)
        if not isinstance(reset.event, RESETS):
            raise TamperError(
                c.name,
                env.v,
                f"its last undo or redo (version {r}) is not an undo or redo",
                fix=fix_command("verify", "verify the campaign"),
            )
        target = reset.event.target
        if not 0 < target < r:
            raise TamperError(
                c.name,
                r,
                f"its undo or redo target {target} is not an earlier version",
                fix=fix_command("verify", "verify the campaign"),
            )
        return int(target)

    def effective(self, campaign: Campaign, version: int | None = None) -> Iterator[Envelope[Any]]:
        """The events that make the state at ``version`` (head by default), in order."""
        v = self.head(campaign) if version is None else version
        for lo, hi in self.segments(campaign, v):
            yield from self.envelopes(campaign, lo, hi)

    def state(
        self, campaign: Campaign | str | None = None, *, at: int | None = None, day: int | None = None
    ) -> CampaignState:
        """The campaign's state at its head, at a version, or at the end of a game day."""
        c = campaign if isinstance(campaign, Campaign) else self.campaign(campaign)
        system = self.system(c)
        if day is not None:
            if at is not None:
                raise LedgerError("give `at` or `day`, not both", field="day")
            at = self.version_at_day(c, day)
        if at is None:
            return self.tip(c).state
        self._check_version(c, at)
        return known_as(c, self.state_at(c, at, system))

    def _check_version(self, c: Campaign, version: int | None) -> int:
        """``version`` when it is on the branch (the head when None), else a VersionError."""
        head = self.head(c)
        if version is None:
            return head
        if not 1 <= version <= head:
            raise VersionError(
                f"version {version} is outside campaign {c.name!r} (versions 1 to {head})",
                fix=fix_command("log", "list every version in the log", "see", options=("all",)),
            )
        return version

    def state_at(
        self, c: Campaign, version: int, system: System, *, use_snapshots: bool = True
    ) -> CampaignState:
        """The effective state at ``version``: the nearest snapshot, then the
        events after it; across resets, the state at the reset's target."""
        plan: list[tuple[int, int]] = []
        base = CampaignState()
        v = version
        while v > 0:
            env = self.envelope(c, v)
            reset = v if isinstance(env.event, RESETS) else env.last_reset
            found = self._snapshot(c, v, reset, system) if use_snapshots else None
            if found is not None:
                base = found[1]
                plan.append((found[0], v))
                break
            plan.append((reset, v))
            if reset == 0:
                break
            v = self._reset_target(c, env, reset)
        state = base
        keep: list[tuple[str, int, str, bytes]] = []
        for lo, hi in reversed(plan):
            for env in self.envelopes(c, lo, hi):
                state = evolve(state, env, system)
                if use_snapshots and env.v % snapshots.EVERY == 0:
                    raw = snapshots.encode(state, env.hash)
                    if raw is not None:
                        keep.append((snapshots.key(c.stream_for(env.v), system), env.v, "snapshot", raw))
        if keep:
            self.store.put_snapshots(keep)
        return state

    def _snapshot(self, c: Campaign, v: int, floor: int, system: System) -> tuple[int, CampaignState] | None:
        """The latest usable snapshot at a version in (floor, v], if any."""
        if v < snapshots.EVERY:
            return None  # none is ever kept this early
        for stream, lo, hi in reversed(c.lineage):
            if lo >= v:
                continue
            top = v if hi is None else min(v, hi)
            row = self.store.snapshot(snapshots.key(stream, system), top)
            if row is not None and row.originator_version > floor:
                found = snapshots.decode(row.state)
                version = row.originator_version
                if found is not None and found[0] == self.envelope(c, version).hash:
                    return version, found[1]
                return None
            if lo <= floor:
                return None
        return None

    def version_at_day(self, campaign: Campaign, day: int) -> int:
        """The last effective version whose game day is ``day`` or earlier."""
        version, latest, action = 0, None, None
        for env in self.effective(campaign):
            if env.day is not None and env.day > day and env.action != action:
                break  # a command whose events cross midnight stays whole
            if env.day is not None and env.day <= day:
                latest = env.day
            version, action = env.v, env.action
        if latest is None:
            raise VersionError(
                f"campaign {campaign.name!r} has no game days",
                fix=option("at VERSION", "give a version instead", "use"),
            )
        if latest < day:
            raise VersionError(
                f"campaign {campaign.name!r} has reached day {latest}",
                fix=option(f"day 0 to {latest}", f"give a day from 0 to {latest}", "use"),
            )
        return version

    # --- recording ------------------------------------------------------------

    def execute(
        self,
        command: Command,
        campaign: str | None = None,
        *,
        faces: list[int] | None = None,
        actor: str | None = None,
        seat: str | None = None,
    ) -> Recorded:
        """Decide a command against the current state and append its events.

        With ``faces`` the dice are physical; all of them must be used. On a
        version conflict the state is read again and the command decided again.
        ``seat`` is the label of the seat that sent it (kept on its decision)."""

        c = self.campaign(campaign)
        newcomer = command.introduces()
        known = self._heads.get(c.id)  # the head this Ledger last saw: no read in steady use
        before = (known if known is not None else self.tip(c)).state
        actor = actor or command.actor
        if actor is None and newcomer is None:
            actor = self._acting_or_refuse(c, before)
        decide = self.decider(c, command, actor)
        recorded = self.record(
            decide,
            c.name,
            faces=faces,
            actor=actor,
            newcomer=newcomer,
            command=msgspec.structs.replace(command, actor=actor),
            seat=seat,
        )
        if newcomer is not None:
            self._keep_acting(c, before, recorded.state)
        return recorded

    # --- the acting character: a choice of this ledger, per campaign, never an event ---

    def acting(self, campaign: str | None = None, state: CampaignState | None = None) -> str | None:
        """The character a command acts as when none is named: the one chosen with
        :meth:`act_as` while it is still a character of the campaign, else its only
        character; None when it has none, or several and none was chosen. ``state``
        (the head's by default) is the campaign's at the version asked about."""
        c = self.campaign(campaign)
        chars = (self.tip(c).state if state is None else state).core.characters
        if len(chars) < 2:
            return chars[0] if chars else None
        chosen = self._chosen_in(c)
        return chosen if chosen in chars else None

    def _chosen_in(self, c: Campaign) -> str | None:
        if c.id not in self._chosen:
            self._chosen[c.id] = self.store.acting_character(c.id)
        return self._chosen[c.id]

    def _choose(self, c: Campaign, name: str) -> None:
        if self._chosen_in(c) != name:
            self.store.act_as(c.id, name)
        self._chosen[c.id] = name

    def act_as(self, name: str, campaign: str | None = None) -> str:
        """Choose the character that commands of ``campaign`` act as when none is named,
        until another is chosen: a choice kept in this ledger, like the current campaign,
        never recorded in the campaign nor exported."""
        from ledger.deciding import actor_in

        c = self.campaign(campaign)
        chosen = actor_in(self.tip(c).state, name)
        assert chosen is not None  # a name was asked for: it exists or was refused
        self._choose(c, chosen)
        return chosen

    def _acting_or_refuse(self, c: Campaign, state: CampaignState) -> str | None:
        acting = self.acting(c.name, state)
        chars = state.core.characters
        if acting is None and len(chars) > 1:
            raise NoActorError(state.core.name, list(chars))
        return acting

    def _keep_acting(self, c: Campaign, before: CampaignState, after: CampaignState) -> None:
        """After a character joins: the first of a campaign becomes the acting one, and an
        only character that was acting stays so (a newcomer never takes the choice over)."""
        if self._chosen_in(c) in before.core.characters:
            return
        keep = self.acting(c.name, before)
        if keep is None and not before.core.characters and after.core.characters:
            keep = after.core.characters[0]
        if keep is not None:
            self._choose(c, keep)

    def decider(
        self, c: Campaign, command: Command, actor: str | None = None
    ) -> Callable[[CampaignState, Dice], list[Event]]:
        """The decide function for one command: core commands first, then the system's."""
        system = self.system(c)
        given = msgspec.structs.replace(command, actor=actor or command.actor)

        from ledger.deciding import decide_command

        def decide(state: CampaignState, dice: Dice) -> list[Event]:
            return decide_command(system, state, given, dice)

        return decide

    def recorded_under(self, state: CampaignState, actor: str | None, newcomer: str | None) -> str | None:
        """Who an action is recorded under: the character the command brings in, whoever
        typed it (as ``CharacterAdded`` events always are), else the actor."""
        return newcomer if newcomer is not None else self._actor(state, actor)

    def _actor(self, state: CampaignState, wanted: str | None) -> str | None:
        from ledger.deciding import actor_in

        return actor_in(state, wanted)

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
    ) -> Recorded:
        """Append what ``decide`` returns for the head state, all or nothing; the action is
        recorded under ``newcomer`` (a character it brings in), else ``actor``. With the
        ``command`` it decides, the action keeps it and its dice (``Envelope.decision``),
        and the label of the ``seat`` that sent it; an undo or redo has no decision."""
        from ledger.commands import check_command_text
        from ledger.deciding import decide_and_draw, decision

        if command is not None:
            check_command_text(command)
        c = self.campaign(campaign)
        system = self.system(c)
        lost: int | None = None
        for attempt in range(MAX_ATTEMPTS):
            # The head this Ledger last saw is tried first without reading the store:
            # if another writer appended since, the append conflicts on its version
            # and the next attempt reads what is new.
            cached = self._heads.get(c.id) if attempt == 0 else None
            tip = self.dice_tip(c, cached if cached is not None else self.tip(c))
            if tip.version == lost:
                # Nobody wrote since the version was refused: the stored versions are out of order.
                raise TamperError(
                    c.name,
                    lost + 1,
                    "a stored row is out of place",
                    fix=fix_command("verify", "verify the whole ledger", options=("all",)),
                )
            if c.id not in self._tail_checked:
                self._tail_checked.add(c.id)
                self.check_tail(c, tip.version)
            events, dice = decide_and_draw(decide, tip, faces)
            how = decision(command, dice, system)
            if how is not None and seat is not None:
                how = msgspec.structs.replace(how, seat=seat)
            try:
                return self._append(c, tip, events, self.recorded_under(tip.state, actor, newcomer), how)
            except VersionConflict:
                lost = tip.version
                _backoff(attempt)
        raise ConflictError(
            f"campaign {c.name!r} is being written by other processes; "
            f"gave up after {MAX_ATTEMPTS} attempts, try again"
        )

    def check_tail(self, c: Campaign, head: int) -> str | None:
        """Before the first append to a campaign: check the hashes and links of its
        last :data:`TAIL` events (a cheap part of ``verify``); a failure is warned
        about, naming the version, and returned. The append goes ahead."""
        lo = max(0, head - TAIL)
        prev: str | None = None
        for v, raw in enumerate(self.stored(c, lo, head), start=lo + 1):
            problem = chain.check(bytes(raw))
            env = self._decode(c, bytes(raw), v) if problem is None else None
            if env is not None and env.v != v:
                problem = f"the event stored there says it is version {env.v}"
            elif env is not None and prev is not None and env.prev != prev:
                problem = "its link to the version before does not match (an event was edited or removed)"
            if problem is not None:
                warning = TamperError(
                    c.name,
                    v,
                    problem,
                    fix=fix_command(
                        "verify",
                        "recording anyway; verify the campaign and restore it from a backup or export",
                        "recording anyway, run",
                        " and restore from a backup or export",
                    ),
                )
                self.warn(warning)
                return str(warning)
            prev = env.hash if env is not None else None
        return None

    def tip(self, c: Campaign) -> Tip:
        """Where the next event of a campaign goes, and the state it lands on.

        The tip of each campaign is kept in memory: the next call reads only
        the events appended since (one query), and folds them on top unless
        one of them is an undo or redo."""
        system = self.system(c)
        cached = self._heads.get(c.id)
        if cached is not None:
            news = list(self.envelopes(c, cached.version, None))
            if not news:
                return cached
            if cached.dice is None:
                dice = None
            else:
                from ledger import fairness

                dice = fairness.advance(cached.dice, news, self.store)
            if not any(isinstance(env.event, RESETS) for env in news):
                state = cached.state
                for env in news:
                    state = evolve(state, env, system)
                return self._remember(c, news[-1], state, dice)
            if dice is not None:
                tip = self._remember(c, news[-1], self.state_at(c, news[-1].v, system), dice)
                return tip
        head = self.head(c)
        if not head:
            return Tip(0, chain.GENESIS, 0, CampaignState())
        return self._remember(c, self.envelope(c, head), self.state_at(c, head, system))

    def _remember(
        self, c: Campaign, env: Envelope[Any], state: CampaignState, dice: DiceStatus | None = None
    ) -> Tip:
        state = known_as(c, state)
        last_reset = env.v if isinstance(env.event, RESETS) else env.last_reset
        tip = Tip(env.v, env.hash, last_reset, state, dice)
        self._heads[c.id] = tip
        return tip

    def dice_tip(self, c: Campaign, tip: Tip | None = None) -> Tip:
        """The tip (the head by default) with its dice status looked up: the open
        commitment and the next nonce, read back from the head (see ledger.fairness)."""
        tip = self.tip(c) if tip is None else tip
        if tip.dice is not None:
            return tip
        stream, after, _ = c.lineage[-1]
        decode = envelope_decoder(c.system).decode
        from ledger import fairness

        status = fairness.status_at(self.store, stream, after, tip.version, decode)
        tip = msgspec.structs.replace(tip, dice=status)
        if self._heads.get(c.id) is not None and self._heads[c.id].version == tip.version:
            self._heads[c.id] = tip
        return tip

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
    ) -> tuple[list[tuple[str, int, str, bytes]], list[Envelope[Any]], Tip]:
        """Fold and seal a command's events on top of ``tip``: the rows to store."""
        from ledger import fairness

        action = action or chain.new_action()
        system = system or self.system(c)
        stream = c.lineage[-1][0]
        rows, envelopes = [], []
        at = chain.now()
        version, prev, last_reset, state = tip.version, tip.prev, tip.last_reset, tip.state
        for ev in events:
            version += 1
            if isinstance(ev, CharacterAdded):
                from ledger.commands import check_distinct

                check_distinct(ev.name, state.core.characters, "character")
            who = ev.name if isinstance(ev, CharacterAdded) else actor
            if isinstance(ev, RESETS):
                last_reset = version
            env = Envelope(
                v=version,
                campaign=c.id,
                action=action,
                at=at,
                actor=who,
                last_reset=last_reset,
                decision=decision if version == tip.version + 1 else None,
                prev=prev,
                event=ev,
            )
            if isinstance(ev, RESETS):
                state = self.state(c, at=ev.target) if ev.target else CampaignState()
            else:
                state = evolve(state, env, system)
            day = state.core.day
            if day is not None and not 0 <= day <= MAX_DAY:
                raise VersionError(
                    f"the event would fall on day {day}; the ledger records days 0 to {MAX_DAY}"
                )
            env = msgspec.structs.replace(env, day=day)
            raw, prev = chain.seal(env)
            _check_size(raw)
            rows.append((stream, version, ev.kind, raw))
            envelopes.append(msgspec.structs.replace(env, hash=prev))
        dice = None if tip.dice is None else fairness.advance(tip.dice, envelopes, self.store)
        return rows, envelopes, Tip(version, prev, last_reset, state, dice)

    def _append(
        self, c: Campaign, tip: Tip, events: list[Event], actor: str | None, how: Decision | None = None
    ) -> Recorded:
        rows, envelopes, after = self.seal(c, tip, events, actor, decision=how)
        self.store.append(rows)
        self._heads[c.id] = after
        return Recorded(c, envelopes[0].action, envelopes, after.state)

    def remember(self, c: Campaign, tip: Tip) -> None:
        """Keep a tip known to be the campaign's head (after a batch commit, which may
        have chosen its acting character: read again when next needed)."""
        self._heads[c.id] = tip
        self._chosen.pop(c.id, None)

    def batch(self, campaign: str | None = None) -> Batch:
        """Record many commands on one campaign in one transaction (simulate, bulk work)."""
        from ledger.batch import Batch

        return Batch(self, self.campaign(campaign))

    def register(
        self,
        make: Callable[[], tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]],
        *,
        keep_current: bool = True,
    ) -> None:
        """Append a registry event together with a new stream's first rows: ``make`` gives
        both, and is called again when another writer registered first.

        A ledger's only campaign is current until one is chosen; before a second one
        arrives, that one is kept current (unless ``keep_current`` is False: a campaign
        started or forked here, which its caller may choose), so that an imported or
        simulated campaign never changes which campaign commands act on."""
        if keep_current:
            self._keep_current()
        for attempt in range(MAX_ATTEMPTS):
            self._refresh()
            registered, rows = make()
            if registered.name in self._by_name:
                raise DuplicateNameError(f"a campaign named {registered.name!r} exists; choose another name")
            from ledger.commands import check_distinct

            check_distinct(registered.name, self._by_name, "campaign")
            env = Envelope(
                v=self._registry_version + 1,
                campaign=REGISTRY,
                action=chain.new_action(),
                at=chain.now(),
                prev=self._registry_hash,
                event=registered,
            )
            raw, _ = chain.seal(env)
            try:
                self.store.append([(REGISTRY, env.v, registered.kind, raw), *rows])
                self._refresh()
                return
            except VersionConflict:
                _backoff(attempt)
        raise ConflictError("the campaign registry is busy; try again")

    # --- campaigns ------------------------------------------------------------

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
        dice commitment opens with it (see ledger.fairness)."""
        from ledger import fairness
        from ledger.commands import check_name

        sysdef = get_system(system)
        name = check_name(name, "campaign")
        if settings:
            if sysdef.check_settings is None:
                raise LedgerError(
                    f"the {system} system takes no settings",
                    field="settings",
                    fix=option("settings", "give none", "drop"),
                )
            settings = sysdef.check_settings(settings)
        table_data: dict[str, Any] = {}
        source: str | None = None
        if sysdef.load_tables is not None:
            table_data, source = sysdef.load_tables(tables)
        elif tables is not None:
            raise LedgerError(
                f"the {system} system has no tables", fix=option("tables", "give it none", "drop")
            )
        if seed is not None and not 0 <= seed < 2**63:
            raise LedgerError(f"`seed` {seed} is out of range; use 0 to 2**63-1", field="seed")
        client_seed = fairness.check_client_seed(client_seed)
        if client_seed and (not commit or seed is not None):
            raise LedgerError(
                "`client_seed` goes into a dice commitment, and a campaign with `seed` or `commit=False` "
                "opens none; drop one of them",
                field="client_seed",
            )
        cid = str(uuid.uuid4())
        commitment = fairness.new_seed(self.store, client_seed, cid) if commit and seed is None else None
        started = CampaignStarted(
            name=name,
            system=system,
            seed=seed,
            settings=settings or {},
            tables=table_data,
            tables_source=source,
            commitment=commitment or msgspec.UNSET,
            client_seed=client_seed if commitment else msgspec.UNSET,
        )
        env = Envelope(
            v=1, campaign=cid, action=chain.new_action(), at=chain.now(), prev=chain.GENESIS, event=started
        )
        raw, _ = chain.seal(env)
        _check_size(raw)

        def make() -> tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]:
            return (
                CampaignRegistered(campaign_id=cid, name=name, system=system),
                [(cid, 1, started.kind, raw)],
            )

        self.register(make, keep_current=False)
        return self._by_name[name]

    def fork(
        self, name: str | None, new_name: str, *, at: int | None = None, day: int | None = None
    ) -> Campaign:
        """A new branch sharing the parent's history up to ``at`` (default: head)."""
        from ledger import fairness
        from ledger.commands import check_name

        parent = self.campaign(name)
        new_name = check_name(new_name, "campaign")
        head = self.head(parent)
        if day is not None:
            at = self.version_at_day(parent, day)
        at = head if at is None else at
        if not 1 <= at <= head:
            raise VersionError(
                f"cannot fork {parent.name!r} at version {at}: its head is version {head}",
                fix=option(f"at 1 to {head}", f"fork at a version from 1 to {head}", "use"),
            )
        base = self.envelope(parent, at)
        at_fork = self._dice_at(parent, at)
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
        raw, _ = chain.seal(env)

        def make() -> tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]:
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

        self.register(make, keep_current=False)
        chosen = self._chosen_in(parent)
        if chosen is not None:  # a branch goes on with the parent's acting character
            self._choose(self._by_name[new_name], chosen)
        return self._by_name[new_name]

    # --- provable dice (see ledger.fairness) -------------------------------------

    def _dice_at(self, c: Campaign, version: int) -> DiceStatus:
        """The dice status of a branch at one of its versions (its stored history up to it)."""
        from ledger import fairness

        for stream, after, upto in reversed(c.lineage):
            if version > after and (upto is None or version <= upto):
                decode = envelope_decoder(c.system).decode
                return fairness.status_at(self.store, stream, after, version, decode)
        raise VersionError(f"version {version} is outside campaign {c.name!r}")

    def _record_dice(self, c: Campaign, decide: Callable[[Tip], list[Event]]) -> Recorded:
        """Append a commitment or reveal decided on the head's dice status, retrying races."""
        for attempt in range(MAX_ATTEMPTS):
            tip = self.dice_tip(c, self.tip(c))
            events = decide(tip)
            try:
                return self._append(c, tip, events, None)
            except VersionConflict:
                _backoff(attempt)
        raise ConflictError(f"campaign {c.name!r} is being written by other processes; try again")

    def _check_provable(self, c: Campaign, tip: Tip) -> None:
        if tip.state.core.seed is not None:
            raise LedgerError(
                f"campaign {c.name!r} rolls seeded dice (`seed`): reproducible, never provable",
                field="seed",
                fix=option(
                    "seed",
                    "start a campaign with unseeded dice for committed dice",
                    "start a campaign without",
                    " for committed dice",
                ),
            )

    def commit_dice(self, campaign: str | None = None, *, client_seed: str = "") -> Recorded:
        """Open a dice commitment: a fresh secret seed, its sha256 in the log."""
        from ledger import fairness

        c = self.campaign(campaign)
        client_seed = fairness.check_client_seed(client_seed)
        self._check_provable(c, self.tip(c))
        commitment = fairness.new_seed(self.store, client_seed, c.id)

        def decide(tip: Tip) -> list[Event]:
            self._check_provable(c, tip)
            status = tip.dice
            assert status is not None
            if status.commitment is not None and status.seed is not None:
                raise LedgerError(
                    f"dice commitment {status.commitment[:16]} is open in {c.name!r}",
                    fix=fix_command(
                        "dice reveal",
                        "reveal it first (it opens the next one)",
                        "reveal it first with",
                        " (it opens the next one)",
                    ),
                )
            return [DiceCommitted(commitment=commitment, client_seed=client_seed)]

        return self._record_dice(c, decide)

    def seed_dice(self, client_seed: str, campaign: str | None = None) -> Recorded:
        """Give the players' client seed for the open commitment, after it was published
        and before any die is drawn under it: the dice under it use this client seed,
        which the server seed was drawn without knowing (docs/dice.md)."""
        from ledger import fairness

        c = self.campaign(campaign)
        client_seed = fairness.check_seeding(client_seed)
        self._check_provable(c, self.tip(c))

        def decide(tip: Tip) -> list[Event]:
            self._check_provable(c, tip)
            status = tip.dice
            assert status is not None
            if status.commitment is None:
                raise _none_open(c, " to seed", "first")
            if status.seed is None:
                raise fairness.refuse_foreign(status)
            if status.next_nonce:
                raise LedgerError(
                    f"{words.count(status.next_nonce, 'die')} {words.plural(status.next_nonce, 'was')} drawn under dice commitment {status.commitment[:16]} "
                    f"in {c.name!r}, so its client seed can no longer change",
                    fix=fix_command(
                        "dice reveal",
                        "reveal it (that opens the next one) and seed the next one",
                        "reveal it with",
                        " (that opens the next one) and seed the next one",
                    ),
                )
            fairness.note_seeded(self.store, c.lineage[-1][0], status.commitment)
            return [DiceSeeded(commitment=status.commitment, client_seed=client_seed)]

        return self._record_dice(c, decide)

    def reveal_dice(self, campaign: str | None = None, *, client_seed: str | None = None) -> Recorded:
        """Reveal the open commitment's seed and open the next commitment (with the same
        client seed unless another is given)."""
        from ledger import fairness

        c = self.campaign(campaign)
        given = None if client_seed is None else fairness.check_client_seed(client_seed)
        now = self.dice_tip(c, self.tip(c)).dice
        assert now is not None
        if now.commitment is None:
            raise _none_open(c)
        if now.seed is None and now.lost:
            raise fairness.refuse_foreign(now)
        if now.seed is None:
            raise LedgerError(
                f"the seed of dice commitment {now.commitment[:16]} is kept by the ledger this campaign "
                "was imported from",
                fix=fix_command(
                    "dice commit",
                    "reveal it there, or open a new one here",
                    "reveal it there, or open a new one here with",
                ),
            )
        following = now.client_seed if given is None else given
        upcoming = fairness.new_seed(self.store, following, c.id)

        def decide(tip: Tip) -> list[Event]:
            status = tip.dice
            assert status is not None
            if status.commitment != now.commitment or status.seed is None:
                raise LedgerError(
                    f"dice commitment {now.commitment[:16]} was closed meanwhile",
                    fix=fix_command("dice status", "look at the dice status", "see"),
                )
            return [
                DiceRevealed(commitment=status.commitment, seed=status.seed.hex()),
                DiceCommitted(commitment=upcoming, client_seed=following),
            ]

        return self._record_dice(c, decide)

    def dice_status(self, campaign: str | None = None) -> dict[str, Any]:
        """The open commitment of a campaign and how many dice were drawn under it."""
        c = self.campaign(campaign)
        tip = self.dice_tip(c, self.tip(c))
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

    # --- core commands ----------------------------------------------------------

    def roll(
        self,
        notation: str,
        campaign: str | None = None,
        *,
        label: str = "",
        faces: list[int] | None = None,
        actor: str | None = None,
    ) -> Recorded:
        from ledger.commands import Roll

        return self.execute(Roll(notation=notation, label=label), campaign, faces=faces, actor=actor)

    def note(self, text: str, campaign: str | None = None, *, actor: str | None = None) -> Recorded:
        from ledger.commands import Note

        return self.execute(Note(text=text), campaign, actor=actor)

    def add_character(
        self, name: str, campaign: str | None = None, attrs: dict[str, str] | None = None
    ) -> Recorded:
        """Add a character with the core's command: its attributes stored as given, for the
        system to read (:meth:`create_character` checks them as the system's creation does)."""
        from ledger.commands import AddCharacter

        return self.execute(AddCharacter(name=name, attrs=attrs or {}), campaign, actor=None)

    def create_character(
        self, name: str, campaign: str | None = None, attrs: dict[str, str] | None = None
    ) -> Recorded:
        """Add a character checked as the system's own creation checks it: through that
        creation where it takes attributes, refused where it takes other inputs (or, in a
        solo game, none but the name); the core's where the system has no creation."""
        from ledger.deciding import creation

        c = self.campaign(campaign)
        return self.execute(creation(self.system(c), name, attrs or {}), c.name, actor=None)

    # --- undo and redo ----------------------------------------------------------

    def _last_effective(self, c: Campaign, v: int) -> Envelope[Any] | None:
        while v > 0:
            env = self.envelope(c, v)
            if isinstance(env.event, RESETS):
                v = self._reset_target(c, env, v)
            elif isinstance(env.event, (BranchForked, *DICE_EVENTS)):
                v -= 1  # a fork, a commitment or a reveal is no action to take back
            elif isinstance(env.event, CampaignStarted):
                return None
            else:
                return env
        return None

    def _action_range(self, c: Campaign, last: Envelope[Any]) -> int:
        first = last.v
        while first > 1:
            before = self.envelope(c, first - 1)
            if before.action != last.action:
                break
            first -= 1
        return first

    def undo(self, campaign: str | None = None, count: int = 1, *, seat: str | None = None) -> Recorded:
        """Retract the last ``count`` effective actions (every event of each)."""
        if count < 1:
            raise LedgerError(f"undo needs a count of at least 1, got {count}")

        c = self.campaign(campaign)

        def decide(state: CampaignState, _dice: Dice) -> list[Event]:
            v = self.head(c)
            events: list[Event] = []
            for n in range(count):
                last = self._last_effective(c, v)
                if last is None:
                    if n == 0:
                        raise NothingToUndoError(f"nothing to undo in {c.name!r}")
                    raise NothingToUndoError(
                        f"only {n} action(s) to undo in {c.name!r}, not {count}",
                        fix=fix_command(f"undo {n}", f"undo {n}", "use"),
                    )
                first = self._action_range(c, last)
                first_event = last if first == last.v else self.envelope(c, first)
                events.append(
                    ActionUndone(
                        undone=last.action,
                        first=first,
                        last=last.v,
                        target=first - 1,
                        what=first_event.event.summary(),
                    )
                )
                v = first - 1
            return events

        return self.record(decide, c.name, seat=seat)

    def redo(self, campaign: str | None = None, count: int = 1, *, seat: str | None = None) -> Recorded:
        """Bring back the last ``count`` undone actions (only while nothing new was recorded)."""
        if count < 1:
            raise LedgerError(f"redo needs a count of at least 1, got {count}")

        c = self.campaign(campaign)

        def decide(state: CampaignState, _dice: Dice) -> list[Event]:
            trailing: list[Event] = []
            v = self.head(c)
            while v > 0:
                env = self.envelope(c, v)
                if not isinstance(env.event, RESETS):
                    break
                trailing.append(env.event)
                v -= 1
            stack = redoable(trailing)
            if not stack:
                raise NothingToUndoError(f"nothing to redo in {c.name!r}")
            if count > len(stack):
                raise NothingToUndoError(
                    f"only {len(stack)} action(s) to redo in {c.name!r}, not {count}",
                    fix=fix_command(f"redo {len(stack)}", f"redo {len(stack)}", "use"),
                )
            return [
                ActionRedone(redone=top.undone, target=top.last, what=top.what)
                for top in reversed(stack[-count:])
            ]

        return self.record(decide, c.name, seat=seat)

    # --- the log ---------------------------------------------------------------

    def log(
        self, campaign: str | None = None, *, show_all: bool = False, at: int | None = None
    ) -> list[LogEntry]:
        c = self.campaign(campaign)
        head = self._check_version(c, at)
        live = self.segments(c, head)
        entries = []
        for env in self.envelopes(c, 0, head):
            reset = isinstance(env.event, RESETS)
            effective = any(lo < env.v <= hi for lo, hi in live)
            if not effective and not show_all:
                continue
            entries.append(
                LogEntry(
                    env.v,
                    env.action,
                    env.event.kind,
                    env.at,
                    env.day,
                    env.actor,
                    self.summary(env.event),
                    not effective and not reset,
                    env.event,
                    env.hash,
                )
            )
        return entries

    def replay(
        self, campaign: str | None = None, *, to: int | None = None
    ) -> Iterator[tuple[list[Envelope[Any]], CampaignState, CampaignState]]:
        """Each effective action in order: (its events, state before, state after)."""
        c = self.campaign(campaign)
        to = self._check_version(c, to)
        system = self.system(c)
        state = CampaignState()
        group: list[Envelope[Any]] = []
        before = state
        for env in self.effective(c, to):
            if group and env.action != group[0].action:
                yield group, before, state
                group, before = [], state
            group.append(env)
            state = evolve(state, env, system)
        if group:
            yield group, before, state

    # --- integrity, export and import (see ledger.integrity) --------------------

    def verify(self, campaign: str | None = None, *, every: bool = False) -> VerifyReport:
        """Walk the chain; raise TamperError at the first bad event."""
        from ledger import integrity

        return integrity.verify(self, campaign, every=every)

    def export(self, out: IO[bytes], campaign: str | None = None, *, sign: bool = True) -> int:
        """Write a campaign's whole branch as JSON lines, its header signed by this
        ledger's key unless ``sign`` is False; returns the event count."""
        from ledger import integrity, provenance

        return integrity.export(
            self, out, campaign, sign=(lambda header: provenance.sign(self.store, header)) if sign else None
        )

    def import_(
        self,
        data: IO[bytes],
        name: str | None = None,
        *,
        require_signed: bool = False,
        file: str | None = None,
    ) -> Campaign:
        """Import an export after verifying its chain and signature; refuses edited files
        (and, with ``require_signed``, files not signed by a known key). ``file``
        names the file in messages."""
        from ledger import integrity, provenance

        def signer(header: Mapping[str, Any]) -> str | None:
            return provenance.check_header(self, header, require_signed=require_signed, file=file).key

        return integrity.import_campaign(self, data, name, signer=signer)
