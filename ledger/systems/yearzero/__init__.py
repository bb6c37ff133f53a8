"""The yearzero system: its events, commands, rules and tables (``system.SYSTEM``); ``HELP``,
what ``ledger --help`` shows of it, published without importing the rest."""

from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="yearzero",
    description="Mutant: Year Zero: base/skill/gear dice, pushing, trauma, gear damage, conditions, Rot, Zone",
    cli="ledger.cli.yearzero:group",
    cli_name="yz",
    cli_help="The yearzero system: pushes, trauma, Rot and the Zone.",
)
