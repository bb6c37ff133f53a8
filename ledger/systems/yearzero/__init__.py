"""The yearzero system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it (its command group, ``ledger.cli.yearzero``), published
without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="yearzero",
    command="yz",
    summary="The yearzero system: pushes, trauma, Rot and the Zone.",
)
