"""campaign-ledger: a tabletop campaign as an append-only, tamper-evident event log.

from ledger import Ledger
from ledger.systems import system_names
with Ledger("table.ledger") as book:
    book.new_campaign(system_names()[0], "Friday")  # any installed system
    book.roll("2d6+1", "Friday", faces=[3, 5])
    print([entry.summary for entry in book.log("Friday")])
"""

from ledger.campaign import Campaign, Ledger, LogEntry, Recorded
from ledger.errors import LedgerError

__all__ = ["Campaign", "Ledger", "LedgerError", "LogEntry", "Recorded"]
__version__ = "0.1.0"
