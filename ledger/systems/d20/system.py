"""``d20``: a Black Hack / Mothership-style d20 game of a crew in deep space.

Attribute checks (d20 + modifier + skill against a difficulty, advantage and
disadvantage, calm points spent to push), usage dice, attacks with automatic
fire, jams, wounds and death, stress, panic and traumas. The decider lives
here and in ``d20_combat``; the folds and the sheet in ``ledger.projections.d20.state``.
"""

from __future__ import annotations

from typing import Any

from ledger.commands import check_name, check_text
from ledger.dice import Dice
from ledger.errors import DuplicateNameError, RuleError
from ledger.events import CharacterAdded, Event
from ledger.projections.d20 import state as proj
from ledger.projections.d20.state import Hero
from ledger.systems import System
from ledger.systems.d20 import combat as combat
from ledger.systems.d20.commands import (
    Assign,
    Attack,
    Carry,
    Check,
    Create,
    Heal,
    Panic,
    Reload,
    Rest,
    RollInitiative,
    Stress,
    Supply,
    TakeDamage,
    Treat,
    Unjam,
    Use,
)
from ledger.systems.d20.crew import (
    PHYSICAL,
    attribute,
    difficulty,
    game,
    hero_for,
    level_row,
    push_calm,
    roll_for,
    skill_points,
)
from ledger.systems.d20.dice import check_d20_roll, usage_roll
from ledger.systems.d20.events import (
    EVENTS,
    Carried,
    Checked,
    Created,
    D20Roll,
    Healed,
    Initiative,
    Panicked,
    Reassigned,
    Rested,
    Stressed,
    Supplied,
    Therapy,
)
from ledger.systems.d20.facts_sql import FACTS_SQL
from ledger.systems.d20.play import autoplay
from ledger.systems.d20.tables import ATTRIBUTES, USAGE_DICE, die_sides, listing, load_tables

STRESS_LOSS = {11: 4, 14: 6, 17: 8, 20: 10}
"""Stress check difficulty -> die of calm points lost on a failure."""
HEAL_TARGET = 14
THERAPY_TARGET = 17
THERAPY_DAYS = 180
"""Six months of therapy, at 30 days a month."""
KIT_DIE, BARE_DIE = 6, 4


# --- creation -------------------------------------------------------------------------


def modifier(tables: dict[str, Any], score: int) -> int:
    for band in tables["modifiers"]:
        if band["min"] <= score <= band["max"]:
            return int(band["mod"])
    raise RuleError(f"score {score} is outside the modifiers table (3 to 18)")


def derived(tables: dict[str, Any], cls: dict[str, Any], attributes: dict[str, int]) -> dict[str, Any]:
    """Modifiers, PV, PC, DEF and MOV from the attributes and the class."""
    mods = {k: modifier(tables, v) for k, v in attributes.items()}
    return {
        "modifiers": mods,
        "hp": max(1, cls["endurance"] + mods["con"]),
        "calm": max(1, cls["endurance"] + mods["sab"]),
        "defense": 10 + mods["des"] + cls["armor"],
        "mov": 10 + mods["des"],
    }


def lowest(totals: list[int]) -> int:
    """Index of the roll dropped: the lowest total (the first of equals)."""
    return totals.index(min(totals))


def assignment(given: dict[str, int] | None, kept: list[int]) -> dict[str, int]:
    """The six kept totals on the six attributes; the same values, freely placed."""
    if given is None:
        return dict(zip(ATTRIBUTES, kept, strict=True))
    placed = {attribute(k): v for k, v in given.items()}
    if set(placed) != set(ATTRIBUTES) or len(given) != len(ATTRIBUTES):
        raise RuleError(
            f"--assign names {', '.join(given)}; give each of {', '.join(ATTRIBUTES)} exactly once"
        )
    values = sorted(placed.values(), reverse=True)
    if values != sorted(kept, reverse=True):
        raise RuleError(
            f"--assign uses {values!r} but the kept rolls are {sorted(kept, reverse=True)!r}; "
            "assign exactly those six values"
        )
    return {k: placed[k] for k in ATTRIBUTES}


def _choose(
    chosen: tuple[str, ...] | None, options: list[str], count: int, what: str, flag: str
) -> tuple[str, ...]:
    picked = tuple(chosen) if chosen is not None else tuple(options[:count])
    if len(picked) != count or len(set(picked)) != count:
        raise RuleError(f"{flag} gives {list(picked)!r}; choose exactly {count} different {what}")
    for p in picked:
        if p not in options:
            raise RuleError(f"unknown {what[:-1]} {p!r}; choose from {', '.join(options)}")
    return picked


def _name(state: Any, cmd: Create) -> tuple[str, list[Event]]:
    """The character's name, and the CharacterAdded event when it is new."""
    if cmd.name is None:
        if cmd.actor is None:
            raise RuleError("give the character's name: `ledger d20 create NAME`")
        name = cmd.actor
    else:
        name = check_name(cmd.name.strip(), "character")
    if name in game(state).heroes:
        raise DuplicateNameError(f"{name!r} already has a d20 sheet; pick another name")
    added: list[Event] = [] if name in state.core.characters else [CharacterAdded(name=name)]
    return name, added


def create(state: Any, cmd: Create, dice: Dice) -> list[Event]:
    tables = game(state).tables
    name, added = _name(state, cmd)
    cls_name = cmd.cls if cmd.cls is not None else next(iter(tables["classes"]))
    if cls_name not in tables["classes"]:
        raise RuleError(f"unknown class {cls_name!r}; choose one of {', '.join(tables['classes'])}")
    cls = tables["classes"][cls_name]
    talents = _choose(cmd.talents, list(cls["talents"]), 2, "talents", "--talents")
    suggested = cls["skills"] + [s for s in tables["skills"] if s not in cls["skills"]]
    skills = _choose(cmd.skills, suggested, 3, "skills", "--skills")
    if cmd.assign is not None and not dice.manual and state.core.seed is None:
        raise RuleError(
            "--assign needs dice known in advance (--faces, or a campaign with --seed); "
            "create without it, then place the rolls with `ledger d20 assign fue=..,des=..,...`"
        )
    rolls = tuple((dice.roll(6), dice.roll(6), dice.roll(6)) for _ in range(7))
    totals = [sum(r) for r in rolls]
    dropped = lowest(totals)
    kept = [t for i, t in enumerate(totals) if i != dropped]
    attributes = assignment(cmd.assign, kept)
    stats = derived(tables, cls, attributes)
    return [
        *added,
        Created(
            who=name,
            manual=dice.manual,
            rolls=rolls,
            dropped=dropped,
            attributes=attributes,
            modifiers=stats["modifiers"],
            cls=cls_name,
            synthetic=cls["synthetic"],
            endurance=cls["endurance"],
            talents=talents,
            skills=skills,
            hp=stats["hp"],
            calm=stats["calm"],
            defense=stats["defense"],
            armor=cls["armor"],
            mov=stats["mov"],
            money=cls["money"],
            weapons=tuple(cls["weapons"]),
            usage=dict(cls["usage"]),
        ),
    ]


def assign(state: Any, cmd: Assign, _dice: Dice) -> list[Event]:
    """Place the kept rolls anew, once, before the character has acted."""
    hero = hero_for(state, cmd.actor)
    if hero.acted:
        raise RuleError(f"{hero.name} has already acted; attributes are placed before play begins")
    tables = game(state).tables
    attributes = assignment(cmd.assign, sorted(hero.attributes.values(), reverse=True))
    stats = derived(tables, tables["classes"][hero.cls], attributes)
    return [
        Reassigned(
            who=hero.name,
            attributes=attributes,
            modifiers=stats["modifiers"],
            hp=stats["hp"],
            calm=stats["calm"],
            defense=stats["defense"],
            mov=stats["mov"],
        )
    ]


# --- checks -------------------------------------------------------------------------------


def check(state: Any, cmd: Check, dice: Dice) -> list[Event]:
    hero = hero_for(state, cmd.actor)
    attr = attribute(cmd.attribute)
    target = difficulty(state, cmd.dc)
    if cmd.instinct and cmd.skill:
        raise RuleError("an INS check adds the INS bonus, not a skill; drop --skill or --ins")
    points = skill_points(state, hero, cmd.skill)
    bonus = level_row(state, hero)["ins"] if cmd.instinct else points
    roll = roll_for(
        dice,
        hero,
        hero.modifiers[attr] + bonus,
        target,
        adv=cmd.adv,
        dis=cmd.dis,
        push=cmd.push,
        physical=attr in PHYSICAL,
    )
    calm = push_calm(hero, cmd.push)
    due = (cmd.instinct and attr == "sab" and roll.natural == "fumble") or calm == 0
    return [
        Checked(
            who=hero.name,
            attribute=attr,
            skill=cmd.skill,
            skill_points=points,
            instinct=cmd.instinct,
            roll=roll,
            pushed=cmd.push,
            calm_after=calm,
            panic_due=due,
        )
    ]


def initiative(state: Any, cmd: RollInitiative, dice: Dice) -> list[Event]:
    hero = hero_for(state, cmd.actor)
    face = dice.roll(20)
    mod = hero.modifiers["sab"]
    return [Initiative(who=hero.name, manual=dice.manual, face=face, modifier=mod, total=face + mod)]


# --- usage dice ---------------------------------------------------------------------------


def use(state: Any, cmd: Use, dice: Dice) -> list[Event]:
    hero = hero_for(state, cmd.actor)
    resource = cmd.resource.strip()
    if resource not in hero.usage:
        known = ", ".join(hero.usage) or "none"
        raise RuleError(
            f"{hero.name} has no {resource!r} (resources: {known}); add it with "
            f"`ledger d20 supply {resource!r} d6`"
        )
    sides = hero.usage[resource]
    if not sides:
        raise RuleError(
            f"{hero.name}'s {resource} is exhausted; resupply with `ledger d20 supply {resource!r} d6`"
        )
    return [usage_roll(hero.name, resource, sides, dice)]


def supply(state: Any, cmd: Supply, _dice: Dice) -> list[Event]:
    hero = hero_for(state, cmd.actor)
    resource = check_text(cmd.resource, "resource name", 40)
    if not resource:
        raise RuleError("name the resource, e.g. `ledger d20 supply torches d6`")
    sides = die_sides(cmd.die, "supply", USAGE_DICE)
    return [Supplied(who=hero.name, resource=resource, sides=sides)]


# --- stress, panic, traumas -------------------------------------------------------------------


def stress(state: Any, cmd: Stress, dice: Dice) -> list[Event]:
    """An INS SAB check; on a failure lose calm points; a fumble or 0 PC brings panic."""
    hero = hero_for(state, cmd.actor)
    if cmd.difficulty not in STRESS_LOSS:
        raise RuleError(f"stress difficulty {cmd.difficulty} is not one of 11, 14, 17, 20")
    modifier_ = level_row(state, hero)["ins"] + hero.modifiers["sab"]
    roll = roll_for(dice, hero, modifier_, cmd.difficulty, adv=cmd.adv, dis=cmd.dis, push=cmd.push)
    calm = hero.calm - 1 if cmd.push else hero.calm
    sides = STRESS_LOSS[cmd.difficulty]
    loss = None if roll.success else dice.roll(sides)
    if loss is not None:
        calm = max(0, calm - loss)
    due = hero.panic_due or roll.natural == "fumble" or calm == 0
    return [
        Stressed(
            who=hero.name,
            difficulty=cmd.difficulty,
            roll=roll,
            pushed=cmd.push,
            loss_sides=sides,
            loss_face=loss,
            calm_after=calm,
            panic_due=due,
        )
    ]


def panic(state: Any, cmd: Panic, dice: Dice) -> list[Event]:
    """The panic table, a trauma on a high result, then 1d4 calm points back."""
    hero = hero_for(state, cmd.actor)
    if not hero.panic_due:
        raise RuleError(
            f"{hero.name} has no panic roll due (PC {hero.calm}); it comes at 0 PC or a fumbled INS SAB check"
        )
    table = game(state).tables["panic"]
    face = dice.roll(table["die"])
    trauma = {}
    if face >= table["trauma_from"]:
        traumas = game(state).tables["traumas"]
        t_face = dice.roll(traumas["die"])
        text = traumas["results"][str(t_face)]
        trauma = {
            "trauma_sides": traumas["die"],
            "trauma_face": t_face,
            "trauma": text,
            "new_trauma": text not in hero.traumas,
        }
    back = dice.roll(4)
    return [
        Panicked(
            who=hero.name,
            manual=dice.manual,
            sides=table["die"],
            face=face,
            result=table["results"][str(face)],
            recovered_face=back,
            calm_after=min(hero.calm_max, hero.calm + back),
            **trauma,
        )
    ]


def treat(state: Any, cmd: Treat, dice: Dice) -> list[Event]:
    """Six months of therapy, then an INS SAB check at 17+ to shed the trauma."""
    hero = hero_for(state, cmd.actor)
    if not hero.traumas:
        raise RuleError(f"{hero.name} has no trauma to treat")
    if not 1 <= cmd.trauma <= len(hero.traumas):
        raise RuleError(f"trauma {cmd.trauma} does not exist; {hero.name} has 1 to {len(hero.traumas)}")
    modifier_ = level_row(state, hero)["ins"] + hero.modifiers["sab"]
    roll = roll_for(dice, hero, modifier_, THERAPY_TARGET, push=cmd.push)
    return [
        Therapy(
            who=hero.name,
            trauma=hero.traumas[cmd.trauma - 1],
            roll=roll,
            pushed=cmd.push,
            calm_after=push_calm(hero, cmd.push),
            day=game(state).day + THERAPY_DAYS,
        )
    ]


# --- healing ------------------------------------------------------------------------------------


def rest(state: Any, cmd: Rest, _dice: Dice) -> list[Event]:
    """A day of rest for the whole crew: PV and PC back as many as the level."""
    crew = [h for h in game(state).heroes.values() if h.alive]
    if not crew:
        raise RuleError("no living character to rest; create one with `ledger d20 create NAME`")
    recovered = {h.name: _rested(h) for h in crew}
    return [Rested(day=game(state).day + 1, recovered=recovered)]


def _rested(hero: Hero) -> tuple[int, int]:
    hp = hero.hp if hero.synthetic else min(hero.hp_max, hero.hp + hero.level)
    return hp, min(hero.calm_max, hero.calm + hero.level)


def heal(state: Any, cmd: Heal, dice: Dice) -> list[Event]:
    """First aid (INT + precision) or repairs on a synthetic (INT + technology), at 14+."""
    healer = hero_for(state, cmd.actor)
    patient = hero_for(state, cmd.target or healer.name)
    if patient.hp >= patient.hp_max:
        raise RuleError(f"{patient.name} is unhurt (PV {patient.hp}/{patient.hp_max}); nothing to heal")
    method, skill = ("repair", "technology") if patient.synthetic else ("first-aid", "precision")
    modifier_ = healer.modifiers["int"] + skill_points(state, healer, skill)
    roll = roll_for(dice, healer, modifier_, HEAL_TARGET, push=cmd.push)
    sides = KIT_DIE if cmd.kit else BARE_DIE
    face = dice.roll(sides) if roll.success else None
    hp = min(patient.hp_max, patient.hp + (face or 0))
    return [
        Healed(
            who=healer.name,
            target=patient.name,
            method=method,
            kit=cmd.kit,
            roll=roll,
            pushed=cmd.push,
            calm_after=push_calm(healer, cmd.push),
            sides=sides,
            face=face,
            hp_after=hp,
        )
    ]


# --- gear -------------------------------------------------------------------------------------------


def carry(state: Any, cmd: Carry, _dice: Dice) -> list[Event]:
    hero = hero_for(state, cmd.actor)
    items = [t for t in (check_text(i, "item name", 80) for i in cmd.items) if t]
    if not items:
        raise RuleError("name the items, e.g. `ledger d20 carry medkit`")
    held = list(hero.carried)
    for item in items:
        if cmd.drop:
            if item not in held:
                raise RuleError(
                    f"{hero.name} does not carry {item!r}; carried: {', '.join(held) or 'nothing'}"
                )
            held.remove(item)
        else:
            held.append(item)
    change = ("drops " if cmd.drop else "picks up ") + ", ".join(items)
    return [Carried(who=hero.name, items=tuple(held), change=change)]


# --- the decider ------------------------------------------------------------------------------------

DECIDERS: dict[type, Any] = {
    Create: create,
    Assign: assign,
    Check: check,
    RollInitiative: initiative,
    Use: use,
    Supply: supply,
    Attack: combat.attack,
    Reload: combat.reload,
    Unjam: combat.unjam,
    TakeDamage: combat.take_damage,
    Stress: stress,
    Panic: panic,
    Treat: treat,
    Rest: rest,
    Heal: heal,
    Carry: carry,
}


def decide(state: Any, command: Any, dice: Dice) -> list[Event]:
    decider = DECIDERS.get(type(command))
    if decider is None:
        raise RuleError(f"the d20 system has no command {type(command).__name__}; see `ledger d20 --help`")
    events: list[Event] = decider(state, command, dice)
    return events


def _facts(env: Any) -> list[Any]:
    return proj.facts(env)


def _demo(ledger: Any, echo: Any) -> None:
    from ledger.systems.d20.demo import demo

    demo(ledger, echo)


SYSTEM = System(
    name="d20",
    description="a Black Hack / Mothership-style d20: modifiers, advantage, calm points, usage dice, "
    "autofire, stress and panic",
    initial=proj.initial,
    evolve=proj.evolve,
    decide=decide,
    sheet=proj.sheet,
    render_sheet=proj.render_sheet,
    day=proj.day,
    load_tables=load_tables,
    demo=_demo,
    events=EVENTS,
    commands=tuple(DECIDERS),
    listing=listing,
    facts=_facts,
    facts_sql=FACTS_SQL,
    health_tracks=("hp",),
    roll_checks={D20Roll: check_d20_roll},
    autoplay=autoplay,
    cli="ledger.cli.d20:group",
    cli_help="The d20 system: checks, calm points, usage dice, stress and panic.",
    create="ledger.cli.d20:create",
)

__all__ = ["SYSTEM", "decide", "derived", "modifier"]
