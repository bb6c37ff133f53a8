"""``ledger character create NAME ...``: one verb to make a character in every system.

Each system names its creation command in its command group's ``create`` (the one place
its creation options are declared: :class:`ledger.cli.systems.SystemGroup`);
``character create`` finds the campaign's system and runs that very command, so a
system's own creation wizard (say ``ledger SYSTEM character``) is an alias of it, not
another way of doing it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ledger.cli import systems as on_cli
from ledger.cli.options import Ctx, typed_campaign
from ledger.cli.translated import Command
from ledger.errors import LedgerError
from ledger.i18n import N_, _
from ledger.systems import system_names

HELP_WORDS = ("-h", "--help")


def _campaign_in(args: list[str]) -> str | None:
    """The ``-c NAME`` / ``--campaign NAME`` given after ``character create``, if any."""
    for i, arg in enumerate(args):
        if arg in ("-c", "--campaign") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--campaign="):
            return arg.partition("=")[2]
        if arg.startswith("-c") and len(arg) > 2 and not arg.startswith("--"):
            return arg[2:]
    return None


def _system_of(c: Ctx, campaign: str | None, *, reading_help: bool) -> str | None:
    """The system of the campaign meant; None when there is none to find (help only)."""
    # lazy: `ledger --help` imports no ledger.log.store (tests/test_cli_startup.py)
    from ledger.log.store import is_postgres, resolve_target

    target = resolve_target(c.db)
    if reading_help and not is_postgres(target) and not Path(target).exists():
        return None  # asking for help never creates a ledger
    try:
        return c.ledger.campaign(campaign).system
    except LedgerError:
        if reading_help:
            return None
        raise


class CharacterCreate(Command):
    """Parses nothing itself: hands NAME and the options to the system's own command."""

    def __init__(self, core: click.Command) -> None:
        self.core = core
        """The core's creation command, for a system without one of its own."""
        super().__init__(
            "create",
            callback=None,
            params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
            context_settings={"ignore_unknown_options": True, "help_option_names": []},
            help=N_("Create a character NAME with the options of the campaign's system."),
            short_help=N_("Create a character NAME, with the options of the campaign's system."),
        )

    def invoke(self, ctx: click.Context) -> Any:
        args: list[str] = list(ctx.params["args"])
        c = ctx.find_object(Ctx)
        assert c is not None
        typed = _campaign_in(args)
        campaign = typed_campaign(typed) if typed is not None else c.campaign
        reading_help = any(a in HELP_WORDS for a in args)
        system = _system_of(c, campaign, reading_help=reading_help)
        if system is None:
            click.echo(self.general_help(ctx))
            return None
        command = self.creator(system)
        if reading_help:
            click.echo(
                _(
                    "The {system} system's options (the campaign's system; -c CAMPAIGN for another):",
                    system=system,
                )
                + "\n"
            )
        assert ctx.parent is not None
        with command.make_context("create", args, parent=ctx.parent) as sub:
            return command.invoke(sub)

    def creator(self, system: str) -> click.Command:
        """The creation command of ``system`` (its group's ``create``; the core's without one)."""
        return on_cli.creator(system, self.core)

    def general_help(self, ctx: click.Context) -> str:
        """Help when no campaign is known: how to see the options, and each system's."""
        lines = [
            f"{_('Usage:')} {ctx.command_path} NAME [OPTIONS]",
            "",
            _("  Create a character NAME with the options of the campaign's system."),
            _("  Pass -c CAMPAIGN (or start one with `ledger new SYSTEM NAME`) to see"),
            _("  that system's options in full:"),
            "",
            "    ledger character create -c CAMPAIGN --help",
            "",
        ]
        for system in system_names():
            command = self.creator(system)
            names = [
                p.opts[-1] if p.opts[-1].startswith("--") else p.opts[0]
                for p in command.params
                if isinstance(p, click.Option) and p.name not in ("as_json", "campaign", "as_actor", "help")
            ]
            args = [p.human_readable_name for p in command.params if isinstance(p, click.Argument)]
            lines.append(f"  {system:<9} {' '.join([*args, *names])}")
        return "\n".join(lines)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write(self.general_help(ctx) + "\n")
