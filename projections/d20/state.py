"""The d20 crew: folds of the d20 events, the character sheet and the facts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from ledger.i18n import N_, _, p_
from ledger.log.events import CampaignStarted, Envelope, Event
from ledger.systems import Ask, Control, Form, SheetField, SheetLayout, SheetSection
from ledger.systems.d20 import model
from ledger.systems.d20.events import (
    Attacked,
    Carried,
    Checked,
    Created,
    Damaged,
    Healed,
    Initiative,
    Panicked,
    Reassigned,
    Reloaded,
    Rested,
    Stressed,
    Supplied,
    Therapy,
    Unjammed,
    UsageRolled,
)


class Hero(msgspec.Struct, frozen=True, kw_only=True):
    """One character of the crew, as the sheet shows it."""

    name: str
    cls: str
    synthetic: bool = False
    attributes: dict[str, int]
    modifiers: dict[str, int]
    endurance: int
    talents: tuple[str, ...]
    skills: tuple[str, ...]
    level: int = 1
    hp: int
    hp_max: int
    calm: int
    calm_max: int
    defense: int
    mov: int
    money: int
    weapons: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    usage: dict[str, int] = {}
    jammed: tuple[str, ...] = ()
    empty: tuple[str, ...] = ()
    exposed: bool = False
    panic_due: bool = False
    traumas: tuple[str, ...] = ()
    initiative: int | None = None
    alive: bool = True
    acted: bool = False

    @property
    def carried(self) -> tuple[str, ...]:
        return self.weapons + self.items

    @property
    def overloaded(self) -> bool:
        return len(self.carried) > self.attributes.get("fue", 0)


class D20State(msgspec.Struct, frozen=True):
    tables: dict[str, Any] = {}
    heroes: dict[str, Hero] = {}
    day: int = 0


def initial(started: CampaignStarted) -> D20State:
    for table in ("panic", "traumas"):
        found = started.tables.get(table)
        if isinstance(found, dict) and isinstance(found.get("results"), dict):
            model.remember(table, found["results"])
    return D20State(tables=started.tables)


def _put(state: D20State, hero: Hero) -> D20State:
    return replace(state, heroes={**state.heroes, hero.name: hero})


def _change(state: D20State, who: str, **changes: Any) -> D20State:
    hero = state.heroes.get(who)
    if hero is None:
        return state
    return _put(state, replace(hero, **changes))


def _created(state: D20State, ev: Created) -> D20State:
    hero = Hero(
        name=ev.who,
        cls=ev.cls,
        synthetic=ev.synthetic,
        attributes=dict(ev.attributes),
        modifiers=dict(ev.modifiers),
        endurance=ev.endurance,
        talents=ev.talents,
        skills=ev.skills,
        level=ev.level,
        hp=ev.hp,
        hp_max=ev.hp,
        calm=ev.calm,
        calm_max=ev.calm,
        defense=ev.defense,
        mov=ev.mov,
        money=ev.money,
        weapons=ev.weapons,
        usage=dict(ev.usage),
    )
    return _put(state, hero)


def _reassigned(state: D20State, ev: Reassigned) -> D20State:
    return _change(
        state,
        ev.who,
        attributes=dict(ev.attributes),
        modifiers=dict(ev.modifiers),
        hp=ev.hp,
        hp_max=ev.hp,
        calm=ev.calm,
        calm_max=ev.calm,
        defense=ev.defense,
        mov=ev.mov,
        acted=True,
    )


def _checked(state: D20State, ev: Checked) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    calm = ev.calm_after if ev.calm_after is not None else hero.calm
    due = hero.panic_due or ev.panic_due
    return _put(state, replace(hero, calm=calm, panic_due=due))


def _initiative(state: D20State, ev: Initiative) -> D20State:
    return _change(state, ev.who, initiative=ev.total, exposed=False)


def _usage(state: D20State, ev: UsageRolled) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    return _put(state, replace(hero, usage={**hero.usage, ev.resource: ev.after}))


def _supplied(state: D20State, ev: Supplied) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    return _put(state, replace(hero, usage={**hero.usage, ev.resource: ev.sides}))


def _attacked(state: D20State, ev: Attacked) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    usage = dict(hero.usage)
    if ev.ammo is not None and ev.ammo_after is not None:
        usage[ev.ammo] = ev.ammo_after
    jammed = (*hero.jammed, ev.weapon) if ev.jammed and ev.weapon not in hero.jammed else hero.jammed
    empty = (*hero.empty, ev.weapon) if ev.emptied and ev.weapon not in hero.empty else hero.empty
    calm = ev.calm_after if ev.calm_after is not None else hero.calm
    return _put(state, replace(hero, usage=usage, jammed=jammed, empty=empty, exposed=ev.exposed, calm=calm))


def _reloaded(state: D20State, ev: Reloaded) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    return _put(state, replace(hero, empty=tuple(w for w in hero.empty if w != ev.weapon)))


def _spent(state: D20State, who: str, calm_after: int | None) -> D20State:
    """The calm point a pushed roll spent."""
    return state if calm_after is None else _change(state, who, calm=calm_after)


def _unjammed(state: D20State, ev: Unjammed) -> D20State:
    state = _spent(state, ev.who, ev.calm_after)
    hero = state.heroes.get(ev.who)
    if hero is None or not ev.roll.success:
        return state
    return _put(state, replace(hero, jammed=tuple(w for w in hero.jammed if w != ev.weapon)))


def _damaged(state: D20State, ev: Damaged) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    return _put(
        state,
        replace(
            hero,
            hp=ev.hp_after,
            calm=ev.calm_after,
            alive=not ev.died,
            panic_due=hero.panic_due or ev.panic_due,
        ),
    )


def _stressed(state: D20State, ev: Stressed) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    return _put(state, replace(hero, calm=ev.calm_after, panic_due=hero.panic_due or ev.panic_due))


def _panicked(state: D20State, ev: Panicked) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    traumas = (*hero.traumas, ev.trauma) if ev.trauma and ev.new_trauma else hero.traumas
    return _put(state, replace(hero, calm=ev.calm_after, panic_due=False, traumas=traumas))


def _healed(state: D20State, ev: Healed) -> D20State:
    return _change(_spent(state, ev.who, ev.calm_after), ev.target, hp=ev.hp_after)


def _rested(state: D20State, ev: Rested) -> D20State:
    for name, (hp, calm) in ev.recovered.items():
        state = _change(state, name, hp=hp, calm=calm)
    return replace(state, day=ev.day)


def _therapy(state: D20State, ev: Therapy) -> D20State:
    state = _spent(state, ev.who, ev.calm_after)
    hero = state.heroes.get(ev.who)
    if hero is None:
        return replace(state, day=ev.day)
    if ev.roll.success:
        hero = replace(hero, traumas=tuple(t for t in hero.traumas if t != ev.trauma))
    return replace(_put(state, hero), day=ev.day)


def _carried(state: D20State, ev: Carried) -> D20State:
    hero = state.heroes.get(ev.who)
    if hero is None:
        return state
    weapons = tuple(w for w in ev.items if w in state.tables.get("weapons", {}))
    items = tuple(i for i in ev.items if i not in weapons)
    return _put(state, replace(hero, weapons=weapons, items=items))


_FOLDS: dict[type[Event], Callable[[D20State, Any], D20State]] = {
    Created: _created,
    Reassigned: _reassigned,
    Checked: _checked,
    Initiative: _initiative,
    UsageRolled: _usage,
    Supplied: _supplied,
    Attacked: _attacked,
    Reloaded: _reloaded,
    Unjammed: _unjammed,
    Damaged: _damaged,
    Stressed: _stressed,
    Panicked: _panicked,
    Healed: _healed,
    Rested: _rested,
    Therapy: _therapy,
    Carried: _carried,
}


def evolve(state: D20State, event: Event, _env: Envelope[Any]) -> D20State:
    fold = _FOLDS.get(type(event))
    if fold is None:
        return state
    state = fold(state, event)
    who = getattr(event, "who", None)
    if isinstance(event, Created) or who not in state.heroes:
        return state
    hero = state.heroes[who]
    due = hero.panic_due or (hero.calm == 0 and hero.alive)
    return _put(state, replace(hero, acted=True, panic_due=due))


def day(state: D20State | None) -> int | None:
    return None if state is None else state.day


# --- the sheet -----------------------------------------------------------------------


def die_name(sides: int) -> str:
    return f"d{sides}" if sides else "exhausted"


def die_words(sides: int) -> str:
    """A usage die as the reader's language writes it (``d8``, ``exhausted``, ``agotado``)."""
    return f"d{sides}" if sides else p_("usage die", "exhausted")


def hero_sheet(hero: Hero, tables: dict[str, Any]) -> dict[str, Any]:
    level = tables["levels"][min(hero.level, len(tables["levels"])) - 1]
    return {
        "name": hero.name,
        "class": hero.cls,
        "synthetic": hero.synthetic,
        "level": hero.level,
        "alive": hero.alive,
        "attributes": {k: {"score": v, "mod": hero.modifiers[k]} for k, v in hero.attributes.items()},
        "hp": {"current": hero.hp, "max": hero.hp_max},
        "calm": {"current": hero.calm, "max": hero.calm_max},
        "panic_due": hero.panic_due,
        "def": hero.defense,
        "mov": hero.mov,
        "run": 2 * hero.mov,
        "atq": level["atq"],
        "ins": level["ins"],
        "skills": list(hero.skills),
        "talents": list(hero.talents),
        "usage": {r: die_name(s) for r, s in hero.usage.items()},
        "weapons": list(hero.weapons),
        "items": list(hero.items),
        "carrying": {
            "items": len(hero.carried),
            "capacity": hero.attributes["fue"],
            "overloaded": hero.overloaded,
        },
        "jammed": list(hero.jammed),
        "empty": list(hero.empty),
        "exposed": hero.exposed,
        "traumas": list(hero.traumas),
        "money": hero.money,
        "income": tables["income_per_level"] * hero.level,
        "initiative": hero.initiative,
    }


def sheet(state: Any, actor: str | None) -> dict[str, Any]:
    game: D20State = state.game
    who = actor or state.core.last_actor
    if who not in game.heroes and len(game.heroes) == 1:
        who = next(iter(game.heroes))
    head = {
        "campaign": state.core.name,
        "system": "d20",
        "day": game.day,
        "crew": {n: ("alive" if h.alive else "dead") for n, h in game.heroes.items()},
    }
    hero = game.heroes.get(who) if who else None
    if hero is None:
        return {**head, "hint": _("no d20 character yet; create one first")}
    data = {**head, **hero_sheet(hero, game.tables)}
    return {**data, **_readable(data)}


def _readable(data: dict[str, Any]) -> dict[str, Any]:
    """What the sheet's layout words, in the reader's language: the class, attributes with
    their modifiers, skills and talents, the usage dice, what is carried, the flags that
    need a roll, the traumas, the rest of the crew."""
    carrying = data["carrying"]
    flags = [
        _("jammed: {weapons}", weapons=", ".join(model.names(data["jammed"]))) if data["jammed"] else "",
        _("empty: {weapons}", weapons=", ".join(model.names(data["empty"]))) if data["empty"] else "",
        _("exposed (attacks against have advantage)") if data["exposed"] else "",
        _("PANIC ROLL DUE (roll on the panic table)") if data["panic_due"] else "",
        _("OVERLOADED: disadvantage on physical actions") if carrying["overloaded"] else "",
    ]
    living = {"alive": _("alive"), "dead": _("dead")}
    return {
        "class_name": model.name(data["class"]),
        "status": _("alive") if data["alive"] else _("DEAD"),
        "scores": [
            f"{model.attribute_name(k)} {a['score']} ({a['mod']:+d})" for k, a in data["attributes"].items()
        ],
        "skill_names": model.names(data["skills"]),
        "talent_names": model.names(data["talents"]),
        "usage_dice": {model.name(r): die_words(s) for r, s in _usage_of(data).items()},
        "carried": model.names(data["weapons"] + data["items"]),
        "flags": [f for f in flags if f],
        "trauma_texts": [model.reading_any("traumas", t) for t in data["traumas"]],
        "others": [f"{n} ({living.get(s, s)})" for n, s in data["crew"].items() if n != data["name"]],
    }


def _usage_of(data: dict[str, Any]) -> dict[str, int]:
    """The usage dice's sides, from the sheet's words for them (``d8``, ``exhausted``)."""
    return {r: int(d[1:]) if d.startswith("d") else 0 for r, d in data["usage"].items()}


ATTRIBUTE_NAMES = ("fue", "des", "con", "int", "sab", "car")
ADVANTAGE = (
    Ask(field="adv", label="adv"),
    Ask(field="dis", label="dis"),
    Ask(field="push", label="push"),
)
"""Advantage, disadvantage, and a calm point spent for advantage: none by default."""
CHECK_OPTIONS = (
    Ask(field="dc", label="dc", pick="@tables.difficulties", default="normal"),
    Ask(field="instinct", label="ins"),
    *ADVANTAGE,
)
ATTACK_OPTIONS = (
    Ask(field="defense", label="def", low=0, high=40),
    Ask(field="mode", label="mode", choices=("short", "long", "full")),
    Ask(field="range", label="range", choices=("point-blank", "optimal", "extreme")),
    Ask(field="cover", label="cover", choices=("none", "partial", "total")),
    Ask(field="running", label="running"),
    *ADVANTAGE,
)

CONTROLS = (
    Control(
        command="d20.Check",
        on="scores",
        each="attributes",
        args={"attribute": "{key}"},
        options=(*CHECK_OPTIONS[:1], Ask(field="skill", label="skill", pick="skills"), *CHECK_OPTIONS[1:]),
    ),
    Control(
        command="d20.Check",
        on="skill_names",
        each="skills",
        args={"skill": "{key}"},
        options=(Ask(field="attribute", label="attribute", choices=ATTRIBUTE_NAMES), *CHECK_OPTIONS),
    ),
    Control(
        command="d20.Attack", on="carried", each="weapons", args={"weapon": "{key}"}, options=ATTACK_OPTIONS
    ),
    Control(command="d20.Use", on="usage_dice", each="usage", args={"resource": "{key}"}),
    Control(
        command="d20.Unjam",
        on="flags",
        each="jammed",
        args={"weapon": "{key}"},
        label=N_("unjam {key}"),
        options=(Ask(field="push", label="push"),),
    ),
    Control(
        command="d20.Reload", on="flags", each="empty", args={"weapon": "{key}"}, label=N_("reload {key}")
    ),
    Control(command="d20.Panic", on="flags", label=N_("panic roll"), when="panic_due"),
)
"""What a crew member taps on the sheet: an attribute or a skill checks it, a weapon
attacks with it, a usage die is rolled; a jammed or emptied weapon, a panic roll due."""

FORMS = (
    Form(command="d20.Check", name="d20 check", group=N_("Rolls"), sheet=True),
    Form(command="d20.Attack", name="d20 attack", group=N_("Fight"), sheet=True),
    Form(command="d20.Use", name="d20 usage", group=N_("Gear"), sheet=True),
    Form(command="d20.Unjam", name="d20 unjam", group=N_("Fight"), sheet=True),
    Form(command="d20.Reload", name="d20 reload", group=N_("Fight"), sheet=True),
    Form(command="d20.Panic", name="d20 panic", group=N_("Stress and harm"), sheet=True),
    Form(command="d20.RollInitiative", name="d20 initiative", group=N_("Fight")),
    Form(
        command="d20.Stress",
        name="d20 stress",
        group=N_("Stress and harm"),
        asks=(Ask(field="difficulty", label="difficulty", choices=(11, 14, 17, 20), default=11), *ADVANTAGE),
    ),
    Form(
        command="d20.TakeDamage",
        name="d20 damage",
        group=N_("Stress and harm"),
        asks=(Ask(field="amount", label="amount", low=1, high=100), Ask(field="cause", label="cause")),
    ),
    Form(
        command="d20.Heal",
        name="d20 heal",
        group=N_("Rest and healing"),
        asks=(
            Ask(field="target", label="on", pick="@characters"),
            Ask(field="kit", label="kit"),
            Ask(field="push", label="push"),
        ),
    ),
    Form(
        command="d20.Treat",
        name="d20 therapy",
        group=N_("Rest and healing"),
        asks=(
            Ask(field="trauma", label="trauma", default=1, low=1, high=20),
            Ask(field="push", label="push"),
        ),
    ),
    Form(command="d20.Rest", name="d20 rest", group=N_("Rest and healing")),
    Form(
        command="d20.Supply",
        name="d20 supply",
        group=N_("Gear"),
        asks=(
            Ask(field="resource", label="resource", pick="usage"),
            Ask(field="die", label="die", choices=("d12", "d10", "d8", "d6", "d4"), default="d6"),
        ),
    ),
    Form(
        command="d20.Carry",
        name="d20 carry",
        group=N_("Gear"),
        asks=(Ask(field="items", label="items", pick="carried"), Ask(field="drop", label="drop")),
    ),
    Form(
        command="d20.Create",
        name="d20 create",
        group=N_("Party"),
        asks=(
            Ask(field="name", label="name"),
            Ask(field="cls", label="class", pick="@tables.classes"),
            Ask(field="talents", label="talents"),
            Ask(field="skills", label="skills", pick="@tables.skills"),
        ),
    ),
    Form(
        command="d20.Assign",
        name="d20 assign",
        group=N_("Party"),
        asks=(Ask(field="assign", label="values"),),
    ),
)
"""The d20 commands a crew member's sheet does not hold, by what the crew is doing."""

SHEET = SheetLayout(
    title=(
        N_("{name}: {class_name}, level {level} ({status}), day {day}"),
        N_("{campaign} (d20, day {day}): {hint}"),
    ),
    headline=(
        SheetField("hp", model.HP),
        SheetField("calm", model.CALM),
        SheetField("def", model.DEF),
        SheetField("mov", model.MOV),
        SheetField("atq", model.ATK, show="+{atq}"),
        SheetField("ins", model.INS, show="+{ins}"),
    ),
    sections=(
        SheetSection(N_("Attributes"), (SheetField("scores", ""),), when="name"),
        SheetSection(
            N_("Skills"),
            (SheetField("skill_names", ""), SheetField("talent_names", N_("talents"))),
            when="name",
        ),
        SheetSection(N_("Usage dice"), (SheetField("usage_dice", ""),), when="usage"),
        SheetSection(
            N_("Carrying"),
            (
                SheetField("carrying.items", "", max="carrying.capacity"),
                SheetField("carried", ""),
            ),
            when="name",
        ),
        SheetSection(N_("Needs attention"), (SheetField("flags", ""),), when="flags"),
        SheetSection(N_("Traumas"), (SheetField("trauma_texts", ""),), when="traumas"),
        SheetSection(
            N_("Money"),
            (
                SheetField("money", "", show=N_("{money} shares")),
                SheetField("income", N_("income"), show=N_("{income} a month")),
            ),
            when="name",
        ),
        SheetSection(N_("Crew"), (SheetField("others", ""),), when="others"),
    ),
    controls=CONTROLS,
)
"""A crew member's sheet as a player reads it (``ledger sheet``, the report)."""
