"""The d20 system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it, published without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="d20",
    description="a Black Hack / Mothership-style d20: modifiers, advantage, calm points, usage dice, "
    "autofire, stress and panic",
    cli="ledger.cli.d20:group",
    cli_help="The d20 system: checks, calm points, usage dice, stress and panic.",
)
