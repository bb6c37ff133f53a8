"""The d20 system: its events, commands, rules and tables (``system.SYSTEM``)."""
