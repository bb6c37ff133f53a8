"""A refusal's fix in the command line's words: the library says what to do
(:class:`ledger.errors.Fix`), this module says which command or option does it."""

from __future__ import annotations

import re
from typing import Any

from ledger.errors import Fix, LedgerError

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

_QUOTED = re.compile(r"`([A-Za-z_][A-Za-z0-9_=]*)`")

TEMPLATES: dict[str, str] = {
    "undo": "take it back with `ledger undo`",
    "choose_character": "say who acts with --as NAME",
    "choose_actor": "choose one with `ledger use --as NAME` (or give --as NAME for one command)",
    "create_character": "create one with `ledger character create NAME`",
    "create_campaign": "create it with `ledger new SYSTEM {name}`",
    "choose_campaign": "pick one with -c NAME, or make it current with `ledger use NAME`",
    "system_commands": "see `ledger {group} --help`",
    "edit_tables": "fix the [{table}] table of the tables file (`ledger new ... --tables FILE`)",
    "setting": "start the campaign again with --setting {key}=VALUE",
    "option": "{verb} {option}{after}",
    "drop_option": "drop {option}",
    "command": "{verb} `ledger {prefix}{command}`{after}",
    "read_table": "see `ledger tables {table}`",
}
"""Each fix action as the command line says it; ``{name}`` fields come from the fix's detail."""


def spelled(name: str) -> str:
    """An input's name as the command line spells it (``faces`` -> ``--faces``); a name
    with words after it keeps them (``at VERSION`` -> ``--at VERSION``); a name already
    spelled as an option stays as it is."""
    first, sep, rest = name.partition(" ")
    if not first.startswith("-"):
        first = OPTIONS.get(first, "--" + first.replace("_", "-"))
    return f"{first}{sep}{rest}"


def options_in(text: str) -> str:
    """``text`` with each input named in backquotes (```seed```) as its option."""
    return _QUOTED.sub(lambda m: OPTIONS.get(m.group(1), m.group(0)), text)


def worded(fix: Fix) -> str:
    """The fix as a command to type, or its own words when no command does it."""
    template = TEMPLATES.get(fix.action)
    if template is None:
        return fix.text
    try:
        return template.format(**_detail(fix))
    except (KeyError, IndexError):
        return fix.text


def _detail(fix: Fix) -> dict[str, Any]:
    detail = dict(fix.detail)
    if "system" in detail and "group" not in detail:
        detail["group"] = _group(detail.get("system", ""))
    if "option" in detail:
        detail["option"] = spelled(detail["option"])
    if "options" in detail:
        detail["command"] = " ".join([detail.get("command", ""), *map(spelled, detail["options"].split(","))])
    for key in ("verb", "after", "how"):
        if key in detail:
            detail[key] = options_in(detail[key])
    if fix.action in ("command", "option"):
        default = "run" if fix.action == "command" else "pass"
        detail.setdefault("verb", detail.get("how", default))
        detail.setdefault("after", "")
    if fix.action == "command":
        detail["prefix"] = f"{detail['group']} " if "group" in detail else ""
    return detail


def _group(system: str) -> str:
    """The command-line group of a system (the name its help gives it, else its name)."""
    from ledger.cli.systems import command_name
    from ledger.systems import system_names

    if system not in system_names():
        return system
    return command_name(system) or system


def command_line(fix: Fix) -> str:
    """The command line that does a ``command`` fix (``ledger verify --all``); any other
    fix in its own words."""
    if fix.action != "command":
        return worded(fix)
    detail = _detail(fix)
    return f"ledger {detail['prefix']}{detail['command']}"


def message(error: LedgerError) -> str:
    """The refusal's one line: the library's message and the fix as a command."""
    text = options_in(error.message)
    return text if error.fix is None else f"{text}; {worded(error.fix)}"


def as_json(fix: Fix | None) -> dict[str, Any] | None:
    """The fix as JSON fields: what to do, the detail, and the command that does it."""
    if fix is None:
        return None
    return {"action": fix.action, "detail": dict(fix.detail), "text": worded(fix)}
