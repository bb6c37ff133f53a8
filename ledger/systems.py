"""The rule systems and what each contributes.

A system is a module ``ledger.rules.<name>`` exposing ``SYSTEM``, a
:class:`System`. Its events live in ``ledger.events.<name>``, its folds in
``projections.<name>`` and its commands in ``cli.<name>``. Systems are found
by name, so a command only imports the system it needs.

A command is named the same wherever its class lives (:func:`commands`):
``core.<Class>`` for the commands every campaign takes, ``<system>.<Class>``
for a system's own, which are the classes its decider dispatches on.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ledger.errors import UnknownSystemError

if TYPE_CHECKING:
    from ledger.dice import Dice
    from ledger.events import Envelope, Event
    from projections.core import CampaignState

KNOWN = ("freeform", "crawl", "dicepool", "yearzero", "d100", "d20")
"""Every system name the ledger knows, in the order they are listed."""


@dataclass(frozen=True)
class System:
    """What a rule system plugs into the ledger.

    ``initial`` builds the game state from the campaign's start event;
    ``evolve`` folds one of the system's events into it (pure, never rolls)
    and returns the state unchanged for events it does not know;
    ``decide`` turns a command into events given the state and the dice;
    ``sheet`` projects the state to the JSON-ready dict ``ledger sheet`` prints;
    ``render_sheet`` turns that dict into terminal text; ``day`` reads the
    game day from the state (None when the system has no days).
    """

    name: str
    description: str
    initial: Callable[[Any], Any]
    evolve: Callable[[Any, Event, Envelope[Any]], Any]
    decide: Callable[[CampaignState, Any, Dice], list[Event]]
    """Turns one of the system's commands into events, or raises a LedgerError."""
    sheet: Callable[[CampaignState, str | None], dict[str, Any]]
    render_sheet: Callable[[dict[str, Any]], str] | None = None
    day: Callable[[Any], int | None] = lambda _state: None
    load_tables: Callable[[str | None], tuple[dict[str, Any], str]] | None = None
    """Reads a user's table file (or the samples when None): (tables, source)."""
    check_settings: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """Validates ``--setting`` values at campaign creation (raises a LedgerError)."""
    demo: Callable[..., None] | None = None
    """Shows the system in ``ledger demo``: (ledger, echo) -> None."""
    extra: Mapping[str, Any] = field(default_factory=dict)


def system_names() -> list[str]:
    """Names of the systems installed, in the order of :data:`KNOWN`."""
    return list(_installed())


@functools.cache
def _installed() -> tuple[str, ...]:
    """The systems found on disk, looked up once per process: a system is installed or removed
    with the package, never while a command runs, and the look-up (one ``find_spec`` per known
    name) cost a warm ``ledger stats`` about 0.6 ms per campaign when each campaign asked."""
    return tuple(n for n in KNOWN if importlib.util.find_spec(f"ledger.rules.{n}") is not None)


_loaded: dict[str, System] = {}


def get_system(name: str) -> System:
    """The system called ``name``, imported on first use."""
    found = _loaded.get(name)
    if found is not None:
        return found
    names = system_names()
    if name not in names:
        raise UnknownSystemError(name, names)
    module = importlib.import_module(f"ledger.rules.{name}")
    system: System = module.SYSTEM
    _loaded[name] = system
    return system


CORE = "core"
"""The prefix of the commands every campaign takes (``core.Roll``)."""
_commands: dict[str, Mapping[str, type]] = {}


def commands(system: System) -> Mapping[str, type]:
    """Every command a campaign of ``system`` takes, by its stable name.

    The core's are ``core.Roll``, ``core.Note`` and ``core.AddCharacter``; a
    system's are ``<system>.<Class>`` for each class its decider dispatches on:
    ``extra["commands"]`` when the system lists them, else the command classes
    keying a table in its ``decide`` function's module (``DECIDERS``,
    ``HANDLERS``). The name holds no module path, so a stored decision still
    finds its command after the system's modules move."""
    found = _commands.get(system.name)
    if found is not None:
        return found
    from ledger.commands import AddCharacter, Command, Note, Roll

    table: dict[str, type] = {f"{CORE}.{kind.__name__}": kind for kind in (Roll, Note, AddCharacter)}
    listed = system.extra.get("commands")
    if listed is None:
        namespace = getattr(system.decide, "__globals__", {})
        listed = [
            key
            for value in list(namespace.values())
            if isinstance(value, dict)
            for key in value
            if isinstance(key, type) and issubclass(key, Command)
        ]
    for kind in listed:
        name = f"{system.name}.{kind.__name__}"
        if table.setdefault(name, kind) is not kind:  # pragma: no cover - a system's own mistake
            raise ValueError(f"the {system.name} system has two commands named {kind.__name__}")
    found = MappingProxyType(table)
    _commands[system.name] = found
    return found


def command_name(system: System, kind: type) -> str | None:
    """The stable name of a command class in ``system`` (see :func:`commands`), or None
    when the system takes no such command."""
    for name, known in commands(system).items():
        if known is kind:
            return name
    return None
