"""What a system's commands on the command line may use, and all they need (docs/plugins.md).

A system publishes a function under ``campaign_ledger.commands`` that the command line
calls with a click group to register the system's :class:`SystemGroup` on. Its commands
take the context the root group builds (:class:`Ctx`, handed on by :func:`pass_ctx`), the
options every command takes (:func:`common`: ``--json``, ``-c CAMPAIGN``, ``--as
CHARACTER``; :func:`faces_option`: ``--faces`` for physical dice), and print what they did
by :func:`emit` (JSON with ``--json``, else text), :func:`recorded_json` giving the JSON
of what a command recorded; :func:`run_command` does all of it for one of the system's
commands. This module is the public face of the command line: what it names keeps its
name and meaning; the rest of :mod:`ledger.cli` may change.
"""

from __future__ import annotations

from ledger.cli.options import Ctx, common, emit, faces_option, pass_ctx, recorded_json, run_command
from ledger.cli.systems import SystemGroup

__all__ = [
    "Ctx",
    "SystemGroup",
    "common",
    "emit",
    "faces_option",
    "pass_ctx",
    "recorded_json",
    "run_command",
]
