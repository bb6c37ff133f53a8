"""The campaign package: the :class:`Ledger` facade and the parts it hands each idea to.

- ``ledger`` — the :class:`Ledger`, the library's entry point: a short facade.
- ``campaigns`` — the registry of campaigns, the current one, the acting character,
  starting a campaign.
- ``history`` — a branch's stored events, the state at any version (snapshots, time
  travel), the head kept in memory, and the actions an undo or a redo reaches.
- ``recording`` — the one recording path: decide an action on the head, draw its dice,
  seal, append, and decide again when another writer won the race.
- ``commitments`` — provable dice: commit, seed, reveal, status.
- ``transfer`` — forks, and the glue of verify, export and import.
- ``batch`` — the bulk path: many commands on one campaign, one transaction, drafted
  through the recording path.

The plain data they hand out (a campaign, a tip, a recorded action) is the log's
(``ledger.log.records``).

Its modules are the top of the kernel: they may import the packages below them (trust,
deciding, the dice, the log and the base modules) and never a system, a projection or the
command line (pyproject.toml's import contracts). What only recording, proving dice,
verifying, exporting or importing needs is imported on first use, so that a command
that reads loads none of it.
"""

from __future__ import annotations

from ledger.campaign.ledger import Ledger
from ledger.log.records import Campaign

__all__ = ["Campaign", "Ledger"]
