"""The dicepool system: its events, commands, rules and tables (``system.SYSTEM``)."""
