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

import atexit
import os
import sys
import threading
from typing import NoReturn

from ledger.cli.root import EXIT_CODES, cli

__all__ = ["EXIT_CODES", "cli", "main"]


def main() -> NoReturn:
    """The ``ledger`` program: the command, then :func:`leave` with its exit code."""
    try:
        cli(prog_name="ledger")
    except SystemExit as e:
        leave(e.code)
    leave(0)


def leave(code: object) -> NoReturn:
    """End the process with ``code`` once the command is done, as the interpreter would but
    for its tear-down of every module (DuckDB's, eventsourcing's, the ledger's own), which
    takes a warm ``stats`` about 30 ms after its last line is out (docs/performance.md).
    Everything a command opens it has closed by then (the ledger, the warehouse, the files it
    writes, all in ``with`` blocks); the standard streams are flushed and the exit handlers
    run (temporary files go, logging is shut down) before the process ends. The usual way
    out is taken when another thread still runs, when a stream cannot be flushed (the
    interpreter then says so and exits 120), or when the code is not a number."""
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if not isinstance(code, int) or others or run_exit_handlers is None:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    run_exit_handlers()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        os._exit(code or 120)
    os._exit(code)


if __name__ == "__main__":
    main()
