"""The d100 game state: the party's investigators, the clock and the combat.

``evolve`` folds the d100 events (and the core ``CharacterAdded``, whose
string attributes it parses) into frozen state; ``sheet`` projects one
character to the JSON ``ledger sheet`` prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from ledger.i18n import N_, _
from ledger.log.events import CampaignStarted, CharacterAdded, Envelope, Event
from ledger.systems import Ask, Control, Form, SheetField, SheetLayout, SheetSection
from ledger.systems.d100 import events as ev
from ledger.systems.d100 import model
from ledger.systems.d100.model import CHARACTERISTICS, POINTS, ceil_div, fold

MINUTES_PER_DAY = 24 * 60
MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY


class Wound(msgspec.Struct, frozen=True):
    number: int
    amount: int
    cause: str
    first_aid: bool = False


class LastTest(msgspec.Struct, frozen=True):
    skill: str
    face: int
    target: int
    level: str
    luck_spent: int = 0
    purpose: str = "test"


class Investigator(msgspec.Struct, frozen=True):
    name: str
    characteristics: dict[str, int] = {}
    skills: dict[str, int] = {}
    """Values the character has for skills (trained or custom), by name."""
    hp: int = 0
    hp_max: int = 0
    valor: int = 0
    valor_max: int = 0
    fatigue: int = 0
    fatigue_max: int = 0
    luck: int = 0
    wounds: tuple[Wound, ...] = ()
    dead: bool = False
    medicine_minute: int | None = None
    therapy_day: int | None = None
    last_test: LastTest | None = None
    refundable: int = 0
    declared_round: int = 0
    aiming: bool = False
    steady: int = 0
    problems: tuple[str, ...] = ()


class LastAttack(msgspec.Struct, frozen=True):
    who: str
    level: str
    kind: str


class D100State(msgspec.Struct, frozen=True):
    tables: dict[str, Any] = {}
    characters: dict[str, Investigator] = {}
    clock: int = 0
    """Game time in minutes since the campaign began."""
    round: int = 0
    in_combat: bool = False
    last_attack: LastAttack | None = None


def initial(started: CampaignStarted) -> D100State:
    return D100State(tables=started.tables)


def day(state: D100State | None) -> int | None:
    return None if state is None else state.clock // MINUTES_PER_DAY


# --- characters ---------------------------------------------------------------


def derive(spec: dict[str, Any], chars: dict[str, int]) -> int:
    total = sum(chars.get(c, 0) for c in spec["of"])
    return ceil_div(total * int(spec["times"]), int(spec["divide"]))


def _number(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def parse_attrs(name: str, attrs: dict[str, str], tables: dict[str, Any]) -> Investigator:
    """An investigator from ``--attr`` strings: characteristics (``DES=12``),
    skills (``skill.Esquivar=40``) and point overrides (``hp=14``). Values that
    cannot be read become problems listed on the sheet; never raises."""
    chars: dict[str, int] = {}
    skills: dict[str, int] = {}
    overrides: dict[str, int] = {}
    problems: list[str] = []
    for key, raw in attrs.items():
        value = _number(raw)
        if value is None:
            problems.append(f"{key}={raw!r} is not a whole number")
            continue
        read = model.CHARACTERISTIC_READINGS.read(key)
        if key.upper() in CHARACTERISTICS:
            chars[key.upper()] = value
        elif len(read) == 1:  # DEX=12, as the English editions write it
            chars[next(iter(read))] = value
        elif key.lower().startswith("skill."):
            skills[key[6:].strip()] = value
        elif key.lower() in POINTS:
            overrides[key.lower()] = value
        else:
            problems.append(f"{key!r} is not a characteristic, skill.NAME or point")
    missing = [c for c in CHARACTERISTICS if c not in chars]
    if missing:
        problems.append(f"missing characteristics {', '.join(missing)}")
    derived = tables.get("derived", {})
    points = {p: overrides.get(p, derive(derived[p], chars) if p in derived else 0) for p in POINTS}
    return Investigator(
        name=name,
        characteristics=chars,
        skills=skills,
        hp=points["hp"],
        hp_max=points["hp"],
        valor=points["valor"],
        valor_max=points["valor"],
        fatigue=points["fatigue"],
        fatigue_max=points["fatigue"],
        luck=points["luck"],
        problems=tuple(problems),
    )


def find_skill(inv: Investigator, tables: dict[str, Any], name: str) -> tuple[str, int] | None:
    """(name, value) of a skill the character has or may use untrained."""
    wanted = fold(name)
    for own, value in inv.skills.items():
        if fold(own) == wanted:
            return own, value
    base = tables.get("skills", {})
    for listed, value in base.items():
        if fold(listed) == wanted:
            return listed, int(value)
    family = wanted.split(" (")[0]
    for listed, value in base.items():
        if fold(listed) == family and "(" in name:
            return name.strip(), int(value)
    return None


def all_skills(inv: Investigator, tables: dict[str, Any]) -> dict[str, int]:
    """Every skill of the list at the character's value, then its own extra skills."""
    out = {k: int(v) for k, v in tables.get("skills", {}).items()}
    folded = {fold(k): k for k in out}
    for own, value in inv.skills.items():
        out[folded.get(fold(own), own)] = value
    return out


def state_of(inv: Investigator) -> str:
    """The one state the sheet shows, most serious first."""
    if inv.dead:
        return "dead"
    if inv.hp <= 0:
        return "dying"
    if inv.hp <= 2:
        return "unconscious"
    if inv.valor <= 0:
        return "panic"
    if inv.fatigue <= 0:
        return "exhausted"
    if 2 * (inv.hp_max - inv.hp) >= inv.hp_max:
        return "unconscious_risk"
    return "ok"


def conditions(inv: Investigator) -> list[str]:
    """Every state that applies (the sheet's ``state`` is the first)."""
    out = [state_of(inv)]
    extra = [
        ("panic", inv.valor <= 0),
        ("exhausted", inv.fatigue <= 0),
        ("unconscious_risk", 2 * (inv.hp_max - inv.hp) >= inv.hp_max and inv.hp > 2),
    ]
    out += [name for name, on in extra if on and name not in out]
    return [c for c in out if c != "ok"] or ["ok"]


# --- evolve ---------------------------------------------------------------------

Handler = Callable[[D100State, Any], D100State]


def _with(state: D100State, who: str, **changes: Any) -> D100State:
    inv = state.characters.get(who)
    if inv is None:
        return state
    chars = dict(state.characters)
    chars[who] = replace(inv, **changes)
    return replace(state, characters=chars)


def _added(state: D100State, e: CharacterAdded) -> D100State:
    chars = dict(state.characters)
    chars[e.name] = parse_attrs(e.name, e.attrs, state.tables)
    return replace(state, characters=chars)


def _tested(state: D100State, e: ev.Tested) -> D100State:
    inv = state.characters.get(e.who)
    if inv is None:
        return state
    last = LastTest(skill=e.skill, face=e.face, target=e.target, level=e.level, purpose=e.purpose)
    changes: dict[str, Any] = {"last_test": last, "aiming": False}
    if e.attack == "ranged":
        changes["steady"] = 0
    state = _with(state, e.who, **changes)
    if e.attack is not None:
        state = replace(state, last_attack=LastAttack(who=e.who, level=e.level, kind=e.attack))
    return state


def _luck_spent(state: D100State, e: ev.LuckSpent) -> D100State:
    inv = state.characters.get(e.who)
    if inv is None or inv.last_test is None:
        return state
    last = replace(inv.last_test, level="success", luck_spent=e.points)
    return _with(state, e.who, luck=e.luck_after, last_test=last, refundable=e.points)


def _refunded(state: D100State, e: ev.LuckRefunded) -> D100State:
    return _with(state, e.who, luck=e.luck_after, refundable=0)


def _awarded(state: D100State, e: ev.LuckAwarded) -> D100State:
    return _with(state, e.who, luck=e.luck_after)


def _wounded(state: D100State, e: ev.Wounded) -> D100State:
    inv = state.characters.get(e.who)
    if inv is None:
        return state
    wounds = (*inv.wounds, Wound(number=e.wound, amount=e.amount, cause=e.cause))
    return _with(state, e.who, hp=e.hp_after, wounds=wounds, dead=inv.dead or e.died, aiming=False, steady=0)


def _treated(state: D100State, e: ev.Treated) -> D100State:
    inv = state.characters.get(e.patient)
    if inv is None:
        return state
    if e.method == "firstaid":
        wounds = tuple(replace(w, first_aid=True) if w.number == e.wound else w for w in inv.wounds)
        return _with(state, e.patient, wounds=wounds, hp=e.hp_after if e.success else inv.hp)
    return _with(state, e.patient, medicine_minute=e.minute, hp=e.hp_after if e.success else inv.hp)


def _horrified(state: D100State, e: ev.Horrified) -> D100State:
    return _with(state, e.who, valor=e.valor_after)


def _therapy(state: D100State, e: ev.TherapyGiven) -> D100State:
    inv = state.characters.get(e.patient)
    if inv is None:
        return state
    return _with(state, e.patient, therapy_day=e.day, valor=e.valor_after if e.success else inv.valor)


def _fatigued(state: D100State, e: ev.Fatigued) -> D100State:
    return _with(state, e.who, fatigue=e.fatigue_after)


def _end_combat(state: D100State) -> D100State:
    chars = {n: replace(i, aiming=False, steady=0, declared_round=0) for n, i in state.characters.items()}
    return replace(state, characters=chars, round=0, in_combat=False, last_attack=None)


def _rested(state: D100State, e: ev.Rested) -> D100State:
    state = _end_combat(replace(state, clock=e.clock_after))
    for r in e.recoveries:
        inv = state.characters.get(r.who)
        if inv is None:
            continue
        state = _with(
            state,
            r.who,
            fatigue=min(inv.fatigue_max, inv.fatigue + r.fatigue),
            valor=min(inv.valor_max, inv.valor + r.valor),
            hp=min(inv.hp_max, inv.hp + r.hp),
        )
    return state


def _declared(state: D100State, e: ev.RoundDeclared) -> D100State:
    state = replace(state, round=e.round, in_combat=True)
    return _with(state, e.who, declared_round=e.round, fatigue=e.fatigue_after, aiming=False, steady=0)


def _aimed(state: D100State, e: ev.Aimed) -> D100State:
    return _with(state, e.who, aiming=True)


def _steadied(state: D100State, e: ev.Steadied) -> D100State:
    return _with(state, e.who, steady=e.points)


def _dodged(state: D100State, e: ev.DodgeResolved) -> D100State:
    return _with(state, e.who, aiming=False, steady=0)


def _combat_ended(state: D100State, _e: ev.CombatEnded) -> D100State:
    return _end_combat(state)


HANDLERS: dict[type[Event], Handler] = {
    CharacterAdded: _added,
    ev.Tested: _tested,
    ev.LuckSpent: _luck_spent,
    ev.LuckRefunded: _refunded,
    ev.LuckAwarded: _awarded,
    ev.Wounded: _wounded,
    ev.Treated: _treated,
    ev.Horrified: _horrified,
    ev.TherapyGiven: _therapy,
    ev.Fatigued: _fatigued,
    ev.Rested: _rested,
    ev.RoundDeclared: _declared,
    ev.Aimed: _aimed,
    ev.Steadied: _steadied,
    ev.DodgeResolved: _dodged,
    ev.CombatEnded: _combat_ended,
}


def evolve(state: D100State | None, event: Event, _env: Envelope[Any]) -> D100State | None:
    handler = HANDLERS.get(type(event))
    if handler is None or state is None:
        return state
    return handler(state, event)


# --- the sheet --------------------------------------------------------------------


def character_sheet(inv: Investigator, game: D100State) -> dict[str, Any]:
    chars = dict(inv.characteristics)
    if inv.steady:
        chars = {**chars, "DES": chars.get("DES", 0) - inv.steady}
    last = inv.last_test
    return {
        "name": inv.name,
        "characteristics": chars,
        "skills": all_skills(inv, game.tables),
        "trained": dict(inv.skills),
        "hp": {"current": inv.hp, "max": inv.hp_max},
        "valor": {"current": inv.valor, "max": inv.valor_max},
        "fatigue": {"current": inv.fatigue, "max": inv.fatigue_max},
        "luck": inv.luck,
        "state": state_of(inv),
        "conditions": conditions(inv),
        "wounds": [
            {"number": w.number, "amount": w.amount, "cause": w.cause, "first_aid": w.first_aid}
            for w in inv.wounds
        ],
        "medicine_again_at_minute": (
            None if inv.medicine_minute is None else inv.medicine_minute + MINUTES_PER_WEEK
        ),
        "therapy_day": inv.therapy_day,
        "last_test": None
        if last is None
        else {
            "skill": last.skill,
            "face": last.face,
            "target": last.target,
            "level": last.level,
            "luck_spent": last.luck_spent,
        },
        "refundable_luck": inv.refundable,
        "aiming": inv.aiming,
        "steady": inv.steady,
        "problems": list(inv.problems),
    }


def _brief(inv: Investigator) -> dict[str, Any]:
    return {
        "state": state_of(inv),
        "hp": inv.hp,
        "valor": inv.valor,
        "fatigue": inv.fatigue,
        "luck": inv.luck,
    }


def sheet(state: Any, actor: str | None) -> dict[str, Any]:
    """One character's sheet (``--as``; default the first of the party) and the party in brief."""
    game: D100State = state.game
    who = actor if actor in game.characters else next(iter(game.characters), None)
    data: dict[str, Any] = {
        "campaign": state.core.name,
        "system": "d100",
        "clock": {
            "minutes": game.clock,
            "day": game.clock // MINUTES_PER_DAY,
            "time": f"{game.clock % MINUTES_PER_DAY // 60:02d}:{game.clock % 60:02d}",
        },
        "combat": {"in_combat": game.in_combat, "round": game.round},
        "party": {n: _brief(i) for n, i in game.characters.items()},
    }
    if who in game.characters:
        data.update(character_sheet(game.characters[who], game))
        data.update(_readable(data))
    return data


def _readable(data: dict[str, Any]) -> dict[str, Any]:
    """What the sheet's layout words: the skills above their base, each wound, the last
    test, the rest of the party, the conditions beyond "ok"."""
    t = data["last_test"]
    return {
        "skills_shown": data["trained"] or _("base values only"),
        "skill_text": ", ".join(f"{model.skill(k)} {v}" for k, v in data["trained"].items())
        or _("base values only"),
        "characteristic_names": [
            f"{model.characteristic(k)} {v}" for k, v in data["characteristics"].items()
        ],
        "state_name": model.state(data["state"]),
        "wound_lines": [
            _(
                "{number}: {amount} ({cause}), first aid given",
                number=w["number"],
                amount=w["amount"],
                cause=model.cause(w["cause"]),
            )
            if w["first_aid"]
            else _(
                "{number}: {amount} ({cause}), no first aid yet",
                number=w["number"],
                amount=w["amount"],
                cause=model.cause(w["cause"]),
            )
            for w in data["wounds"]
        ],
        "last_test_line": _(
            "{skill} {face} vs {target} -> {level}",
            skill=model.tested(t["skill"]),
            face=t["face"],
            target=t["target"],
            level=model.level(t["level"]),
        )
        if t
        else None,
        "others": [
            _("{who} ({state}, hp {hp})", who=n, state=model.state(p["state"]), hp=p["hp"])
            for n, p in data["party"].items()
            if n != data["name"]
        ],
        "shown_conditions": [model.state(c) for c in data["conditions"] if c != "ok"],
        "round": data["combat"]["round"] if data["combat"]["in_combat"] else None,
    }


LUCK = Ask(field="luck", label="luck")
"""Luck declared before the roll: a failure is bought if it can be afforded."""
TEST_OPTIONS = (
    Ask(field="double", label="double"),
    Ask(field="half", label="half"),
    Ask(field="attack", label="attack", choices=("melee", "ranged")),
    Ask(field="aimed", label="aimed"),
    LUCK,
)
WHO = Ask(field="patient", label="patient", pick="@characters")

CONTROLS = (
    Control(
        command="d100.Test",
        on="characteristic_names",
        each="characteristics",
        args={"skill": "{key}"},
        options=(Ask(field="times", label="times", default=5, low=1, high=10), LUCK),
    ),
    Control(
        command="d100.Test",
        on="skills_shown",
        each="skills_shown",
        args={"skill": "{key}"},
        options=TEST_OPTIONS,
    ),
    Control(
        command="d100.Test",
        on="skills_shown",
        label=N_("another skill"),
        options=(Ask(field="skill", label="skill", pick="skills"), *TEST_OPTIONS),
    ),
    Control(
        command="d100.Test",
        on="skills_shown",
        label=N_("a named test"),
        options=(Ask(field="skill", label="skill", pick="@tables.tests"), LUCK),
    ),
    Control(
        command="d100.SpendLuck",
        on="luck",
        label=N_("spend luck"),
        where={"last_test.level": ("failure",), "last_test.luck_spent": (0,)},
    ),
)
"""What an investigator taps on the sheet: a characteristic (times a multiple) or a skill
tests it; after a failed roll, luck to spend."""

FORMS = (
    Form(command="d100.Test", name="d100 test", group=N_("Rolls"), sheet=True),
    Form(command="d100.SpendLuck", name="d100 luck", group=N_("Luck"), sheet=True),
    Form(
        command="d100.Dodge",
        name="d100 dodge",
        group=N_("Fight"),
        asks=(Ask(field="against", label="against", choices=("success", "special", "critical")), LUCK),
    ),
    Form(
        command="d100.DeclareRound",
        name="d100 round",
        group=N_("Fight"),
        asks=(
            Ask(field="option", label="option", choices=("actions", "half-run", "run"), default="actions"),
            Ask(field="actions", label="act", pick="skills"),
            Ask(field="attacks", label="attack", pick="skills"),
            Ask(field="defense", label="defend", choices=("esquivar", "bloquear")),
            Ask(field="multi_attack_weapon", label="multi-attack-weapon"),
        ),
    ),
    Form(command="d100.Aim", name="d100 aim", group=N_("Fight")),
    Form(
        command="d100.Steady",
        name="d100 steady",
        group=N_("Fight"),
        asks=(Ask(field="points", label="points", low=1, high=20),),
    ),
    Form(command="d100.EndCombat", name="d100 endcombat", group=N_("Fight")),
    Form(
        command="d100.Damage",
        name="d100 damage",
        group=N_("Harm"),
        asks=(Ask(field="amount", label="amount", low=1, high=100), Ask(field="cause", label="cause")),
    ),
    Form(
        command="d100.Horror",
        name="d100 horror",
        group=N_("Harm"),
        asks=(Ask(field="amount", label="amount", low=1, high=100), Ask(field="cause", label="cause")),
    ),
    Form(
        command="d100.Fatigue",
        name="d100 fatigue",
        group=N_("Harm"),
        asks=(Ask(field="amount", label="amount", low=1, high=100), Ask(field="cause", label="cause")),
    ),
    Form(
        command="d100.Heal",
        name="d100 heal",
        group=N_("Healing and rest"),
        asks=(
            Ask(field="method", label="method", choices=("firstaid", "medicine"), default="firstaid"),
            WHO,
            Ask(field="wound", label="wound", low=1, high=50),
            LUCK,
        ),
    ),
    Form(command="d100.Therapy", name="d100 therapy", group=N_("Healing and rest"), asks=(WHO, LUCK)),
    Form(
        command="d100.Rest",
        name="d100 rest",
        group=N_("Healing and rest"),
        asks=(Ask(field="minutes", label="time", low=1), Ask(field="everyone", label="all")),
    ),
    Form(
        command="d100.AwardLuck",
        name="d100 award",
        group=N_("Luck"),
        asks=(Ask(field="points", label="points", low=1, high=100), Ask(field="reason", label="reason")),
    ),
    Form(command="d100.RefundLuck", name="d100 refund", group=N_("Luck"), seen=True),
)
"""The d100 commands an investigator's sheet does not hold, by what the party is doing.
A refund names the luck last spent: it is sent with the version its director saw."""

SHEET = SheetLayout(
    title=(
        N_("{name}  [{state_name}]  day {clock.day} {clock.time}  combat round {round}"),
        N_("{name}  [{state_name}]  day {clock.day} {clock.time}"),
        N_("{campaign} (d100): no characters yet; add one first"),
    ),
    headline=(
        SheetField("hp", model.POINT_NAMES["hp"]),
        SheetField("valor", model.POINT_NAMES["valor"]),
        SheetField("fatigue", model.POINT_NAMES["fatigue"]),
        SheetField("luck", model.POINT_NAMES["luck"]),
    ),
    sections=(
        SheetSection(N_("Characteristics"), (SheetField("characteristic_names", ""),), when="name"),
        SheetSection(N_("Conditions"), (SheetField("shown_conditions", ""),), when="shown_conditions"),
        SheetSection(N_("Wounds"), (SheetField("wound_lines", ""),), when="wound_lines"),
        SheetSection(N_("Skills"), (SheetField("skills_shown", "", show="{skill_text}"),), when="name"),
        SheetSection(N_("Last test"), (SheetField("last_test_line", ""),), when="last_test_line"),
        SheetSection(N_("Party"), (SheetField("others", ""),), when="others"),
        SheetSection(N_("Problems"), (SheetField("problems", ""),), when="problems"),
    ),
    controls=CONTROLS,
)
"""An investigator's sheet as a player reads it (``ledger sheet``, the report): the
skills raised above their base, not the whole list."""
