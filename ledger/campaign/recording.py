"""The one recording path: every action of a campaign, whatever front end asks for it
(``Ledger.execute``, an undo or a redo, a dice commitment, the bulk path of
``ledger.campaign.batch``), is decided on the branch's head with its dice drawn, sealed and
appended here, and decided again on the new head when another writer won the race.

Imports the deciding (``ledger.deciding.action``), the commands' text checks, the chain, the
store and the history; loaded only when something is recorded.
"""

from __future__ import annotations

import itertools
import random
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from ledger.campaign.history import History
from ledger.deciding.action import Step, actor_in, decide_and_draw, decision
from ledger.deciding.commands import Command, check_command_text
from ledger.deciding.decider import Stamp
from ledger.dice import provable as fairness
from ledger.errors import (
    ConflictError,
    Input,
    LedgerError,
    RunCommand,
    StaleVersionError,
    TamperError,
    VersionError,
)
from ledger.i18n import _
from ledger.log import chain
from ledger.log.events import MAX_DAY, MAX_LINE, RESETS, CharacterAdded, Decision, Envelope, Event
from ledger.log.records import Campaign, Recorded, Rows, Tip
from ledger.log.sealing import PUBLIC
from ledger.log.state import CampaignState, evolve, evolve_core
from ledger.log.store import VersionConflict
from ledger.systems import System, get_system
from ledger.text import check_distinct, check_name

if TYPE_CHECKING:
    from ledger.dice.sources import Dice

MAX_ATTEMPTS = 50
"""How many times an action is decided and tried before it is refused with
:class:`ConflictError`."""

PATIENCE = 1.0
"""Seconds an action that lost a race may wait for the campaign's head to stand still
(:meth:`Recording.wait_quiet`); after them it races the other writer at every try."""

TAIL = 16
"""How many of a campaign's last events are checked before the first append to it."""


class ChainWarning(UserWarning):
    """A campaign's recent events fail the chain check; new actions are still recorded."""


def warn_chain(warning: LedgerError) -> None:
    """Tell a warning through :mod:`warnings`, as a :class:`ChainWarning`."""
    warnings.warn(str(warning), ChainWarning, stacklevel=5)


def backoff(attempt: int) -> None:
    """Random exponential back-off after losing a race, so no writer starves."""
    time.sleep(random.uniform(0, min(0.2, 0.001 * 2 ** min(attempt, 10))))


def check_size(raw: bytes) -> None:
    """Refuse an event longer than an import reads (its tables or attributes too big)."""
    if len(raw) > MAX_LINE:
        raise LedgerError(
            _(
                "the event would take {size} KiB, above the {limit} MiB "
                "one event may take; use smaller tables or fewer, shorter attributes",
                size=len(raw) // 1024,
                limit=MAX_LINE // 2**20,
            )
        )


def check_seat(seat: str | None) -> str | None:
    """The seat label an action is recorded from, checked as a name is (None: none)."""
    return None if seat is None else check_name(seat, "seat")


class Given:
    """Events a program decides itself on the head's state and dice (``Ledger.record``),
    recorded under the acting character; with the ``command`` they stand for, the action
    keeps it and its dice."""

    by_actor: ClassVar[bool] = True

    def __init__(
        self, decide: Callable[[CampaignState, Dice], list[Event]], command: Command | None = None
    ) -> None:
        self.events = decide
        self.command = command

    def decide(self, tip: Tip, dice: Dice) -> list[Event]:
        return self.events(tip.state, dice)


def _command(action: Command | Step) -> Command | None:
    """The command an action is decided from, if any: what its decision keeps."""
    if isinstance(action, Command):
        return action
    return action.command if isinstance(action, Given) else None


class Drafted(msgspec.Struct, frozen=True):
    """One action decided and sealed on a head, not yet stored: its rows, its envelopes
    and the head after it."""

    rows: Rows
    envelopes: list[Envelope[Any]]
    tip: Tip


class Recording:
    """Decides, seals and appends the actions of the campaigns of one history."""

    def __init__(self, history: History, warn: Callable[[LedgerError], None]) -> None:
        self.history = history
        self.store = history.store
        self.warn = warn
        self._tail_checked: set[str] = set()

    def record(
        self,
        c: Campaign,
        action: Command | Step,
        *,
        faces: list[int] | None = None,
        actor: str | None = None,
        newcomer: str | None = None,
        seat: str | None = None,
        expected: int | None = None,
        visibility: str = PUBLIC,
        to: tuple[str, ...] = (),
    ) -> Recorded:
        """Decide ``action`` on the head of ``c`` and append its events, all or nothing,
        deciding again on the new head when another writer appended first. The action is
        recorded under ``newcomer`` (a character it brings in), else ``actor``; a command
        keeps itself, its dice and ``seat`` (``Envelope.decision``).

        With ``expected`` (the version its caller decided on) the action is decided on
        that version only and appended right after it, or not at all: when the head is
        elsewhere, or another writer (in any process) takes the next version first, it is
        refused with :class:`StaleVersionError`, never decided again. The store's unique
        (stream, version) key holds this at the append itself."""
        if isinstance(action, Command):
            check_command_text(msgspec.structs.replace(action, actor=actor or action.actor))
        elif isinstance(action, Given) and action.command is not None:
            check_command_text(action.command)
        seat = check_seat(seat)
        lost: int | None = None
        patience = time.monotonic() + PATIENCE
        for attempt in range(MAX_ATTEMPTS):
            # The head this ledger last saw is tried first without reading the store:
            # if another writer appended since, the append conflicts on its version
            # and the next attempt reads what is new.
            cached = self.history.known_tip(c) if attempt == 0 else None
            if expected is not None and cached is not None and cached.version != expected:
                cached = None  # this ledger may not have seen the version expected: read it
            tip = self.history.dice_tip(c, cached if cached is not None else self.history.tip(c))
            if expected is not None and tip.version != expected:
                raise StaleVersionError(c.name, expected, tip.version)
            if tip.version == lost:
                # Nobody wrote since the version was refused: the stored versions are out of order.
                raise TamperError(
                    c.name,
                    lost + 1,
                    _("a stored row is out of place"),
                    fix=RunCommand(
                        text=_("verify the whole ledger"), command="verify", options=(Input("all"),)
                    ),
                )
            if c.id not in self._tail_checked:
                self._tail_checked.add(c.id)
                self.check_tail(c, tip.version)
            try:
                drafted = self.draft(
                    c,
                    tip,
                    action,
                    faces=faces,
                    actor=actor,
                    newcomer=newcomer,
                    seat=seat,
                    visibility=visibility,
                    to=to,
                )
            except LedgerError:
                if expected is not None and cached is not None and self.history.head(c) != expected:
                    # refused on the head this ledger remembered, which is no longer the head
                    raise StaleVersionError(c.name, expected, self.history.head(c)) from None
                raise
            try:
                self.store.append(drafted.rows)
            except VersionConflict:
                if expected is not None:
                    raise StaleVersionError(c.name, expected, self.history.head(c)) from None
                lost = tip.version
                if time.monotonic() < patience:
                    self.wait_quiet(c, lost + 1, patience)
                else:  # waited long enough for a pause: race the other writer
                    backoff(attempt)
                continue
            self.history.remember(c, drafted.tip)
            return Recorded(c, drafted.envelopes[0].action, drafted.envelopes, drafted.tip.state)
        raise ConflictError(
            _(
                "campaign {campaign!r} is being written by other processes; "
                "gave up after {attempts} attempts, try again",
                campaign=c.name,
                attempts=MAX_ATTEMPTS,
            )
        )

    def wait_quiet(self, c: Campaign, taken: int, until: float) -> None:
        """After a race lost for version ``taken``, back off until the campaign's head (read
        alone: one small read, nothing folded) stands still across a back-off, so that no
        other writer is in the middle of a run of appends, or until ``until`` (the action's
        :data:`PATIENCE` is spent: it then races the other writer at every try). Reading and
        folding what the other writer appends, deciding again and sending an append while
        it still appends would mostly lose again, and take the processors from it: folding
        at each look measured 0.69-0.78x of one writer, the head alone 0.85-0.96x
        (docs/scaling.md)."""
        seen = taken
        for wake in itertools.count():
            backoff(wake)
            head = self.history.head(c)
            if head == seen or time.monotonic() >= until:
                return
            seen = head

    def draft(
        self,
        c: Campaign,
        tip: Tip,
        action: Command | Step,
        *,
        faces: list[int] | None = None,
        actor: str | None = None,
        newcomer: str | None = None,
        seat: str | None = None,
        system: System | None = None,
        visibility: str = PUBLIC,
        to: tuple[str, ...] = (),
    ) -> Drafted:
        """Decide ``action`` on ``tip`` with its dice drawn, and seal its events on top:
        what :meth:`record` appends, and what a batch buffers. A command acts as
        ``actor`` when one is given, else as the character it names; the party's action
        (``Command.by_party``) as no character, whoever is named."""
        system = system or get_system(c.system)
        party = isinstance(action, Command) and action.by_party()
        if isinstance(action, Command):
            action = msgspec.structs.replace(action, actor=None if party else actor or action.actor)
            actor = action.actor
        # The envelopes' fields are chosen before deciding, so that the rules' draft folds
        # each event as it is recorded and sealing keeps the game states it folded.
        action_id, at = chain.new_action(), chain.now()
        stamp = (
            self.stamp(c, tip, action_id, at, actor, newcomer, party=party)
            if isinstance(action, Command)
            else None
        )
        decided, dice = decide_and_draw(system, tip, action, faces, stamp)
        command = _command(action)
        how = decision(command, dice, system, seat)
        by_actor = isinstance(action, Command) or action.by_actor
        who = self.recorded_under(tip.state, actor, newcomer, party=party) if by_actor else None
        events = decided.events
        games = decided.games if stamp is not None and stamp.actor == who else None
        if visibility != PUBLIC or to:
            events, how, games = self.sealed(
                c, tip, action, events, who, how, visibility=visibility, to=to, seat=seat, system=system
            )
        rows, envelopes, after = self.seal(
            c,
            tip,
            events,
            who,
            action=action_id,
            at=at,
            system=system,
            decision=how,
            games=games,
        )
        return Drafted(rows, envelopes, after)

    def sealed(
        self,
        c: Campaign,
        tip: Tip,
        action: Command | Step,
        events: list[Event],
        who: str | None,
        how: Decision | None,
        *,
        visibility: str,
        to: tuple[str, ...],
        seat: str | None,
        system: System,
    ) -> tuple[list[Event], Decision | None, None]:
        """An action asked sealed: its ``action.sealed`` event, which keeps no decision (its
        content, kept beside the log, does), once the action is found fit to be sealed."""
        # lazy: loaded only when an action is sealed
        from ledger.campaign.sealing import check_visibility, label_of, sealed_event

        command = _command(action)
        if command is None:
            raise LedgerError(_("only a command is made private, blind or whispered"))
        visibility = check_visibility(visibility, to, tip.state)
        if visibility == PUBLIC:
            return events, how, None
        _rows, _envs, after = self.seal(c, tip, events, who, system=system, decision=how)
        name = how.command if how is not None else type(command).__name__
        event = sealed_event(
            c,
            tip,
            system,
            events,
            after.state,
            how,
            visibility=visibility,
            to=to,
            seat=seat,
            label=label_of(command, name, events),
            store=self.store,
        )
        return [event], None, None

    def stamp(
        self,
        c: Campaign,
        tip: Tip,
        action: str,
        at: str,
        actor: str | None,
        newcomer: str | None,
        *,
        party: bool = False,
    ) -> Stamp | None:
        """The envelope fields a command's events are recorded with on ``tip``, known
        before it is decided (None when its actor is refused: deciding says why)."""
        try:
            who = self.recorded_under(tip.state, actor, newcomer, party=party)
        except LedgerError:
            return None
        return Stamp(
            campaign=c.id, action=action, at=at, head=tip.version, actor=who, last_reset=tip.last_reset
        )

    @staticmethod
    def recorded_under(
        state: CampaignState, actor: str | None, newcomer: str | None, *, party: bool = False
    ) -> str | None:
        """Who an action is recorded under: the character the command brings in, whoever
        typed it (as ``CharacterAdded`` events always are), else the actor; the party's
        action under no character."""
        if newcomer is not None:
            return newcomer
        return None if party else actor_in(state, actor)

    def check_tail(self, c: Campaign, head: int) -> str | None:
        """Before the first append to a campaign: check the hashes and links of its
        last :data:`TAIL` events (a cheap part of ``verify``); a failure is warned
        about, naming the version, and returned. The append goes ahead."""
        lo = max(0, head - TAIL)
        prev: str | None = None
        for v, raw in enumerate(self.history.stored(c, lo, head), start=lo + 1):
            problem = chain.check(bytes(raw))
            env = self.history.decode(c, bytes(raw), v) if problem is None else None
            if env is not None and env.v != v:
                problem = _("the event stored there says it is version {version}", version=env.v)
            elif env is not None and prev is not None and env.prev != prev:
                problem = _("its link to the version before does not match (an event was edited or removed)")
            if problem is not None:
                warning = TamperError(
                    c.name,
                    v,
                    problem,
                    fix=RunCommand(
                        text=_("recording anyway, run `verify` and restore from a backup or export"),
                        command="verify",
                    ),
                )
                self.warn(warning)
                return str(warning)
            prev = env.hash if env is not None else None
        return None

    def seal(
        self,
        c: Campaign,
        tip: Tip,
        events: list[Event],
        actor: str | None,
        *,
        action: str | None = None,
        at: str | None = None,
        system: System | None = None,
        decision: Decision | None = None,
        games: list[Any] | None = None,
    ) -> tuple[Rows, list[Envelope[Any]], Tip]:
        """Fold and seal a command's events on top of ``tip``: the rows to store. ``games``
        are the game states after each event when the rules' draft already folded them
        under these envelopes (``Stamp``): only the campaign's own part is folded then."""
        action = action or chain.new_action()
        system = system or get_system(c.system)
        stream = c.lineage[-1][0]
        rows, envelopes = [], []
        at = at or chain.now()
        version, prev, last_reset, state = tip.version, tip.prev, tip.last_reset, tip.state
        for i, ev in enumerate(events):
            version += 1
            if isinstance(ev, CharacterAdded):
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
                state = self.history.state(c, at=ev.target) if ev.target else CampaignState()
            elif games is not None:
                state = evolve_core(state, env, system, games[i])
            else:
                state = evolve(state, env, system)
            day = state.core.day
            if day is not None and not 0 <= day <= MAX_DAY:
                raise VersionError(
                    _(
                        "the event would fall on day {day}; the ledger records days 0 to {limit}",
                        day=day,
                        limit=MAX_DAY,
                    )
                )
            env = msgspec.structs.replace(env, day=day)
            raw, prev = chain.seal(env)
            check_size(raw)
            rows.append((stream, version, ev.kind, raw))
            envelopes.append(msgspec.structs.replace(env, hash=prev))
        dice = None if tip.dice is None else fairness.advance(tip.dice, envelopes, self.store)
        return rows, envelopes, Tip(version, prev, last_reset, state, dice)
