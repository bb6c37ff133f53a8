"""The command line as the live table reads it: a port, filled by the front end that starts
the table (``ledger serve`` installs the command line's, :func:`install`), so the live table
imports nothing of the command line (the import contract in pyproject.toml).

The page names each command as the command line does (``yz tick``) and takes each form's
help and each field's from the command line's own; its hints are the command line's. A
program that serves the table without the command line installs nothing: its forms go by
the systems' stable names, with the help the systems declare and no hints.
"""

from __future__ import annotations

from typing import Any, Protocol

import click

from ledger.systems import System


class CommandLine(Protocol):
    """What the live table asks of a command line."""

    @property
    def root(self) -> click.Group:
        """The root command group (``ledger``)."""
        ...

    def command_name(self, system: str) -> str:
        """The name of ``system``'s command group (``yz`` for yearzero)."""
        ...

    def system_group(self, system: str) -> click.Command | None:
        """``system``'s command group, when it has one."""
        ...

    def hints(self, system: System, state: Any) -> list[str]:
        """What comes next in a campaign of ``system`` at ``state``, as command lines."""
        ...


_installed: list[CommandLine] = []


def install(command_line: CommandLine | None) -> None:
    """Make ``command_line`` the one the live table reads (None: none)."""
    _installed[:] = [] if command_line is None else [command_line]


def installed() -> CommandLine | None:
    """The command line installed, if any."""
    return _installed[0] if _installed else None


def command_name(system: str) -> str:
    found = installed()
    return found.command_name(system) if found is not None else system


def system_group(system: str) -> click.Command | None:
    found = installed()
    return found.system_group(system) if found is not None else None


def root() -> click.Group | None:
    found = installed()
    return found.root if found is not None else None


def hints(system: System, state: Any) -> list[str]:
    found = installed()
    return found.hints(system, state) if found is not None else []
