"""The crawl system: its events, commands, rules and tables (``system.SYSTEM``)."""
