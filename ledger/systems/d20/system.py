"""``d20``: a Black Hack / Mothership-style d20 game of a crew in deep space.

Attribute checks (d20 + modifier + skill against a difficulty, advantage and
disadvantage, calm points spent to push), usage dice, attacks with automatic
fire, jams, wounds and death, stress, panic and traumas. The decider's handlers
live here and in ``combat``; the folds and the sheet in ``ledger.projections.d20.state``.
"""

from __future__ import annotations

from typing import Any

from ledger.deciding.decider import Decider, Draft
from ledger.errors import DropOption, DuplicateNameError, EditTable, RuleError
from ledger.i18n import _, n_
from ledger.log.events import CharacterAdded
from ledger.projections.d20 import state as proj
from ledger.projections.d20.state import D20State, Hero
from ledger.systems import Play, ReadModel, Rules, System
from ledger.systems.d20 import combat, model
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
    create_first,
    difficulty,
    game,
    hero_for,
    level_row,
    push_calm,
    roll_for,
    run,
    skill_key,
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
from ledger.systems.d20.facts import FACTS_SQL, facts
from ledger.systems.d20.invariants import check_state
from ledger.systems.d20.play import autoplay
from ledger.systems.d20.tables import ATTRIBUTES, USAGE_DICE, check_stored, die_sides, listing, load_tables
from ledger.text import check_name, check_text

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
    raise RuleError(
        _("score {score} is outside the modifiers table (3 to 18)", score=score),
        fix=EditTable(text=_("give every score 3 to 18 a modifier"), table="modifiers"),
    )


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
            _(
                "the assignment names {given}; give each of {attributes} exactly once",
                given=", ".join(given),
                attributes=", ".join(model.attribute_name(a) for a in ATTRIBUTES),
            )
        )
    values = sorted(placed.values(), reverse=True)
    if values != sorted(kept, reverse=True):
        raise RuleError(
            _(
                "the assignment uses {values!r} but the kept rolls are {kept!r}; assign exactly those six values",
                values=values,
                kept=sorted(kept, reverse=True),
            )
        )
    return {k: placed[k] for k in ATTRIBUTES}


def _choose(chosen: tuple[str, ...] | None, options: list[str], count: int, what: str) -> tuple[str, ...]:
    """``count`` different keys of ``options`` (``what``: talents or skills), each typed in
    either language."""
    one = _("talent") if what == "talents" else _("skill")
    picked = (
        tuple(model.key_of(options, p, one) or p for p in chosen)
        if chosen is not None
        else tuple(options[:count])
    )
    if len(picked) != count or len(set(picked)) != count:
        if what == "talents":
            message = n_(
                "the talents chosen are {chosen!r}; choose exactly {n} different talent",
                "the talents chosen are {chosen!r}; choose exactly {n} different talents",
                count,
                chosen=list(picked),
            )
        else:
            message = n_(
                "the skills chosen are {chosen!r}; choose exactly {n} different skill",
                "the skills chosen are {chosen!r}; choose exactly {n} different skills",
                count,
                chosen=list(picked),
            )
        raise RuleError(message)
    for p in picked:
        if p not in options:
            known = ", ".join(model.names(options))
            if what == "talents":
                raise RuleError(_("unknown talent {name!r}; choose from {known}", name=p, known=known))
            raise RuleError(_("unknown skill {name!r}; choose from {known}", name=p, known=known))
    return picked


def _name(state: Any, cmd: Create) -> str:
    """The character's name."""
    if cmd.name is None:
        if cmd.actor is None:
            raise RuleError(_("give the character's name"), fix=create_first())
        name = cmd.actor
    else:
        name = check_name(cmd.name.strip(), "character")
    if name in game(state).heroes:
        raise DuplicateNameError(_("{name!r} already has a d20 sheet; pick another name", name=name))
    return name


decider = Decider("d20", proj.evolve)


@decider.on(Create)
def create(draft: Draft[D20State], cmd: Create) -> None:
    state, dice = draft.state, draft.dice
    tables = game(state).tables
    name = _name(state, cmd)
    cls_name = cmd.cls if cmd.cls is not None else next(iter(tables["classes"]))
    cls_name = model.key_of(tables["classes"], cls_name, _("class")) or cls_name
    if cls_name not in tables["classes"]:
        known = ", ".join(model.names(tables["classes"]))
        raise RuleError(_("unknown class {name!r}; choose one of {known}", name=cls_name, known=known))
    cls = tables["classes"][cls_name]
    talents = _choose(cmd.talents, list(cls["talents"]), 2, "talents")
    suggested = cls["skills"] + [s for s in tables["skills"] if s not in cls["skills"]]
    skills = _choose(cmd.skills, suggested, 3, "skills")
    if cmd.assign is not None and not dice.manual and state.core.seed is None:
        raise RuleError(
            _("an assignment at creation needs dice known in advance (physical dice, or a seeded campaign)"),
            fix=run(
                _("create without it, then place the rolls with `assign`"), "assign", "fue=..,des=..,..."
            ),
        )
    rolls = tuple((dice.roll(6), dice.roll(6), dice.roll(6)) for _ in range(7))
    totals = [sum(r) for r in rolls]
    dropped = lowest(totals)
    kept = [t for i, t in enumerate(totals) if i != dropped]
    attributes = assignment(cmd.assign, kept)
    stats = derived(tables, cls, attributes)
    if name not in state.core.characters:
        draft.emit(CharacterAdded(name=name))
    draft.emit(
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
        )
    )


@decider.on(Assign)
def assign(draft: Draft[D20State], cmd: Assign) -> None:
    """Place the kept rolls anew, once, before the character has acted."""
    state = draft.state
    hero = hero_for(state, cmd.actor)
    if hero.acted:
        raise RuleError(_("{who} has already acted; attributes are placed before play begins", who=hero.name))
    tables = game(state).tables
    attributes = assignment(cmd.assign, sorted(hero.attributes.values(), reverse=True))
    stats = derived(tables, tables["classes"][hero.cls], attributes)
    draft.emit(
        Reassigned(
            who=hero.name,
            attributes=attributes,
            modifiers=stats["modifiers"],
            hp=stats["hp"],
            calm=stats["calm"],
            defense=stats["defense"],
            mov=stats["mov"],
        )
    )


# --- checks -------------------------------------------------------------------------------


@decider.on(Check)
def check(draft: Draft[D20State], cmd: Check) -> None:
    state, dice = draft.state, draft.dice
    hero = hero_for(state, cmd.actor)
    attr = attribute(cmd.attribute)
    target = difficulty(state, cmd.dc)
    if cmd.instinct and cmd.skill:
        raise RuleError(
            _("an INS check adds the INS bonus, not a skill"),
            fix=DropOption(
                system="d20", text=_("check a skill or the instinct, not both"), inputs=("skill", "ins")
            ),
        )
    skill = skill_key(state, cmd.skill)
    points = skill_points(state, hero, skill)
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
    draft.emit(
        Checked(
            who=hero.name,
            attribute=attr,
            skill=skill,
            skill_points=points,
            instinct=cmd.instinct,
            roll=roll,
            pushed=cmd.push,
            calm_after=calm,
            panic_due=due,
        )
    )


@decider.on(RollInitiative)
def initiative(draft: Draft[D20State], cmd: RollInitiative) -> None:
    dice = draft.dice
    hero = hero_for(draft.state, cmd.actor)
    face = dice.roll(20)
    mod = hero.modifiers["sab"]
    draft.emit(Initiative(who=hero.name, manual=dice.manual, face=face, modifier=mod, total=face + mod))


# --- usage dice ---------------------------------------------------------------------------


@decider.on(Use)
def use(draft: Draft[D20State], cmd: Use) -> None:
    hero = hero_for(draft.state, cmd.actor)
    resource = cmd.resource.strip()
    resource = model.key_of(hero.usage, resource, _("resource")) or resource
    if resource not in hero.usage:
        known = ", ".join(model.names(hero.usage)) or _("none")
        raise RuleError(
            _(
                "{who} has no {resource!r} (resources: {known})",
                who=hero.name,
                resource=resource,
                known=known,
            ),
            fix=run(_("add it with `supply`"), "supply", resource, "d6"),
        )
    sides = hero.usage[resource]
    if not sides:
        raise RuleError(
            _("{who}'s {resource} is exhausted", who=hero.name, resource=model.name(resource)),
            fix=run(_("resupply with `supply`"), "supply", resource, "d6"),
        )
    draft.emit(usage_roll(hero.name, resource, sides, draft.dice))


@decider.on(Supply)
def supply(draft: Draft[D20State], cmd: Supply) -> None:
    hero = hero_for(draft.state, cmd.actor)
    resource = check_text(cmd.resource, "resource name", 40)
    if not resource:
        raise RuleError(_("name the resource to supply (torches, say), with its usage die"))
    resource = model.key_of(hero.usage, resource, _("resource")) or resource
    sides = die_sides(cmd.die, "supply", USAGE_DICE)
    draft.emit(Supplied(who=hero.name, resource=resource, sides=sides))


# --- stress, panic, traumas -------------------------------------------------------------------


@decider.on(Stress)
def stress(draft: Draft[D20State], cmd: Stress) -> None:
    """An INS SAB check; on a failure lose calm points; a fumble or 0 PC brings panic."""
    state, dice = draft.state, draft.dice
    hero = hero_for(state, cmd.actor)
    if cmd.difficulty not in STRESS_LOSS:
        raise RuleError(
            _("stress difficulty {difficulty} is not one of 11, 14, 17, 20", difficulty=cmd.difficulty)
        )
    modifier_ = level_row(state, hero)["ins"] + hero.modifiers["sab"]
    roll = roll_for(dice, hero, modifier_, cmd.difficulty, adv=cmd.adv, dis=cmd.dis, push=cmd.push)
    calm = hero.calm - 1 if cmd.push else hero.calm
    sides = STRESS_LOSS[cmd.difficulty]
    loss = None if roll.success else dice.roll(sides)
    if loss is not None:
        calm = max(0, calm - loss)
    due = hero.panic_due or roll.natural == "fumble" or calm == 0
    draft.emit(
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
    )


@decider.on(Panic)
def panic(draft: Draft[D20State], cmd: Panic) -> None:
    """The panic table, a trauma on a high result, then 1d4 calm points back."""
    state, dice = draft.state, draft.dice
    hero = hero_for(state, cmd.actor)
    if not hero.panic_due:
        raise RuleError(
            _(
                "{who} has no panic roll due ({cp} {calm}); it comes at 0 {cp} or a fumbled {ins} {wis} check",
                who=hero.name,
                calm=hero.calm,
                cp=model.translate(model.CALM),
                ins=model.translate(model.INS),
                wis=model.attribute_name("sab"),
            )
        )
    table = game(state).tables["panic"]
    face = dice.roll(table["die"])
    trauma = {}
    if face >= table["trauma_from"]:
        traumas = game(state).tables["traumas"]
        t_face = dice.roll(traumas["die"])
        text = model.recorded(traumas["results"][str(t_face)])
        trauma = {
            "trauma_sides": traumas["die"],
            "trauma_face": t_face,
            "trauma": text,
            "new_trauma": text not in hero.traumas,
        }
    back = dice.roll(4)
    draft.emit(
        Panicked(
            who=hero.name,
            manual=dice.manual,
            sides=table["die"],
            face=face,
            result=model.recorded(table["results"][str(face)]),
            recovered_face=back,
            calm_after=min(hero.calm_max, hero.calm + back),
            **trauma,
        )
    )


@decider.on(Treat)
def treat(draft: Draft[D20State], cmd: Treat) -> None:
    """Six months of therapy, then an INS SAB check at 17+ to shed the trauma."""
    state, dice = draft.state, draft.dice
    hero = hero_for(state, cmd.actor)
    if not hero.traumas:
        raise RuleError(_("{who} has no trauma to treat", who=hero.name))
    if not 1 <= cmd.trauma <= len(hero.traumas):
        raise RuleError(
            _(
                "trauma {trauma} does not exist; {who} has 1 to {count}",
                trauma=cmd.trauma,
                who=hero.name,
                count=len(hero.traumas),
            )
        )
    modifier_ = level_row(state, hero)["ins"] + hero.modifiers["sab"]
    roll = roll_for(dice, hero, modifier_, THERAPY_TARGET, push=cmd.push)
    draft.emit(
        Therapy(
            who=hero.name,
            trauma=hero.traumas[cmd.trauma - 1],
            roll=roll,
            pushed=cmd.push,
            calm_after=push_calm(hero, cmd.push),
            day=game(state).day + THERAPY_DAYS,
        )
    )


# --- healing ------------------------------------------------------------------------------------


@decider.on(Rest)
def rest(draft: Draft[D20State], cmd: Rest) -> None:
    """A day of rest for the whole crew: PV and PC back as many as the level."""
    crew = [h for h in draft.game.heroes.values() if h.alive]
    if not crew:
        raise RuleError(_("no living character to rest"), fix=create_first())
    recovered = {h.name: _rested(h) for h in crew}
    draft.emit(Rested(day=draft.game.day + 1, recovered=recovered))


def _rested(hero: Hero) -> tuple[int, int]:
    hp = hero.hp if hero.synthetic else min(hero.hp_max, hero.hp + hero.level)
    return hp, min(hero.calm_max, hero.calm + hero.level)


@decider.on(Heal)
def heal(draft: Draft[D20State], cmd: Heal) -> None:
    """First aid (INT + precision) or repairs on a synthetic (INT + technology), at 14+."""
    state, dice = draft.state, draft.dice
    healer = hero_for(state, cmd.actor)
    patient = hero_for(state, cmd.target or healer.name)
    if patient.hp >= patient.hp_max:
        raise RuleError(
            _(
                "{who} is unhurt ({hp} {current}/{max}); nothing to heal",
                who=patient.name,
                hp=model.translate(model.HP),
                current=patient.hp,
                max=patient.hp_max,
            )
        )
    method, skill = ("repair", "technology") if patient.synthetic else ("first-aid", "precision")
    modifier_ = healer.modifiers["int"] + skill_points(state, healer, skill)
    roll = roll_for(dice, healer, modifier_, HEAL_TARGET, push=cmd.push)
    sides = KIT_DIE if cmd.kit else BARE_DIE
    face = dice.roll(sides) if roll.success else None
    hp = min(patient.hp_max, patient.hp + (face or 0))
    draft.emit(
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
    )


# --- gear -------------------------------------------------------------------------------------------


@decider.on(Carry)
def carry(draft: Draft[D20State], cmd: Carry) -> None:
    hero = hero_for(draft.state, cmd.actor)
    items = [t for t in (check_text(i, "item name", 80) for i in cmd.items) if t]
    if not items:
        raise RuleError(_("name the items to carry (a medkit, say)"))
    held = list(hero.carried)
    weapons = game(draft.state).tables["weapons"]
    items = [model.key_of(held if cmd.drop else weapons, i, _("item")) or i for i in items]
    for item in items:
        if cmd.drop:
            if item not in held:
                carried = ", ".join(model.names(held)) or _("nothing")
                raise RuleError(
                    _(
                        "{who} does not carry {item!r}; carried: {carried}",
                        who=hero.name,
                        item=item,
                        carried=carried,
                    )
                )
            held.remove(item)
        else:
            held.append(item)
    change = ("drops " if cmd.drop else "picks up ") + ", ".join(items)
    draft.emit(Carried(who=hero.name, items=tuple(held), change=change))


decider.on(Attack)(combat.attack)
decider.on(Reload)(combat.reload)
decider.on(Unjam)(combat.unjam)
decider.on(TakeDamage)(combat.take_damage)


SYSTEM = System(
    name="d20",
    description="a Black Hack / Mothership-style d20: modifiers, advantage, calm points, usage dice, "
    "autofire, stress and panic",
    rules=Rules(
        initial=proj.initial,
        evolve=proj.evolve,
        decide=decider,
        day=proj.day,
        load_tables=load_tables,
        check_tables=check_stored,
        check_state=check_state,
        events=EVENTS,
        commands=decider.commands,
        roll_checks={D20Roll: check_d20_roll},
        creates=Create,
    ),
    read=ReadModel(
        sheet=proj.sheet,
        sheet_layout=proj.SHEET,
        forms=proj.FORMS,
        listing=listing,
        facts=facts,
        facts_sql=FACTS_SQL,
        health_tracks=("hp",),
    ),
    play=Play(
        autoplay=autoplay,
    ),
)

__all__ = ["SYSTEM", "decider", "derived", "modifier"]
