"""The systems on the command line: the command group each system registers, and what the
command line says of a system (its line in ``ledger --help`` and the walk through its play
there, how its characters are made, what a player does first and next, its part of
``ledger demo`` when that shows command lines).

A system publishes its commands under the entry-point group ``campaign_ledger.commands``
(:data:`ledger.systems.COMMANDS_GROUP`), by its name: a function given a click group to
register on, as datasette's ``register_commands(cli)`` is. It registers one group, a
:class:`SystemGroup`, named as the system's :class:`ledger.systems.SystemHelp` says. The
command line calls it the first time it needs that group (to run one of its commands, to
create a character, to say what comes next), never to list the commands: ``ledger --help``
reads the published help alone.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from importlib import metadata
from typing import Any

import click

from ledger import i18n
from ledger.cli.translated import Group
from ledger.errors import LedgerError, PluginError
from ledger.i18n import N_
from ledger.systems import (
    GROUP,
    System,
    SystemHelp,
    Walkthrough,
    commands_point,
    get_system,
    system_help,
    system_names,
)

CREATE_HINT = N_("character create NAME ... (`ledger character create --help` lists the options)")
"""What a new campaign's player does first in a system that says nothing else."""


class SystemGroup(Group):
    """A system's command group, with what the command line says of the system beside its
    commands, each optional:

    ``create``: the command ``ledger character create`` runs in the system's campaigns (one
    of the group's own, or any command; None: the core's ``character add``);
    ``first_steps``: what a new campaign's player does first, as command lines ``ledger new``
    prints (None: create a character; empty: nothing to say);
    ``hints``: what the player may do next in a state, as command lines (``next:`` after
    ``ledger new`` and in ``ledger status``; None: a character first, then ``SYSTEM --help``);
    ``demo``: the system's section of ``ledger demo``, ``(ledger, echo)``, when it shows
    command lines (else the System's ``play.demo``);
    ``walkthrough``: the walk through a game of the system at the end of ``ledger --help``,
    the commands as a player types them (what its published :class:`SystemHelp` holds)."""

    def __init__(
        self,
        name: str | None = None,
        commands: Any = None,
        *,
        create: click.Command | None = None,
        first_steps: tuple[str, ...] | None = None,
        hints: Callable[[Any], list[str]] | None = None,
        demo: Callable[..., None] | None = None,
        walkthrough: Walkthrough | None = None,
        **attrs: Any,
    ) -> None:
        super().__init__(name, commands, **attrs)
        self.create = create
        self.first_steps = first_steps
        self.hints = hints
        self.demo = demo
        self.walkthrough = walkthrough


_groups: dict[str, click.Command | None] = {}


def system_group(name: str) -> click.Command | None:
    """The command group the installed system ``name`` registers (None: it publishes none),
    loaded and registered on first use, once per process."""
    if name in _groups:
        return _groups[name]
    point = commands_point(name)
    found: click.Command | None = None
    if point is not None:
        try:
            register = point.load()
        except (ImportError, AttributeError) as e:
            raise PluginError(name, point.value, f"its commands do not import ({e})") from e
        collected = click.Group(name)
        register(collected)
        if len(collected.commands) != 1:
            raise PluginError(
                name, point.value, f"it registers {len(collected.commands)} commands, not one group"
            )
        (found,) = collected.commands.values()
    _groups[name] = found
    return found


def help_of(name: str) -> SystemHelp:
    """What ``ledger --help`` shows of the installed system ``name``: the help it publishes
    (read without importing the system), else what the system and its group say."""
    shown = system_help(name)
    if isinstance(shown, SystemHelp):
        return shown
    group = system_group(name)
    return SystemHelp(
        name=name,
        command=None if group is None else group.name,
        summary="" if group is None else group.short_help or "",
        walkthrough=group.walkthrough if isinstance(group, SystemGroup) else None,
    )


def groups(only: str | None = None) -> dict[str, tuple[str, str]]:
    """Each installed system's group by its name on the command line: (system, short help).
    With ``only``, the system of that name alone when it is one (its group usually goes by
    its name). Listing the groups imports no system that publishes its help."""
    names = system_names()
    if only is not None and only in names:
        names = [only]
    found: dict[str, tuple[str, str]] = {}
    for name in names:
        try:
            shown = help_of(name)
        except LedgerError:
            continue  # a broken plugin: `ledger systems` names it and why
        if shown.command is not None:
            found[shown.command] = (name, shown.summary)
    return found


def command_name(system: str) -> str | None:
    """The name of the system's group on the command line (None: it has none)."""
    return help_of(system).command


def _own(system: str) -> SystemGroup | None:
    group = system_group(system)
    return group if isinstance(group, SystemGroup) else None


def creator(system: str, core: click.Command) -> click.Command:
    """The command that creates a character in a campaign of ``system``: its group's
    ``create``, else ``core`` (the core's ``character add``)."""
    own = _own(system)
    return core if own is None or own.create is None else own.create


def first_steps(system: str) -> list[str]:
    """What to do first in a new campaign of ``system``, as commands to type (none: anything).
    A system without a command group of its own is played with the core's commands: it
    names no first step."""
    own = _own(system)
    if own is None:
        return [] if system_group(system) is None else [i18n.translate(CREATE_HINT)]
    return [i18n.translate(CREATE_HINT)] if own.first_steps is None else list(own.first_steps)


def hints(system: System, state: Any) -> list[str]:
    """What comes next: the system's hints (its group's, its order of play); in a system
    without them, a character first, then the system's commands."""
    own = _own(system.name)
    if own is not None and own.hints is not None:
        return own.hints(state)
    if not state.core.characters:
        return ["character add NAME"]
    group = command_name(system.name)
    return [f"{group} --help"] if group else ["roll NOTATION", "note TEXT"]


def _core_demo(name: str) -> Callable[..., None] | None:
    """The part of ``ledger demo`` the command line keeps for a built-in system played with
    the core's commands alone (it has no group to hold it): the ``demo`` of its command-line
    module, ``ledger.cli.<name>``, when it has one."""
    own = metadata.distribution("campaign-ledger").entry_points.select(group=GROUP, name=name)
    if not own or system_group(name) is not None or importlib.util.find_spec(f"ledger.cli.{name}") is None:
        return None
    shown: Callable[..., None] | None = getattr(importlib.import_module(f"ledger.cli.{name}"), "demo", None)
    return shown


def demo_of(system: System) -> Callable[..., None] | None:
    """The system's section of ``ledger demo``: its group's, else the one the command line
    keeps for a built-in system played with the core's commands (:func:`_core_demo`), else
    its ``play.demo``."""
    own = _own(system.name)
    if own is not None and own.demo is not None:
        return own.demo
    return _core_demo(system.name) or system.play.demo


def shown_in_demo() -> list[System]:
    """The installed systems that show themselves in ``ledger demo``: those with no events
    of their own first (they show what every campaign can do: rolls, undo, redo, forks),
    then the others in the order they are installed."""
    found = [get_system(name) for name in system_names()]
    return sorted((s for s in found if demo_of(s) is not None), key=lambda s: bool(s.rules.events))
