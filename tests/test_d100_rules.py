"""d100 rules through the library: success levels, luck, wounds, valor, fatigue, rest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.campaign import Ledger
from ledger.errors import FacesError, GameOverError, RuleError
from ledger.projections.d100.state import sheet
from ledger.systems.d100 import commands as c
from ledger.systems.d100 import events as ev
from ledger.systems.d100 import roll

CHARS = {"TAM": 12, "CON": 11, "FUE": 10, "INT": 14, "EDU": 15, "DES": 9, "CAR": 12, "POD": 13}
CAMPAIGN = "t"


@pytest.fixture
def book(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(str(tmp_path / "d100.ledger")) as ledger:
        ledger.new_campaign("d100", CAMPAIGN)
        ledger.execute(
            c.CreateCharacter(
                name="Ana",
                characteristics=CHARS,
                skills={
                    "Trepar": 40,
                    "Divisar": 75,
                    "Esquivar": 40,
                    "Primeros auxilios": 50,
                    "Medicina": 60,
                    "Psicoterapia": 50,
                    "Armas de fuego": 45,
                },
            ),
            CAMPAIGN,
        )
        yield ledger


def run(book: Ledger, command: c.Command, faces: list[int] | None = None, who: str = "Ana") -> list:
    return book.execute(command, CAMPAIGN, faces=faces, actor=who).events


def sheet_of(book: Ledger, who: str = "Ana") -> dict:
    return sheet(book.state(CAMPAIGN), who)


def level_of(book: Ledger, skill: str, face: int) -> str:
    return run(book, c.Test(skill=skill), [face])[0].level


# --- success levels, exactly as the examples ------------------------------


@pytest.mark.parametrize(
    ("face", "level"),
    [
        (47, "failure"),
        (40, "success"),
        (21, "success"),
        (20, "special"),
        (9, "special"),
        (8, "critical"),
        (97, "failure"),
        (98, "fumble"),
        (100, "fumble"),
    ],
)
def test_skill_40_levels(book: Ledger, face: int, level: str) -> None:
    assert level_of(book, "Trepar", face) == level


@pytest.mark.parametrize(
    ("face", "level"),
    [
        (15, "critical"),
        (16, "special"),
        (38, "special"),
        (39, "success"),
        (75, "success"),
        (76, "failure"),
        (98, "failure"),
        (99, "fumble"),
    ],
)
def test_skill_75_levels(book: Ledger, face: int, level: str) -> None:
    assert level_of(book, "Divisar", face) == level


def test_skill_0_never_succeeds_and_fumbles_from_96() -> None:
    assert [roll.level(f, 0, 0) for f in (1, 50, 95)] == ["failure"] * 3
    assert roll.level(96, 0, 0) == "fumble"
    assert roll.p_success(0, 0) == 0.0


def test_skill_120_fumble_capped_at_100_and_100_still_fumbles() -> None:
    assert roll.fumble_at(120) == 100
    assert roll.level(99, 120, 120) == "success"
    assert roll.level(100, 120, 120) == "fumble"
    assert roll.level(24, 120, 120) == "critical"
    assert roll.level(60, 120, 120) == "special"
    assert roll.p_success(120, 120) == 0.99


def test_roll_records_thresholds_and_exact_probability(book: Ledger) -> None:
    tested = run(book, c.Test(skill="Trepar"), [30])[0]
    assert (tested.critical_at, tested.special_at, tested.fumble_at) == (8, 20, 98)
    assert tested.p_success == 0.40
    assert roll.chances(75, 75) == {"fumble": 2, "failure": 23, "success": 37, "special": 23, "critical": 15}


def test_double_and_half_targets(book: Ledger) -> None:
    doubled = run(book, c.Test(skill="Trepar", double=True), [79])[0]
    assert (doubled.target, doubled.level, doubled.fumble_at) == (80, "success", 98)
    halved = run(book, c.Test(skill="Divisar", half=True), [38])[0]
    assert (halved.target, halved.level) == (38, "success")
    with pytest.raises(RuleError, match="a doubled and a halved target cannot both apply"):
        run(book, c.Test(skill="Trepar", double=True, half=True), [5])


def test_untrained_skill_uses_base_value_and_named_tests(book: Ledger) -> None:
    nadar = run(book, c.Test(skill="nadar"), [25])[0]
    assert (nadar.skill, nadar.target, nadar.level) == ("Nadar", 25, "success")
    idea = run(book, c.Test(skill="Idea"), [70])[0]
    assert (idea.target, idea.level) == (70, "success")  # INT 14 x 5


def test_luck_test_against_pod_multiple(book: Ledger) -> None:
    luck = run(book, c.Test(skill="POD", times=4), [52])[0]
    assert (luck.skill, luck.target, luck.level) == ("PODx4", 52, "success")
    with pytest.raises(RuleError, match="needs a multiple"):
        run(book, c.Test(skill="POD"), [5])


def test_unknown_skill_refused(book: Ledger) -> None:
    with pytest.raises(RuleError, match="no skill or test named 'Vuelo'"):
        run(book, c.Test(skill="Vuelo"), [5])


def test_a_test_is_one_face_of_1_to_100(book: Ledger) -> None:
    with pytest.raises(FacesError):
        run(book, c.Test(skill="Trepar"), [101])
    with pytest.raises(FacesError):
        run(book, c.Test(skill="Trepar"), [4, 7])


# --- luck -----------------------------------------------------------------------


def test_skill_40_roll_47_spends_7_luck_for_a_success(book: Ledger) -> None:
    before = sheet_of(book)["luck"]
    run(book, c.Test(skill="Trepar"), [47])
    spent = run(book, c.SpendLuck())[0]
    assert isinstance(spent, ev.LuckSpent) and spent.points == 7
    after = sheet_of(book)
    assert after["luck"] == before - 7
    assert after["last_test"]["level"] == "success"


def test_luck_cannot_exceed_what_the_character_has(book: Ledger) -> None:
    run(book, c.Test(skill="Trepar"), [47])
    run(book, c.SpendLuck())
    luck = sheet_of(book)["luck"]  # POD 13 x 5 = 65, minus 7 = 58
    run(book, c.Test(skill="Trepar", half=True), [80])  # target 20: needs 60
    with pytest.raises(RuleError, match=f"needs 60 luck .* but has {luck}"):
        run(book, c.SpendLuck())
    assert sheet_of(book)["luck"] == luck


def test_luck_refused_on_success_twice_and_fumble(book: Ledger) -> None:
    run(book, c.Test(skill="Trepar"), [12])
    with pytest.raises(RuleError, match="luck only turns a failed roll"):
        run(book, c.SpendLuck())
    run(book, c.Test(skill="Trepar"), [44])
    run(book, c.SpendLuck())
    with pytest.raises(RuleError, match="already spent 4 luck"):
        run(book, c.SpendLuck())
    run(book, c.Test(skill="Trepar"), [99])
    with pytest.raises(RuleError, match="fumble"):
        run(book, c.SpendLuck())


def test_refund_returns_exactly_what_was_spent_once(book: Ledger) -> None:
    start = sheet_of(book)["luck"]
    run(book, c.Test(skill="Trepar"), [53])
    run(book, c.SpendLuck())
    assert sheet_of(book)["luck"] == start - 13
    refunded = run(book, c.RefundLuck())[0]
    assert refunded.points == 13
    assert sheet_of(book)["luck"] == start
    with pytest.raises(RuleError, match="no luck spending to refund"):
        run(book, c.RefundLuck())


# --- hit points and healing ------------------------------------------------------


def test_hp_thresholds(book: Ledger) -> None:
    assert sheet_of(book)["hp"] == {"current": 12, "max": 12}  # (CON 11 + TAM 12) / 2 rounded up
    run(book, c.Damage(amount=5))
    assert sheet_of(book)["state"] == "ok"
    run(book, c.Damage(amount=1))
    assert sheet_of(book)["state"] == "unconscious_risk"  # half lost
    run(book, c.Damage(amount=4))
    assert sheet_of(book)["state"] == "unconscious"  # 2 left
    wounded = run(book, c.Damage(amount=9))[0]
    assert (wounded.hp_after, wounded.state, wounded.died) == (0, "dying", False)
    with pytest.raises(RuleError, match="dying"):
        run(book, c.Test(skill="Trepar"), [5])
    assert run(book, c.Damage(amount=1))[0].died
    assert sheet_of(book)["state"] == "dead"
    with pytest.raises(GameOverError):
        run(book, c.Damage(amount=1))


def test_first_aid_once_per_wound(book: Ledger) -> None:
    run(book, c.Damage(amount=4, cause="cuchillo"))
    events = run(book, c.Heal(method="firstaid"), [30, 3])
    assert events[1].amount == 3 and events[1].hp_after == 11
    assert sheet_of(book)["wounds"][0]["first_aid"] is True
    with pytest.raises(RuleError, match="already had first aid"):
        run(book, c.Heal(method="firstaid"), [30, 3])
    with pytest.raises(RuleError, match="already had first aid"):
        run(book, c.Heal(method="firstaid", wound=1), [30, 3])


def test_failed_first_aid_uses_the_wound_and_heals_nothing(book: Ledger) -> None:
    run(book, c.Damage(amount=4))
    events = run(book, c.Heal(method="firstaid"), [77])
    assert not events[1].success and sheet_of(book)["hp"]["current"] == 8
    with pytest.raises(RuleError, match="already had first aid"):
        run(book, c.Heal(method="firstaid"), [10, 1])


def test_first_aid_heals_at_most_the_wound(book: Ledger) -> None:
    run(book, c.Damage(amount=1))
    assert run(book, c.Heal(method="firstaid"), [10, 3])[1].amount == 1


def test_medicine_once_a_week(book: Ledger) -> None:
    run(book, c.Damage(amount=8))
    healed = run(book, c.Heal(method="medicine"), [20, 4])[1]
    assert (healed.amount, healed.hp_after) == (4, 8)
    with pytest.raises(RuleError, match="after a week"):
        run(book, c.Heal(method="medicine"), [20, 4])
    run(book, c.Rest(minutes=6 * 1440))  # six days: no week yet, no hit points back
    with pytest.raises(RuleError, match="after a week"):
        run(book, c.Heal(method="medicine"), [20, 4])
    run(book, c.Rest(minutes=1440))
    assert run(book, c.Heal(method="medicine"), [20, 2])[1].hp_after == 10


def test_week_rest_recovers_hp_with_the_table_dice(book: Ledger) -> None:
    run(book, c.Damage(amount=6))
    rested = run(book, c.Rest(minutes=7 * 1440), [2])[0]
    assert rested.recoveries[0].hp == 2 and rested.recoveries[0].faces == (2,)
    assert sheet_of(book)["hp"]["current"] == 8
    assert book.state(CAMPAIGN).core.day == 7


# --- valor, therapy, fatigue, rest -------------------------------------------------


def test_horror_to_zero_is_panic_and_therapy_once_a_day(book: Ledger) -> None:
    valor = sheet_of(book)["valor"]["current"]
    assert run(book, c.Horror(amount=valor + 5))[0].panic
    assert sheet_of(book)["state"] == "panic"
    with pytest.raises(RuleError, match="panic"):
        run(book, c.Test(skill="Trepar"), [5])
    book.execute(
        c.CreateCharacter(name="Bruno", characteristics=CHARS, skills={"Psicoterapia": 60}), CAMPAIGN
    )
    got = run(book, c.Therapy(patient="Ana"), [10, 5], who="Bruno")[1]
    assert (got.amount, got.valor_after) == (5, 5)
    assert sheet_of(book)["state"] == "ok"
    with pytest.raises(RuleError, match="same day"):
        run(book, c.Therapy(patient="Ana"), [10, 5], who="Bruno")
    run(book, c.Rest(minutes=1440, everyone=True))
    assert run(book, c.Therapy(patient="Ana"), [10, 1], who="Bruno")[1].valor_after == 7


def test_fatigue_exhaustion_and_rest(book: Ledger) -> None:
    assert sheet_of(book)["fatigue"] == {"current": 21, "max": 21}  # CON + FUE
    run(book, c.Fatigue(amount=25, cause="correr"))
    assert sheet_of(book)["state"] == "exhausted"
    with pytest.raises(RuleError, match="exhausted"):
        run(book, c.DeclareRound(actions=("Divisar",)))
    rested = run(book, c.Rest(minutes=50))[0]
    assert rested.recoveries[0].fatigue == 3  # one per full 15 minutes
    assert sheet_of(book)["fatigue"]["current"] == 3
    assert sheet_of(book)["clock"]["minutes"] == 50


# --- combat rounds -----------------------------------------------------------------


def test_three_actions_refused_with_des_9_recorded_with_des_12(book: Ledger) -> None:
    three = c.DeclareRound(actions=("Divisar", "Escuchar"), attacks=("Pelea",))
    with pytest.raises(RuleError, match="declares 3 actions but DES 9 allows 2"):
        run(book, three)
    quick = {**CHARS, "DES": 12}
    book.execute(c.CreateCharacter(name="Bruno", characteristics=quick), CAMPAIGN)
    declared = run(book, three, who="Bruno")[0]
    assert (declared.round, declared.limit, declared.attacks) == (1, 3, ("Pelea",))
    assert sheet_of(book, "Bruno")["fatigue"]["current"] == 21 - 1


def test_round_options_and_limits() -> None:
    from ledger.systems.d100.system import action_limit

    assert [action_limit(d, "actions") for d in (6, 10, 11, 15, 16, 18)] == [2, 2, 3, 3, 4, 4]
    # rulings/d100.md, "Actions by DES": "DES 1-5 one action, 19+ four"
    assert [action_limit(d, "actions") for d in (1, 5, 19)] == [1, 1, 4]
    assert [action_limit(d, "half-run") for d in (10, 11)] == [1, 2]
    assert action_limit(18, "run") == 0


def test_one_attack_per_round_with_exceptions(book: Ledger) -> None:
    quick = {**CHARS, "DES": 16}
    book.execute(
        c.CreateCharacter(name="Kenji", characteristics=quick, skills={"Arte Marcial": 40}), CAMPAIGN
    )
    with pytest.raises(RuleError, match="only one is allowed"):
        run(book, c.DeclareRound(attacks=("Pelea", "Pelea")), who="Kenji")
    assert run(book, c.DeclareRound(attacks=("Pelea", "Arte Marcial")), who="Kenji")[0].round == 1
    many = c.DeclareRound(attacks=("Armas de fuego",) * 3, multi_attack_weapon=True)
    assert run(book, many, who="Kenji")[0].round == 2


def test_medicine_forbidden_in_combat_and_as_a_round_action(book: Ledger) -> None:
    with pytest.raises(RuleError, match="cannot be used in combat"):
        run(book, c.DeclareRound(actions=("Medicina",)))
    run(book, c.Damage(amount=3))
    run(book, c.DeclareRound(actions=("Divisar",)))
    with pytest.raises(RuleError, match="medicine cannot be used in combat"):
        run(book, c.Heal(method="medicine"), [10, 2])
    run(book, c.EndCombat())
    assert run(book, c.Heal(method="medicine"), [10, 2])[1].success


def test_rounds_number_per_character(book: Ledger) -> None:
    book.execute(c.CreateCharacter(name="Bruno", characteristics=CHARS), CAMPAIGN)
    assert run(book, c.DeclareRound(actions=("Divisar",)))[0].round == 1
    assert run(book, c.DeclareRound(actions=("Divisar",)), who="Bruno")[0].round == 1
    assert run(book, c.DeclareRound(actions=("Divisar",)))[0].round == 2


def test_aimed_attack_half_unless_aimed_first_and_not_attacked(book: Ledger) -> None:
    aimed = c.Test(skill="Armas de fuego", attack="ranged", aimed=True)
    assert run(book, aimed, [5])[0].target == 23  # 45 halved, rounded up
    with pytest.raises(RuleError, match="has not declared this round"):
        run(book, c.Aim())
    run(book, c.DeclareRound(actions=("Apuntar",), attacks=("Armas de fuego",)))
    run(book, c.Aim())
    assert run(book, aimed, [5])[0].target == 45
    run(book, c.DeclareRound(actions=("Apuntar",), attacks=("Armas de fuego",)))
    run(book, c.Aim())
    run(book, c.Dodge(against="success"), [90])  # attacked before shooting: the aim is lost
    assert run(book, aimed, [5])[0].target == 23


def test_steady_adds_10_per_des_point_lost_if_attacked(book: Ledger) -> None:
    run(book, c.Steady(points=2))
    assert sheet_of(book)["characteristics"]["DES"] == 7
    shot = run(book, c.Test(skill="Armas de fuego", attack="ranged"), [60])[0]
    assert (shot.target, shot.level) == (65, "success")
    assert sheet_of(book)["characteristics"]["DES"] == 9
    run(book, c.Steady(points=3))
    run(book, c.Damage(amount=1))
    assert run(book, c.Test(skill="Armas de fuego", attack="ranged"), [60])[0].target == 45
    with pytest.raises(RuleError, match="from 1 to 8"):
        run(book, c.Steady(points=9))


@pytest.mark.parametrize(
    ("against", "face", "cancelled"),
    [
        ("success", 40, True),
        ("special", 40, False),
        ("special", 20, True),
        ("critical", 20, False),
        ("critical", 8, True),
        ("success", 41, False),
    ],
)
def test_dodge_cancels_equal_or_lower_level(book: Ledger, against: str, face: int, cancelled: bool) -> None:
    resolved = run(book, c.Dodge(against=against), [face])[1]
    assert resolved.cancelled is cancelled


def test_dodge_defaults_to_the_last_melee_attack(book: Ledger) -> None:
    book.execute(c.CreateCharacter(name="Bruno", characteristics=CHARS, skills={"Pelea": 60}), CAMPAIGN)
    run(book, c.Test(skill="Pelea", attack="melee"), [12], who="Bruno")  # critical
    resolved = run(book, c.Dodge(), [10])[1]
    assert (resolved.attacker, resolved.against, resolved.cancelled) == ("Bruno", "critical", False)
    run(book, c.Test(skill="Armas de fuego", attack="ranged"), [12], who="Bruno")
    with pytest.raises(RuleError, match="melee attacks only"):
        run(book, c.Dodge(), [10])


# --- characters ----------------------------------------------------------------------


def test_core_character_add_with_string_attrs(book: Ledger) -> None:
    attrs = {k: str(v) for k, v in CHARS.items()} | {"skill.Esquivar": "55", "luck": "30"}
    book.add_character("Eva", CAMPAIGN, attrs)
    eva = sheet_of(book, "Eva")
    assert eva["skills"]["Esquivar"] == 55 and eva["luck"] == 30 and eva["problems"] == []


def test_incomplete_core_character_is_shown_and_refused(book: Ledger) -> None:
    book.add_character("Rota", CAMPAIGN, {"DES": "doce"})
    assert any("doce" in p for p in sheet_of(book, "Rota")["problems"])
    with pytest.raises(RuleError, match="incomplete"):
        run(book, c.Test(skill="Trepar"), [5], who="Rota")


def test_create_character_validation(book: Ledger) -> None:
    with pytest.raises(RuleError, match="missing characteristics POW"):
        run(book, c.CreateCharacter(name="X", characteristics={k: 10 for k in CHARS if k != "POD"}))
    with pytest.raises(RuleError, match="no skill named 'Volar alto'"):
        run(book, c.CreateCharacter(name="X", characteristics=CHARS, skills={"Volar alto": 5}))
    assert book.head(book.campaign(CAMPAIGN)) == 2


def test_luck_declared_before_first_aid_buys_the_healing(book: Ledger) -> None:
    run(book, c.Damage(amount=4))
    luck = sheet_of(book)["luck"]
    events = run(book, c.Heal(method="firstaid", luck=True), [55, 2])  # Primeros auxilios 50
    assert [e.kind for e in events] == ["d100.tested", "d100.luck_spent", "d100.treated"]
    assert events[1].points == 5 and events[2].success and events[2].hp_after == 10
    assert sheet_of(book)["luck"] == luck - 5


def test_luck_after_a_heal_roll_is_refused(book: Ledger) -> None:
    run(book, c.Damage(amount=4))
    run(book, c.Heal(method="firstaid"), [55])
    with pytest.raises(RuleError, match="declare luck before such rolls"):
        run(book, c.SpendLuck())


def test_declared_luck_that_cannot_be_afforded_leaves_the_roll_failed(book: Ledger) -> None:
    events = run(book, c.Test(skill="Trepar", half=True, luck=True), [95])  # needs 75 of 65
    assert [e.kind for e in events] == ["d100.tested"] and events[0].level == "failure"


def test_luck_on_a_dodge_gives_a_plain_success(book: Ledger) -> None:
    resolved = run(book, c.Dodge(against="success", luck=True), [45])[-1]
    assert (resolved.dodge, resolved.cancelled) == ("success", True)


@given(target=st.integers(0, 250), skill=st.integers(0, 250))
def test_levels_nest_and_p_success_counts_faces(target: int, skill: int) -> None:
    levels = [roll.level(face, target, skill) for face in range(1, 101)]
    assert roll.p_success(target, skill) == sum(roll.is_success(x) for x in levels) / 100
    ranks = [roll.rank(x) for x in levels]
    below_fumble = ranks[: roll.fumble_at(skill) - 1]
    assert below_fumble == sorted(below_fumble, reverse=True)  # a higher face is never better
    assert all(x == "fumble" for x in levels[roll.fumble_at(skill) - 1 :])
