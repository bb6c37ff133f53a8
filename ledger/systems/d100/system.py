"""``d100``: a percentile roll-under game (success levels, fumbles, luck
points, hit/valor/fatigue points, combat rounds by DES).

The ``decider`` turns a command into events or refuses with a one-line
:class:`~ledger.errors.RuleError`, its advice a :class:`~ledger.errors.Fix`.
Every die goes through ``dice.roll``: a test is ONE face from 1 to 100
(``dice.roll(100)``), then any healing die.
"""

from __future__ import annotations

import re

from ledger.deciding.decider import Decider, Draft
from ledger.dice import sources as dice_mod
from ledger.dice.sources import Dice
from ledger.errors import (
    ChooseCharacter,
    DropOption,
    DuplicateNameError,
    GameOverError,
    GiveOption,
    Input,
    RuleError,
    RunCommand,
    Undo,
)
from ledger.i18n import N_, _, translate
from ledger.log.events import CharacterAdded, Event
from ledger.projections.d100 import state as proj
from ledger.projections.d100.state import MINUTES_PER_DAY, MINUTES_PER_WEEK, D100State, Investigator
from ledger.systems import Play, ReadModel, Rules, System
from ledger.systems.d100 import commands as cmd
from ledger.systems.d100 import events as ev
from ledger.systems.d100 import model, roll
from ledger.systems.d100.demo import demo
from ledger.systems.d100.facts import FACTS_SQL, facts
from ledger.systems.d100.invariants import check_state
from ledger.systems.d100.model import CHARACTERISTICS, POINTS, ceil_div, fold
from ledger.systems.d100.play import autoplay
from ledger.systems.d100.tables import check_stored as stored_tables_check
from ledger.systems.d100.tables import listing, load_tables
from ledger.text import check_name, check_text

MAX_POINTS = 999
MAX_REST = 52 * MINUTES_PER_WEEK
FORBIDDEN_IN_COMBAT = ("medicina", "psicoterapia", "ciencia")
SPECIAL_ACTIONS = {"apuntar": "Apuntar", "salir": "Salir"}


def END_COMBAT() -> RunCommand:
    return RunCommand(text=_("end it first with `endcombat`"), command="endcombat", system="d100")


# --- helpers ----------------------------------------------------------------------


def _run(said: str, command: str, *arguments: str, options: tuple[Input, ...] = ()) -> RunCommand:
    """The fix that is one of the d100 system's commands: ``command`` with its ``arguments``
    (``rest``, ``15``) and ``options``, ``said`` in the library's words, naming the command
    in backquotes."""
    return RunCommand(text=said, command=command, arguments=arguments, options=options, system="d100")


def _emit(draft: Draft[D100State], *events: Event) -> None:
    for event in events:
        draft.emit(event)


def FLEE() -> RunCommand:
    return _run(_("flee with `round`"), "round", options=(Input("run"),))


def _character(game: D100State, name: str | None, what: str = N_("the actor")) -> Investigator:
    if name is None:
        if not game.characters:
            raise RuleError(
                _("no character to act as ({what})", what=translate(what)),
                fix=_run(_("add one with `character`"), "character", "NAME", "..."),
            )
        raise RuleError(
            _("no character to act as ({what})", what=translate(what)),
            fix=ChooseCharacter(text=_("say who acts"), characters=tuple(game.characters)),
        )
    inv = game.characters.get(name)
    if inv is None:
        known = ", ".join(game.characters) or "none yet"
        raise RuleError(
            _("no character named {name!r} (characters: {known}); check the name", name=name, known=known)
        )
    if inv.problems:
        raise RuleError(
            _("{name}'s sheet is incomplete ({problems})", name=name, problems="; ".join(inv.problems)),
            fix=Undo(text=_("undo the addition, or add the character again with the d100 character command")),
        )
    return inv


def _able(inv: Investigator, doing: str, *, panic_ok: bool = False) -> None:
    """Refuse an action the character's state forbids."""
    state = proj.state_of(inv)
    if state == "dead":
        raise GameOverError(_("{who} is dead and cannot {doing}", who=inv.name, doing=translate(doing)))
    if state in ("dying", "unconscious"):
        raise RuleError(
            _(
                "{who} is {state} (hp {hp}) and cannot {doing}; first aid can bring them back",
                who=inv.name,
                state=model.state(state),
                hp=inv.hp,
                doing=translate(doing),
            )
        )
    if inv.valor <= 0 and not panic_ok:
        raise RuleError(_("{who} is in panic (valor 0) and can only flee", who=inv.name), fix=FLEE())
    if inv.fatigue <= 0:
        raise RuleError(
            _("{who} is exhausted (fatigue 0) and cannot {doing}", who=inv.name, doing=translate(doing)),
            fix=_run(_("rest with `rest`"), "rest", "15"),
        )


def _positive(value: int, what: str, top: int = MAX_POINTS) -> int:
    if not 1 <= value <= top:
        raise RuleError(
            _("{what} must be from 1 to {top}, got {value!r}", what=translate(what), top=top, value=value)
        )
    return value


def _amount(notation: str, dice: Dice) -> tuple[int, tuple[int, ...]]:
    """A recovery amount: a whole number, or dice rolled now."""
    text = notation.strip()
    if re.fullmatch(r"\d+", text):
        return int(text), ()
    result = dice_mod.roll(text, dice)
    return max(0, result.total), tuple(result.faces())


# --- the roll ---------------------------------------------------------------------


def _resolve_skill(inv: Investigator, game: D100State, c: cmd.Test) -> tuple[str, int]:
    """(name, value) of what is tested: a skill, a named test or a characteristic."""
    name = check_text(c.skill, "skill name", 64)  # a specialisation, Arte (Pintura), is kept as typed
    key = name.upper() if name.upper() in CHARACTERISTICS else model.characteristic_key(name)
    if key is not None:
        if c.times is None:
            raise RuleError(
                _(
                    "a test of {characteristic} needs a multiple (a luck test is {pow} times 4)",
                    characteristic=model.characteristic(key),
                    pow=model.characteristic("POD"),
                ),
                fix=GiveOption(system="d100", text=_("give the multiple"), inputs=(Input("times", "N"),)),
            )
        times = _positive(c.times, N_("the multiple"), 10)
        return f"{key}x{times}", inv.characteristics[key] * times
    if c.times is not None:
        raise RuleError(
            _(
                "a multiple applies to a characteristic ({characteristics}), not {name!r}",
                characteristics=", ".join(model.characteristic(k) for k in CHARACTERISTICS),
                name=name,
            ),
            fix=DropOption(system="d100", text=_("test the skill without a multiple"), inputs=("times",)),
        )
    tests = game.tables.get("tests", {})
    for wanted in (name, model.skill_key(name)):
        for test, spec in tests.items():
            if fold(test) == fold(wanted):
                return test, inv.characteristics[spec["characteristic"]] * int(spec["times"])
    found = proj.find_skill(inv, game.tables, name) or proj.find_skill(
        inv, game.tables, model.skill_key(name)
    )
    if found is None:
        raise RuleError(
            _(
                "no skill or test named {name!r}; use a skill of the character's sheet, a test "
                "({tests}) or a characteristic with a multiple",
                name=name,
                tests=", ".join(tests),
            )
        )
    return found


def _target(inv: Investigator, value: int, c: cmd.Test) -> tuple[int, list[str]]:
    """The target after the director's and the combat modifiers, in that order."""
    mods: list[str] = []
    target = value
    if c.target is not None:
        if not 0 <= c.target <= MAX_POINTS:
            raise RuleError(
                _("the target must be from 0 to {top}, got {target}", top=MAX_POINTS, target=c.target)
            )
        target = c.target
        mods.append(f"target {c.target}")
    if c.attack == "ranged" and inv.steady:
        target += 10 * inv.steady
        mods.append(f"steady +{10 * inv.steady}")
    if c.double and c.half:
        raise RuleError(
            _("a doubled and a halved target cannot both apply; pick the one the director asked for")
        )
    if c.double:
        target *= 2
        mods.append("double")
    if c.half:
        target = ceil_div(target, 2)
        mods.append("half")
    if c.aimed:
        if c.attack is None:
            raise RuleError(
                _("an aimed roll is an attack"),
                fix=GiveOption(
                    system="d100",
                    text=_("say the attack is melee or ranged"),
                    inputs=(Input("attack", "melee"), Input("attack", "ranged")),
                ),
            )
        if inv.aiming:
            mods.append("aimed after aiming")
        else:
            target = ceil_div(target, 2)
            mods.append("aimed (half)")
    return target, mods


def _test_event(
    who: str,
    skill: str,
    value: int,
    target: int,
    dice: Dice,
    *,
    purpose: str = "test",
    modifiers: tuple[str, ...] = (),
    attack: str | None = None,
) -> ev.Tested:
    face = dice.roll(100)
    return ev.Tested(
        who=who,
        skill=skill,
        skill_value=value,
        target=target,
        face=face,
        level=roll.level(face, target, value),
        special_at=roll.special_at(target),
        critical_at=roll.critical_at(target),
        fumble_at=roll.fumble_at(value),
        p_success=roll.p_success(target, value),
        purpose=purpose,
        modifiers=modifiers,
        attack=attack,
        manual=dice.manual,
    )


def _luck_problem(inv: Investigator, game: D100State, face: int, target: int, level: str) -> tuple[int, str]:
    """(cost, why luck cannot buy this roll or "") for a failed roll."""
    cost = face - max(target, 0)
    if level == roll.FUMBLE and not game.tables.get("rules", {}).get("luck_buys_fumble", False):
        return cost, _(
            "{who}'s roll of {face} is a fumble, which luck cannot buy off "
            "in this campaign (tables: [rules] luck_buys_fumble = false)",
            who=inv.name,
            face=face,
        )
    if cost > inv.luck:
        return (
            cost,
            _(
                "{who} needs {cost} luck ({face} - {target}) but has {luck}; the roll stays failed",
                who=inv.name,
                cost=cost,
                face=face,
                target=target,
                luck=inv.luck,
            ),
        )
    return cost, ""


def _with_luck(
    inv: Investigator, game: D100State, test: ev.Tested, declared: bool
) -> tuple[list[Event], str]:
    """The roll and, when luck was declared and a failure can be bought, the spending.

    Returns the events and the level the roll ends with."""
    if not declared or roll.is_success(test.level):
        return [test], test.level
    cost, problem = _luck_problem(inv, game, test.face, test.target, test.level)
    if problem:
        return [test], test.level
    spent = ev.LuckSpent(
        who=inv.name, points=cost, face=test.face, target=test.target, luck_after=inv.luck - cost
    )
    return [test, spent], roll.SUCCESS


def _skill_roll(
    inv: Investigator, game: D100State, skill: str, dice: Dice, purpose: str, luck: bool = False
) -> tuple[list[Event], str]:
    found = proj.find_skill(inv, game.tables, skill)
    name, value = found if found is not None else (skill, 0)
    test = _test_event(inv.name, name, value, value, dice, purpose=purpose)
    return _with_luck(inv, game, test, luck)


# --- the decider ---------------------------------------------------------------------

decider = Decider("d100", proj.evolve)


@decider.on(cmd.CreateCharacter)
def _create(draft: Draft[D100State], c: cmd.CreateCharacter) -> None:
    state, game = draft.state, draft.game
    check_name(c.name, "character")  # the command holds the name in NFC already
    if c.name in state.core.characters:
        raise DuplicateNameError(_("character {name!r} already exists; pick another name", name=c.name))
    chars = {(model.characteristic_key(k) or k.upper()): v for k, v in c.characteristics.items()}
    unknown = [k for k in chars if k not in CHARACTERISTICS]
    if unknown:
        raise RuleError(
            _(
                "unknown characteristic {name!r}; use {known}",
                name=unknown[0],
                known=", ".join(model.characteristic(k) for k in CHARACTERISTICS),
            )
        )
    missing = [k for k in CHARACTERISTICS if k not in chars]
    if missing:
        raise RuleError(
            _(
                "missing characteristics {missing}; give all eight, e.g. {example}=12",
                missing=", ".join(model.characteristic(k) for k in missing),
                example=model.characteristic("DES"),
            )
        )
    for k, v in chars.items():
        _positive(v, k, 100)
    attrs = {k: str(chars[k]) for k in CHARACTERISTICS}
    probe = Investigator(name=c.name, characteristics=chars)
    for name, value in c.skills.items():
        typed = check_text(name, "skill name", 64)
        found = proj.find_skill(probe, game.tables, typed) or proj.find_skill(
            probe, game.tables, model.skill_key(typed)
        )
        if found is None:
            raise RuleError(
                _("no skill named {name!r} in the campaign's skill list; check the spelling", name=name)
            )
        if not 0 <= value <= 200:
            raise RuleError(
                _("skill {skill} must be from 0 to 200, got {value}", skill=found[0], value=value)
            )
        attrs[f"skill.{found[0]}"] = str(value)
    for point, value in c.points.items():
        if point not in POINTS:
            raise RuleError(_("unknown point {point!r}; use {known}", point=point, known=", ".join(POINTS)))
        low = 0 if point == "luck" else 1
        if not low <= value <= MAX_POINTS:
            raise RuleError(
                _(
                    "{point} must be from {low} to {top}, got {value}",
                    point=point,
                    low=low,
                    top=MAX_POINTS,
                    value=value,
                )
            )
        attrs[point] = str(value)
    _emit(draft, CharacterAdded(name=c.name, attrs=attrs))


@decider.on(cmd.Test)
def _test(draft: Draft[D100State], c: cmd.Test) -> None:
    game, dice = draft.game, draft.dice
    inv = _character(game, c.actor)
    _able(inv, N_("roll"))
    if c.attack is not None and c.attack not in ("melee", "ranged"):
        raise RuleError(_("an attack is melee or ranged, not {attack!r}", attack=c.attack))
    skill, value = _resolve_skill(inv, game, c)
    target, mods = _target(inv, value, c)
    purpose = "attack" if c.attack else "test"
    test = _test_event(
        inv.name, skill, value, target, dice, purpose=purpose, modifiers=tuple(mods), attack=c.attack
    )
    _emit(draft, *_with_luck(inv, game, test, c.luck)[0])


@decider.on(cmd.SpendLuck)
def _spend_luck(draft: Draft[D100State], c: cmd.SpendLuck) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    last = inv.last_test
    if last is None:
        raise RuleError(
            _("{who} has no roll to spend luck on", who=inv.name),
            fix=_run(_("roll with `test`"), "test", "SKILL"),
        )
    if last.luck_spent:
        raise RuleError(
            _(
                "{who} already spent {luck_spent} luck on the last roll",
                who=inv.name,
                luck_spent=last.luck_spent,
            )
        )
    if roll.is_success(last.level):
        raise RuleError(
            _(
                "{who}'s last roll ({face} vs {target}) is a {level}; luck only turns a failed roll into a success",
                who=inv.name,
                face=last.face,
                target=last.target,
                level=model.level(last.level),
            )
        )
    if last.purpose not in ("test", "attack"):
        raise RuleError(
            _(
                "{who}'s last roll ({skill}) already had its effect; declare luck before such rolls",
                who=inv.name,
                skill=last.skill,
            ),
            fix=GiveOption(system="d100", text=_("declare luck with the roll"), inputs=(Input("luck"),)),
        )
    cost, problem = _luck_problem(inv, game, last.face, last.target, last.level)
    if problem:
        raise RuleError(problem)
    _emit(
        draft,
        ev.LuckSpent(
            who=inv.name, points=cost, face=last.face, target=last.target, luck_after=inv.luck - cost
        ),
    )


@decider.on(cmd.RefundLuck)
def _refund(draft: Draft[D100State], c: cmd.RefundLuck) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    if not inv.refundable:
        raise RuleError(_("{who} has no luck spending to refund (a refund follows luck spent)", who=inv.name))
    _emit(draft, ev.LuckRefunded(who=inv.name, points=inv.refundable, luck_after=inv.luck + inv.refundable))


@decider.on(cmd.AwardLuck)
def _award(draft: Draft[D100State], c: cmd.AwardLuck) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    _positive(c.points, N_("the luck awarded"))
    _emit(
        draft,
        ev.LuckAwarded(
            who=inv.name,
            points=c.points,
            luck_after=inv.luck + c.points,
            reason=check_text(c.reason, "the reason", 200),
        ),
    )


@decider.on(cmd.Damage)
def _damage(draft: Draft[D100State], c: cmd.Damage) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    if inv.dead:
        raise GameOverError(_("{who} is already dead", who=inv.name))
    _positive(c.amount, N_("damage"))
    died = inv.hp <= 0
    hp = max(0, inv.hp - c.amount)
    after = Investigator(
        name=inv.name, hp=hp, hp_max=inv.hp_max, valor=inv.valor, fatigue=inv.fatigue, dead=died
    )
    number = len(inv.wounds) + 1
    _emit(
        draft,
        ev.Wounded(
            who=inv.name,
            wound=number,
            amount=c.amount,
            cause=check_text(c.cause, "the cause", 200) or "wound",
            hp_after=hp,
            state=proj.state_of(after),
            died=died,
        ),
    )


@decider.on(cmd.Heal)
def _heal(draft: Draft[D100State], c: cmd.Heal) -> None:
    game, dice = draft.game, draft.dice
    healer = _character(game, c.actor, N_("the healer"))
    patient = _character(game, c.patient or c.actor, N_("the patient"))
    _able(healer, N_("heal"))
    if patient.dead:
        raise GameOverError(_("{patient} is dead; no skill heals the dead", patient=patient.name))
    if c.method == "firstaid":
        events = _first_aid(game, healer, patient, c.wound, dice, c.luck)
    elif c.method == "medicine":
        events = _medicine(game, healer, patient, dice, c.luck)
    else:
        raise RuleError(_("heal with firstaid or medicine, not {method!r}", method=c.method))
    _emit(draft, *events)


def _first_aid(
    game: D100State,
    healer: Investigator,
    patient: Investigator,
    wound_no: int | None,
    dice: Dice,
    luck: bool,
) -> list[Event]:
    if not patient.wounds:
        raise RuleError(_("{patient} has no wounds to give first aid to", patient=patient.name))
    number = wound_no if wound_no is not None else patient.wounds[-1].number
    wound = next((w for w in patient.wounds if w.number == number), None)
    if wound is None:
        raise RuleError(
            _(
                "{patient} has no wound {number}; wounds are 1 to {count}",
                patient=patient.name,
                number=number,
                count=len(patient.wounds),
            )
        )
    if wound.first_aid:
        raise RuleError(
            _(
                "wound {number} of {patient} already had first aid (once per wound); use medicine, or choose another wound",
                number=number,
                patient=patient.name,
            )
        )
    rolled, level = _skill_roll(healer, game, "Primeros auxilios", dice, "firstaid", luck)
    if not roll.is_success(level):
        return [
            *rolled,
            ev.Treated(
                healer=healer.name,
                patient=patient.name,
                method="firstaid",
                success=False,
                wound=number,
                hp_after=patient.hp,
                minute=game.clock,
            ),
        ]
    face = dice.roll(3)
    amount = min(face, wound.amount, patient.hp_max - patient.hp)
    return [
        *rolled,
        ev.Treated(
            healer=healer.name,
            patient=patient.name,
            method="firstaid",
            success=True,
            wound=number,
            faces=(face,),
            amount=amount,
            hp_after=patient.hp + amount,
            minute=game.clock,
            manual=dice.manual,
        ),
    ]


def _medicine(
    game: D100State, healer: Investigator, patient: Investigator, dice: Dice, luck: bool
) -> list[Event]:
    if game.in_combat:
        raise RuleError(_("medicine cannot be used in combat"), fix=END_COMBAT())
    last = patient.medicine_minute
    if last is not None and game.clock - last < MINUTES_PER_WEEK:
        wait = last + MINUTES_PER_WEEK - game.clock
        raise RuleError(
            _(
                "{patient} had medicine on day {day}; it can be repeated after a week ({wait} more minutes of game time)",
                patient=patient.name,
                day=last // MINUTES_PER_DAY,
                wait=wait,
            ),
            fix=_run(_("let the time pass with `rest`"), "rest", str(wait)),
        )
    rolled, level = _skill_roll(healer, game, "Medicina", dice, "medicine", luck)
    if not roll.is_success(level):
        return [
            *rolled,
            ev.Treated(
                healer=healer.name,
                patient=patient.name,
                method="medicine",
                success=False,
                hp_after=patient.hp,
                minute=game.clock,
            ),
        ]
    face = dice.roll(6)
    amount = min(face, patient.hp_max - patient.hp)
    return [
        *rolled,
        ev.Treated(
            healer=healer.name,
            patient=patient.name,
            method="medicine",
            success=True,
            faces=(face,),
            amount=amount,
            hp_after=patient.hp + amount,
            minute=game.clock,
            manual=dice.manual,
        ),
    ]


@decider.on(cmd.Horror)
def _horror(draft: Draft[D100State], c: cmd.Horror) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    if inv.dead:
        raise GameOverError(_("{who} is dead", who=inv.name))
    _positive(c.amount, N_("valor lost"))
    valor = max(0, inv.valor - c.amount)
    _emit(
        draft,
        ev.Horrified(
            who=inv.name,
            amount=c.amount,
            cause=check_text(c.cause, "the cause", 200) or "horror",
            valor_after=valor,
            panic=valor == 0,
        ),
    )


@decider.on(cmd.Therapy)
def _therapy(draft: Draft[D100State], c: cmd.Therapy) -> None:
    game, dice = draft.game, draft.dice
    healer = _character(game, c.actor, N_("the therapist"))
    patient = _character(game, c.patient or c.actor, N_("the patient"))
    _able(healer, N_("give psychotherapy"))
    if patient.dead:
        raise GameOverError(_("{patient} is dead", patient=patient.name))
    if game.in_combat:
        raise RuleError(_("psychotherapy cannot be used in combat"), fix=END_COMBAT())
    today = game.clock // MINUTES_PER_DAY
    if patient.therapy_day == today:
        raise RuleError(
            _(
                "{patient} already had psychotherapy on day {today}; it cannot be repeated the same day",
                patient=patient.name,
                today=today,
            ),
            fix=_run(
                _("advance time with `rest`"), "rest", str(MINUTES_PER_DAY - game.clock % MINUTES_PER_DAY)
            ),
        )
    rolled, level = _skill_roll(healer, game, "Psicoterapia", dice, "therapy", c.luck)
    if not roll.is_success(level):
        _emit(
            draft,
            *rolled,
            ev.TherapyGiven(
                healer=healer.name, patient=patient.name, success=False, day=today, valor_after=patient.valor
            ),
        )
        return
    face = dice.roll(6)
    amount = min(face, patient.valor_max - patient.valor)
    _emit(
        draft,
        *rolled,
        ev.TherapyGiven(
            healer=healer.name,
            patient=patient.name,
            success=True,
            day=today,
            faces=(face,),
            amount=amount,
            valor_after=patient.valor + amount,
            manual=dice.manual,
        ),
    )


@decider.on(cmd.Fatigue)
def _fatigue(draft: Draft[D100State], c: cmd.Fatigue) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    if inv.dead:
        raise GameOverError(_("{who} is dead", who=inv.name))
    _positive(c.amount, N_("fatigue lost"))
    _emit(
        draft,
        ev.Fatigued(
            who=inv.name,
            amount=c.amount,
            cause=check_text(c.cause, "the cause", 200) or "exertion",
            fatigue_after=max(0, inv.fatigue - c.amount),
        ),
    )


def _recovery(game: D100State, inv: Investigator, minutes: int, dice: Dice) -> ev.Recovery:
    rec = game.tables.get("recovery", {})
    fatigue = min(minutes // 15, inv.fatigue_max - inv.fatigue)
    valor, hp, faces = 0, 0, []
    for _day in range(minutes // MINUTES_PER_DAY):
        if inv.valor + valor >= inv.valor_max:
            break
        got, rolled = _amount(str(rec.get("valor_per_day", "0")), dice)
        valor, faces = valor + got, [*faces, *rolled]
    for _week in range(minutes // MINUTES_PER_WEEK):
        if inv.hp <= 0 or inv.hp + hp >= inv.hp_max:
            break
        got, rolled = _amount(str(rec.get("hp_per_week", "0")), dice)
        hp, faces = hp + got, [*faces, *rolled]
    return ev.Recovery(
        who=inv.name,
        fatigue=fatigue,
        valor=min(valor, inv.valor_max - inv.valor),
        hp=min(hp, inv.hp_max - inv.hp),
        faces=tuple(faces),
    )


@decider.on(cmd.Rest)
def _rest(draft: Draft[D100State], c: cmd.Rest) -> None:
    game, dice = draft.game, draft.dice
    _positive(c.minutes, N_("rest minutes"), MAX_REST)
    if c.everyone:
        resting = [i for i in game.characters.values() if not i.dead and not i.problems]
    else:
        resting = [_character(game, c.actor)]
    recoveries = tuple(_recovery(game, inv, c.minutes, dice) for inv in resting if not inv.dead)
    _emit(draft, ev.Rested(minutes=c.minutes, clock_after=game.clock + c.minutes, recoveries=recoveries))


def action_limit(des: int, option: str) -> int:
    """Actions a round allows: by DES (6-10 two, 11-15 three, 16-18 four)."""
    if option == "run":
        return 0
    if option == "half-run":
        return 1 if des <= 10 else 2
    if des <= 5:
        return 1
    if des <= 10:
        return 2
    if des <= 15:
        return 3
    return 4


def _check_attacks(inv: Investigator, game: D100State, attacks: list[str], multi: bool) -> None:
    if len(attacks) <= 1 or multi:
        return
    martial = [a for a in attacks if fold(a).split(" (")[0] == "arte marcial"]
    has_martial = any(fold(k).split(" (")[0] == "arte marcial" for k in inv.skills)
    if len(attacks) == 2 and len(martial) == 1 and has_martial:
        return
    raise RuleError(
        _(
            "{count} attacks in one round: only one is allowed, unless the weapon allows several or one of two is with a trained Arte Marcial",
            count=len(attacks),
        ),
        fix=GiveOption(
            system="d100",
            text=_("declare a weapon that allows several attacks"),
            inputs=(Input("multi_attack_weapon"),),
        ),
    )


@decider.on(cmd.DeclareRound)
def _round(draft: Draft[D100State], c: cmd.DeclareRound) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    if c.option not in ("actions", "half-run", "run"):
        raise RuleError(_("round option must be actions, half-run or run, not {option!r}", option=c.option))
    _able(inv, N_("take part in the round"), panic_ok=c.option == "run")
    if inv.valor <= 0 and c.option != "run":
        raise RuleError(_("{who} is in panic and can only flee", who=inv.name), fix=FLEE())
    actions = [
        SPECIAL_ACTIONS.get(fold(a), model.action_key(check_text(a, "an action", 200))) for a in c.actions
    ]
    attacks = []
    for a in c.attacks:
        typed = check_text(a, "attack skill", 64)
        found = proj.find_skill(inv, game.tables, typed) or proj.find_skill(
            inv, game.tables, model.skill_key(typed)
        )
        if found is None:
            raise RuleError(
                _("no attack skill named {a!r}; use a skill of the character's sheet (Pelea, say)", a=a)
            )
        attacks.append(found[0])
    for a in actions:
        if fold(a).split(" (")[0] in FORBIDDEN_IN_COMBAT:
            raise RuleError(
                _("{a} cannot be used in combat (medicina, psicoterapia and ciencia are forbidden)", a=a)
            )
        if not a:
            raise RuleError(_("an empty action was declared; name each action"))
    _check_attacks(inv, game, attacks, c.multi_attack_weapon)
    des = inv.characteristics["DES"]
    limit = action_limit(des, c.option)
    used = len(actions) + len(attacks)
    if used > limit:
        raise RuleError(
            _(
                "{who} declares {used} actions but DES {des} allows {limit} with option {option!r}; declare fewer",
                who=inv.name,
                used=used,
                des=des,
                limit=limit,
                option=c.option,
            )
        )
    defense = None if c.defense is None else model.defense_key(c.defense)
    if defense is not None and defense not in ("esquivar", "bloquear"):
        raise RuleError(_("the defence must be esquivar or bloquear, not {defense!r}", defense=c.defense))
    number = game.round if game.in_combat and inv.declared_round != game.round else game.round + 1
    _emit(
        draft,
        ev.RoundDeclared(
            who=inv.name,
            round=number,
            option=c.option,
            actions=tuple(actions),
            attacks=tuple(attacks),
            defense=defense,
            limit=limit,
            fatigue_after=max(0, inv.fatigue - 1),
        ),
    )


@decider.on(cmd.Aim)
def _aim(draft: Draft[D100State], c: cmd.Aim) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    _able(inv, N_("aim"))
    if not game.in_combat or inv.declared_round != game.round:
        raise RuleError(
            _("{who} has not declared this round", who=inv.name),
            fix=_run(
                _("declare it with `round`"),
                "round",
                options=(Input("act", "Apuntar"), Input("attack", "SKILL")),
            ),
        )
    if inv.aiming:
        raise RuleError(_("{who} is already aiming; the next action is the aimed attack", who=inv.name))
    _emit(draft, ev.Aimed(who=inv.name, round=game.round))


@decider.on(cmd.Steady)
def _steady(draft: Draft[D100State], c: cmd.Steady) -> None:
    game = draft.game
    inv = _character(game, c.actor)
    _able(inv, N_("take aim"))
    des = inv.characteristics["DES"]
    if inv.steady:
        raise RuleError(
            _(
                "{who} already gave up {steady} DES for the next ranged attack",
                who=inv.name,
                steady=inv.steady,
            )
        )
    _positive(c.points, "DES points given up", max(1, des - 1))
    _emit(draft, ev.Steadied(who=inv.name, points=c.points, bonus=10 * c.points))


@decider.on(cmd.Dodge)
def _dodge(draft: Draft[D100State], c: cmd.Dodge) -> None:
    game, dice = draft.game, draft.dice
    inv = _character(game, c.actor)
    _able(inv, N_("dodge"), panic_ok=True)
    attacker = None
    against = c.against
    if against is None:
        last = game.last_attack
        if last is None or last.who == inv.name:
            raise RuleError(
                _("no attack to dodge"),
                fix=GiveOption(
                    system="d100",
                    text=_("give the attack's success level"),
                    inputs=(Input("against", "special"),),
                ),
            )
        if last.kind != "melee":
            raise RuleError(
                _("{who}'s last attack is ranged; dodge works against melee attacks only", who=last.who)
            )
        attacker, against = last.who, last.level
    if against not in roll.SUCCESSES:
        raise RuleError(
            _(
                "the attack is a {against}: only a success, special or critical needs dodging",
                against=model.level(against),
            )
        )
    rolled, level = _skill_roll(inv, game, "Esquivar", dice, "dodge", c.luck)
    cancelled = roll.is_success(level) and roll.rank(level) >= roll.rank(against)
    _emit(
        draft,
        *rolled,
        ev.DodgeResolved(who=inv.name, against=against, dodge=level, cancelled=cancelled, attacker=attacker),
    )


@decider.on(cmd.EndCombat)
def _end_combat(draft: Draft[D100State], _c: cmd.EndCombat) -> None:
    game = draft.game
    if not game.in_combat:
        raise RuleError(_("there is no combat to end; a combat starts with the first round declared"))
    _emit(draft, ev.CombatEnded(rounds=game.round))


SYSTEM = System(
    name="d100",
    description="percentile roll-under: success levels, fumbles, luck, hit/valor/fatigue points, rounds",
    rules=Rules(
        initial=proj.initial,
        evolve=proj.evolve,
        decide=decider,
        day=proj.day,
        load_tables=load_tables,
        check_tables=stored_tables_check,
        check_state=check_state,
        events=ev.EVENTS,
        commands=decider.commands,
        creates=cmd.CreateCharacter,
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
        demo=demo,
        autoplay=autoplay,
    ),
)
