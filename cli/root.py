"""The root ``ledger`` group: its options, the context it hands every command, the commands
it loads only when used (its own lazy ones and each system's group), and the one door every
error leaves by."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from ledger import i18n
from ledger.cli import fixes
from ledger.cli import systems as on_cli
from ledger.cli.options import (
    AS_HELP,
    Ctx,
    echo_json,
    typed_actor,
    typed_campaign,
)
from ledger.cli.translated import Group, in_words, short_help
from ledger.errors import LedgerError, OutputWriteError
from ledger.i18n import N_
from ledger.systems import system_names
from ledger.trust.outfile import STORAGE_ERRNOS

# Commands that live in their own modules, loaded only when used:
# name -> (module, attribute, short help shown by `ledger --help`, marked N_ and put into
# words when shown). Each system's own group
# is the one it registers (ledger.cli.systems), listed by the help it publishes.
LAZY: dict[str, tuple[str, str, str]] = {
    "stats": ("ledger.cli.stats", "stats", N_("Statistics across campaigns: luck, survival, dice fairness.")),
    "query": ("ledger.cli.stats", "query", N_("Read-only SQL over the statistics warehouse.")),
    "warehouse": ("ledger.cli.stats", "warehouse", N_("Build, rebuild or inspect the statistics warehouse.")),
    "simulate": (
        "ledger.cli.stats",
        "simulate",
        N_("Generate whole campaigns fast, for statistics at scale."),
    ),
    "tables": (
        "ledger.cli.tables",
        "tables",
        N_("Browse the system's tables: dice, rows, shops, enemies, skills."),
    ),
    "roll-table": (
        "ledger.cli.tables",
        "roll_table",
        N_("Roll on one of the system's tables, recorded like any roll."),
    ),
    "report": (
        "ledger.cli.report",
        "report",
        N_("Write a campaign report: map, timeline and charts in one HTML file."),
    ),
    "serve": ("ledger.cli.serve", "serve", N_("Serve the live table: every seat's page and the API.")),
    "table": ("ledger.cli.table", "table", N_("Seats at the live table: invite, list, revoke.")),
}


CORE: dict[str, str] = {
    **dict.fromkeys(("new", "campaigns", "use", "status"), "ledger.cli.campaigns"),
    **dict.fromkeys(("character", "roll", "note", "reveal"), "ledger.cli.play"),
    **dict.fromkeys(("undo", "redo", "fork", "log", "sheet", "journal", "replay"), "ledger.cli.history"),
    **dict.fromkeys(("verify", "dice", "export", "import", "key"), "ledger.cli.trust"),
    "demo": "ledger.cli.demo",
}
"""The core commands, by the module that adds them to the root group when it is imported
(ledger.cli.main names the modules): a command loads its own module alone, and ``ledger
--help``, which shows them all, loads them all (tests/test_cli_startup.py)."""


class LedgerGroup(Group):
    """Loads the core commands' modules, the lazy commands and the system command groups on
    demand; turns refusals into one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(CORE) | set(LAZY) | set(on_cli.groups()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        if cmd_name in CORE:
            importlib.import_module(CORE[cmd_name])  # its commands add themselves to this group
            return super().get_command(ctx, cmd_name)
        if cmd_name in LAZY:
            module_name, attr, _ = LAZY[cmd_name]
            found: click.Command = getattr(importlib.import_module(module_name), attr)
            return found
        groups = on_cli.groups(cmd_name)
        if cmd_name not in groups:
            groups = on_cli.groups()
        if cmd_name not in groups:
            for module in sorted(set(CORE.values())):  # the core commands, for "Did you mean"
                importlib.import_module(module)
            return None
        return on_cli.system_group(groups[cmd_name][0])

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List commands without importing the lazy ones."""
        rows = []
        groups = on_cli.groups()
        for name in self.list_commands(ctx):
            if name in LAZY and name not in self.commands:
                rows.append((name, i18n.translate(LAZY[name][2])))
                continue
            if name in groups and name not in self.commands:
                rows.append((name, in_words(groups[name][1]) or ""))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, short_help(command, formatter.width - 6 - len(name))))
        if rows:
            with formatter.section(i18n._("Commands")):
                formatter.write_dl(rows)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The systems' walkthroughs, read when the help is shown (:func:`epilog`)."""
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(epilog())

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        finally:
            obj = ctx.find_object(Ctx)
            if obj is not None:
                obj.close()

    def main(  # type: ignore[override]
        self,
        args: list[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command; every refusal, usage error and interrupt becomes one line
        on stderr (or, with ``--json``, one JSON object on stdout) and its exit code."""
        argv = list(sys.argv[1:] if args is None else args)
        prog_name = prog_name or "ledger"
        sys.unraisablehook = _untold_closed_pool(sys.unraisablehook)
        self._main_shell_completion(extra, prog_name, complete_var)
        code, as_json = 0, json_wanted(argv)  # before parsing, which consumes argv
        lang = language_wanted(argv)
        with i18n.using(spoken(lang)):  # the language of this run, as it was after it
            try:
                if lang is not None and i18n.normalize(lang) is None:  # one line, before any usage
                    raise LanguageRefused(language_refusal(lang))
                with self.make_context(prog_name, list(argv), **extra) as ctx:
                    self.invoke(ctx)
                sys.stdout.flush()  # a full standard output fails here, not at exit
            except click.exceptions.Exit as e:
                code = e.exit_code
            except BaseException as e:  # every error leaves by one door
                code = fail(e, as_json)
        if standalone_mode:
            sys.exit(code)
        return code


def _untold_closed_pool(hook: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``hook`` but for a connection handed back to a store the ledger has closed: a Ctrl-C
    that lands inside the store's connection context leaves it suspended until after the
    ledger closes, and its transaction, never committed, recorded nothing. Named, not
    imported: ``ledger --help`` imports no store (tests/test_cli_startup.py)."""

    def told(unraisable: Any) -> None:
        kind = type(unraisable.exc_value)
        if kind.__name__ == "ConnectionPoolClosedError" and kind.__module__.startswith("eventsourcing"):
            return
        hook(unraisable)

    return told


EXIT_CODES = {
    0: "done",
    1: "refused: bad input, or the rules say no; nothing was recorded",
    2: "usage: an unknown command or option, a missing or malformed argument",
    3: "storage: the ledger, or a file or stream it writes, is missing, unreadable, read-only or full",
    4: "integrity: a chain hash or a signature does not hold (an edited log or export)",
    130: "interrupted (Ctrl-C)",
}
"""The exit codes of ``ledger``, as the README's table lists them."""


def spoken(lang: str | None) -> str | None:
    """The language a run speaks: ``--lang`` when it names one the ledger speaks; else the
    one the caller set for the moment (:func:`ledger.i18n.using`, a test's); else the one
    the environment names now (``LEDGER_LANG``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), read
    for each run, not once per process."""
    if lang is not None and i18n.normalize(lang) is not None:
        return lang
    if i18n._current.get() is not None:
        return None
    return i18n.from_environment()


def language_wanted(argv: list[str]) -> str | None:
    """The ``--lang`` given before ``--`` (read before parsing, so that the help and a
    usage error are already in it), or None."""
    for i, arg in enumerate(argv):
        if arg == "--":
            return None
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return None


def language_refusal(value: str) -> str:
    """Why ``--lang value`` is refused, in one line."""
    return i18n._(
        "{value!r} is not a language the ledger speaks; give one of {languages}",
        value=value,
        languages=", ".join(i18n.LANGUAGES),
    )


class LanguageRefused(click.BadParameter):
    """``--lang`` names a language the ledger does not speak: said in one line, as a refusal
    is, not under the usage."""

    def __init__(self, message: str) -> None:
        super().__init__(message, param_hint="--lang")


def _check_language(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and i18n.normalize(value) is None:
        raise LanguageRefused(language_refusal(value))
    return value


def json_wanted(argv: list[str]) -> bool:
    """Whether ``--json`` was given anywhere before ``--`` (also when parsing failed)."""
    for arg in argv:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


def fail(error: BaseException, as_json: bool) -> int:
    """The one place an error is turned into output: one ``error:`` line on stderr or,
    with ``--json``, ``{"error": {"type", "message", "exit_code", ...fields}}`` on stdout.
    Returns the exit code."""

    fields: dict[str, Any] = {}
    if isinstance(error, LedgerError):
        kind, message, code = type(error).__name__, fixes.message(error), error.exit_code
        fields = {
            k: v for k, v in vars(error).items() if k not in ("message", "fix") and not k.startswith("_")
        }
        if error.fix is not None:
            fields["fix"] = fixes.as_json(error.fix)
    elif isinstance(error, click.ClickException):
        kind, message, code = type(error).__name__, error.format_message(), error.exit_code
        if isinstance(error, click.UsageError) and error.ctx is not None:
            fields["command"] = error.ctx.command_path
        param = getattr(error, "param_hint", None) or getattr(getattr(error, "param", None), "name", None)
        if isinstance(param, str):
            fields["param"] = param
        if isinstance(error, LanguageRefused):
            message = error.message
        elif not as_json:
            error.show()
            return code
    elif isinstance(error, (KeyboardInterrupt, click.Abort)):
        kind, message, code = (
            "Interrupted",
            i18n._("interrupted; what was recorded before Ctrl-C stays recorded"),
            130,
        )
    elif isinstance(error, BrokenPipeError):
        _drop_stdout()
        return 1  # the reader went away (`ledger log | head`): nothing to tell it
    elif isinstance(error, OSError) and error.errno in STORAGE_ERRNOS:
        # Files the ledger writes report their own faults (OutputWriteError): this is the
        # standard output, so the error goes to stderr whatever --json says.
        _drop_stdout()
        reason = error.strerror or str(error)
        click.echo(
            i18n._(
                "error: cannot write the standard output: {reason}; send it to another file", reason=reason
            ),
            err=True,
        )
        return OutputWriteError.exit_code
    else:
        raise error
    if as_json:
        body = {"type": kind, "message": message, "exit_code": code, **fields}
        echo_json({"error": body})
    else:
        click.echo(i18n._("error: {message}", message=message), err=True)
    return code


def _drop_stdout() -> None:
    """Point the standard output at /dev/null, so that nothing left in its buffer fails again
    when Python flushes it at exit (which would print a traceback and exit 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file behind it (a test's capture)
        pass


@click.group(
    cls=LedgerGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=N_(
        "Keep a tabletop campaign as an append-only, tamper-evident event log.\n"
        "\n"
        "Every roll, meal, wound and day is an event. Undo, fork and time-travel\n"
        "any campaign; verify that no roll was edited."
    ),
)
@click.option(
    "--db",
    envvar="LEDGER_DB",
    default=None,
    metavar="PATH|URL",
    help=N_("Ledger file, or postgresql://user@host:port/db (default: ./campaigns.ledger; env LEDGER_DB)."),
)
@click.option("--json", "as_json", is_flag=True, help=N_("Machine-readable JSON output."))
@click.option(
    "-c",
    "--campaign",
    default=None,
    help=N_("Act on this campaign (default: the current one; see `ledger use`)."),
)
@click.option("--as", "actor", default=None, metavar="CHARACTER", help=AS_HELP)
@click.option(
    "--lang",
    "lang",
    default=None,
    metavar="en|es",
    callback=_check_language,
    expose_value=False,
    is_eager=True,
    help=N_(
        "Language of everything shown (default: env LEDGER_LANG, else LC_ALL, LC_MESSAGES, LANG; else English)."
    ),
)
@click.version_option(package_name="campaign-ledger", prog_name="ledger")
@click.pass_context
def cli(ctx: click.Context, db: str | None, as_json: bool, campaign: str | None, actor: str | None) -> None:
    ctx.obj = Ctx(
        db=db,
        json=as_json,
        campaign=typed_campaign(campaign),
        actor=typed_actor(actor),
        create=ctx.invoked_subcommand in CREATES,
        read_only=ctx.invoked_subcommand in READS,
    )


CREATES = frozenset({"new", "import", "simulate", "key"})
"""Commands that may make a missing ledger file (a key can be made or trusted before any
campaign); every other one refuses it, naming the path."""
READS = frozenset({"campaigns", "status", "log", "sheet", "journal", "replay", "verify"})
"""Commands that only read: the ledger is opened read-only (``mode=ro``), so they work on
read-only media and never create or change a file. (`export` may make the signing key.)"""


OTHER_SYSTEMS = N_(
    "\b\n"
    "{which}: ledger new SYSTEM NAME, then ledger character create NAME\n"
    "(its --help lists the system's options) and `ledger SYSTEM --help`."
)


def epilog() -> str:
    """The end of ``ledger --help``: each installed system's walk through its play
    (its group's ``walkthrough``, as its help publishes it), then how to start a game of any system."""
    parts = []
    for name in system_names():
        try:
            walk = on_cli.help_of(name).walkthrough
        except LedgerError:
            continue  # a broken plugin: `ledger new` names it and why
        if walk is None or not walk.steps:
            continue
        width = max(len(command) for command, _ in walk.steps) + 2
        title = i18n._("{title}:", title=in_words(walk.title))
        lines = [title, *(f"  {command:<{width}}{in_words(what)}" for command, what in walk.steps)]
        parts.append("\b\n" + "\n".join(lines))
    which = i18n._("Other systems") if parts else i18n._("Every system")
    parts.append(i18n._(OTHER_SYSTEMS, which=which))
    return "\n\n".join(parts)
