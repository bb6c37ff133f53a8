"""campaign-ledger: a tabletop campaign as an append-only, tamper-evident event log.

from ledger import Ledger
from ledger.systems import system_names
with Ledger("table.ledger") as book:
    book.new_campaign(system_names()[0], "Friday")  # any installed system
    book.roll("2d6+1", "Friday", faces=[3, 5])
    print([entry.summary for entry in book.log("Friday")])
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ledger.errors import LedgerError

if TYPE_CHECKING:
    from ledger.campaign import Ledger
    from ledger.log.records import Campaign, LogEntry, Recorded

__all__ = ["Campaign", "Ledger", "LedgerError", "LogEntry", "Recorded"]
__version__ = "0.1.0"

_LAZY = {
    "Campaign": "ledger.log.records",
    "Ledger": "ledger.campaign",
    "LogEntry": "ledger.log.records",
    "Recorded": "ledger.log.records",
}
"""Names imported on first use: importing ``ledger`` (as every ``ledger.*`` module does,
the command line's among them) loads the store and the recording machinery only when a
program reaches for the :class:`Ledger`."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ledger' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
