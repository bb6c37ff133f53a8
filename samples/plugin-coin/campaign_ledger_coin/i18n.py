"""The coin system's own words: its catalog, under its own gettext domain.

A plugin does not add sentences to the ledger's catalog; it ships its own
(``locale/<lang>/LC_MESSAGES/campaign_ledger_coin.po``, compiled to ``.mo`` when the wheel
is built, or on first use in a checkout) and marks its sentences with this catalog's
functions, which Babel's extractor knows by name as it knows the ledger's. Each says its
sentence in the language of the moment, the one the ledger's front end chose (``ledger
--lang es``, ``LEDGER_LANG``, the live page's seat): the plugin never picks a language.
"""

from __future__ import annotations

from pathlib import Path

from ledger.i18n import Catalog, Readings

CATALOG = Catalog("campaign_ledger_coin", Path(__file__).parent / "locale")

_ = CATALOG._
n_ = CATALOG.n_
p_ = CATALOG.p_
translate = CATALOG.translate


def N_(msgid: str) -> str:
    """Mark ``msgid`` for this catalog where it is written; :func:`translate` says it."""
    return msgid


def NP_(context: str, msgid: str) -> str:
    """:func:`N_` with a context (the live page's buttons are under ``button``)."""
    return msgid


FACE_WORDS = {"heads": N_("heads"), "tails": N_("tails")}
BUTTONS = (NP_("button", "Flip"),)
"""The coin's command as the live page's button names it (ledger.web.affordances)."""
"""The coin's faces: each stable key (what is stored) and its English name."""

FACE_NAMES = Readings(FACE_WORDS, catalog=CATALOG)
"""The words a player may type for a face, in every language: ``heads`` or ``cara``."""


def face(key: str) -> str:
    """A face as the reader reads it (``heads``, ``cara``)."""
    return FACE_NAMES.name(key) if key in FACE_WORDS else key
