"""The ledger's documentation, installed with it as the ``ledger.docs`` package data: a help
text that points to a document names the file here, which a user of the installed wheel
can open as well as a user of the checkout."""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent
"""Where the documents are: ``docs/`` of a checkout, ``ledger/docs/`` of an installed wheel."""


def path(name: str) -> str:
    """The full path of the document ``name`` (``rulings.md``, ``rulings/crawl.md``)."""
    found = FOLDER / name
    if not found.is_file():
        raise FileNotFoundError(f"no document {name!r} in {FOLDER}")
    return str(found)
