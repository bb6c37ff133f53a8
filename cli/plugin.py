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

Help texts are said in the reader's language: a :class:`SystemGroup`'s commands (made with
its ``command()`` and ``group()``) are :class:`Command` and :class:`Group`, which put their
help, their options' and their arguments' into words when it is shown. Mark each help with
``N_`` where it is written (``help=N_("...")``, not a docstring, which the catalogs'
extractor does not read); a plugin with a catalog of its own sets ``catalog`` on its group
(docs/plugins.md). A command made apart (``@click.command(cls=Command)``) says its help so too.
"""

from __future__ import annotations

from ledger.cli.options import Ctx, common, emit, faces_option, pass_ctx, recorded_json, run_command
from ledger.cli.systems import SystemGroup
from ledger.cli.translated import Command, Group

__all__ = [
    "Command",
    "Ctx",
    "Group",
    "SystemGroup",
    "common",
    "emit",
    "faces_option",
    "pass_ctx",
    "recorded_json",
    "run_command",
]
