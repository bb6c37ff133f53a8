"""The d100 system: its events, commands, rules and tables (``system.SYSTEM``)."""
