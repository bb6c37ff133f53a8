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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

import msgspec

from ledger import admission, chain, snapshots
from ledger.commands import (
    AddCharacter,
    Command,
    Note,
    Roll,
    check_command_text,
    check_name,
    decide_core,
    nfc,
)
from ledger.dice import Dice, Faces, RandomDice, seeded
from ledger.errors import (
    ConflictError,
    DuplicateNameError,
    LedgerError,
    NotALedgerError,
    NothingToUndoError,
    TamperError,
    UnknownCampaignError,
    VersionError,
)
from ledger.events import (
    FORMAT,
    RESETS,
    ActionRedone,
    ActionUndone,
    BranchForked,
    CampaignRegistered,
    CampaignStarted,
    CharacterAdded,
    Decision,
    Envelope,
    Event,
    LedgerCreated,
    envelope_decoder,
)
from ledger.store import Store, VersionConflict, resolve_target
from ledger.systems import System, get_system
from projections.core import CampaignState, evolve

if TYPE_CHECKING:
    from ledger.batch import Batch

REGISTRY = "registry"
MAX_ATTEMPTS = 50
EXPORT_FORMAT = "campaign-ledger-export"


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


def dice_for(tip: Tip, faces: list[int] | None) -> Dice:
    """Physical faces, the campaign's seeded dice, or the system CSPRNG."""
    if faces is not None:
        return Faces(faces)
    if tip.state.core.seed is not None:
        return seeded(tip.state.core.seed, tip.version)
    return RandomDice()


def decide_with_dice(
    decide: Callable[[CampaignState, Dice], list[Event]], tip: Tip, faces: list[int] | None
) -> list[Event]:
    return decide_and_draw(decide, tip, faces)[0]


def decide_and_draw(
    decide: Callable[[CampaignState, Dice], list[Event]], tip: Tip, faces: list[int] | None
) -> tuple[list[Event], Dice]:
    """The events ``decide`` gives on the head state, and the dice it drew."""
    dice = dice_for(tip, faces)
    events = decide(tip.state, dice)
    if isinstance(dice, Faces):
        dice.finish()
    if not events:
        raise LedgerError("the command changes nothing; nothing was recorded")
    return events, dice


def drawn(dice: Dice) -> tuple[int, ...]:
    """Every face a dice source gave, in order."""
    if isinstance(dice, Faces):
        return tuple(dice.faces[: dice.used])
    if isinstance(dice, RandomDice):
        return tuple(dice.rolled)
    return ()


def decision(command: Command | None, dice: Dice, system: System) -> Decision | None:
    """What re-deciding an action needs: its command and the faces it drew."""
    if command is None:
        return None
    kind = type(command)
    return Decision(
        command=f"{kind.__module__}.{kind.__qualname__}",
        args=msgspec.to_builtins(command),
        faces=drawn(dice),
        manual=dice.manual,
        rules=admission.rules_fingerprint(system.name),
    )


def actor_in(state: CampaignState, wanted: str | None) -> str | None:
    """The character a command acts as: the one asked for (who must exist), the only
    character, or the last one who acted."""
    chars = state.core.characters
    if wanted is not None:
        wanted = nfc(wanted)
        if wanted not in chars:
            known = ", ".join(chars) if chars else "none yet"
            raise LedgerError(
                f"no character named {wanted!r} in {state.core.name!r} (characters: {known}); "
                f"add one with `ledger character add {wanted if wanted.isprintable() else 'NAME'}`"
            )
        return wanted
    if len(chars) == 1:
        return chars[0]
    return state.core.last_actor


def decide_command(system: System, state: CampaignState, command: Command, dice: Dice) -> list[Event]:
    """The events a command decides on a state: core commands first, then the system's."""
    cmd = msgspec.structs.replace(command, actor=actor_in(state, command.actor))
    events = decide_core(state, cmd, dice)
    if events is None:
        events = system.decide(state, cmd, dice)
    return events


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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def unreadable(name: str, version: int, error: Exception) -> TamperError:
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return TamperError(name, version, f"the stored event cannot be read ({first}); run `ledger verify --all`")


def _check_size(raw: bytes) -> None:
    """Refuse an event longer than an import reads (its tables or attributes too big)."""
    if len(raw) > admission.MAX_LINE:
        raise LedgerError(
            f"the event would take {len(raw) // 1024} KiB, above the {admission.MAX_LINE // 2**20} MiB "
            "one event may take; use smaller tables or fewer, shorter attributes"
        )


def _backoff(attempt: int) -> None:
    """Random exponential back-off after losing a race, so no writer starves."""
    time.sleep(random.uniform(0, min(0.2, 0.001 * 2 ** min(attempt, 10))))


def _new_action() -> str:
    return uuid.uuid4().hex[:16]


class Ledger:
    """A campaign ledger over one database target (SQLite file or PostgreSQL)."""

    def __init__(self, db: str | None = None) -> None:
        self.store = Store(resolve_target(db))
        self._registry_version = 0
        self._by_name: dict[str, Campaign] = {}
        self._by_id: dict[str, Campaign] = {}
        self._registry_hash = chain.GENESIS
        self._heads: dict[str, Tip] = {}
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
                action=_new_action(),
                at=_now(),
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
        """A campaign by name; without one, the campaign last recorded to."""
        if name is not None and name in self._by_name:
            return self._by_name[name]  # a registered name never changes what it names
        self._refresh()
        if name is None:
            return self._last_used()
        try:
            return self._by_name[nfc(name)]
        except KeyError:
            raise UnknownCampaignError(name, sorted(self._by_name)) from None

    def _last_used(self) -> Campaign:
        last = self.store.max_notification_id()
        if last:
            for n in self.store.notifications(last, 1):
                owner = self._by_id.get(str(n.originator_id))
                if owner is not None:
                    return owner
        if self._by_name:
            return list(self._by_name.values())[-1]
        raise LedgerError("no campaigns yet; create one with `ledger new SYSTEM NAME`")

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
                f"the event stored there says it is version {env.v}; run `ledger verify --all`",
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
                f"its last undo or redo (version {r}) is not at or before it; run `ledger verify`",
            )
        reset = env if r == env.v else self.envelope(c, r)
        if not isinstance(reset.event, RESETS):
            raise TamperError(
                c.name,
                env.v,
                f"its last undo or redo (version {r}) is not an undo or redo; run `ledger verify`",
            )
        target = reset.event.target
        if not 0 < target < r:
            raise TamperError(
                c.name, r, f"its undo or redo target {target} is not an earlier version; run `ledger verify`"
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
                raise LedgerError("give --at or --day, not both")
            at = self.version_at_day(c, day)
        if at is None:
            return self.tip(c).state
        self._check_version(c, at)
        return self.state_at(c, at, system)

    def _check_version(self, c: Campaign, version: int | None) -> int:
        """``version`` when it is on the branch (the head when None), else a VersionError."""
        head = self.head(c)
        if version is None:
            return head
        if not 1 <= version <= head:
            raise VersionError(
                f"version {version} is outside campaign {c.name!r} (versions 1 to {head}); see `ledger log --all`"
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
            raise VersionError(f"campaign {campaign.name!r} has no game days; use --at VERSION")
        if latest < day:
            raise VersionError(
                f"campaign {campaign.name!r} has reached day {latest}; use --day 0 to {latest}"
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
    ) -> Recorded:
        """Decide a command against the current state and append its events.

        With ``faces`` the dice are physical; all of them must be used. On a
        version conflict the state is read again and the command decided again."""

        c = self.campaign(campaign)
        decide = self.decider(c, command, actor)
        return self.record(
            decide,
            c.name,
            faces=faces,
            actor=actor or command.actor,
            newcomer=command.introduces(),
            command=msgspec.structs.replace(command, actor=actor or command.actor),
        )

    def decider(
        self, c: Campaign, command: Command, actor: str | None = None
    ) -> Callable[[CampaignState, Dice], list[Event]]:
        """The decide function for one command: core commands first, then the system's."""
        system = self.system(c)
        given = msgspec.structs.replace(command, actor=actor or command.actor)

        def decide(state: CampaignState, dice: Dice) -> list[Event]:
            return decide_command(system, state, given, dice)

        return decide

    def _recorded_under(self, state: CampaignState, actor: str | None, newcomer: str | None) -> str | None:
        """Who an action is recorded under: the character the command brings in, whoever
        typed it (as ``CharacterAdded`` events always are), else the actor."""
        return newcomer if newcomer is not None else self._actor(state, actor)

    def _actor(self, state: CampaignState, wanted: str | None) -> str | None:
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
    ) -> Recorded:
        """Append what ``decide`` returns for the head state, all or nothing; the action is
        recorded under ``newcomer`` (a character it brings in), else ``actor``. With the
        ``command`` it decides, the action keeps it and its dice (``Envelope.decision``)."""
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
            tip = cached if cached is not None else self.tip(c)
            if tip.version == lost:
                # Nobody wrote since the version was refused: the stored versions are out of order.
                raise TamperError(c.name, lost + 1, "a stored row is out of place; run `ledger verify --all`")
            events, dice = decide_and_draw(decide, tip, faces)
            how = decision(command, dice, system)
            try:
                return self._append(c, tip, events, self._recorded_under(tip.state, actor, newcomer), how)
            except VersionConflict:
                lost = tip.version
                _backoff(attempt)
        raise ConflictError(
            f"campaign {c.name!r} is being written by other processes; "
            f"gave up after {MAX_ATTEMPTS} attempts, try again"
        )

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
            if not any(isinstance(env.event, RESETS) for env in news):
                state = cached.state
                for env in news:
                    state = evolve(state, env, system)
                return self._remember(c, news[-1], state)
        head = self.head(c)
        if not head:
            return Tip(0, chain.GENESIS, 0, CampaignState())
        return self._remember(c, self.envelope(c, head), self.state_at(c, head, system))

    def _remember(self, c: Campaign, env: Envelope[Any], state: CampaignState) -> Tip:
        last_reset = env.v if isinstance(env.event, RESETS) else env.last_reset
        tip = Tip(env.v, env.hash, last_reset, state)
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
        action = action or _new_action()
        system = system or self.system(c)
        stream = c.lineage[-1][0]
        rows, envelopes = [], []
        at = _now()
        version, prev, last_reset, state = tip.version, tip.prev, tip.last_reset, tip.state
        for ev in events:
            version += 1
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
            if day is not None and not 0 <= day <= admission.MAX_DAY:
                raise VersionError(
                    f"the event would fall on day {day}; the ledger records days 0 to {admission.MAX_DAY}"
                )
            env = msgspec.structs.replace(env, day=day)
            raw, prev = chain.seal(env)
            _check_size(raw)
            rows.append((stream, version, ev.kind, raw))
            envelopes.append(msgspec.structs.replace(env, hash=prev))
        return rows, envelopes, Tip(version, prev, last_reset, state)

    def _append(
        self, c: Campaign, tip: Tip, events: list[Event], actor: str | None, how: Decision | None = None
    ) -> Recorded:
        rows, envelopes, after = self.seal(c, tip, events, actor, decision=how)
        self.store.append(rows)
        self._heads[c.id] = after
        return Recorded(c, envelopes[0].action, envelopes, after.state)

    def remember(self, c: Campaign, tip: Tip) -> None:
        """Keep a tip known to be the campaign's head (after a batch commit)."""
        self._heads[c.id] = tip

    def batch(self, campaign: str | None = None) -> Batch:
        """Record many commands on one campaign in one transaction (simulate, bulk work)."""
        from ledger.batch import Batch

        return Batch(self, self.campaign(campaign))

    def _register(
        self, make: Callable[[], tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]]
    ) -> None:
        """Append a registry event together with a new stream's first rows."""
        for attempt in range(MAX_ATTEMPTS):
            self._refresh()
            registered, rows = make()
            if registered.name in self._by_name:
                raise DuplicateNameError(f"a campaign named {registered.name!r} exists; choose another name")
            env = Envelope(
                v=self._registry_version + 1,
                campaign=REGISTRY,
                action=_new_action(),
                at=_now(),
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
    ) -> Campaign:
        sysdef = get_system(system)
        name = check_name(name, "campaign")
        if settings and sysdef.check_settings is not None:
            settings = sysdef.check_settings(settings)
        table_data: dict[str, Any] = {}
        source: str | None = None
        if sysdef.load_tables is not None:
            table_data, source = sysdef.load_tables(tables)
        elif tables is not None:
            raise LedgerError(f"the {system} system has no tables; drop --tables")
        if seed is not None and not 0 <= seed < 2**63:
            raise LedgerError(f"--seed {seed} is out of range; use 0 to 2**63-1")
        cid = str(uuid.uuid4())
        started = CampaignStarted(
            name=name,
            system=system,
            seed=seed,
            settings=settings or {},
            tables=table_data,
            tables_source=source,
        )
        env = Envelope(v=1, campaign=cid, action=_new_action(), at=_now(), prev=chain.GENESIS, event=started)
        raw, _ = chain.seal(env)
        _check_size(raw)

        def make() -> tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]:
            return (
                CampaignRegistered(campaign_id=cid, name=name, system=system),
                [(cid, 1, started.kind, raw)],
            )

        self._register(make)
        return self._by_name[name]

    def fork(
        self, name: str | None, new_name: str, *, at: int | None = None, day: int | None = None
    ) -> Campaign:
        """A new branch sharing the parent's history up to ``at`` (default: head)."""
        parent = self.campaign(name)
        new_name = check_name(new_name, "campaign")
        head = self.head(parent)
        if day is not None:
            at = self.version_at_day(parent, day)
        at = head if at is None else at
        if not 1 <= at <= head:
            raise VersionError(
                f"cannot fork {parent.name!r} at version {at}: its head is version {head}; "
                f"use --at 1 to {head}"
            )
        base = self.envelope(parent, at)
        cid = str(uuid.uuid4())
        last_reset = at if isinstance(base.event, RESETS) else base.last_reset
        env = Envelope(
            v=at + 1,
            campaign=cid,
            action=_new_action(),
            at=_now(),
            day=base.day,
            last_reset=last_reset,
            prev=base.hash,
            event=BranchForked(name=new_name, parent_id=parent.id, parent_name=parent.name, at=at),
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

        self._register(make)
        return self._by_name[new_name]

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
        return self.execute(Roll(notation=notation, label=label), campaign, faces=faces, actor=actor)

    def note(self, text: str, campaign: str | None = None, *, actor: str | None = None) -> Recorded:
        return self.execute(Note(text=text), campaign, actor=actor)

    def add_character(
        self, name: str, campaign: str | None = None, attrs: dict[str, str] | None = None
    ) -> Recorded:
        return self.execute(AddCharacter(name=name, attrs=attrs or {}), campaign, actor=None)

    # --- undo and redo ----------------------------------------------------------

    def _last_effective(self, c: Campaign, v: int) -> Envelope[Any] | None:
        while v > 0:
            env = self.envelope(c, v)
            if isinstance(env.event, RESETS):
                v = self._reset_target(c, env, v)
            elif isinstance(env.event, BranchForked):
                v -= 1
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

    def undo(self, campaign: str | None = None, count: int = 1) -> Recorded:
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
                        f"only {n} action(s) to undo in {c.name!r}, not {count}; use `ledger undo {n}`"
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

        return self.record(decide, c.name)

    def redo(self, campaign: str | None = None) -> Recorded:
        """Bring back the last undone action (only while nothing new was recorded)."""

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
            stack: list[ActionUndone] = []
            for ev in reversed(trailing):
                if isinstance(ev, ActionUndone):
                    stack.append(ev)
                elif stack:
                    stack.pop()
            if not stack:
                raise NothingToUndoError(f"nothing to redo in {c.name!r}")
            top = stack[-1]
            return [ActionRedone(redone=top.undone, target=top.last, what=top.what)]

        return self.record(decide, c.name)

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
                    env.event.summary(),
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
        from ledger.integrity import verify

        return verify(self, campaign, every=every)

    def export(self, out: IO[bytes], campaign: str | None = None, *, sign: bool = True) -> int:
        """Write a campaign's whole branch as JSON lines, its header signed by this
        ledger's key unless ``sign`` is False; returns the event count."""
        from ledger.integrity import export

        return export(self, out, campaign, sign=sign)

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
        from ledger.integrity import import_campaign

        return import_campaign(self, data, name, require_signed=require_signed, file=file)


__all__ = ["Campaign", "Ledger", "LogEntry", "Recorded", "Tip", "VerifyReport"]
