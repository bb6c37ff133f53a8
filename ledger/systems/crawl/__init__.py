"""The crawl system: its events, commands, rules and tables (``system.SYSTEM``). What
``ledger --help`` shows of it, its command group's line and the walk through a day of
play, is the command line's (``ledger.cli.crawl_help``)."""
