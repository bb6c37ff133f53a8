"""The d20 system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it (its command group, ``ledger.cli.d20``), published
without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="d20",
    command="d20",
    summary="The d20 system: checks, calm points, usage dice, stress and panic.",
)
