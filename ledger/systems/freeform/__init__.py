"""The freeform system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it (no command group: the core's commands are its own),
published without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="freeform",
)
