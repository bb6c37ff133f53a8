"""A branch's history: its stored events read back, the state at any version, and the
head kept in memory.

How undo works: an undo or redo is a *reset* event that says "the state is now the
state at version T". The state at version v is therefore the fold of the events after
the last reset at or before v, on top of the state at that reset's target. Every
envelope carries ``last_reset`` so the segments to fold are found by a few point reads,
and nothing is ever rewritten. :class:`Undo` and :class:`Redo` find the actions a reset
takes back or brings back.

Imports the store, the events, the fold and the records; the snapshots cache only where a
state is folded (the statistics fold none), and the dice commitments
(``ledger.dice.provable``) only where a head's dice status is looked up.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from ledger.errors import (
    GiveOption,
    Input,
    LedgerError,
    NothingToUndoError,
    RunCommand,
    TamperError,
    VersionError,
)
from ledger.i18n import _, n_
from ledger.log import chain
from ledger.log.events import (
    DICE_EVENTS,
    RESETS,
    ActionRedone,
    ActionUndone,
    BranchForked,
    CampaignStarted,
    Envelope,
    Event,
    envelope_decoder,
    redoable,
)
from ledger.log.records import Campaign, LogEntry, Tip, unreadable
from ledger.log.state import CampaignState, evolve
from ledger.log.store import Store
from ledger.systems import System, get_system

if TYPE_CHECKING:
    from collections.abc import Callable

    from ledger.dice.provable import DiceStatus
    from ledger.dice.sources import Dice


def known_as(c: Campaign, state: CampaignState) -> CampaignState:
    """The state under the name the ledger knows the campaign by: an import under
    another name (``--name``) keeps the exported name in its first event."""
    if state.core.name == c.name or state.core.version == 0:
        return state
    return msgspec.structs.replace(state, core=msgspec.structs.replace(state.core, name=c.name))


class History:
    """The stored history of every branch of one store, and each branch's head (its
    :class:`Tip`) kept in memory once read."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._heads: dict[str, Tip] = {}

    # --- the stored events ------------------------------------------------------

    def decode(self, campaign: Campaign, raw: bytes, version: int) -> Envelope[Any]:
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
            raise TamperError(campaign.name, version, _("the event is missing"))
        env = self.decode(campaign, rows[0].state, version)
        if env.v != version:
            raise TamperError(
                campaign.name,
                version,
                _("the event stored there says it is version {version}", version=env.v),
                fix=RunCommand(text=_("verify the whole ledger"), command="verify", options=(Input("all"),)),
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

    # --- resets and the effective history -------------------------------------------

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
            v = self.reset_target(campaign, env, r)
        segs.reverse()
        return segs

    def reset_target(self, c: Campaign, env: Envelope[Any], r: int) -> int:
        """The target of the reset at version ``r`` (``env``'s last reset, or ``env`` itself),
        refused unless it lies strictly before the reset: every walk over resets goes down."""
        if not 0 < r <= env.v:
            raise TamperError(
                c.name,
                env.v,
                _("its last undo or redo (version {version}) is not at or before it", version=r),
                fix=RunCommand(text=_("verify the campaign"), command="verify"),
            )
        reset = env if r == env.v else self.envelope(c, r)
        if not isinstance(reset.event, RESETS):
            raise TamperError(
                c.name,
                env.v,
                _("its last undo or redo (version {version}) is not an undo or redo", version=r),
                fix=RunCommand(text=_("verify the campaign"), command="verify"),
            )
        target = reset.event.target
        if not 0 < target < r:
            raise TamperError(
                c.name,
                r,
                _("its undo or redo target {target} is not an earlier version", target=target),
                fix=RunCommand(text=_("verify the campaign"), command="verify"),
            )
        return int(target)

    def effective(self, campaign: Campaign, version: int | None = None) -> Iterator[Envelope[Any]]:
        """The events that make the state at ``version`` (head by default), in order."""
        v = self.head(campaign) if version is None else version
        for lo, hi in self.segments(campaign, v):
            yield from self.envelopes(campaign, lo, hi)

    def log(
        self, c: Campaign, summary: Callable[[Event], str], *, show_all: bool = False, at: int | None = None
    ) -> list[LogEntry]:
        """The branch's events up to ``at`` (the head), each told by ``summary``; the
        undone ones too with ``show_all``."""
        # lazy: a command that reads statistics imports no command or dice (tests/test_cli_startup.py)
        from ledger.deciding.commands import told_actions

        head = self.check_version(c, at)
        live = self.segments(c, head)
        entries = []
        for env, party, seat in told_actions(get_system(c.system), self.envelopes(c, 0, head)):
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
                    summary(env.event),
                    not effective and not reset,
                    env.event,
                    env.hash,
                    party,
                    seat,
                )
            )
        return entries

    def replay(
        self, c: Campaign, to: int | None = None
    ) -> Iterator[tuple[list[Envelope[Any]], CampaignState, CampaignState]]:
        """Each effective action in order: (its events, state before, state after)."""
        to = self.check_version(c, to)
        system = get_system(c.system)
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

    # --- the state at a version -------------------------------------------------------

    def state(self, c: Campaign, *, at: int | None = None, day: int | None = None) -> CampaignState:
        """The campaign's state at its head, at a version, or at the end of a game day."""
        system = get_system(c.system)
        if day is not None:
            if at is not None:
                raise LedgerError(_("give `at` or `day`, not both"), field="day")
            at = self.version_at_day(c, day)
        if at is None:
            return self.tip(c).state
        self.check_version(c, at)
        return known_as(c, self.state_at(c, at, system))

    def check_version(self, c: Campaign, version: int | None) -> int:
        """``version`` when it is on the branch (the head when None), else a VersionError."""
        head = self.head(c)
        if version is None:
            return head
        if not 1 <= version <= head:
            raise VersionError(
                _(
                    "version {version} is outside campaign {campaign!r} (versions 1 to {head})",
                    version=version,
                    campaign=c.name,
                    head=head,
                ),
                fix=RunCommand(text=_("see `log`"), command="log", options=(Input("all"),)),
            )
        return version

    def state_at(
        self, c: Campaign, version: int, system: System, *, use_snapshots: bool = True
    ) -> CampaignState:
        """The effective state at ``version``: the nearest snapshot, then the
        events after it; across resets, the state at the reset's target."""
        # lazy: the statistics, which fold no campaign, import no snapshots (tests/test_cli_startup.py)
        from ledger.log import snapshots

        plan: list[tuple[int, int]] = []
        base = CampaignState()
        v = version
        while v > 0:
            env = self.envelope(c, v)
            reset = v if isinstance(env.event, RESETS) else env.last_reset
            found = self.snapshot(c, v, reset, system) if use_snapshots else None
            if found is not None:
                base = found[1]
                plan.append((found[0], v))
                break
            plan.append((reset, v))
            if reset == 0:
                break
            v = self.reset_target(c, env, reset)
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

    def snapshot(self, c: Campaign, v: int, floor: int, system: System) -> tuple[int, CampaignState] | None:
        """The latest usable snapshot at a version in (floor, v], if any."""
        # lazy: the statistics, which fold no campaign, import no snapshots (tests/test_cli_startup.py)
        from ledger.log import snapshots

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
                _("campaign {campaign!r} has no game days", campaign=campaign.name),
                fix=GiveOption(text=_("use `at` VERSION"), inputs=(Input("at", "VERSION"),)),
            )
        if latest < day:
            raise VersionError(
                _("campaign {campaign!r} has reached day {day}", campaign=campaign.name, day=latest),
                fix=GiveOption(
                    text=_("use `day` 0 to {day}", day=latest),
                    inputs=(Input("day", _("0 to {day}", day=latest)),),
                ),
            )
        return version

    # --- the head kept in memory ------------------------------------------------------

    def tip(self, c: Campaign) -> Tip:
        """Where the next event of a campaign goes, and the state it lands on.

        The tip of each campaign is kept in memory: the next call reads only
        the events appended since (one query), and folds them on top unless
        one of them is an undo or redo."""
        system = get_system(c.system)
        cached = self._heads.get(c.id)
        if cached is not None:
            news = list(self.envelopes(c, cached.version, None))
            if not news:
                return cached
            if cached.dice is None:
                dice = None
            else:
                # lazy: a command that reads imports no dice commitments (tests/test_cli_startup.py)
                from ledger.dice import provable as fairness

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

    def known_tip(self, c: Campaign) -> Tip | None:
        """The head this history last saw of ``c``, without reading the store (None before
        the first read): another writer may have appended since."""
        return self._heads.get(c.id)

    def _remember(
        self, c: Campaign, env: Envelope[Any], state: CampaignState, dice: DiceStatus | None = None
    ) -> Tip:
        state = known_as(c, state)
        last_reset = env.v if isinstance(env.event, RESETS) else env.last_reset
        tip = Tip(env.v, env.hash, last_reset, state, dice)
        self._heads[c.id] = tip
        return tip

    def remember(self, c: Campaign, tip: Tip) -> None:
        """Keep a tip known to be the campaign's head (after an append)."""
        self._heads[c.id] = tip

    def dice_tip(self, c: Campaign, tip: Tip | None = None) -> Tip:
        """The tip (the head by default) with its dice status looked up: the open
        commitment and the next nonce, read back from the head (see ledger.dice.provable)."""
        tip = self.tip(c) if tip is None else tip
        if tip.dice is not None:
            return tip
        stream, after, __ = c.lineage[-1]
        decode = envelope_decoder(c.system).decode
        # lazy: a command that reads imports no dice commitments (tests/test_cli_startup.py)
        from ledger.dice import provable as fairness

        status = fairness.status_at(self.store, stream, after, tip.version, decode)
        tip = msgspec.structs.replace(tip, dice=status)
        if self._heads.get(c.id) is not None and self._heads[c.id].version == tip.version:
            self._heads[c.id] = tip
        return tip

    def dice_at(self, c: Campaign, version: int) -> DiceStatus:
        """The dice status of a branch at one of its versions (its stored history up to it)."""
        # lazy: a command that reads imports no dice commitments (tests/test_cli_startup.py)
        from ledger.dice import provable as fairness

        for stream, after, upto in reversed(c.lineage):
            if version > after and (upto is None or version <= upto):
                decode = envelope_decoder(c.system).decode
                return fairness.status_at(self.store, stream, after, version, decode)
        raise VersionError(
            _("version {version} is outside campaign {campaign!r}", version=version, campaign=c.name)
        )

    # --- the actions an undo or a redo reaches ----------------------------------------

    def last_effective(self, c: Campaign, v: int) -> Envelope[Any] | None:
        """The last event at or before ``v`` of an action an undo can take back."""
        while v > 0:
            env = self.envelope(c, v)
            if isinstance(env.event, RESETS):
                v = self.reset_target(c, env, v)
            elif isinstance(env.event, (BranchForked, *DICE_EVENTS)):
                v -= 1  # a fork, a commitment or a reveal is no action to take back
            elif isinstance(env.event, CampaignStarted):
                return None
            else:
                return env
        return None

    def action_range(self, c: Campaign, last: Envelope[Any]) -> int:
        """The first version of the action whose last event is ``last``."""
        first = last.v
        while first > 1:
            before = self.envelope(c, first - 1)
            if before.action != last.action:
                break
            first -= 1
        return first


class Undo:
    """What retracting the last ``count`` effective actions of a branch records: one
    ``ActionUndone`` for each, every event of it."""

    by_actor: ClassVar[bool] = True

    def __init__(self, history: History, c: Campaign, count: int) -> None:
        self.history = history
        self.c = c
        self.count = count

    def decide(self, tip: Tip, _dice: Dice) -> list[Event]:
        c, history, count = self.c, self.history, self.count
        v = history.head(c)
        events: list[Event] = []
        for n in range(count):
            last = history.last_effective(c, v)
            if last is None:
                if n == 0:
                    raise NothingToUndoError(_("nothing to undo in {campaign!r}", campaign=c.name))
                raise NothingToUndoError(
                    n_(
                        "only {n} action(s) to undo in {campaign!r}, not {count}",
                        "only {n} action(s) to undo in {campaign!r}, not {count}",
                        n,
                        campaign=c.name,
                        count=count,
                    ),
                    fix=RunCommand(text=_("use `undo`"), command="undo", arguments=(str(n),)),
                )
            first = history.action_range(c, last)
            first_event = last if first == last.v else history.envelope(c, first)
            events.append(
                ActionUndone(
                    undone=last.action,
                    first=first,
                    last=last.v,
                    target=first - 1,
                    what=first_event.event.stored_summary(),
                )
            )
            v = first - 1
        return events


class Redo:
    """What bringing back the last ``count`` undone actions records (only while nothing
    new was recorded after their undo): one ``ActionRedone`` for each."""

    by_actor: ClassVar[bool] = True

    def __init__(self, history: History, c: Campaign, count: int) -> None:
        self.history = history
        self.c = c
        self.count = count

    def decide(self, tip: Tip, _dice: Dice) -> list[Event]:
        c, history, count = self.c, self.history, self.count
        trailing: list[Event] = []
        v = history.head(c)
        while v > 0:
            env = history.envelope(c, v)
            if not isinstance(env.event, RESETS):
                break
            trailing.append(env.event)
            v -= 1
        stack = redoable(trailing)
        if not stack:
            raise NothingToUndoError(_("nothing to redo in {campaign!r}", campaign=c.name))
        if count > len(stack):
            raise NothingToUndoError(
                n_(
                    "only {n} action(s) to redo in {campaign!r}, not {count}",
                    "only {n} action(s) to redo in {campaign!r}, not {count}",
                    len(stack),
                    campaign=c.name,
                    count=count,
                ),
                fix=RunCommand(text=_("use `redo`"), command="redo", arguments=(str(len(stack)),)),
            )
        return [
            ActionRedone(redone=top.undone, target=top.last, what=top.what)
            for top in reversed(stack[-count:])
        ]
