"""The dicepool system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it (its command group, ``ledger.cli.dicepool``), published
without importing the rest."""

from ledger.i18n import N_
from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="dicepool",
    command="dicepool",
    summary=N_("The dicepool system: target numbers, pools, damage staging."),
)
