"""What Year Zero adds to ``ledger report`` (``ReadModel.report``): the Zone's sectors as a
grid and each character's Rot over time."""

from __future__ import annotations

from typing import Any

from ledger.i18n import _
from ledger.projections.yearzero.views import zone_view
from ledger.projections.yearzero.vocabulary import split_sector
from ledger.systems import ReportHooks, Track


def zone_map(state: Any) -> dict[str, Any]:
    """The Zone as the page draws it: the sectors with their grid cells (a sector that is
    no letter-number name has none), the path, the party's position and the Ark."""
    zone = zone_view(state.game)
    cells = {n: split_sector(n) for n in zone["sectors"]}
    zone["cells"] = {n: list(c) for n, c in cells.items() if c is not None}
    return zone


def tracks(sheet: dict[str, Any]) -> dict[str, Track]:
    """Each character's Rot points, beside the attribute meters."""
    rot = sheet.get("rot")
    return {"rot": (rot.get("total"), None)} if isinstance(rot, dict) else {}


def charts(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every character's Rot on one chart (the attributes get a chart per character)."""
    return [{"title": _("Rot points"), "series": [i for i, t in enumerate(found) if t["name"] == "rot"]}]


HOOKS = ReportHooks(map=zone_map, map_kind="zone", tracks=tracks, charts=charts)
"""Year Zero's report hooks (``ReadModel.report``)."""
