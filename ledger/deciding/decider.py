"""The systems' side of deciding: the :class:`Decider` every system decides its
commands with, and the :class:`Draft` a command's handler writes its events into.

(The ledger's side, :mod:`ledger.deciding.action`, picks the dice, the actor and the core's
commands, then calls ``System.decide``, which is a system's Decider.)

A system makes one :class:`Decider` with its fold, registers a handler per command
class with ``@decider.on(Command)``, and publishes the decider as ``Rules.decide``
and its ``commands`` as ``Rules.commands``. A handler writes the command's events
into a :class:`Draft`, which folds each event as it is emitted, so the next rule
sees the state the earlier events lead to::

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
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ledger.errors import RuleError, SystemCommands
from ledger.log.events import Envelope, Event

if TYPE_CHECKING:
    from ledger.dice.sources import Dice
    from ledger.log.state import CampaignState

G = TypeVar("G")
C = TypeVar("C")

PENDING = "(deciding)"
"""The action id of an event folded while its action is being decided (not yet recorded)."""

Evolve = Callable[[Any, Event, Envelope[Any]], Any]
Handler = Callable[["Draft[Any]", Any], None]


class Draft(Generic[G]):
    """The events a command decides so far, with the game state they lead to.

    ``state`` is the campaign state the command was given (core and game);
    ``game`` is the system's state after the events emitted so far; ``dice`` the
    dice to roll; ``tables`` and ``settings`` the campaign's."""

    def __init__(self, state: CampaignState, command: Any, dice: Dice, evolve: Evolve) -> None:
        self.state = state
        self.command = command
        self.game: G = state.game
        self.dice = dice
        self.events: list[Event] = []
        self._evolve = evolve

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
        """Add an event and fold it into ``game``."""
        self.events.append(event)
        pending = Envelope(
            v=self.state.core.version + len(self.events),
            campaign=self.state.core.campaign_id,
            action=PENDING,
            at="",
            day=self.state.core.day,
            actor=self.actor,
            prev="",
            event=event,
        )
        self.game = self._evolve(self.game, event, pending)


class Decider:
    """A system's commands, each with its handler; called as ``Rules.decide``.

    ``before`` runs on every command before its handler (a check every command of the
    system shares, such as "the campaign is over"); ``after`` may rewrite the events a
    handler emitted (marking those rolled on physical dice, say)."""

    def __init__(
        self,
        system: str,
        evolve: Evolve,
        *,
        before: Callable[[Draft[Any]], None] | None = None,
        after: Callable[[Draft[Any], list[Event]], list[Event]] | None = None,
    ) -> None:
        self.system = system
        self.evolve = evolve
        self.before = before
        self.after = after
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

    def __call__(self, state: CampaignState, command: Any, dice: Dice) -> list[Event]:
        handler = self._handlers.get(type(command))
        if handler is None:
            raise RuleError(
                f"the {self.system} system has no command {type(command).__name__}",
                fix=SystemCommands(
                    text=f"use one of the {self.system} system's commands", system=self.system
                ),
            )
        draft: Draft[Any] = Draft(state, command, dice, self.evolve)
        if self.before is not None:
            self.before(draft)
        handler(draft, command)
        return self.after(draft, draft.events) if self.after is not None else draft.events
