"""Shared pieces of the command line: context, options, output.

The CLI is thin: each command parses its arguments, calls the library once
and renders the result as text or, with ``--json``, as JSON.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import click
import msgspec

from ledger.cli import fixes
from ledger.cli.translated import Command, Group
from ledger.errors import LedgerError
from ledger.i18n import N_, _
from ledger.log.records import recorded_json
from ledger.systems import system_names

if TYPE_CHECKING:
    from ledger.campaign import Ledger

F = TypeVar("F", bound=Callable[..., Any])


class Ctx(msgspec.Struct):
    """What the root group hands every command."""

    db: str | None = None
    json: bool = False
    campaign: str | None = None
    actor: str | None = None
    create: bool = True
    """The command may make a missing ledger file (`new`, `import`, `simulate`)."""
    read_only: bool = False
    """The command only reads: open the ledger read-only."""
    visibility: str = "public"
    """How a roll is made: ``public``, ``private`` (--private) or ``blind`` (--blind)."""
    _ledger: Any = None

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            # lazy: `ledger --help` imports no ledger.campaign (tests/test_cli_startup.py)
            from ledger.campaign import Ledger

            self._ledger = Ledger(self.db, create=self.create, read_only=self.read_only, warn=_warn_of)
        return self._ledger

    def close(self) -> None:
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None


pass_ctx = click.make_pass_decorator(Ctx)


def warn(message: str) -> None:
    """A warning: one line on stderr, never in the way of --json on stdout."""
    click.echo(_("warning: {message}", message=message), err=True)


def _warn_of(warning: LedgerError) -> None:
    """A library warning (a refusal that was not raised) in the command line's words."""
    warn(fixes.message(warning))


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.find_object(Ctx).json = True  # type: ignore[union-attr]
    return value


def typed_campaign(value: str | None) -> str | None:
    """A campaign name as typed, in the NFC form names are stored in."""
    return None if value is None else unicodedata.normalize("NFC", value)


def typed_actor(value: str | None) -> str | None:
    """A ``--as`` character name as typed, in NFC; an empty one is refused (it would
    silently act as the default character)."""
    if value is None:
        return None
    if not value.strip():
        raise click.BadParameter(_("give a character's name, e.g. --as Ana"), param_hint="--as")
    return unicodedata.normalize("NFC", value)


def _set_campaign(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        ctx.find_object(Ctx).campaign = typed_campaign(value)  # type: ignore[union-attr]
    return value


def _set_actor(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        ctx.find_object(Ctx).actor = typed_actor(value)  # type: ignore[union-attr]
    return value


AS_HELP = N_("Act as this character for this command only (`ledger use --as NAME`: from now on).")


def common(f: F) -> F:
    """``--json``, ``-c`` and ``--as`` accepted after the command too."""
    f = click.option(
        "--json",
        "as_json",
        is_flag=True,
        expose_value=False,
        callback=_set_json,
        is_eager=True,
        help=N_("Machine-readable JSON output."),
    )(f)
    f = click.option(
        "-c",
        "--campaign",
        expose_value=False,
        callback=_set_campaign,
        is_eager=True,
        help=N_("Act on this campaign (default: the current one; see `ledger use`)."),
    )(f)
    f = click.option(
        "--as",
        "as_actor",
        expose_value=False,
        callback=_set_actor,
        is_eager=True,
        metavar="CHARACTER",
        help=AS_HELP,
    )(f)
    return f


def _roll_mode(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value:
        return
    found = ctx.find_object(Ctx)
    if found is None:  # pragma: no cover - every command runs under the root group
        return
    if found.visibility != "public" and found.visibility != param.name:
        raise click.UsageError(_("give --private or --blind, not both"))
    found.visibility = str(param.name)


def faces_option(f: F) -> F:
    """``--faces 3,5,6``: record physical dice instead of rolling; and the roll modes
    ``--private`` and ``--blind`` of every command that rolls (docs/dice.md)."""
    for name, told in (
        ("blind", N_("Roll sealed for the GM alone: the roller sees only that the roll was made.")),
        ("private", N_("Roll sealed for the roller and the GM; the table sees that it was made.")),
    ):
        f = click.option(f"--{name}", name, is_flag=True, expose_value=False, callback=_roll_mode, help=told)(
            f
        )
    return click.option(
        "--faces",
        metavar="N,N,...",
        default=None,
        help=N_(
            "Physical dice: the faces rolled, in the order the dice are rolled "
            "(re-rolls and explosions included)."
        ),
    )(f)


def emit_sealed(c: Ctx, rec: Any) -> bool:
    """Print a sealed action as the command line tells it, and say whether it was one:
    that it was sealed, and its result, which the command line, the GM's tool, shows
    (with --json, under ``sealed``)."""
    env = rec.envelopes[0]
    if env.event.kind != "action.sealed":
        return False
    from ledger.log.sealing import THE_GM  # lazy: only a sealed action needs it

    held = c.ledger.sealed_content(rec.campaign.name, env.v, THE_GM)
    who = f"{env.actor}: " if env.actor else ""
    told = _(
        "{summary} at version {version}; {held}",
        summary=env.event.summary(),
        version=env.v,
        held="; ".join(held["summaries"]),
    )
    text = f"{who}{told}"
    emit(c, {**recorded_json(rec), "sealed": held}, text)
    return True


def time_travel(f: F) -> F:
    """``--at VERSION`` / ``--day D``: show the state as it was then."""
    f = click.option("--day", type=int, default=None, help=N_("Show the state at the end of game day D."))(f)
    f = click.option(
        "--at", "at", type=int, default=None, metavar="VERSION", help=N_("Show the state at this version.")
    )(f)
    return f


def faces(text: str | None) -> list[int] | None:
    if text is None:
        return None
    # lazy: `ledger --help` imports no dice (tests/test_cli_startup.py)
    from ledger.dice.sources import parse_faces

    return parse_faces(text)


def json_text(data: Any, **options: Any) -> str:
    """``data`` as JSON text that keeps every character as itself (``"Ñandú"``, not
    ``"\\u00d1and\\u00fa"``); ``options`` as :func:`json.dumps` takes them."""
    # lazy: a command that writes no JSON imports no json (tests/test_cli_startup.py)
    import json

    return json.dumps(data, ensure_ascii=False, default=str, **options)


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON, encoded as UTF-8 whatever the terminal's locale."""
    click.echo((json_text(data, indent=2) + "\n").encode("utf-8"), nl=False)


def emit(ctx: Ctx, data: Any, text: str | Callable[[], str]) -> None:
    """Print JSON in --json mode, else the text."""
    if ctx.json:
        echo_json(data)
    else:
        click.echo(text() if callable(text) else text)


_CONTROLS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
"""The control characters (C0 but the line feed, DEL, C1): a terminal acts on them (ESC starts
a sequence that moves the cursor, recolours or retitles the window) instead of showing them."""


def printable(text: str) -> str:
    """``text`` with each control character but the line feed written as ``\\xNN``: what a
    query returns reaches the terminal as text, never as a command to it."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def render_mapping(data: Any, indent: int = 0) -> str:
    """A plain, readable rendering of a JSON-ready value."""
    pad = "  " * indent
    lines: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, dict) and value:
                lines.append(f"{pad}{key}:")
                lines.append(render_mapping(value, indent + 1))
            elif isinstance(value, list) and value and isinstance(value[0], dict):
                lines.append(f"{pad}{key}:")
                for item in value:
                    lines.append(render_mapping(item, indent + 1))
                    lines.append("")
            elif isinstance(value, list):
                lines.append(f"{pad}{key}: {', '.join(map(str, value)) if value else '-'}")
            else:
                lines.append(f"{pad}{key}: {'-' if value is None else value}")
        return "\n".join(line for line in lines)
    return f"{pad}{data}"


def state_for(c: Ctx, at: int | None, day: int | None) -> Any:
    if at is not None and day is not None:
        raise LedgerError(_("give --at or --day, not both"))
    return c.ledger.state(c.campaign, at=at, day=day)


def summaries(rec: Any) -> str:
    """Each event ``rec`` recorded as its summary, one a line."""
    return "\n".join(e.event.summary() for e in rec.envelopes)


def run_command(
    c: Ctx,
    command: Any,
    given_faces: str | None = None,
    *,
    text: Callable[[Any], str] = summaries,
    more: Callable[[Any], Mapping[str, Any]] | None = None,
) -> None:
    """Execute a system's ``command`` on the chosen campaign, with the --faces given,
    and print what it recorded: its JSON (and the fields ``more`` adds) with --json,
    else ``text`` of it."""
    rec = c.ledger.execute(
        command, c.campaign, faces=faces(given_faces), actor=c.actor, visibility=c.visibility
    )
    if emit_sealed(c, rec):
        return
    data = recorded_json(rec)
    if more is not None:
        data.update(more(rec))
    emit(c, data, lambda: text(rec))


def key_values(items: tuple[str, ...], option: str) -> dict[str, str]:
    """``KEY=VALUE`` options as a dict, refusing anything else."""
    parsed: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise LedgerError(
                _("{option} {item!r} is not KEY=VALUE; e.g. {option} name=value", option=option, item=item)
            )
        parsed[key.strip()] = value.strip()
    return parsed


class _HelpLater:
    """``help`` given as a function is called when the help is shown, not when the command
    line starts: what it names (the installed systems) is looked up only then."""

    _help: str | Callable[[], str] | None

    @property
    def help(self) -> str | None:
        found = self._help
        return found() if callable(found) else found

    @help.setter
    def help(self, value: str | Callable[[], str] | None) -> None:
        self._help = value


class CommandHelpLater(_HelpLater, Command):
    """A command whose help is worked out when shown (``help=`` a function)."""


class GroupHelpLater(_HelpLater, Group):
    """A group whose help is worked out when shown (``help=`` a function)."""


class OptionHelpLater(_HelpLater, click.Option):
    """An option whose help is worked out when shown (``help=`` a function)."""

    def __init__(self, *args: Any, help: Callable[[], str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = help  # after click's own setup, which reads a help text as a string


def installed_systems() -> str:
    """The installed systems' names, comma-separated, for a help text."""
    return ", ".join(system_names())
