"""The freeform sheet: characters, their rolls and notes."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from ledger.events import CampaignStarted, Envelope, Event, Noted, Rolled


class FreeformState(msgspec.Struct, frozen=True):
    rolls: int = 0
    notes: int = 0
    last_roll: str | None = None
    totals: dict[str, list[int]] = {}


def initial(_started: CampaignStarted) -> FreeformState:
    return FreeformState()


def evolve(state: FreeformState, event: Event, env: Envelope[Any]) -> FreeformState:
    if isinstance(event, Rolled):
        who = env.actor or "-"
        totals = dict(state.totals)
        totals[who] = [*totals.get(who, []), event.result.total]
        return replace(state, rolls=state.rolls + 1, last_roll=event.summary(), totals=totals)
    if isinstance(event, Noted):
        return replace(state, notes=state.notes + 1)
    return state


def sheet(state: Any, actor: str | None) -> dict[str, Any]:
    game: FreeformState = state.game
    chars = {}
    for name in state.core.characters:
        rolls = game.totals.get(name, [])
        chars[name] = {
            "attrs": state.core.attrs.get(name, {}),
            "rolls": len(rolls),
            "average": round(sum(rolls) / len(rolls), 2) if rolls else None,
        }
    return {
        "campaign": state.core.name,
        "system": "freeform",
        "characters": chars,
        "rolls": game.rolls,
        "notes": game.notes,
        "last_roll": game.last_roll,
    }
