"""What the dice pool adds to ``ledger report`` (``ReadModel.report``): each runner's
condition monitors and pools over time."""

from __future__ import annotations

from typing import Any

from ledger.systems import ReportHooks, Track


def tracks(sheet: dict[str, Any]) -> dict[str, Track]:
    """Physical and stun damage out of the monitor's boxes, and every pool out of its size."""
    cond = sheet.get("condition")
    if not isinstance(cond, dict):
        return {}
    found: dict[str, Track] = {}
    for name in ("physical", "stun"):
        found[f"{name} damage"] = (cond.get(name), cond.get("boxes"))
    for name, value in (sheet.get("pools") or {}).items():
        if isinstance(value, dict) and isinstance(value.get("current"), int):
            found[f"{name} pool"] = (int(value["current"]), value.get("max"))
    return found


HOOKS = ReportHooks(tracks=tracks)
"""The dice pool's report hooks (``ReadModel.report``)."""
