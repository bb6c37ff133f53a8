"""The d100 system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it (its command group, ``ledger.cli.d100``), published
without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="d100",
    command="d100",
    summary="The d100 system: percentile skills, luck, hit/valor/fatigue points.",
)
