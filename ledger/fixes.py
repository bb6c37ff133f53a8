"""A refusal's fix as a command: the library says what to do, as one operation of a closed
set (:class:`ledger.errors.Fix`), this module says which command or option does it and how
the command line reads each operation, in the language of the moment (``ledger.i18n``).

Both front ends word a refusal so: the command line (``ledger.cli.fixes`` is this module)
and the live table (``ledger.web.errors``: the same ``--json`` error object), which imports
nothing of the command line. A system's command group is named by the help it publishes
(:class:`ledger.systems.SystemHelp`); for a system that publishes none, the command line
tells this module how to find its group's name (:func:`name_groups_with`), and without it
the system's own name stands for its group."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from ledger import i18n
from ledger.errors import (
    ChooseActor,
    ChooseCharacter,
    CreateCampaign,
    CreateCharacter,
    DropOption,
    EditTable,
    Fix,
    GiveOption,
    Input,
    LedgerError,
    ReadTable,
    RunCommand,
    Setting,
    SystemCommands,
    Undo,
)
from ledger.i18n import N_, _
from ledger.systems import SystemHelp, system_help, system_names
from ledger.text import shell_word

_finders: list[Callable[[str], str | None]] = []


def name_groups_with(finder: Callable[[str], str | None]) -> None:
    """How to name the command group of a system that publishes no help (the command line
    loads the group: ``ledger.cli.systems.command_name``)."""
    _finders[:] = [finder]


def command_name(system: str) -> str | None:
    """The name of the system's group on the command line (None: it has none): as its
    published help names it, else as :func:`name_groups_with` finds it."""
    shown = system_help(system)
    if isinstance(shown, SystemHelp):
        return shown.command
    for finder in _finders:
        return finder(system)
    return None


OPTIONS: dict[str, str] = {
    "all": "--all",
    "at": "--at",
    "campaign": "-c",
    "attrs": "--attr",
    "campaigns": "--campaigns",
    "client_seed": "--client-seed",
    "commit=False": "--no-commit",
    "day": "--day",
    "db": "--db",
    "faces": "--faces",
    "json": "--json",
    "label": "--label",
    "limit": "--limit",
    "name": "--name",
    "prefix": "--prefix",
    "require_signed": "--require-signed",
    "schema": "--db",
    "seed": "--seed",
    "settings": "--setting",
    "simulated": "--simulated",
    "system": "--system",
    "target": "--db / LEDGER_DB",
    "tables": "--tables",
    "timeout": "--timeout",
    "unsigned": "--unsigned",
    "warehouse": "--warehouse",
}
"""The library's input names (as a caller passes them) and the options that give them."""

OPERATIONS: dict[str, str] = {
    "query": "ledger query",
}
"""The operations a library message names in backquotes (```query``` is read-only), and
the commands that do them."""

_QUOTED = re.compile(r"`([A-Za-z_][A-Za-z0-9_=]*)`")

TEMPLATES: dict[type[Fix], str] = {
    Undo: N_("take it back with `ledger undo`"),
    ChooseCharacter: N_("say who acts with --as NAME"),
    ChooseActor: N_("choose one with `ledger use --as NAME` (or give --as NAME for one command)"),
    CreateCharacter: N_("create one with `ledger character create NAME`"),
    CreateCampaign: N_("create it with `ledger new SYSTEM {name}`"),
    SystemCommands: N_("see `ledger {group} --help`"),
    EditTable: N_("fix the [{table}] table of the tables file (`ledger new ... --tables FILE`)"),
    Setting: N_("start the campaign again with --setting {key}=VALUE"),
    ReadTable: N_("see `ledger tables {table}`"),
}
"""How the command line says each operation with fixed words; ``{name}`` fields are the
fix's own (``{group}``: its system's command group), said in the language of the moment."""


def spelled(name: str) -> str:
    """An input's name as the command line spells it (``faces`` -> ``--faces``); a name
    with words after it keeps them (``at VERSION`` -> ``--at VERSION``); a name already
    spelled as an option stays as it is."""
    first, sep, rest = name.partition(" ")
    if not first.startswith("-"):
        first = OPTIONS.get(first, "--" + first.replace("_", "-"))
    return f"{first}{sep}{rest}"


def options_in(text: str) -> str:
    """``text`` with each input named in backquotes (```seed```) as its option, and each
    operation so named (```query```) as its command."""
    return _QUOTED.sub(lambda m: OPTIONS.get(m.group(1)) or OPERATIONS.get(m.group(1), m.group(0)), text)


def given(entry: Input, system: str | None = None) -> str:
    """An input with its value, as typed (``--weapon NAME``, ``--all``): with ``system``,
    an option of that system's command, whose names are its own."""
    name = spelled(entry.name) if system is None else "--" + entry.name.replace("_", "-")
    return f"{name} {entry.value}" if entry.value else name


def _listed(items: list[str], every: bool) -> str:
    """``a or b``, ``a, b and c``: any one of them, or (``every``) all of them."""
    if len(items) < 2:
        return "".join(items)
    if every:
        return _("{items} and {last}", items=", ".join(items[:-1]), last=items[-1])
    return _("{items} or {last}", items=", ".join(items[:-1]), last=items[-1])


def _spell_named(text: str, names: list[str], system: str | None) -> str | None:
    """``text`` with each of ``names`` in backquotes as its option (None: it names none)."""
    marks = [f"`{n}`" for n in names if f"`{n}`" in text]
    for name in names:
        text = text.replace(f"`{name}`", given(Input(name), system))
    return options_in(text) if marks else None


def worded(fix: Fix) -> str:
    """The fix as the command line says it: the command or option that does it, in the
    fix's own words when they name one, else in the command line's; its own words when no
    command does it."""
    if isinstance(fix, RunCommand):
        line = f"`{command_line(fix)}`"
        mark = f"`{fix.command}`"
        if mark in fix.text:
            return options_in(fix.text.replace(mark, line, 1))
        return _("run {command}", command=line)
    if isinstance(fix, GiveOption):
        named = _spell_named(fix.text, [i.name for i in fix.inputs], fix.system)
        listed = _listed([given(i, fix.system) for i in fix.inputs], fix.every)
        if named:
            return named
        return (
            _("pass {options}, not both", options=listed)
            if fix.exclusive
            else _("pass {options}", options=listed)
        )
    if isinstance(fix, DropOption):
        named = _spell_named(fix.text, list(fix.inputs), fix.system)
        return named or _(
            "drop {options}", options=_listed([given(Input(i), fix.system) for i in fix.inputs], fix.every)
        )
    template = TEMPLATES.get(type(fix))
    if template is None:
        return fix.text
    fields = msgspec.structs.asdict(fix)
    if isinstance(fix, CreateCampaign):
        fields["name"] = shell_word(fix.name)
    if isinstance(fix, ReadTable):
        fields["table"] = shell_word(fix.table)
    if isinstance(fix, SystemCommands):
        fields["group"] = _group(fix.system)
    return i18n.translate(template).format(**fields)


def _group(system: str) -> str:
    """The command-line group of a system (the name its help gives it, else its name)."""
    if system not in system_names():
        return system
    return command_name(system) or system


def command_line(fix: Fix) -> str:
    """The command line that does a :class:`RunCommand` (``ledger verify --all``); any
    other fix as the command line says it."""
    if not isinstance(fix, RunCommand):
        return worded(fix)
    group = [_group(fix.system)] if fix.system is not None else []
    options = (
        given(Input(i.name, shell_word(i.value) if i.value else i.value), fix.system) for i in fix.options
    )
    return " ".join(["ledger", *group, fix.command, *map(shell_word, fix.arguments), *options])


def message(error: LedgerError) -> str:
    """The refusal's one line: the library's message and the fix as a command."""
    text = options_in(error.message)
    return text if error.fix is None else _("{message}; {fix}", message=text, fix=worded(error.fix))


def as_json(fix: Fix | None) -> dict[str, Any] | None:
    """The fix as JSON: its ``action`` (which operation), that operation's typed fields
    (docs: README, "Errors"), and ``text``, the fix as the command line says it."""
    if fix is None:
        return None
    found: dict[str, Any] = msgspec.to_builtins(fix)
    found["text"] = worded(fix)
    return found
