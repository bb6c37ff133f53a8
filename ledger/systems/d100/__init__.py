"""The d100 system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it, published without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="d100",
    description="percentile roll-under: success levels, fumbles, luck, hit/valor/fatigue points, rounds",
    cli="ledger.cli.d100:group",
    cli_help="The d100 system: percentile skills, luck, hit/valor/fatigue points.",
)
