"""The d100 rules as a player meets them: given these events, when this command, then
exactly these events (or this refusal). No database: the events are folded into a
campaign state by the core fold and the system's own, the dice are physical faces."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.deciding.commands import Command
from ledger.errors import FacesError, Input, RuleError
from ledger.log import snapshots
from ledger.log.events import CampaignStarted, CharacterAdded, Event
from ledger.log.state import CampaignState
from ledger.systems import get_system
from ledger.systems.d100 import commands as c
from ledger.systems.d100 import events as ev
from tests.helpers_rules import decided, folded

SYSTEM = get_system("d100")
TABLES, _ = SYSTEM.rules.load_tables(None)

CHARS = {"TAM": 12, "CON": 11, "FUE": 10, "INT": 14, "EDU": 15, "DES": 9, "CAR": 12, "POD": 13}
ANA = CharacterAdded(
    name="Ana",
    attrs={**{k: str(v) for k, v in CHARS.items()}, "skill.Trepar": "40", "skill.Esquivar": "40"},
)

"""Ana: hp (CON + TAM) / 2 = 12, valor and luck POD x 5 = 65, fatigue CON + FUE = 21."""


def given(*events: Event) -> CampaignState:
    """The campaign state after a new d100 campaign and these events."""
    started = CampaignStarted(name="Casa", system="d100", tables=TABLES)
    return folded(SYSTEM, started, events, lambda e: getattr(e, "who", None) or getattr(e, "name", None))


def when(state: CampaignState, command: Command, faces: list[int] | None = None) -> list[Any]:
    """The events the d100 system decides for ``command``, rolling exactly ``faces``."""
    return decided(SYSTEM, state, command, faces or [])


def climb(face: int, level: str) -> ev.Tested:
    """Ana's Trepar 40 test: special at 20, critical at 8, fumble from 98; 40 faces in 100 succeed."""
    return ev.Tested(
        who="Ana",
        skill="Trepar",
        skill_value=40,
        target=40,
        face=face,
        level=level,
        special_at=20,
        critical_at=8,
        fumble_at=98,
        p_success=0.4,
        manual=True,
    )


def test_a_character_is_added_with_its_characteristics_and_skills_as_typed() -> None:
    command = c.CreateCharacter(name="Ana", characteristics=CHARS, skills={"trepar": 40, "Esquivar": 40})
    assert when(given(), command) == [ANA]
    assert given(ANA).game.characters["Ana"].hp == 12


def test_a_roll_at_a_fifth_of_the_skill_is_a_critical() -> None:
    assert when(given(ANA), c.Test(skill="Trepar", actor="Ana"), [8]) == [climb(8, "critical")]


def test_luck_declared_before_the_roll_buys_off_the_failure() -> None:
    then = when(given(ANA), c.Test(skill="Trepar", luck=True, actor="Ana"), [50])
    assert then == [
        climb(50, "failure"),
        ev.LuckSpent(who="Ana", points=10, face=50, target=40, luck_after=55),
    ]


def test_luck_cannot_buy_off_a_fumble_in_the_sample_rules() -> None:
    assert when(given(ANA), c.Test(skill="Trepar", luck=True, actor="Ana"), [99]) == [climb(99, "fumble")]
    with pytest.raises(RuleError, match="a fumble, which luck cannot buy off"):
        when(given(ANA, climb(99, "fumble")), c.SpendLuck(actor="Ana"))


def test_a_wound_to_zero_hp_leaves_the_character_dying_and_unable_to_roll() -> None:
    (wound,) = when(given(ANA), c.Damage(amount=12, actor="Ana"))
    assert wound == ev.Wounded(who="Ana", wound=1, amount=12, cause="wound", hp_after=0, state="dying")
    with pytest.raises(RuleError, match=r"Ana is dying \(hp 0\) and cannot roll"):
        when(given(ANA, wound), c.Test(skill="Trepar", actor="Ana"), [8])


def test_horror_to_zero_valor_panics_and_a_panicking_character_can_only_flee() -> None:
    (horror,) = when(given(ANA), c.Horror(amount=70, cause="the thing in the cellar", actor="Ana"))
    assert horror == ev.Horrified(
        who="Ana", amount=70, cause="the thing in the cellar", valor_after=0, panic=True
    )
    with pytest.raises(RuleError, match=r"Ana is in panic \(valor 0\) and can only flee") as refused:
        when(given(ANA, horror), c.Test(skill="Trepar", actor="Ana"), [8])
    fix = refused.value.fix
    assert fix is not None and (fix.action, fix.command, fix.options) == ("command", "round", (Input("run"),))


def test_an_exhausted_character_is_told_to_rest() -> None:
    (tired,) = when(given(ANA), c.Fatigue(amount=21, actor="Ana"))
    assert tired == ev.Fatigued(who="Ana", amount=21, cause="exertion", fatigue_after=0)
    with pytest.raises(RuleError, match="exhausted") as refused:
        when(given(ANA, tired), c.Test(skill="Trepar", actor="Ana"), [8])
    fix = refused.value.fix
    assert fix is not None and (fix.command, fix.arguments) == ("rest", ("15",))


def test_the_fold_imports_no_module_of_the_decide_side() -> None:
    for system, fold in (("d100", "ledger.projections.d100.state"), ("d20", "ledger.projections.d20.state")):
        found = [m for m in snapshots.dependencies([fold]) if m.startswith(f"ledger.systems.{system}.")]
        allowed = {
            f"ledger.systems.{system}",
            f"ledger.systems.{system}.events",
            f"ledger.systems.{system}.model",
        }
        assert set(found) <= allowed, (system, found)


# --- the success levels where rounding a half or a fifth down, up or to nearest differ ------
# "Si se saca la mitad del objetivo (redondeado hacia arriba) o menos es un éxito especial.
#  Si se saca la quinta parte del objetivo (redondeado hacia arriba) o menos se obtiene un
#  éxito crítico." Targets that are multiples of 10 cannot tell the roundings apart.


def roll_against(skill: int, face: int) -> ev.Tested:
    """Ana's test of a skill of ``skill`` points on the face ``face``."""
    ana = CharacterAdded(name="Ana", attrs={**ANA.attrs, "skill.Saltar": str(skill)})
    (tested,) = when(given(ana), c.Test(skill="Saltar", actor="Ana"), [face])
    return tested


@pytest.mark.parametrize(
    ("skill", "critical", "special"),
    [
        (1, 1, 1),  # a fifth (0.2) and a half (0.5) of 1 round up to 1: a 1 is a critical
        (33, 7, 17),  # 6.6 -> 7 (down: 6); 16.5 -> 17 (down, or to the even: 16)
        (47, 10, 24),  # 9.4 -> 10 (down or to nearest: 9); 23.5 -> 24
        (51, 11, 26),  # 10.2 -> 11 (down or to nearest: 10); 25.5 -> 26 (down: 25)
        (99, 20, 50),  # 19.8 -> 20 (down: 19); 49.5 -> 50 (down: 49)
    ],
)
def test_a_fifth_and_a_half_of_the_target_are_rounded_up(skill: int, critical: int, special: int) -> None:
    at_critical, past_critical = roll_against(skill, critical), roll_against(skill, critical + 1)
    at_special, past_special = roll_against(skill, special), roll_against(skill, special + 1)
    assert (at_critical.critical_at, at_critical.special_at) == (critical, special)
    assert at_critical.level == "critical"
    assert past_critical.level == ("special" if critical + 1 <= special else "failure")
    assert at_special.level == ("critical" if special == critical else "special")
    assert past_special.level == ("success" if special + 1 <= skill else "failure")


@pytest.mark.parametrize(
    ("skill", "fumble"),
    [
        (19, 96),  # fewer than twenty points: the base 96
        (20, 97),  # twenty points: one more
        (39, 97),  # 39 is one full twenty, not two
        (40, 98),  # the text's example
        (79, 99),
        (80, 100),
        (99, 100),  # 99 points: 96 + 4
    ],
)
def test_the_fumble_rises_by_one_for_each_full_twenty_skill_points(skill: int, fumble: int) -> None:
    # "El valor de pifia base es 96, y cada veinte puntos en una habilidad se aumenta en uno"
    assert roll_against(skill, fumble).level == "fumble"
    assert roll_against(skill, fumble).fumble_at == fumble
    if fumble > 96:
        assert roll_against(skill, fumble - 1).level != "fumble"


def test_a_halved_target_rounds_up_like_the_special_level() -> None:
    # rulings/d100.md, "Halving rounds up": "la mitad" of 45 is 23, not 22
    ana = CharacterAdded(name="Ana", attrs={**ANA.attrs, "skill.Saltar": "45"})
    (tested,) = when(given(ana), c.Test(skill="Saltar", half=True, actor="Ana"), [23])
    assert (tested.target, tested.level) == (23, "success")


def test_one_fatigue_point_left_is_not_exhaustion() -> None:
    # "Cuando se acaban estás extenuado": exhausted at 0, not at 1
    tired = ev.Fatigued(who="Ana", amount=20, cause="correr", fatigue_after=1)
    assert when(given(ANA, tired), c.Test(skill="Trepar", actor="Ana"), [8]) == [climb(8, "critical")]


def test_one_valor_point_left_is_not_panic() -> None:
    # "Cuando se acaban entras en pánico": panic at 0, not at 1
    shaken = ev.Horrified(who="Ana", amount=64, cause="el sótano", valor_after=1, panic=False)
    assert when(given(ANA, shaken), c.Test(skill="Trepar", actor="Ana"), [8]) == [climb(8, "critical")]
    (declared,) = when(given(ANA, shaken), c.DeclareRound(actions=("Divisar",), actor="Ana"))
    assert declared.option == "actions"


def test_a_round_declared_on_the_last_fatigue_point_leaves_the_character_exhausted() -> None:
    # "Se pierde uno en cada ronda de combate ... Cuando se acaban estás extenuado"
    tired = ev.Fatigued(who="Ana", amount=20, cause="correr", fatigue_after=1)
    (declared,) = when(given(ANA, tired), c.DeclareRound(actions=("Divisar",), actor="Ana"))
    assert declared.fatigue_after == 0
    with pytest.raises(RuleError, match="exhausted"):
        when(given(ANA, tired, declared), c.Test(skill="Trepar", actor="Ana"), [8])


def test_luck_exactly_equal_to_the_overshoot_buys_the_success() -> None:
    # "se gastan los puntos por los que te has pasado del objetivo": Ana has 65 luck; half of
    # Trepar 40 is 20, so a roll of 85 overshoots by exactly 65
    then = when(given(ANA), c.Test(skill="Trepar", half=True, luck=True, actor="Ana"), [85])
    assert then[1] == ev.LuckSpent(who="Ana", points=65, face=85, target=20, luck_after=0)


def test_damage_down_to_zero_leaves_dying_and_only_damage_at_zero_kills() -> None:
    # "Cuando quedan 0 está moribundo"; rulings/d100.md, "Death": further damage at 0 kills
    (hurt,) = when(given(ANA), c.Damage(amount=11, actor="Ana"))
    assert (hurt.hp_after, hurt.state, hurt.died) == (1, "unconscious", False)
    (dying,) = when(given(ANA, hurt), c.Damage(amount=1, actor="Ana"))
    assert (dying.hp_after, dying.state, dying.died) == (0, "dying", False)
    (dead,) = when(given(ANA, hurt, dying), c.Damage(amount=1, actor="Ana"))
    assert dead.died


def test_first_aid_treats_the_latest_wound_by_default() -> None:
    # rulings/d100.md, "First aid once per wound": "Default wound: the latest"
    first = ev.Wounded(who="Ana", wound=1, amount=2, cause="cuchillo", hp_after=10, state="ok")
    second = ev.Wounded(who="Ana", wound=2, amount=3, cause="garra", hp_after=7, state="unconscious_risk")
    treated = when(given(ANA, first, second), c.Heal(method="firstaid", actor="Ana"), [10, 3])[-1]
    assert (treated.wound, treated.amount, treated.hp_after) == (2, 3, 10)


def test_first_aid_heals_1d3_and_medicine_1d6() -> None:
    # "primeros auxilios ... permite recuperar 1d3"; "medicina ... permite recuperar 1d6"
    wound = ev.Wounded(who="Ana", wound=1, amount=8, cause="caída", hp_after=4, state="unconscious_risk")
    with pytest.raises(FacesError):
        when(given(ANA, wound), c.Heal(method="firstaid", actor="Ana"), [10, 4])
    with pytest.raises(FacesError):
        when(given(ANA, wound), c.Heal(method="medicine", actor="Ana"), [1, 7])
    healed = when(given(ANA, wound), c.Heal(method="medicine", actor="Ana"), [1, 6])[-1]
    assert (healed.faces, healed.amount, healed.hp_after) == ((6,), 6, 10)


def test_rest_recovers_valor_per_full_day_and_hit_points_per_full_week() -> None:
    # "se recupera un poco cada día", "algunos tras una semana de descanso": a day or a week
    # short by one minute does not count (rulings/d100.md, "Time"); sample: 1 valor a day, 1d3 hp a week
    shaken = ev.Horrified(who="Ana", amount=25, cause="el sótano", valor_after=40, panic=False)
    hurt = ev.Wounded(who="Ana", wound=1, amount=8, cause="caída", hp_after=4, state="unconscious_risk")
    (rested,) = when(given(ANA, shaken, hurt), c.Rest(minutes=2 * 7 * 1440 - 1, actor="Ana"), [2])
    (recovery,) = rested.recoveries
    assert (recovery.valor, recovery.hp, recovery.faces) == (13, 2, (2,))


def test_a_week_of_rest_heals_from_1_hp_but_not_a_dying_or_an_unhurt_character() -> None:
    # rulings/d100.md, "Time": "a dying character (0 hp) recovers nothing by rest"; hit points
    # never rise above the maximum, so an unhurt character rolls no recovery dice
    week = c.Rest(minutes=7 * 1440, actor="Ana")
    dying = ev.Wounded(who="Ana", wound=1, amount=12, cause="caída", hp_after=0, state="dying")
    assert when(given(ANA, dying), week)[0].recoveries[0].hp == 0
    assert when(given(ANA), week)[0].recoveries[0].faces == ()
    one = ev.Wounded(who="Ana", wound=1, amount=11, cause="caída", hp_after=1, state="unconscious")
    assert when(given(ANA, one), week, [3])[0].recoveries[0].hp == 3


@pytest.mark.parametrize(("minutes", "fatigue"), [(14, 0), (15, 1), (44, 2), (45, 3)])
def test_one_fatigue_point_back_per_full_15_minutes_of_rest(minutes: int, fatigue: int) -> None:
    # "Se recupera uno cada 15 minutos de descanso"
    tired = ev.Fatigued(who="Ana", amount=10, cause="correr", fatigue_after=11)
    (rested,) = when(given(ANA, tired), c.Rest(minutes=minutes, actor="Ana"))
    assert rested.recoveries[0].fatigue == fatigue


def test_psychotherapy_heals_1d6_once_per_game_day() -> None:
    # "En caso de puntos de valor recupera 1d6 y no se puede repetir el mismo día": given at
    # minute 30 of day 0, it can be given again at minute 1440, the start of day 1
    shaken = ev.Horrified(who="Ana", amount=30, cause="el sótano", valor_after=35, panic=False)
    thirty = ev.Rested(minutes=30, clock_after=30)
    state = given(ANA, shaken, thirty)
    with pytest.raises(FacesError):
        when(state, c.Therapy(actor="Ana"), [1, 7])
    first = when(state, c.Therapy(actor="Ana"), [1, 6])
    assert (first[-1].day, first[-1].amount, first[-1].valor_after) == (0, 6, 41)
    before_dawn = ev.Rested(minutes=1409, clock_after=1439)
    with pytest.raises(RuleError, match="same day"):
        when(given(ANA, shaken, thirty, *first, before_dawn), c.Therapy(actor="Ana"), [1, 6])
    dawn = ev.Rested(minutes=1410, clock_after=1440)
    again = when(given(ANA, shaken, thirty, *first, dawn), c.Therapy(actor="Ana"), [1, 6])
    assert again[-1].day == 1


def test_each_des_point_given_up_is_worth_10_on_the_ranged_attack() -> None:
    # "Por cada punto de DES resignado ganas 10 puntos extra a la habilidad de ataque a distancia"
    (steadied,) = when(given(ANA), c.Steady(points=3, actor="Ana"))
    assert (steadied.points, steadied.bonus) == (3, 30)


def test_hit_points_are_half_of_con_plus_tam_rounded_up() -> None:
    # rulings/d100.md, "Derived points": hp = (CON + TAM) / 2, rounded up: (11 + 14) / 2 = 12.5 -> 13
    big = CharacterAdded(name="Ana", attrs={**ANA.attrs, "TAM": "14"})
    assert given(big).game.characters["Ana"].hp == 13


def test_no_luck_to_refund_before_any_was_spent() -> None:
    # "Si dices que usas puntos de suerte y no hacían falta ... el director te devolverá los puntos gastados"
    with pytest.raises(RuleError, match="no luck spending to refund"):
        when(given(ANA), c.RefundLuck(actor="Ana"))


def test_the_game_day_starts_at_minute_1440() -> None:
    # rulings/d100.md, "Time": the game day is minutes / 1440
    day = SYSTEM.rules.day
    states = [given(ANA, ev.Rested(minutes=m, clock_after=m)) for m in (30, 1439, 1440)]
    assert [day(state.game) for state in states] == [0, 0, 1]
    assert [SYSTEM.read.sheet(state, "Ana")["clock"]["day"] for state in states] == [0, 0, 1]


def test_the_sheet_lists_every_condition_at_zero_and_none_at_one() -> None:
    # rulings/d100.md, "Hit-point states": the most serious state first, all of them in conditions
    sheet = SYSTEM.read.sheet
    worn = (
        ev.Horrified(who="Ana", amount=64, cause="el sótano", valor_after=1, panic=False),
        ev.Fatigued(who="Ana", amount=20, cause="correr", fatigue_after=1),
    )
    assert sheet(given(ANA, *worn), "Ana")["conditions"] == ["ok"]
    spent = (
        ev.Wounded(who="Ana", wound=1, amount=12, cause="caída", hp_after=0, state="dying"),
        ev.Horrified(who="Ana", amount=65, cause="el sótano", valor_after=0, panic=True),
        ev.Fatigued(who="Ana", amount=21, cause="correr", fatigue_after=0),
    )
    assert sheet(given(ANA, *spent), "Ana")["conditions"] == ["dying", "panic", "exhausted"]


@pytest.mark.parametrize(
    ("hp", "state", "conditions"),
    [
        (7, "panic", ["panic"]),  # 5 of 12 lost: less than half
        (6, "panic", ["panic", "unconscious_risk"]),  # "Cuando se ha perdido la mitad"
        (3, "panic", ["panic", "unconscious_risk"]),
        (2, "unconscious", ["unconscious", "panic"]),  # "Cuando quedan sólo 2 se cae inconciente"
    ],
)
def test_hit_point_states_at_their_edges(hp: int, state: str, conditions: list[str]) -> None:
    # rulings/d100.md, "Hit-point states": risk when lost x 2 >= max, unconscious at 2 or fewer
    wound = ev.Wounded(who="Ana", wound=1, amount=12 - hp, cause="caída", hp_after=hp, state="")
    panic = ev.Horrified(who="Ana", amount=65, cause="el sótano", valor_after=0, panic=True)
    shown = SYSTEM.read.sheet(given(ANA, wound, panic), "Ana")
    assert (shown["state"], shown["conditions"]) == (state, conditions)


def test_three_hit_points_left_is_a_risk_not_unconsciousness() -> None:
    wound = ev.Wounded(who="Ana", wound=1, amount=9, cause="caída", hp_after=3, state="unconscious_risk")
    assert when(given(ANA, wound), c.Test(skill="Trepar", actor="Ana"), [8]) == [climb(8, "critical")]


def test_after_the_combat_ends_the_next_declaration_opens_round_1() -> None:
    # rulings/d100.md, "Rounds": "the first declaration opens the combat, `endcombat` or a rest closes it"
    declare = c.DeclareRound(actions=("Divisar",), actor="Ana")
    (first,) = when(given(ANA), declare)
    (second,) = when(given(ANA, first), declare)
    assert (first.round, second.round) == (1, 2)
    (declared,) = when(given(ANA, first, second, ev.CombatEnded(rounds=2)), declare)
    assert declared.round == 1


def test_luck_on_a_target_of_0_spends_the_whole_roll() -> None:
    # "se gastan los puntos por los que te has pasado del objetivo": 5 over a target of 0 is 5
    then = when(given(ANA), c.Test(skill="Trepar", target=0, luck=True, actor="Ana"), [5])
    assert then[1] == ev.LuckSpent(who="Ana", points=5, face=5, target=0, luck_after=60)
