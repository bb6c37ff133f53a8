"""The ``ledger`` command: a thin layer over the :mod:`ledger` library.

The root group is :mod:`ledger.cli.root`; each of the core commands' modules adds the
commands of one idea to it when it is imported: :mod:`~ledger.cli.campaigns` (new,
campaigns, use, status), :mod:`~ledger.cli.play` (character, roll, note),
:mod:`~ledger.cli.history` (undo, redo, fork, log, sheet, journal, replay),
:mod:`~ledger.cli.trust` (verify, dice, export, import, key) and :mod:`~ledger.cli.demo`.
Each is imported when one of its commands is run (``CORE``), or the help lists them; the
rest (statistics, tables, the report, each system's group) likewise (``LAZY``,
:mod:`ledger.cli.systems`).
"""

from __future__ import annotations

from ledger.cli.root import EXIT_CODES, cli

__all__ = ["EXIT_CODES", "cli", "main"]


def main() -> None:
    cli(prog_name="ledger")


if __name__ == "__main__":
    main()
