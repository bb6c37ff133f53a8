"""One module per rule system, each exposing ``SYSTEM`` (see ``ledger.systems``)."""
