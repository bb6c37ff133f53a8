"""campaign-ledger: a tabletop campaign as an append-only, tamper-evident event log.

from ledger import Ledger
with Ledger("table.ledger") as book:
    book.new_campaign("freeform", "Friday")
    book.roll("2d6+1", "Friday", faces=[3, 5])
    print(book.state("Friday").game.rolls)
"""

from ledger.campaign import Campaign, Ledger, LogEntry, Recorded
from ledger.errors import LedgerError

__all__ = ["Campaign", "Ledger", "LedgerError", "LogEntry", "Recorded"]
__version__ = "0.1.0"
