"""The ``ledger`` command line: parse, call the library once, render."""
