"""A refusal's fix in the command line's words: the library's (:mod:`ledger.fixes`, which
the live table words its refusals with too), told how the command line names the command
group of a system that publishes no help."""

from __future__ import annotations

from ledger.cli.systems import command_name
from ledger.fixes import (
    OPERATIONS,
    OPTIONS,
    TEMPLATES,
    as_json,
    command_line,
    given,
    message,
    name_groups_with,
    options_in,
    spelled,
    worded,
)

name_groups_with(command_name)

__all__ = [
    "OPERATIONS",
    "OPTIONS",
    "TEMPLATES",
    "as_json",
    "command_line",
    "given",
    "message",
    "options_in",
    "spelled",
    "worded",
]
