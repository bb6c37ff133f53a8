"""The ``ledger`` command: a thin layer over the :mod:`ledger` library."""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from ledger import docs, words
from ledger.cli import fixes
from ledger.cli.options import (
    AS_HELP,
    CommandHelpLater,
    Ctx,
    common,
    echo_json,
    emit,
    faces_option,
    installed_systems,
    key_values,
    load,
    pass_ctx,
    recorded_json,
    render_mapping,
    state_for,
    time_travel,
    typed_actor,
    typed_campaign,
)
from ledger.cli.options import faces as parse_faces
from ledger.errors import LedgerError, OutputWriteError
from ledger.outfile import STORAGE_ERRNOS
from ledger.state import told_as, told_on
from ledger.systems import System, SystemHelp, system_help, system_names

# Commands that live in their own modules, loaded only when used:
# name -> (module, attribute, short help shown by `ledger --help`). Each system's own group
# comes from its System (``cli``, ``cli_name``, ``cli_help``).
LAZY: dict[str, tuple[str, str, str]] = {
    "stats": ("ledger.cli.stats", "stats", "Statistics across campaigns: luck, survival, dice fairness."),
    "query": ("ledger.cli.stats", "query", "Read-only SQL over the statistics warehouse."),
    "warehouse": ("ledger.cli.stats", "warehouse", "Build, rebuild or inspect the statistics warehouse."),
    "simulate": ("ledger.cli.stats", "simulate", "Generate whole campaigns fast, for statistics at scale."),
    "tables": (
        "ledger.cli.tables",
        "tables",
        "Browse the system's tables: dice, rows, shops, enemies, skills.",
    ),
    "roll-table": (
        "ledger.cli.tables",
        "roll_table",
        "Roll on one of the system's tables, recorded like any roll.",
    ),
    "report": (
        "ledger.cli.report",
        "report",
        "Write a campaign report: map, timeline and charts in one HTML file.",
    ),
    "serve": ("ledger.cli.serve", "serve", "Serve the live table: every seat's page and the API."),
    "table": ("ledger.cli.table", "table", "Seats at the live table: invite, list, revoke."),
}


def _group_of(system: System | SystemHelp) -> tuple[str, str, str] | None:
    """(name on the command line, import string, short help) of a system's command group."""
    if system.cli is None:
        return None
    return (system.cli_name or system.name, system.cli, system.cli_help or system.description)


def _system_groups(only: str | None = None) -> dict[str, tuple[str, str]]:
    """Each installed system's group: name -> (import string, short help). With ``only``, the
    system of that name alone when it is one (its group usually goes by its name). Each
    system's published help says (:func:`ledger.systems.system_help`): listing the groups
    imports no system that publishes one."""
    names = system_names()
    if only is not None and only in names:
        names = [only]
    found: dict[str, tuple[str, str]] = {}
    for name in names:
        try:
            group = _group_of(system_help(name))
        except LedgerError:
            continue  # a broken plugin: `ledger systems` names it and why
        if group is not None:
            found[group[0]] = group[1:]
    return found


class LedgerGroup(click.Group):
    """Loads system command groups on demand; turns refusals into one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(LAZY) | set(_system_groups()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        if cmd_name in LAZY:
            module_name, attr, _ = LAZY[cmd_name]
            found: click.Command = getattr(importlib.import_module(module_name), attr)
            return found
        groups = _system_groups(cmd_name)
        if cmd_name not in groups:
            groups = _system_groups()
        if cmd_name not in groups:
            return None
        group: click.Command = load(groups[cmd_name][0])
        return group

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List commands without importing the lazy ones."""
        rows = []
        groups = _system_groups()
        for name in self.list_commands(ctx):
            if name in LAZY and name not in self.commands:
                rows.append((name, LAZY[name][2]))
                continue
            if name in groups and name not in self.commands:
                rows.append((name, groups[name][1]))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(formatter.width - 6 - len(name))))
        if rows:
            with formatter.section("Commands"):
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
        self._main_shell_completion(extra, prog_name, complete_var)
        code, as_json = 0, json_wanted(argv)  # before parsing, which consumes argv
        try:
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


EXIT_CODES = {
    0: "done",
    1: "refused: bad input, or the rules say no; nothing was recorded",
    2: "usage: an unknown command or option, a missing or malformed argument",
    3: "storage: the ledger, or a file or stream it writes, is missing, unreadable, read-only or full",
    4: "integrity: a chain hash or a signature does not hold (an edited log or export)",
    130: "interrupted (Ctrl-C)",
}
"""The exit codes of ``ledger``, as the README's table lists them."""


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
    from ledger.cli import fixes

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
        if not as_json:
            error.show()
            return code
    elif isinstance(error, (KeyboardInterrupt, click.Abort)):
        kind, message, code = (
            "Interrupted",
            "interrupted; what was recorded before Ctrl-C stays recorded",
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
        click.echo(f"error: cannot write the standard output: {reason}; send it to another file", err=True)
        return OutputWriteError.exit_code
    else:
        raise error
    if as_json:
        body = {"type": kind, "message": message, "exit_code": code, **fields}
        echo_json({"error": body})
    else:
        click.echo(f"error: {message}", err=True)
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


@click.group(cls=LedgerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="LEDGER_DB",
    default=None,
    metavar="PATH|URL",
    help="Ledger file, or postgresql://user@host:port/db (default: ./campaigns.ledger; env LEDGER_DB).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
@click.option(
    "-c",
    "--campaign",
    default=None,
    help="Act on this campaign (default: the current one; see `ledger use`).",
)
@click.option("--as", "actor", default=None, metavar="CHARACTER", help=AS_HELP)
@click.version_option(package_name="campaign-ledger", prog_name="ledger")
@click.pass_context
def cli(ctx: click.Context, db: str | None, as_json: bool, campaign: str | None, actor: str | None) -> None:
    """Keep a tabletop campaign as an append-only, tamper-evident event log.

    Every roll, meal, wound and day is an event. Undo, fork and time-travel
    any campaign; verify that no roll was edited.
    """
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


OTHER_SYSTEMS = """\b
{which}: ledger new SYSTEM NAME, then ledger character create NAME
(its --help lists the system's options) and `ledger SYSTEM --help`."""


def epilog() -> str:
    """The end of ``ledger --help``: each installed system's walk through its play
    (``System.walkthrough``), then how to start a game of any system."""
    parts = []
    for name in system_names():
        try:
            walk = system_help(name).walkthrough
        except LedgerError:
            continue  # a broken plugin: `ledger new` names it and why
        if walk is None or not walk.steps:
            continue
        width = max(len(command) for command, _ in walk.steps) + 2
        lines = [f"{walk.title}:", *(f"  {command:<{width}}{what}" for command, what in walk.steps)]
        parts.append("\b\n" + "\n".join(lines))
    parts.append(OTHER_SYSTEMS.format(which="Other systems" if parts else "Every system"))
    return "\n\n".join(parts)


# --- campaigns and characters ------------------------------------------------


def _new_help() -> str:
    return (
        f"Start a campaign NAME of SYSTEM ({installed_systems()}).\n\n"
        "It becomes the current campaign (see `ledger use`). Its first dice commitment opens\n"
        "with it (see `ledger dice`), unless --seed or --no-commit."
    )


@cli.command("new", cls=CommandHelpLater, help=_new_help)
@click.argument("system")
@click.argument("name")
@click.option(
    "--seed", type=int, default=None, help="Make the campaign's dice reproducible (never provable)."
)
@click.option(
    "--no-commit", is_flag=True, help="Open no dice commitment (virtual dice from the OS, unproven)."
)
@click.option(
    "--client-seed", default="", metavar="TEXT", help="The players' part of the first dice commitment."
)
@click.option(
    "--tables",
    type=click.Path(dir_okay=False),
    default=None,
    help="Your own tables file (TOML) instead of the sample tables.",
)
@click.option(
    "--setting",
    "settings",
    multiple=True,
    metavar="KEY=VALUE",
    help=f"A table ruling where players disagree (repeatable; see {docs.path('rulings.md')}).",
)
@click.option(
    "--explorer",
    "--character",
    "character",
    default=None,
    metavar="NAME",
    help="Its first character, who acts (a solo game's one character), where the system's "
    "`character create` takes only a NAME.",
)
@common
@pass_ctx
def new(
    c: Ctx,
    system: str,
    name: str,
    seed: int | None,
    no_commit: bool,
    client_seed: str,
    tables: str | None,
    settings: tuple[str, ...],
    character: str | None,
) -> None:
    from ledger.commands import check_name
    from ledger.systems import get_system

    # Refused before the ledger is opened: a mistyped system or name makes no ledger file.
    get_system(system)
    check_name(name, "campaign")
    if character is not None:
        character = _first_character(system, character)
    campaign = c.ledger.new_campaign(
        system,
        name,
        seed=seed,
        tables=tables,
        settings=key_values(settings, "--setting"),
        commit=not no_commit,
        client_seed=client_seed,
    )
    c.ledger.use(campaign.name)
    from ledger.cli.create import first_steps

    if character is not None:
        c.ledger.add_character(character, campaign.name)
    chosen = c.ledger.system(campaign)
    if character is None or chosen.solo:
        nxt = first_steps(campaign.system)
    else:
        nxt = _next(chosen, c.ledger.state(campaign))
    data = {"name": campaign.name, "system": campaign.system, "id": campaign.id, "current": True, "next": nxt}
    if character is not None:
        data["character"] = character
    emit(
        c,
        data,
        f"campaign {campaign.name!r} started ({campaign.system})"
        + (f"\n{character} acts" if character is not None else "")
        + (f"\nnext: {' | '.join(nxt)}" if nxt else ""),
    )


def _first_character(system: str, name: str) -> str:
    """The name of a campaign's first character, checked before the campaign starts: refused
    where the system's creation takes more than a name (its `character create` does)."""
    from ledger.commands import check_name
    from ledger.systems import get_system

    found = get_system(system)
    if found.create is not None and not found.solo:
        raise click.UsageError(
            f"the {system} system creates a character with its own options: start the campaign "
            f"without --explorer, then run `ledger character create {name} ...` "
            "(`ledger character create --help` lists them)"
        )
    return check_name(name, "character")


@cli.command("campaigns")
@common
@pass_ctx
def campaigns(c: Ctx) -> None:
    """List the campaigns and forks; `*` marks the current one."""
    book = c.ledger
    rows = []
    every = book.campaigns()
    current = _current_id(c)
    for camp in every:
        head = book.head(camp)
        rows.append(
            {
                "name": camp.name,
                "system": camp.system,
                "head": head,
                "version": book.effective_version(camp, head),
                "parent": book.campaign_by_id(camp.parent_id).name if camp.parent_id else None,
                "forked_at": camp.parent_version,
                "imported": camp.imported,
                "current": camp.id == current,
            }
        )

    def text() -> str:
        if not rows:
            return "no campaigns yet; create one with `ledger new SYSTEM NAME`"
        out = []
        for r in rows:
            fork = f"  (fork of {r['parent']} at v{r['forked_at']})" if r["parent"] else ""
            mark = "*" if r["current"] else " "
            out.append(f"{mark} {r['name']:<24} {r['system']:<9} {versions(r['head'], r['version'])}{fork}")
        if current is None and len(rows) > 1:
            out.append("no current campaign: choose one with `ledger use NAME`")
        return "\n".join(out)

    emit(c, rows, text)


def versions(head: int, effective: int) -> str:
    """A campaign's version: its head, and after an undo the version its state stands at."""
    return f"v{head}" if head == effective else f"head v{head}, effective v{effective}"


def _current_id(c: Ctx) -> str | None:
    """The current campaign's id, or None when there is none to act on."""
    from ledger.errors import NoCurrentCampaignError

    try:
        return c.ledger.current().id
    except NoCurrentCampaignError:
        return None


@cli.command("use")
@click.argument("name", required=False)
@common
@pass_ctx
def use(c: Ctx, name: str | None) -> None:
    """Make NAME the current campaign: commands without -c act on it from now on.

    With --as CHARACTER, make CHARACTER the one who acts in the campaign (NAME, or the
    current one) from now on: commands without --as act as them. `ledger status` shows both."""
    if name is None and c.actor is None:
        raise click.UsageError("give a campaign NAME, --as CHARACTER, or both")
    book = c.ledger
    camp = book.campaign(typed_campaign(name) or name if name is not None else c.campaign)
    acting = book.act_as(c.actor, camp.name) if c.actor is not None else None  # refused: nothing moves
    if name is not None:
        book.use(camp.name)
    lines = [f"now playing {camp.name!r} ({camp.system})"] if name is not None else []
    if acting is not None:
        lines.append(f"{acting} acts in {camp.name!r}")
    data: dict[str, Any] = {"name": camp.name, "system": camp.system, "current": camp.id == _current_id(c)}
    if acting is not None:
        data["acting"] = acting
    emit(c, data, "\n".join(lines))


@cli.command("status")
@common
@pass_ctx
def status(c: Ctx) -> None:
    """Where you are: the current campaign, its system, character, day, and what comes next."""
    book = c.ledger
    camp = book.campaign(c.campaign)
    state = book.state(camp)
    acting = book.acting(camp.name, state)
    actor = c.actor or acting
    head = book.head(camp)
    data = {
        "campaign": camp.name,
        "system": camp.system,
        "current": camp.id == _current_id(c),
        "character": actor,
        "acting": acting,
        "characters": list(state.core.characters),
        "day": state.core.day,
        "version": state.core.version,
        "head": head,
        "next": _next(book.system(camp), state),
    }

    def text() -> str:
        how = "" if data["current"] else "  (chosen with -c; the current one is unchanged)"
        lines = [f"campaign  {camp.name} ({camp.system}), {versions(head, state.core.version)}{how}"]
        chars = data["characters"]
        if actor is not None:
            others = [n for n in chars if n != actor]
            lines.append(f"character {actor}" + (f" (also: {', '.join(others)})" if others else ""))
            if actor != acting:
                lines.append(
                    f"          with --as, for this command only; {acting or 'no one'} acts without it"
                )
        elif chars:
            lines.append(f"character none acts of {', '.join(chars)}: choose one with `ledger use --as NAME`")
        if data["day"] is not None:
            lines.append(f"day       {data['day']}")
        if data["next"]:
            lines.append(f"next: {' | '.join(data['next'])}")
        return "\n".join(lines)

    emit(c, data, text)


def _next(system: System, state: Any) -> list[str]:
    """What comes next: the system's hints (``System.hints``, its order of play); in a system
    without them, a character first, then the system's commands."""
    if system.hints is not None:
        return system.hints(state)
    if not state.core.characters:
        return ["character add NAME"]
    group = _group_of(system)
    return [f"{group[0]} --help"] if group else ["roll NOTATION", "note TEXT"]


@cli.group("character")
def character() -> None:
    """Manage the campaign's characters: `character create NAME` in every system."""


@character.command("add")
@click.argument("name")
@click.option("--attr", "attrs", multiple=True, metavar="KEY=VALUE", help="An attribute (repeatable).")
@common
@pass_ctx
def character_add(c: Ctx, name: str, attrs: tuple[str, ...]) -> None:
    """Add a character NAME to the campaign, its --attr checked as `character create` checks them."""
    rec = c.ledger.create_character(name, c.campaign, key_values(attrs, "--attr"))
    emit(c, recorded_json(rec), f"{name} joins {rec.campaign.name!r}")


create = character_add
"""The core's creation command: ``character create`` in a system that declares none of
its own (``System.create``)."""


def _character_create() -> click.Command:
    from ledger.cli.create import CharacterCreate

    return CharacterCreate()


character.add_command(_character_create())


# --- dice and notes ----------------------------------------------------------


class NotationCommand(click.Command):
    """A command whose arguments are dice notation: one that starts with a minus
    (``ledger roll -1d4+5``) is notation, not an option."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            return super().parse_args(ctx, args)
        takes_value = {
            name for p in self.params if isinstance(p, click.Option) and not p.is_flag for name in p.opts
        }
        options: list[str] = []
        words: list[str] = []
        rest = iter(args)
        for arg in rest:
            if NEGATIVE_NOTATION.match(arg):
                words.append(arg)
            elif arg.startswith("-"):
                options.append(arg)
                if arg in takes_value:
                    value = next(rest, None)
                    if value is not None:
                        options.append(value)
            else:
                words.append(arg)
        return super().parse_args(ctx, [*options, "--", *words] if words else options)


NEGATIVE_NOTATION = re.compile(r"-(\d|[dD](\d|%|[fF])|\(|\{|(floor|ceil|round|abs)\()")
"""An argument that is dice notation with a leading minus, not an option."""
REDIRECTED = re.compile(r"[<>=]{0,2}\d+")
"""A file the shell made of the end of ``3d6>=5`` (``=5``) or ``3d6>5`` (``5``)."""
JUST_MADE = 10.0
"""Seconds within which such a file counts as just made by the shell."""


def _redirect_accident(formula: Any) -> str | None:
    """The file a shell likely made of a notation's ``>``: the notation is one plain dice
    group, and a file named like ``=5`` or ``5`` is stdout or was written seconds ago."""
    import os
    import time

    from ledger.notation import DiceTerm

    if formula.check is not None or not isinstance(formula.root, DiceTerm) or formula.root.success:
        return None
    try:
        out = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        out = None
    now = time.time()
    try:
        entries = [e for e in Path(".").iterdir() if REDIRECTED.fullmatch(e.name) and e.is_file()]
    except OSError:  # an unreadable folder: nothing to say
        return None
    for entry in entries:
        try:
            st = entry.stat()
        except OSError:
            continue
        if (
            out is not None and (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)
        ) or now - st.st_mtime < JUST_MADE:
            return entry.name
    return None


@cli.command("roll", cls=NotationCommand)
@click.argument("notation", nargs=-1, required=True)
@faces_option
@click.option("--label", default="", help="What the roll was for (default: the words after the notation).")
@common
@pass_ctx
def roll(c: Ctx, notation: tuple[str, ...], faces: str | None, label: str) -> None:
    """Roll dice NOTATION: 2d6+1, 4d6kh3, 4d6dl1, '3d6!' (exploding), '5d6!!' (compounding), 2d6r1,
    1d20mi10, '8d6>=5' (counts dice), '1d20+5>=15' (checks the total), 4dF, '(1d6+2)*3',
    '1d8[fire]', '{1d20,1d20}kh1'. Quote the notation: a shell reads > < ( ) ! [ ] { } * itself
    (unquoted, 3d6>=5 rolls 3d6 into a file named =5). Words after it are the label:
    ledger roll 1d20+5 attack."""
    from ledger.dice import render
    from ledger.notation import parse

    text = " ".join(notation)
    formula = parse(text)  # refuses bad notation before anything is opened
    if formula.comment and not label:
        label = formula.comment
    rec = c.ledger.roll(text, c.campaign, label=label, faces=parse_faces(faces), actor=c.actor)
    result = rec.events[0].result  # type: ignore[attr-defined]
    label = rec.events[0].label  # type: ignore[attr-defined]  # as stored: stripped, NFC
    who = f"{rec.envelopes[0].actor}: " if rec.envelopes[0].actor else ""
    made = _redirect_accident(formula)
    if made is not None:
        click.echo(
            f"warning: the shell took '>' in the notation as a redirection and wrote the file {made!r}; "
            f"recorded {result.notation}. Quote the notation: ledger roll '{result.notation}>{made}'",
            err=True,
        )
    emit(c, recorded_json(rec), f"{who}{label + ': ' if label else ''}{render(result)}")


@cli.command("note")
@click.argument("text")
@common
@pass_ctx
def note(c: Ctx, text: str) -> None:
    """Record a journal line."""
    rec = c.ledger.note(text, c.campaign, actor=c.actor)
    emit(c, recorded_json(rec), f"noted (v{rec.version})")


# --- undo, redo, fork ------------------------------------------------------------


@cli.command("undo")
@click.argument("count", type=int, default=1)
@common
@pass_ctx
def undo(c: Ctx, count: int) -> None:
    """Retract the last COUNT actions (all the events of each)."""
    rec = c.ledger.undo(c.campaign, count)
    emit(c, recorded_json(rec), "\n".join(e.event.summary() for e in rec.envelopes))


@cli.command("redo")
@click.argument("count", type=int, default=1)
@common
@pass_ctx
def redo(c: Ctx, count: int) -> None:
    """Bring back the last COUNT undone actions (while nothing new was recorded)."""
    rec = c.ledger.redo(c.campaign, count)
    emit(c, recorded_json(rec), "\n".join(e.event.summary() for e in rec.envelopes))


@cli.command("fork")
@click.argument("new_name")
@click.option("--at", type=int, default=None, metavar="VERSION", help="Fork at this version (default: head).")
@click.option("--day", type=int, default=None, help="Fork at the end of this game day.")
@common
@pass_ctx
def fork(c: Ctx, new_name: str, at: int | None, day: int | None) -> None:
    """Start a branch NEW_NAME sharing this campaign's history up to a point; the new
    branch becomes the current campaign."""
    from ledger.errors import LedgerError

    if at is not None and day is not None:
        raise LedgerError("give --at or --day, not both")
    parent = c.ledger.campaign(c.campaign)
    camp = c.ledger.fork(parent.name, new_name, at=at, day=day)
    c.ledger.use(camp.name)
    emit(
        c,
        {"name": camp.name, "parent": parent.name, "at": camp.parent_version, "current": True},
        f"forked {camp.name!r} at version {camp.parent_version}; now playing it "
        f"(back with `ledger use {parent.name}`)",
    )


# --- reading the log -----------------------------------------------------------------


@cli.command("log")
@click.option("--all", "show_all", is_flag=True, help="Include undone events (marked).")
@click.option("--at", type=int, default=None, metavar="VERSION", help="The log as it stood at this version.")
@common
@pass_ctx
def log(c: Ctx, show_all: bool, at: int | None) -> None:
    """Show the campaign's events, oldest first."""
    entries = c.ledger.log(c.campaign, show_all=show_all, at=at)
    data = [
        {
            "version": e.version,
            "action": e.action,
            "kind": e.kind,
            "at": e.at,
            "day": e.day,
            "actor": e.actor,
            "who": told_as(e.event, e.actor),
            "summary": e.summary,
            "undone": e.undone,
        }
        for e in entries
    ]

    def text() -> str:
        lines = []
        for e in entries:
            mark = " [undone]" if e.undone else ""
            day = f" d{e.day}" if e.day is not None else ""
            told = told_as(e.event, e.actor)
            who = f" {told}:" if told else ""
            lines.append(f"v{e.version:<5}{day}{who} {e.summary}{mark}")
        return "\n".join(lines)

    emit(c, data, text)


@cli.command("sheet")
@time_travel
@common
@pass_ctx
def sheet(c: Ctx, at: int | None, day: int | None) -> None:
    """Show the character sheet (the campaign's state) now, or --at / --day."""
    from ledger.projections.stats.sheet import luck_from_log

    state = state_for(c, at, day)
    book = c.ledger
    camp = book.campaign(c.campaign)
    system = book.system(camp)
    who = c.actor or book.acting(camp.name, state)  # the acting character's sheet by default
    data = system.sheet(state, who)
    version = at if at is not None else (book.version_at_day(camp, day) if day is not None else None)
    data["luck_index"] = luck_from_log(book, camp.name, who, version=version)
    layout = system.sheet_layout
    if layout is not None:
        from ledger.projections import sheets

        data["view"] = sheets.view(layout, data)

    def text() -> str:
        luck = data["luck_index"]
        line = ""
        if luck["judged"] and luck["luck"] is None:  # every judged roll had p = 0 or 1
            line = f"\nluck: none to measure: {words.count(luck['judged'], 'roll')} {words.plural(luck['judged'], 'was')} all certain to succeed or fail"
        elif luck["judged"]:
            line = (
                f"\nluck {luck['luck']:+.2f}: {words.count(luck['successes'], 'success')} in {words.count(luck['judged'], 'roll')} "
                f"where {luck['expected']} {words.plural(luck['expected'], 'was')} expected"
            )
        if layout is not None:
            return sheets.text(data["view"]) + line
        if system.render_sheet is not None:
            return system.render_sheet(data) + line
        return render_mapping({k: v for k, v in data.items() if k != "luck_index"}) + line

    emit(c, data, text)


@cli.command("journal")
@time_travel
@click.option(
    "--format",
    "form",
    type=click.Choice(["text", "md"]),
    default="text",
    show_default=True,
    help="md: Markdown for a notes vault or a blog (a heading per day, the state at each day's end).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the journal to this file (default: standard output).",
)
@click.option("--force", is_flag=True, help="Overwrite the --output file if it exists.")
@common
@pass_ctx
def journal(c: Ctx, at: int | None, day: int | None, form: str, output: str | None, force: bool) -> None:
    """One line per game day (or per action), with notes; --format md for Markdown."""
    from ledger.errors import LedgerError

    if output is not None and form != "md":
        raise LedgerError("-o writes the Markdown journal; add --format md")
    if output is not None:
        from ledger import outfile

        outfile.check_target(Path(output), outfile.own_files(c.ledger.store))
        if Path(output).exists() and not force:
            raise LedgerError(f"{output} already exists; pick another file or add --force to overwrite it")
    state = state_for(c, at, day)
    if form == "md":
        from ledger.projections.journal import render as markdown

        text_md = markdown(c.ledger, c.campaign, c.actor, state.core.version or None)
        if output is None:
            emit(c, {"format": "md", "markdown": text_md}, text_md.rstrip("\n"))
            return
        from ledger import outfile

        outfile.write_text(output, text_md, protected=outfile.own_files(c.ledger.store), replace=force)
        emit(c, {"file": output, "format": "md"}, f"journal written to {output}")
        return
    book = c.ledger
    camp = book.campaign(c.campaign)
    system = book.system(camp)
    hook = system.journal
    if hook is not None:
        data = hook(state)
    else:
        data = []
        for env in book.effective(camp, state.core.version or None):
            if env.event.kind in ("campaign.started", "branch.forked"):
                continue
            data.append(
                {
                    "version": env.v,
                    "day": told_on(env.event, env.day),
                    "actor": told_as(env.event, env.actor),
                    "text": env.event.summary(),
                }
            )

    def text() -> str:
        out = []
        for row in data:
            when = f"day {row['day']}" if row.get("day") is not None else f"v{row.get('version')}"
            out.append(f"{when:>8}  {row['text']}")
        return "\n".join(out) or "the journal is empty"

    emit(c, data, text)


@cli.command("replay")
@click.option("--at", type=int, default=None, metavar="VERSION", help="Stop at this version.")
@click.option("--to", "old_to", type=int, default=None, hidden=True, help="The old name of --at.")
@common
@pass_ctx
def replay(c: Ctx, at: int | None, old_to: int | None) -> None:
    """Step through the effective actions, showing what each changed."""
    from ledger.errors import LedgerError

    if at is not None and old_to is not None:
        raise LedgerError("give --at alone (--to is its old name)")
    at = old_to if at is None else at
    book = c.ledger
    camp = book.campaign(c.campaign)
    system = book.system(camp)
    steps = []
    for group, before, after in book.replay(camp.name, to=at):
        if before.game is None:
            changes: dict[str, Any] = {}
        else:
            changes = _diff(system.sheet(before, c.actor), system.sheet(after, c.actor))
        steps.append(
            {
                "versions": [group[0].v, group[-1].v],
                "action": group[0].action,
                "events": [book.summary(e.event) for e in group],
                "changed": changes,
            }
        )

    def text() -> str:
        out = []
        for s in steps:
            lo, hi = s["versions"]
            span = f"v{lo}" if lo == hi else f"v{lo}-{hi}"
            out.append(f"{span}: " + "; ".join(s["events"]))
            for key, (old, new_value) in s["changed"].items():
                out.append(f"    {key}: {_shown(old)} -> {_shown(new_value)}")
        return "\n".join(out)

    emit(c, steps, text)
    if old_to is not None:  # after the output: a script reading stdout sees no change
        click.echo("warning: `replay --to` is now `replay --at`; --to will go away", err=True)


def _shown(value: Any) -> str:
    """A sheet value as a player reads it: none, a list of words, key=value pairs."""
    if value is None or value == [] or value == {}:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_shown(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_shown(v)}" for k, v in value.items())
    return str(value)


def _diff(old: dict[str, Any], new_value: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for key in set(old) | set(new_value):
        a, b = old.get(key), new_value.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            changes.update(_diff(a, b, f"{prefix}{key}."))
        else:
            changes[f"{prefix}{key}"] = (a, b)
    return dict(sorted(changes.items()))


# --- integrity -------------------------------------------------------------------


@cli.command("verify")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--all", "every", is_flag=True, help="Verify every campaign in the ledger, dice included.")
@click.option("--dice", "dice", is_flag=True, help="Also prove every virtual die (see `ledger dice`).")
@click.option("--require-signed", is_flag=True, help="With FILE: fail unless it is signed by a known key.")
@common
@pass_ctx
def verify(c: Ctx, file: str | None, every: bool, dice: bool, require_signed: bool) -> None:
    """Walk the hash chain; exit non-zero naming the first bad version.

    With FILE, check an export without importing it: its chain, its head,
    every event, and who signed it. --dice (and --all) recompute every virtual
    die under each revealed dice commitment, and report the rest."""
    from ledger import integrity, provenance
    from ledger.errors import LedgerError

    if file is not None:
        from ledger.store import is_postgres, resolve_target

        if every:
            raise LedgerError("give FILE or --all, not both")
        target = resolve_target(c.db)
        book = c.ledger if is_postgres(target) or Path(target).exists() else None
        found = provenance.verify_file(book, file, require_signed=require_signed)
        shown = found.as_dict()
        text = (
            f"ok  {file}: {found.name!r} ({found.system}), {words.count(found.head, 'event')}, "
            f"head {found.head_hash[:16]}; {found.signer.describe(file, word=fixes.worded)}"
        )
        if dice:
            with open(file, "rb") as data:
                _, proof = integrity.verify_dice_file(data, file)
            shown["dice"] = proof.as_dict()
            text += "\n" + _dice_lines(found.name, proof)
        emit(c, shown, text)
        return
    if require_signed:
        raise LedgerError("--require-signed goes with FILE: ledger verify FILE --require-signed")
    report = c.ledger.verify(c.campaign, every=every)
    proofs = integrity.verify_dice(c.ledger, c.campaign, every=every) if dice or every else {}
    signers = provenance.of_campaigns(c.ledger, list(report.checked))
    data = {
        "ok": True,
        "checked": report.checked,
        "heads": report.heads,
        "signers": {name: s.as_dict() for name, s in signers.items()},
    }
    if proofs:
        data["dice"] = {name: proof.as_dict() for name, proof in proofs.items()}

    def line(name: str, n: int) -> str:
        came = f"; imported, {signers[name].describe(word=fixes.worded)}" if name in signers else ""
        return f"ok  {name}: {words.count(n, 'event')}, head {report.heads[name][:16]}{came}"

    lines = [line(name, n) for name, n in report.checked.items()]
    lines += [_dice_lines(name, proof) for name, proof in proofs.items()]
    emit(c, data, "\n".join(lines))


def _dice_lines(name: str, proof: Any) -> str:
    warned = "".join(f"\nwarning  {name}: {w}" for w in proof.warnings)
    return f"dice  {name}: {proof.line(spell=fixes.spelled)}{warned}"


# --- provable dice ---------------------------------------------------------------------


@cli.group(
    "dice",
    help="Provable virtual dice: commit to a secret seed, let the players seed it, roll, "
    f"reveal (see {docs.path('dice.md')}).",
)
def dice_group() -> None:
    """Provable virtual dice (the help names where the installed docs/dice.md is)."""


@dice_group.command("commit")
@click.option("--client-seed", default="", metavar="TEXT", help="The players' contribution (default: empty).")
@common
@pass_ctx
def dice_commit(c: Ctx, client_seed: str) -> None:
    """Open a dice commitment: the sha256 of a fresh secret seed goes in the log."""
    rec = c.ledger.commit_dice(c.campaign, client_seed=client_seed)
    ev = rec.events[0]
    emit(
        c,
        {**recorded_json(rec), "commitment": ev.commitment},  # type: ignore[attr-defined]
        f"dice committed in {rec.campaign.name!r}: {ev.commitment}",  # type: ignore[attr-defined]
    )


@dice_group.command("seed")
@click.argument("text")
@common
@pass_ctx
def dice_seed(c: Ctx, text: str) -> None:
    """Give the players' client seed TEXT for the open dice commitment.

    Players choose TEXT after the commitment is published (`ledger dice status`
    shows it) and before the first virtual die under it: the secret seed was drawn
    before they chose, so it cannot have been picked to suit the rolls. Every die
    under the commitment then uses TEXT. Refused once a die has been drawn under
    it; reveal it (that opens the next one) and seed that one. Not an action:
    `ledger undo` passes over it."""
    rec = c.ledger.seed_dice(text, c.campaign)
    ev = rec.events[0]
    emit(
        c,
        {**recorded_json(rec), "commitment": ev.commitment, "client_seed": ev.client_seed},  # type: ignore[attr-defined]
        f"dice seeded in {rec.campaign.name!r}: commitment {ev.commitment[:16]}, "  # type: ignore[attr-defined]
        f"client seed {ev.client_seed!r}",  # type: ignore[attr-defined]
    )


@dice_group.command("reveal")
@click.option("--client-seed", default=None, metavar="TEXT", help="The players' part of the next commitment.")
@common
@pass_ctx
def dice_reveal(c: Ctx, client_seed: str | None) -> None:
    """Publish the open commitment's seed (every die under it can then be recomputed)
    and open the next commitment."""
    rec = c.ledger.reveal_dice(c.campaign, client_seed=client_seed)
    shown, opened = rec.events
    emit(
        c,
        {
            **recorded_json(rec),
            "revealed": shown.commitment,  # type: ignore[attr-defined]
            "seed": shown.seed,  # type: ignore[attr-defined]
            "commitment": opened.commitment,  # type: ignore[attr-defined]
        },
        f"revealed {shown.commitment[:16]}: seed {shown.seed}\n"  # type: ignore[attr-defined]
        f"dice committed: {opened.commitment}",  # type: ignore[attr-defined]
    )


@dice_group.command("status")
@common
@pass_ctx
def dice_status(c: Ctx) -> None:
    """The open dice commitment, its client seed (and whether the players seeded it
    after it opened), and how many dice were drawn under it."""
    found = c.ledger.dice_status(c.campaign)

    def text() -> str:
        if found["seeded"]:
            return f"{found['campaign']}: seeded dice (--seed), reproducible, not provable"
        if found["commitment"] is None:
            return f"{found['campaign']}: no dice commitment open; virtual dice are unproven (`ledger dice commit`)"
        where = (
            ""
            if found["seed_here"]
            else " (its seed is missing from this ledger's seed table)"
            if found.get("seed_lost")
            else " (its seed is in the ledger this campaign came from)"
        )
        client = f", client seed {found['client_seed']!r}" if found["client_seed"] else ""
        if found["seeded_at"] is not None:
            client += f" (seeded after the commitment, v{found['seeded_at']})"
        elif found["client_seed"]:
            client += " (given with the commitment)"
        hint = ""
        if not found["drawn"] and found["seed_here"] and found["seeded_at"] is None:
            hint = "; players may seed it before the first roll (`ledger dice seed TEXT`)"
        return f"{found['campaign']}: commitment {found['commitment']}{client}, {words.count(found['drawn'], 'die')} drawn{where}{hint}"

    emit(c, found, text)


@cli.command("export")
@click.argument("kind", required=False, type=click.Choice(["parquet"]))
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    default="-",
    help="Write to this file (default: standard output).",
)
@click.option("--unsigned", is_flag=True, help="Leave the header unsigned (no key is made or used).")
@click.option("--force", is_flag=True, help="With -o: replace the file if it exists.")
@common
@pass_ctx
def export(c: Ctx, kind: str | None, directory: str | None, output: str, unsigned: bool, force: bool) -> None:
    """Write the campaign as JSON lines, with its chain hashes.

    `ledger export parquet DIR` writes the statistics warehouse's tables as
    Parquet files instead, partitioned by system, into a new or empty folder
    (or one an earlier export of this ledger wrote: its tables are replaced). The header is signed with
    this ledger's key (made on first export; see `ledger key show`). With
    --json and no -o, one JSON object holds the file's lines (`lines`; joined
    with line feeds they are the export)."""
    import io

    from ledger import provenance
    from ledger.errors import LedgerError, OutputExistsError

    if kind == "parquet":
        from ledger.projections.warehouse.export import export_parquet

        if not directory:
            raise LedgerError("`ledger export parquet` needs a folder: ledger export parquet DIR")
        files = export_parquet(c.ledger, directory)
        emit(c, {"files": files}, lambda: "\n".join(files) or "the warehouse is empty")
        return
    book = c.ledger
    camp = book.campaign(c.campaign)
    sign = not unsigned
    if sign and book.store.read_only and provenance.own_key(book.store, create=False) is None:
        sign = False  # a read-only ledger cannot make its first key
        click.echo(
            f"warning: {book.store.describe()} is read-only and has no signing key yet; the export is unsigned",
            err=True,
        )
    if output == "-":
        if c.json:
            buf = io.BytesIO()
            n = book.export(buf, camp.name, sign=sign)
            lines = buf.getvalue().decode().splitlines()
            emit(c, {"campaign": camp.name, "events": n, "signed": sign, "lines": lines}, "")
            return
        book.export(sys.stdout.buffer, camp.name, sign=sign)
        sys.stdout.flush()
        return
    from ledger import outfile

    protected = outfile.own_files(book.store)
    outfile.check_target(Path(output), protected)
    if os.path.lexists(output) and not force:
        raise OutputExistsError(f"{output} exists; give --force to replace it, or another -o FILE", output)
    n = outfile.write_file(
        output, lambda out: book.export(out, camp.name, sign=sign), protected=protected, replace=force
    )
    emit(
        c,
        {"campaign": camp.name, "events": n, "file": output, "signed": sign},
        f"exported {words.count(n, 'event')} to {output}",
    )


@cli.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--name", default=None, help="Import under this name (default: the exported name).")
@click.option(
    "--require-signed",
    is_flag=True,
    help="Refuse a file unless it is signed by this ledger or a trusted key.",
)
@common
@pass_ctx
def import_(c: Ctx, file: str, name: str | None, require_signed: bool) -> None:
    """Import a campaign from an export, refusing it if any event was edited.

    Says whether the file was signed by this ledger, a trusted key, an
    unknown key or nobody; a signature that does not match is refused."""
    from ledger import provenance
    from ledger.admission import read_header

    with open(file, "rb") as data:
        camp = c.ledger.import_(data, name, require_signed=require_signed, file=file)
        data.seek(0)
        given = read_header(data)[0].head  # the file's events (the import may open a commitment after them)
    head = c.ledger.head(camp)
    signer = provenance.of_campaign(c.ledger, camp)
    assert signer is not None
    emit(
        c,
        {"name": camp.name, "system": camp.system, "head": head, "signer": signer.as_dict()},
        f"imported {camp.name!r} ({camp.system}, {words.count(given, 'event')}, chain verified); "
        f"{signer.describe(file, word=fixes.worded)}",
    )


@cli.group("key")
def key() -> None:
    """This ledger's signing key, and the keys of other ledgers it trusts."""


@key.command("show")
@common
@pass_ctx
def key_show(c: Ctx) -> None:
    """Print this ledger's public key and its fingerprint (made now if there is none)."""
    from ledger import provenance

    own = provenance.own_key(c.ledger.store)
    assert own is not None
    emit(
        c,
        {"fingerprint": own.fingerprint, "public_key": own.key, "created": own.created},
        f"fingerprint {own.fingerprint}\npublic key  {own.key}",
    )


@key.command("trust")
@click.argument("source", metavar="FILE_OR_KEY")
@click.option("--name", default=None, help="Whose key it is (default: the export's campaign name).")
@common
@pass_ctx
def key_trust(c: Ctx, source: str, name: str | None) -> None:
    """Trust the key that signed an export FILE, or a public key as `ledger key show` prints it."""
    from ledger import provenance
    from ledger.errors import LedgerError

    found, suggested = provenance.key_from(source)
    name = name or suggested
    if name is None:
        raise LedgerError("say whose key it is: ledger key trust KEY --name NAME")
    trusted = provenance.trust(c.ledger.store, found, name)
    emit(
        c,
        {"name": trusted.name, "fingerprint": trusted.fingerprint, "public_key": trusted.key},
        f"trusted key {trusted.name!r} ({trusted.fingerprint})",
    )


@key.command("forget")
@click.argument("who", metavar="NAME_OR_FINGERPRINT")
@common
@pass_ctx
def key_forget(c: Ctx, who: str) -> None:
    """Stop trusting a key; campaigns it signed then verify as signed by an unknown key."""
    from ledger import provenance

    gone = provenance.forget(c.ledger.store, who)
    emit(
        c,
        {"name": gone.name, "fingerprint": gone.fingerprint},
        f"no longer trusted: {gone.name!r} ({gone.fingerprint})",
    )


@key.command("list")
@common
@pass_ctx
def key_list(c: Ctx) -> None:
    """This ledger's own key and every trusted one."""
    from ledger import provenance

    own = provenance.own_key(c.ledger.store, create=False)
    trusted = provenance.trusted_keys(c.ledger.store)
    rows = (
        [{"name": None, "own": True, "fingerprint": own.fingerprint, "public_key": own.key}] if own else []
    ) + [{"name": k.name, "own": False, "fingerprint": k.fingerprint, "public_key": k.key} for k in trusted]

    def text() -> str:
        lines = (
            [f"{own.fingerprint}  (this ledger)"]
            if own
            else ["no key yet (made on first export or `ledger key show`)"]
        )
        lines += [f"{k.fingerprint}  {k.name}" for k in trusted]
        return "\n".join(lines)

    emit(c, rows, text)


@cli.command("demo")
@click.option(
    "--db",
    "demo_db",
    default=None,
    metavar="PATH",
    help="Where to keep the demo ledger (default: ./demo.ledger).",
)
@common
@pass_ctx
def demo(c: Ctx, demo_db: str | None) -> None:
    """Show the main job on the embedded SQLite ledger: sample campaigns, undo, fork, verify.

    With --json: one object, the demo's sections as lists of lines."""
    import contextlib
    import io

    from ledger.cli.demo import DEMO_FILE, run

    if not c.json:
        run(c, demo_db)
        return
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        run(c, demo_db)
    intro, *rest = shown.getvalue().split("\n== ")
    sections = []
    for part in rest:
        title, _, body = part.partition(" ==\n")
        sections.append({"title": title, "lines": [ln for ln in body.strip("\n").splitlines() if ln]})
    emit(
        c,
        {"ledger": demo_db or c.db or DEMO_FILE, "intro": intro.strip(), "sections": sections},
        "",
    )


def main() -> None:
    cli(prog_name="ledger")


if __name__ == "__main__":
    main()
