"""The dicepool system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it (its command group, ``ledger.cli.dicepool``), published
without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="dicepool",
    command="dicepool",
    summary="The dicepool system: target numbers, pools, damage staging.",
)
