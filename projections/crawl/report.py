"""What the crawl adds to ``ledger report`` (``ReadModel.report``): the hex map and its
legend, Health and Energy as bars out of their cap, and the explorer's tracks."""

from __future__ import annotations

from typing import Any

from ledger.i18n import _
from ledger.projections.crawl.game import CAP, CHAPTER_DAYS, GOD_CHAPTER, stored_table
from ledger.projections.crawl.views import chapter_name, map_entries
from ledger.systems import ReportHooks, Track
from ledger.systems.crawl import terms

METERS = {"health": CAP, "energy": CAP}
"""Health and Energy never exceed the cap: the sheet draws them as bars out of it."""


def tracks(sheet: dict[str, Any]) -> dict[str, Track]:
    """Health and Energy out of their cap, the hunger streak and the bits, over time."""
    found: dict[str, Track] = {}
    for name in ("health", "energy"):
        if isinstance(sheet.get(name), int):
            found[name] = (sheet[name], CAP)
    found["hunger streak"] = (sheet.get("hunger_streak"), None)
    found["bits"] = (sheet.get("bits"), None)
    return found


def charts(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Health and Energy together, the hunger streak as bars, the bits."""

    def series(*names: str) -> list[int]:
        return [i for i, t in enumerate(found) if t["name"] in names]

    return [
        {"title": _("Health and Energy"), "series": series("health", "energy")},
        {"title": _("Hunger streak (days without a meal)"), "series": series("hunger streak"), "bars": True},
        {"title": _("Bits"), "series": series("bits")},
    ]


def divine_signs(tables: dict[str, Any]) -> dict[str, str]:
    """The chapters whose divine sign a hex can hold, number -> name (the legend names
    them; God's chapter has God's own icon)."""
    return {str(c): terms.word(chapter_name(tables, c)) for c in CHAPTER_DAYS.values() if c != GOD_CHAPTER}


def legend(tables: dict[str, Any]) -> dict[str, Any]:
    """The terrains in table order (each its colour), each terrain's name in the reader's
    language, and the divine signs' chapters."""
    terrains = list(stored_table(tables, "terrain").values())
    return {
        "terrains": terrains,
        "names": {t: terms.word(t) for t in terrains if isinstance(t, str)},
        "divine_signs": divine_signs(tables),
    }


HOOKS = ReportHooks(
    map=map_entries,
    map_kind="hex",
    tracks=tracks,
    charts=charts,
    meters=METERS,
    legend=legend,
)
"""The crawl's report hooks (``ReadModel.report``)."""
