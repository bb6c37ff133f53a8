"""The dicepool system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it, published without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="dicepool",
    description="d6 pools against target numbers: rule of six, combat pool, damage staging",
    cli="ledger.cli.dicepool:group",
    cli_help="The dicepool system: target numbers, pools, damage staging.",
)
