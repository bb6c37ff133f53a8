"""A yearzero mutant's sheet: the data ``ledger sheet --json`` gives, and the layout its text is read in."""

from __future__ import annotations

from typing import Any

from ledger.i18n import N_, _, p_
from ledger.projections.yearzero.game import Character, YZState
from ledger.projections.yearzero.vocabulary import (
    ATTRIBUTES,
    BASIC_SKILLS,
    KIND_OF,
    SLOTS,
    TRAUMA,
    clock,
    condition_word,
    remember_tables,
    said,
    slot_word,
    table_text,
    term,
    trauma_word,
)
from ledger.systems import Ask, Control, Form, SheetField, SheetLayout, SheetSection


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
        "skill_text": ", ".join(f"{term(k)} {v}" for k, v in built["skills"].items()),
        "skill_rows": {k: {"name": term(k), "level": v} for k, v in built["skills"].items()},
        "condition_text": ", ".join(condition_word(k) for k in built["conditions"])
        or p_("yearzero conditions", "none"),
        "gear_lines": [_gear_line(name, item) for name, item in built["gear"].items()],
        "injury_lines": [_injury_line(injury) for injury in built["critical_injuries"]],
    }


def sheet(state: Any, actor: str | None) -> dict[str, Any]:
    game: YZState = state.game
    remember_tables(game.tables)  # a table's texts in the reader's language
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
    own = game.rolls.get(name)
    return {
        **character_sheet(game.characters[name], game),
        "campaign": state.core.name,
        "position": party["position"],
        "party": party["characters"],
        "can_push": own is not None and not own.pushed,
    }


def _status(built: dict[str, Any]) -> str:
    if built["dead"]:
        return _("DEAD: {cause}", cause=said(built["death_cause"] or ""))
    if built["broken"]:
        return _("broken by {kinds}", kinds=", ".join(trauma_word(k) for k in built["broken_by"]))
    return _("ok")


def _gear_line(name: str, item: dict[str, Any]) -> str:
    fields = dict(name=name, kind=slot_word(item["kind"]), bonus=item["bonus"], most=item["max_bonus"])
    if item["destroyed"]:
        line = _("{name} {kind} +{bonus}/{most} destroyed", **fields)
    elif item["broken"]:
        line = _("{name} {kind} +{bonus}/{most} broken", **fields)
    else:
        line = _("{name} {kind} +{bonus}/{most}", **fields)
    return _("{item} (worn)", item=line) if item["worn"] else line


def _injury_line(injury: dict[str, Any]) -> str:
    line = table_text("critical_injuries", "name", injury["name"])
    if injury["lethal"] and injury["deadline"] is not None:
        line = _("{injury} LETHAL, dies {deadline}", injury=line, deadline=injury["deadline"])
    if injury["heals"] is not None:
        line = _("{injury}, heals {heals}", injury=line, heals=injury["heals"])
    if injury["effect"]:
        effect = table_text("critical_injuries", "effect", injury["effect"])
        line = _("{injury}. {effect}", injury=line, effect=effect)
    return line


ROLL_OPTIONS = (
    Ask(field="item", label="item", pick="gear", where={"kind": ("gear",), "destroyed": (False,)}),
    Ask(field="helpers", label="helpers", default=0, low=0, high=3),
    Ask(field="modifier", label="mod", default=0, low=-10, high=10),
)
"""What a skill or an attribute roll offers before it is made: an item's gear dice, the
people helping, a modifier; none by default."""
WORN = ("armor", "shield", "suit")

CONTROLS = (
    *(Control(command="yearzero.Roll", on=a, args={"what": a}, options=ROLL_OPTIONS) for a in ATTRIBUTES),
    Control(
        command="yearzero.Roll",
        on="skills",
        each="skill_rows",
        label="{value.name}",
        detail="{value.level}",
        args={"what": "{key}"},
        options=ROLL_OPTIONS,
    ),
    Control(
        command="yearzero.Roll",
        on="skills",
        label=N_("another skill"),
        detail=N_("level 0"),
        options=(Ask(field="what", label="skill", choices=tuple(BASIC_SKILLS)), *ROLL_OPTIONS),
    ),
    Control(
        command="yearzero.Roll",
        on="gear_lines",
        each="gear",
        where={"kind": ("gear",), "destroyed": (False,)},
        args={"item": "{key}"},
        options=(
            Ask(field="what", label="skill", choices=(*BASIC_SKILLS, *ATTRIBUTES)),
            Ask(field="helpers", label="helpers", default=0, low=0, high=3),
            Ask(field="modifier", label="mod", default=0, low=-10, high=10),
        ),
    ),
    Control(
        command="yearzero.Wear",
        on="gear_lines",
        each="gear",
        where={"kind": WORN, "worn": (False,), "destroyed": (False,)},
        args={"item": "{key}"},
        label=N_("wear {key}"),
    ),
    Control(
        command="yearzero.Wear",
        on="gear_lines",
        each="gear",
        where={"kind": WORN, "worn": (True,)},
        args={"off": "{value.kind}"},
        label=N_("take off {key}"),
    ),
    Control(command="yearzero.Push", label=N_("push the roll"), when="can_push"),
)
"""What a mutant taps on the sheet: an attribute or a skill rolls it, an item of gear
rolls with it, armor is put on or taken off; after a roll of one's own, a push."""

ROOM = (Ask(field="everyone", label="all"),)
FORMS = (
    Form(command="yearzero.Roll", name="yz roll", group=N_("Rolls"), sheet=True),
    Form(command="yearzero.Push", name="yz push", group=N_("Rolls"), sheet=True),
    Form(
        command="yearzero.Enter",
        name="yz enter",
        group=N_("Travel"),
        asks=(
            Ask(field="sector", label="sector"),
            Ask(field="rot_level", label="rot-level", low=0, high=3),
            Ask(field="vehicle", label="vehicle"),
        ),
    ),
    Form(
        command="yearzero.Explore",
        name="yz explore",
        group=N_("Travel"),
        asks=(
            Ask(
                field="terrain", label="terrain", choices=("open", "typical", "difficult"), default="typical"
            ),
            Ask(field="hurry", label="hurry"),
            Ask(field="stunt", label="stunt"),
        ),
    ),
    Form(
        command="yearzero.Tick",
        name="yz tick",
        group=N_("Travel"),
        asks=(Ask(field="minutes", label="hours", scale=60),),
    ),
    Form(
        command="yearzero.Eat",
        name="yz eat",
        group=N_("Food, water and rest"),
        asks=(Ask(field="contaminated", label="contaminated"), *ROOM),
    ),
    Form(
        command="yearzero.Drink",
        name="yz drink",
        group=N_("Food, water and rest"),
        asks=(Ask(field="contaminated", label="contaminated"), *ROOM),
    ),
    Form(
        command="yearzero.Sleep",
        name="yz sleep",
        group=N_("Food, water and rest"),
        asks=(
            Ask(field="hours", label="hours", low=1, high=24),
            Ask(field="watch", label="watch", pick="@characters"),
        ),
    ),
    Form(
        command="yearzero.Rest",
        name="yz rest",
        group=N_("Food, water and rest"),
        asks=(
            Ask(field="hours", label="hours", low=1, high=24),
            Ask(field="intimacy", label="intimacy", pick="@characters"),
        ),
    ),
    Form(command="yearzero.Booze", name="yz booze", group=N_("Food, water and rest")),
    Form(command="yearzero.Wash", name="yz wash", group=N_("Food, water and rest")),
    Form(
        command="yearzero.Initiative",
        name="yz initiative",
        group=N_("Fight"),
        asks=(Ask(field="ambush", label="ambush"),),
    ),
    Form(
        command="yearzero.Heal",
        name="yz heal",
        group=N_("Fight"),
        asks=(
            Ask(field="target", label="target", pick="@characters"),
            Ask(field="item", label="item", pick="gear", where={"kind": ("gear",), "destroyed": (False,)}),
            Ask(field="helpers", label="helpers", default=0, low=0, high=3),
            Ask(field="modifier", label="mod", default=0, low=-10, high=10),
        ),
    ),
    Form(
        command="yearzero.Damage",
        name="yz damage",
        group=N_("Harm"),
        asks=(
            Ask(field="kind", label="kind", choices=tuple(sorted(TRAUMA))),
            Ask(field="amount", label="amount", low=1, high=20),
            Ask(field="armor", label="no-armor", flip=True),
        ),
    ),
    Form(
        command="yearzero.Rot",
        name="yz rot",
        group=N_("Harm"),
        asks=(Ask(field="points", label="points", low=1, high=20), Ask(field="source", label="source")),
    ),
    Form(command="yearzero.Critical", name="yz critical", group=N_("Harm")),
    Form(
        command="yearzero.Cold",
        name="yz cold",
        group=N_("Harm"),
        asks=(
            Ask(field="item", label="item", pick="gear", where={"kind": ("gear",), "destroyed": (False,)}),
        ),
    ),
    Form(command="yearzero.Warm", name="yz warm", group=N_("Harm"), asks=ROOM),
    Form(
        command="yearzero.Wear",
        name="yz armor",
        group=N_("Gear"),
        asks=(
            Ask(field="item", label="item", pick="gear", where={"kind": WORN}),
            Ask(field="off", label="off", choices=SLOTS),
        ),
    ),
    Form(
        command="yearzero.Repair",
        name="yz repair",
        group=N_("Gear"),
        asks=(
            Ask(field="item", label="item", pick="gear"),
            Ask(field="tool", label="tool", pick="gear", where={"kind": ("gear",), "destroyed": (False,)}),
            Ask(field="modifier", label="mod", default=0, low=-10, high=10),
        ),
    ),
)
"""The Year Zero commands a mutant's sheet does not hold, by what the party is doing."""

SHEET = SheetLayout(
    title=(
        N_("{name}  {time.text}  at {position}  [{status}]"),
        N_("{campaign} (yearzero) {time.text}: no characters yet"),
    ),
    headline=(
        # the attributes' names, as the sheet labels them (the catalog gives them in Spanish
        # as the rules do: Fortaleza, Destreza, Intelecto, Empatía)
        SheetField("strength", N_("Strength")),
        SheetField("agility", N_("Agility")),
        SheetField("wits", N_("Wits")),
        SheetField("empathy", N_("Empathy")),
    ),
    sections=(
        SheetSection(
            N_("Mutant"),
            (
                SheetField("mutation_points", N_("mutation points")),
                SheetField("rot", N_("Rot"), show=N_("{rot.total} ({rot.permanent} permanent)")),
            ),
        ),
        # the skills and conditions by their names in the reader's language, each row still
        # the data's own (its controls, a page's slot)
        SheetSection(N_("Skills"), (SheetField("skills", "", show="{skill_text}"),), when="skills"),
        SheetSection(N_("Gear"), (SheetField("gear_lines", ""),), when="gear_lines"),
        SheetSection(N_("Conditions"), (SheetField("conditions", "", show="{condition_text}"),), when="name"),
        SheetSection(N_("Critical injuries"), (SheetField("injury_lines", ""),), when="injury_lines"),
        SheetSection(N_("Party"), (SheetField("party", ""),), when="name"),
    ),
    controls=CONTROLS,
)
"""A mutant's sheet as a player reads it (``ledger sheet``, the report)."""
