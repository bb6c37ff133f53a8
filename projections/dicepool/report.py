"""What the dice pool adds to ``ledger report`` (``ReadModel.report``): each runner's
condition monitors and pools over time."""

from __future__ import annotations

from typing import Any

from ledger.i18n import _
from ledger.systems import ReportHooks, Track
from ledger.systems.dicepool.model import POOL_NAMES, shown


def tracks(sheet: dict[str, Any]) -> dict[str, Track]:
    """Physical and stun damage out of the monitor's boxes, and every pool out of its size."""
    cond = sheet.get("condition")
    if not isinstance(cond, dict):
        return {}
    found: dict[str, Track] = {}
    for name in ("physical", "stun"):
        found[_("physical damage") if name == "physical" else _("stun damage")] = (
            cond.get(name),
            cond.get("boxes"),
        )
    for name, value in (sheet.get("pools") or {}).items():
        if isinstance(value, dict) and isinstance(value.get("current"), int):
            found[_("{pool} pool", pool=shown(name, POOL_NAMES))] = (int(value["current"]), value.get("max"))
    return found


HOOKS = ReportHooks(tracks=tracks)
"""The dice pool's report hooks (``ReadModel.report``)."""
