"""The freeform system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it, published without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="freeform",
    description="any game: generic dice rolls, characters and notes",
)
