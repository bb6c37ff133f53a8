"""A refusal's fix in the command line's words: the library says what to do
(:class:`ledger.errors.Fix`), this module says which command or option does it."""

from __future__ import annotations

from typing import Any

from ledger.errors import Fix, LedgerError

TEMPLATES: dict[str, str] = {
    "undo": "take it back with `ledger undo`",
    "choose_character": "say who acts with --as NAME",
    "create_character": "create one with `ledger character create NAME`",
    "create_campaign": "create it with `ledger new SYSTEM {name}`",
    "choose_campaign": "pick one with -c NAME, or make it current with `ledger use NAME`",
    "system_commands": "see `ledger {group} --help`",
    "system_command": "{doing} with `ledger {group} {command}`",
    "edit_tables": "fix the [{table}] table of the tables file (`ledger new ... --tables FILE`)",
    "setting": "start the campaign again with --setting {key}=VALUE",
    "option": "{verb} {option}{after}",
    "drop_option": "drop {option}",
    "command": "{verb} `ledger {prefix}{command}`{after}",
    "read_table": "see `ledger tables {table}`",
}
"""Each fix action as the command line says it; ``{name}`` fields come from the fix's detail."""


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
    if fix.action in ("command", "option"):
        default = "run" if fix.action == "command" else "pass"
        detail.setdefault("verb", detail.get("how", default))
        detail.setdefault("after", "")
    if fix.action == "command":
        detail["prefix"] = f"{detail['group']} " if "group" in detail else ""
    return detail


def _group(system: str) -> str:
    """The command-line group of a system (its ``cli_name``, else its name): its System says."""
    from ledger.systems import get_system, system_names

    if system not in system_names():
        return system
    found = get_system(system)
    return found.cli_name or found.name


def message(error: LedgerError) -> str:
    """The refusal's one line: the library's message and the fix as a command."""
    return error.message if error.fix is None else f"{error.message}; {worded(error.fix)}"


def as_json(fix: Fix | None) -> dict[str, Any] | None:
    """The fix as JSON fields: what to do, the detail, and the command that does it."""
    if fix is None:
        return None
    return {"action": fix.action, "detail": dict(fix.detail), "text": worded(fix)}
