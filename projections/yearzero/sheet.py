"""A yearzero mutant's sheet: the data ``ledger sheet --json`` gives, and the layout its text is read in."""

from __future__ import annotations

from typing import Any

from ledger.projections.yearzero.game import Character, YZState
from ledger.projections.yearzero.vocabulary import ATTRIBUTES, KIND_OF, clock
from ledger.systems import SheetField, SheetLayout, SheetSection


def character_sheet(c: Character, game: YZState) -> dict[str, Any]:
    """A mutant's sheet: the character as data, then the lines its text is read in,
    each worded from that data."""
    built: dict[str, Any] = {
        "name": c.name,
        **{a: {"current": c.current[a], "max": c.max[a]} for a in ATTRIBUTES},
        "broken": bool(c.broken),
        "broken_by": [KIND_OF[a] for a in ATTRIBUTES if a in c.broken],
        "dead": c.dead,
        "death_cause": c.death_cause,
        "conditions": list(c.conditions),
        "mutation_points": c.mutation_points,
        "skills": dict(c.skills),
        "gear": {
            n: {
                "kind": i.kind,
                "bonus": i.bonus,
                "max_bonus": i.max_bonus,
                "broken": i.bonus == 0 and not i.destroyed,
                "destroyed": i.destroyed,
                "worn": c.worn.get(i.kind) == n,
            }
            for n, i in c.gear.items()
        },
        "rot": {"total": c.rot, "permanent": c.permanent_rot},
        "critical_injuries": [
            {
                "name": i.name,
                "result": i.result,
                "lethal": i.lethal,
                "deadline": clock(i.deadline_at)["text"] if i.deadline_at is not None else None,
                "heals": clock(i.heals_at)["text"] if i.heals_at is not None else None,
                "effect": i.effect,
            }
            for i in c.injuries
        ],
        "today": {"ate": c.ate, "drank": c.drank, "slept": c.slept},
        "recovery_resources": list(c.bank),
        "booze": [clock(b.wears_off_at)["text"] for b in c.booze],
        "time": clock(game.minute),
        **({"ignored": list(c.ignored)} if c.ignored else {}),
    }
    return {
        **built,
        "status": _status(built),
        "gear_lines": [_gear_line(name, item) for name, item in built["gear"].items()],
        "injury_lines": [_injury_line(injury) for injury in built["critical_injuries"]],
    }


def sheet(state: Any, actor: str | None) -> dict[str, Any]:
    game: YZState = state.game
    name = actor if actor in game.characters else state.core.last_actor
    if name not in game.characters:
        name = game.order[-1] if game.order else None
    party = {
        "time": clock(game.minute),
        "position": game.position or None,
        "characters": list(game.order),
    }
    if name is None:
        return {"campaign": state.core.name, "system": "yearzero", **party}
    pending = game.pending
    return {
        **character_sheet(game.characters[name], game),
        "campaign": state.core.name,
        "position": party["position"],
        "party": party["characters"],
        "can_push": bool(
            pending
            and not pending.pushed
            and pending.character == name
            and pending.action == game.last_action
        ),
    }


def _status(built: dict[str, Any]) -> str:
    if built["dead"]:
        return f"DEAD: {built['death_cause']}"
    return "broken by " + ", ".join(built["broken_by"]) if built["broken"] else "ok"


def _gear_line(name: str, item: dict[str, Any]) -> str:
    mark = " destroyed" if item["destroyed"] else (" broken" if item["broken"] else "")
    worn = " (worn)" if item["worn"] else ""
    return f"{name} {item['kind']} +{item['bonus']}/{item['max_bonus']}{mark}{worn}"


def _injury_line(injury: dict[str, Any]) -> str:
    dies = (
        f" LETHAL, dies {injury['deadline']}" if injury["lethal"] and injury["deadline"] is not None else ""
    )
    heals = f", heals {injury['heals']}" if injury["heals"] is not None else ""
    effect = f". {injury['effect']}" if injury["effect"] else ""
    return f"{injury['name']}{dies}{heals}{effect}"


SHEET = SheetLayout(
    title=(
        "{name}  {time.text}  at {position}  [{status}]",
        "{campaign} (yearzero) {time.text}: no characters yet",
    ),
    headline=tuple(SheetField(a, a.capitalize()) for a in ATTRIBUTES),
    sections=(
        SheetSection(
            "Mutant",
            (
                SheetField("mutation_points", "mutation points"),
                SheetField("rot", "Rot", show="{rot.total} ({rot.permanent} permanent)"),
            ),
        ),
        SheetSection("Skills", (SheetField("skills", ""),), when="skills"),
        SheetSection("Gear", (SheetField("gear_lines", ""),), when="gear_lines"),
        SheetSection("Conditions", (SheetField("conditions", ""),), when="name"),
        SheetSection("Critical injuries", (SheetField("injury_lines", ""),), when="injury_lines"),
        SheetSection("Party", (SheetField("party", ""),), when="name"),
    ),
)
"""A mutant's sheet as a player reads it (``ledger sheet``, the report)."""
