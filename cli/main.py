"""The ``ledger`` command: a thin layer over the :mod:`ledger` library.

The root group is :mod:`ledger.cli.root`; each module imported here adds the commands of
one idea to it: :mod:`~ledger.cli.campaigns` (new, campaigns, use, status),
:mod:`~ledger.cli.play` (character, roll, note), :mod:`~ledger.cli.history` (undo, redo,
fork, log, sheet, journal, replay), :mod:`~ledger.cli.trust` (verify, dice, export, import,
key) and :mod:`~ledger.cli.demo`. The rest (statistics, tables, the report, each system's
group) is loaded only when used (``LAZY``, :mod:`ledger.cli.systems`).
"""

from __future__ import annotations

from ledger.cli import campaigns, demo, history, play, trust
from ledger.cli.root import EXIT_CODES, cli

__all__ = ["EXIT_CODES", "cli", "main"]

COMMANDS = (campaigns, play, history, trust, demo)
"""The modules whose commands the root group holds from the start."""


def main() -> None:
    cli(prog_name="ledger")


if __name__ == "__main__":
    main()
