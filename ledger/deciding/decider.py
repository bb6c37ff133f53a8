"""The systems' side of deciding: the :class:`Decider` every system decides its
commands with, and the :class:`Draft` a command's handler writes its events into.

(The ledger's side, :mod:`ledger.deciding.action`, picks the dice, the actor and the core's
commands, then calls ``System.decide``, which is a system's Decider.)

A system makes one :class:`Decider` with its fold, registers a handler per command
class with ``@decider.on(Command)``, and publishes the decider as ``Rules.decide``
and its ``commands`` as ``Rules.commands``. A handler writes the command's events
into a :class:`Draft`, which folds each event as it is emitted, so the next rule
sees the state the earlier events lead to. When the action is being recorded, the
Draft folds each event under the envelope it will be recorded with (a :class:`Stamp`:
its action id, time, version, actor and last reset), so its fold is the recorded
head's and the recording keeps the game states it folded instead of folding again::

    decider = Decider("coin", evolve)

    @decider.on(Flip)
    def _flip(draft: Draft[CoinState], command: Flip) -> None:
        face = ("heads", "tails")[draft.dice.roll(2) - 1]
        draft.emit(Flipped(call=command.call, face=face))

The decider never rolls but through the dice it is given, and never writes: it
returns the events, or raises a :class:`ledger.errors.LedgerError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, NoReturn, TypeVar

import msgspec

from ledger.errors import RuleError, SystemCommands
from ledger.i18n import _
from ledger.log.events import RESETS, CharacterAdded, Envelope, Event

if TYPE_CHECKING:
    from ledger.dice.sources import Dice
    from ledger.log.state import CampaignState

G = TypeVar("G")
C = TypeVar("C")

PENDING = "(deciding)"
"""The action id of an event folded while its action is being decided (not yet recorded)."""

Evolve = Callable[[Any, Event, Envelope[Any]], Any]
Handler = Callable[["Draft[Any]", Any], None]
Mark = Callable[["Draft[Any]", Event], Event]


class Stamp(msgspec.Struct, frozen=True):
    """What the envelopes of an action being recorded hold, known before it is decided:
    the campaign, the action id, the time, the head's version (the ``i``-th event is
    version ``head + i``), the character it is recorded under and the head's last reset.
    A ``CharacterAdded`` event is recorded under the character it adds."""

    campaign: str
    action: str
    at: str
    head: int
    actor: str | None
    last_reset: int


def recorded_envelope(stamp: Stamp, v: int, last_reset: int, event: Event) -> Envelope[Any]:
    """The envelope event version ``v`` of an action is folded under as it is recorded:
    every field the stored one has but its day, its decision and its link (found once it
    is folded and the whole action decided), which no fold reads."""
    return Envelope(
        v=v,
        campaign=stamp.campaign,
        action=stamp.action,
        at=stamp.at,
        actor=event.name if isinstance(event, CharacterAdded) else stamp.actor,
        last_reset=last_reset,
        prev="",
        event=event,
    )


class Draft(Generic[G]):
    """The events a command decides so far, with the game state they lead to.

    ``state`` is the campaign state the command was given (core and game);
    ``game`` is the system's state after the events emitted so far; ``dice`` the
    dice to roll; ``tables`` and ``settings`` the campaign's."""

    def __init__(
        self,
        state: CampaignState,
        command: Any,
        dice: Dice,
        evolve: Evolve,
        *,
        stamp: Stamp | None = None,
        mark: Mark | None = None,
    ) -> None:
        self.state = state
        self.command = command
        self.game: G = state.game
        self.dice = dice
        self.events: list[Event] = []
        self.games: list[Any] = []
        """The game state after each event emitted, in order."""
        self.stamp = stamp
        self._evolve = evolve
        self._mark = mark
        self._last_reset = stamp.last_reset if stamp is not None else 0

    @property
    def tables(self) -> dict[str, Any]:
        return self.state.core.tables

    @property
    def settings(self) -> dict[str, Any]:
        return self.state.core.settings

    @property
    def actor(self) -> str | None:
        """Who acts: the command's character, or the campaign's last one."""
        return getattr(self.command, "actor", None) or self.state.core.last_actor

    def emit(self, event: Event) -> None:
        """Add an event (as the decider's ``mark`` rewrites it) and fold it into ``game``:
        under the envelope it is recorded with when the draft has a :class:`Stamp`, else
        under a provisional one (action :data:`PENDING`, no time, the day before)."""
        if self._mark is not None:
            event = self._mark(self, event)
        self.events.append(event)
        if self.stamp is not None:
            v = self.stamp.head + len(self.events)
            if isinstance(event, RESETS):
                self._last_reset = v
            env = recorded_envelope(self.stamp, v, self._last_reset, event)
        else:
            env = Envelope(
                v=self.state.core.version + len(self.events),
                campaign=self.state.core.campaign_id,
                action=PENDING,
                at="",
                day=self.state.core.day,
                actor=self.actor,
                prev="",
                event=event,
            )
        self.game = self._evolve(self.game, event, env)
        self.games.append(self.game)


class Decided(msgspec.Struct, frozen=True):
    """The events a decider decided, and the game state after each as its draft folded
    them (None when its ``after`` rewrote them, so they must be folded again)."""

    events: list[Event]
    games: list[Any] | None


class Decider:
    """A system's commands, each with its handler; called as ``Rules.decide``.

    ``before`` runs on every command before its handler (a check every command of the
    system shares, such as "the campaign is over"); ``mark`` rewrites each event as it is
    emitted, before it is folded (marking those rolled on physical dice, say); ``after``
    may rewrite the events a handler emitted once it is done (those are folded again as
    they are recorded)."""

    def __init__(
        self,
        system: str,
        evolve: Evolve,
        *,
        before: Callable[[Draft[Any]], None] | None = None,
        after: Callable[[Draft[Any], list[Event]], list[Event]] | None = None,
        mark: Mark | None = None,
    ) -> None:
        self.system = system
        self.evolve = evolve
        self.before = before
        self.after = after
        self.mark = mark
        self._handlers: dict[type, Handler] = {}

    def on(
        self, kind: type[C]
    ) -> Callable[[Callable[[Draft[Any], C], None]], Callable[[Draft[Any], C], None]]:
        """Register the handler of one command class."""

        def register(handler: Callable[[Draft[Any], C], None]) -> Callable[[Draft[Any], C], None]:
            if kind in self._handlers:
                raise ValueError(f"the {self.system} system decides {kind.__name__} twice")
            self._handlers[kind] = handler
            return handler

        return register

    @property
    def commands(self) -> tuple[type, ...]:
        """The command classes registered, in the order they were."""
        return tuple(self._handlers)

    def handler(self, kind: type) -> Handler | None:
        return self._handlers.get(kind)

    def refuse(self, command: Any) -> NoReturn:
        """Refuse a command no handler is registered for."""
        raise RuleError(
            _(
                "the {system} system has no command {command}",
                system=self.system,
                command=type(command).__name__,
            ),
            fix=SystemCommands(
                text=_("use one of the {system} system's commands", system=self.system), system=self.system
            ),
        )

    def __call__(self, state: CampaignState, command: Any, dice: Dice) -> list[Event]:
        return self.decide(state, command, dice).events

    def decide(self, state: CampaignState, command: Any, dice: Dice, stamp: Stamp | None = None) -> Decided:
        """The events ``command`` decides on ``state`` with ``dice``, and the game states its
        draft folded them to (under ``stamp``'s envelopes when one is given)."""
        handler = self._handlers.get(type(command))
        if handler is None:
            self.refuse(command)
        draft: Draft[Any] = Draft(state, command, dice, self.evolve, stamp=stamp, mark=self.mark)
        if self.before is not None:
            self.before(draft)
        handler(draft, command)
        if self.after is None:
            return Decided(draft.events, draft.games)
        events = self.after(draft, draft.events)
        kept = len(events) == len(draft.events) and all(
            a is b for a, b in zip(events, draft.events, strict=True)
        )
        return Decided(events, draft.games if kept else None)
