"""The freeform sheet: characters, their rolls and notes."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from ledger.i18n import N_, n_
from ledger.log.events import CampaignStarted, Envelope, Event, Noted, Rolled
from ledger.systems import Control, SheetField, SheetLayout, SheetSection


class FreeformState(msgspec.Struct, frozen=True):
    rolls: int = 0
    notes: int = 0
    last_roll: Rolled | None = None
    tallies: dict[str, tuple[int, int]] = {}
    """Per character: (rolls, sum of totals)."""


def initial(_started: CampaignStarted) -> FreeformState:
    return FreeformState()


def evolve(state: FreeformState, event: Event, env: Envelope[Any]) -> FreeformState:
    if isinstance(event, Rolled):
        who = env.actor or "-"
        tallies = dict(state.tallies)
        count, total = tallies.get(who, (0, 0))
        tallies[who] = (count + 1, total + event.result.total)
        return replace(state, rolls=state.rolls + 1, last_roll=event, tallies=tallies)
    if isinstance(event, Noted):
        return replace(state, notes=state.notes + 1)
    return state


def sheet(state: Any, actor: str | None) -> dict[str, Any]:
    game: FreeformState = state.game
    chars = {}
    for name in state.core.characters:
        count, total = game.tallies.get(name, (0, 0))
        chars[name] = {
            "attrs": state.core.attrs.get(name, {}),
            "rolls": count,
            "average": round(total / count, 2) if count else None,
        }
    return {
        "campaign": state.core.name,
        "system": "freeform",
        "characters": chars,
        "rolls": game.rolls,
        "notes": game.notes,
        "last_roll": game.last_roll.summary() if game.last_roll else None,
        "last_notation": game.last_roll.result.notation if game.last_roll else None,
        "last_label": game.last_roll.label if game.last_roll else None,
        "character_lines": [_character_line(name, c) for name, c in chars.items()],
    }


def _character_line(name: str, c: dict[str, Any]) -> str:
    """``Ana (str=3): 2 rolls, average 7.5``: who plays, and their rolls."""
    who = name + (" (" + ", ".join(f"{k}={v}" for k, v in c["attrs"].items()) + ")" if c["attrs"] else "")
    if c["average"] is None:
        return n_("{who}: {n} roll", "{who}: {n} rolls", c["rolls"], who=who)
    return n_(
        "{who}: {n} roll, average {average:g}",
        "{who}: {n} rolls, average {average:g}",
        c["rolls"],
        who=who,
        average=float(c["average"]),
    )


SHEET = SheetLayout(
    title=(N_("{campaign} (freeform)"),),
    headline=(SheetField("rolls", N_("rolls")), SheetField("notes", N_("notes"))),
    sections=(
        SheetSection(N_("Characters"), (SheetField("character_lines", ""),), when="character_lines"),
        SheetSection(N_("Last roll"), (SheetField("last_roll", ""),), when="last_roll"),
    ),
    controls=(
        Control(
            command="core.Roll",
            on="last_roll",
            args={"notation": "{last_notation}", "label": "{last_label}"},
            label=N_("roll {last_notation} again"),
        ),
    ),
)
"""The table's sheet (freeform keeps one for everyone): who plays, their rolls, the last one."""
