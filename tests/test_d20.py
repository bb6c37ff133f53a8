"""The d20 system through the library: creation, checks, usage dice, combat, stress."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import Ledger
from ledger.errors import FacesError, GameOverError, LedgerError, RuleError, TableError
from ledger.facts import DeathFact, RollFact, WoundFact
from ledger.projections import sheets
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
from ledger.systems.d20.dice import p_success
from ledger.systems.d20.events import Attacked, Checked, Created, Damaged, Panicked, Stressed
from ledger.systems.d20.facts import facts
from ledger.systems.d20.tables import load_tables

# Seven 3d6: totals 15, 8, 4 (the lowest), 18, 12, 13, 9.
SEVEN = [6, 5, 4, 3, 3, 2, 1, 1, 2, 6, 6, 6, 4, 4, 4, 5, 5, 3, 2, 3, 4]
STRONG = {"fue": 18, "des": 15, "con": 13, "int": 12, "sab": 9, "car": 8}


@pytest.fixture
def book(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(str(tmp_path / "d20.ledger")) as ledger:
        ledger.new_campaign("d20", "Station")
        yield ledger


def make(
    book: Ledger, name: str = "Ripley", cls: str = "marine", assign: dict[str, int] | None = None
) -> None:
    book.execute(Create(name=name, cls=cls, assign=assign or STRONG), "Station", faces=SEVEN)


def sheet(book: Ledger, who: str = "Ripley") -> dict[str, Any]:
    return book.system(book.campaign("Station")).read.sheet(book.state("Station"), who)


def head(book: Ledger) -> int:
    return book.head(book.campaign("Station"))


def run(book: Ledger, command: Any, faces: list[int] | None = None, who: str = "Ripley") -> list[Any]:
    return book.execute(command, "Station", faces=faces, actor=who).events


# --- creation ------------------------------------------------------------------------------


def test_creation_drops_exactly_the_lowest_roll(book: Ledger) -> None:
    make(book)
    created = book.state("Station").game.heroes["Ripley"]
    event = next(e.event for e in book.log("Station") if isinstance(e.event, Created))
    assert event.dropped == 2 and sum(event.rolls[2]) == 4
    assert sorted(created.attributes.values()) == [8, 9, 12, 13, 15, 18]
    s = sheet(book)
    assert s["attributes"]["fue"] == {"score": 18, "mod": 3}
    assert s["hp"] == {"current": 11, "max": 11}  # d10 endurance + CON +1
    assert s["calm"] == {"current": 10, "max": 10}  # d10 + SAB 0
    assert (s["def"], s["mov"]) == (13, 11)  # 10 + DES +1 + armor 2; 10 + DES +1
    assert s["usage"] == {"rifle rounds": "d8", "oxygen": "d8", "rations": "d6"}


def test_a_new_character_is_recorded_under_its_own_name(book: Ledger) -> None:
    make(book)
    run(book, Check(attribute="fue", dc="normal"), [15])  # Ripley acts: she is the last actor
    book.execute(Create(name="Parker", cls="technician"), "Station", faces=SEVEN)
    assert [(e.actor, e.kind) for e in book.log("Station")[-1:]] == [("Parker", "d20.created")]


def test_creation_refuses_an_assignment_with_other_values(book: Ledger) -> None:
    before = head(book)
    wrong = {**STRONG, "car": 4}  # the dropped 4 instead of the kept 8
    with pytest.raises(
        RuleError, match=r"the assignment uses .* but the kept rolls are \[18, 15, 13, 12, 9, 8\]"
    ):
        make(book, assign=wrong)
    assert head(book) == before
    with pytest.raises(RuleError, match="give each of STR, DEX, CON, INT, WIS, CHA exactly once"):
        make(book, assign={"fue": 18, "des": 15})


def test_creation_without_assign_places_rolls_in_order(book: Ledger) -> None:
    book.execute(Create(name="Parker", cls="technician"), "Station", faces=SEVEN)
    attrs = book.state("Station").game.heroes["Parker"].attributes
    assert attrs == {"fue": 15, "des": 8, "con": 18, "int": 12, "sab": 13, "car": 9}


def test_creation_needs_the_seven_rolls(book: Ledger) -> None:
    with pytest.raises(FacesError, match="too few faces"):
        book.execute(Create(name="Ash"), "Station", faces=SEVEN[:20])


def test_reassign_only_before_acting(book: Ledger) -> None:
    make(book)
    swapped = {**STRONG, "fue": 8, "car": 18}
    run(book, Assign(assign=swapped))
    assert sheet(book)["attributes"]["car"]["score"] == 18
    with pytest.raises(RuleError, match="already acted"):
        run(book, Assign(assign=STRONG))


def test_creation_validates_class_talents_and_skills(book: Ledger) -> None:
    with pytest.raises(RuleError, match="unknown class 'cook'"):
        book.execute(Create(name="Ash", cls="cook"), "Station", faces=SEVEN)
    with pytest.raises(RuleError, match="choose exactly 3 different skills"):
        book.execute(Create(name="Ash", skills=("science", "science", "medicine")), "Station", faces=SEVEN)
    with pytest.raises(RuleError, match="choose exactly 2 different talents"):
        book.execute(Create(name="Ash", cls="scientist", talents=("analysis",)), "Station", faces=SEVEN)


# --- checks ------------------------------------------------------------------------------------


def test_push_spends_a_calm_point_and_keeps_the_higher_d20(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, Check(attribute="des", dc="hard", skill="precision", push=True), faces=[3, 17])
    assert isinstance(ev, Checked)
    assert ev.roll.faces == (3, 17) and ev.roll.kept == 17 and ev.roll.total == 19 and ev.roll.success
    assert sheet(book)["calm"]["current"] == 9


def test_push_is_refused_without_calm_points(book: Ledger) -> None:
    make(book)
    run(book, Stress(difficulty=20), faces=[5, 10])  # fails, loses 1d10 = 10
    assert sheet(book)["calm"]["current"] == 0
    before = head(book)
    with pytest.raises(RuleError, match="no calm points left to push"):
        run(book, Check(attribute="des", dc="11", push=True), faces=[3, 17])
    assert head(book) == before


def test_natural_twenty_and_one(book: Ledger) -> None:
    make(book)
    (hit,) = run(book, Check(attribute="car", dc="30"), faces=[20])
    (miss,) = run(book, Check(attribute="fue", dc="2"), faces=[1])
    assert hit.roll.success and hit.roll.natural == "critical"
    assert not miss.roll.success and miss.roll.natural == "fumble"


def test_exact_probabilities_with_advantage_and_disadvantage(book: Ledger) -> None:
    make(book)
    (plain,) = run(book, Check(attribute="des", dc="14", skill="precision"), faces=[12])
    (adv,) = run(book, Check(attribute="des", dc="14", skill="precision", adv=True), faces=[2, 12])
    (dis,) = run(book, Check(attribute="des", dc="14", skill="precision", dis=True), faces=[2, 12])
    (both,) = run(book, Check(attribute="des", dc="14", skill="precision", adv=True, dis=True), faces=[12])
    assert plain.roll.p_success == pytest.approx(9 / 20)
    assert adv.roll.p_success == pytest.approx(1 - (11 / 20) ** 2) and adv.roll.kept == 12
    assert dis.roll.p_success == pytest.approx((9 / 20) ** 2) and not dis.roll.success
    assert both.roll.mode == "normal"
    assert p_success(0, 40) == Fraction(1, 20)  # only a natural 20
    assert p_success(30, 2) == Fraction(19, 20)  # a natural 1 always fails


def test_overloaded_has_disadvantage_on_physical_checks(book: Ledger) -> None:
    make(book, assign={"fue": 8, "des": 15, "con": 13, "int": 12, "sab": 9, "car": 18})
    run(book, Carry(items=tuple(f"crate {i}" for i in range(7))))
    s = sheet(book)
    assert s["carrying"] == {"items": 9, "capacity": 8, "overloaded": True}
    (ev,) = run(book, Check(attribute="fue", dc="11"), faces=[18, 4])
    assert ev.roll.mode == "disadvantage" and ev.roll.kept == 4
    (mental,) = run(book, Check(attribute="int", dc="11"), faces=[18])
    assert mental.roll.mode == "normal"


# --- usage dice ------------------------------------------------------------------------------------


def test_usage_die_steps_down_and_runs_out(book: Ledger) -> None:
    make(book)
    run(book, Supply(resource="oxygen", die="d6"))
    run(book, Use(resource="oxygen"), faces=[2])
    assert sheet(book)["usage"]["oxygen"] == "d4"
    run(book, Use(resource="oxygen"), faces=[3])
    assert sheet(book)["usage"]["oxygen"] == "d4"
    run(book, Use(resource="oxygen"), faces=[1])
    assert sheet(book)["usage"]["oxygen"] == "exhausted"
    with pytest.raises(RuleError, match="oxygen is exhausted"):
        run(book, Use(resource="oxygen"), faces=[4])


# --- combat -------------------------------------------------------------------------------------------


def test_long_burst_steps_ammo_down_and_doubles_damage_dice(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, Attack(weapon="pulse rifle", defense=12, mode="long"), faces=[14, 5, 7, 8])
    assert isinstance(ev, Attacked)
    assert ev.roll.mode == "advantage" and ev.hit
    assert ev.damage_dice == "2d10" and ev.damage_faces == (7, 8) and ev.damage == 15
    assert sheet(book)["usage"]["rifle rounds"] == "d6"


def test_full_auto_empties_the_magazine_and_triples_damage_dice(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, Attack(weapon="pulse rifle", defense=12, mode="full"), faces=[10, 4, 1, 2, 3])
    assert ev.roll.mode == "advantage" and ev.damage_dice == "3d10" and ev.damage == 6 and ev.emptied
    assert sheet(book)["empty"] == ["pulse rifle"]
    with pytest.raises(RuleError, match="magazine is empty"):
        run(book, Attack(weapon="pulse rifle", defense=12), faces=[15, 5])
    run(book, Reload(), faces=[2])  # reloading uses the ammunition: d8 rolls 2, down to d6
    s = sheet(book)
    assert s["empty"] == [] and s["usage"]["rifle rounds"] == "d6"


def test_covering_fire_splits_the_damage(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, Attack(weapon="pulse rifle", defense=12, mode="long", split=3), faces=[14, 5, 7, 8])
    assert ev.split == (5, 5, 5)
    with pytest.raises(RuleError, match="covering fire"):
        run(book, Attack(weapon="pulse rifle", defense=12, split=2), faces=[14])


def test_critical_is_maximum_plus_one(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, Attack(weapon="combat knife", defense=30), faces=[20])
    assert ev.critical and ev.damage == 4 + 1 + 3  # d4 maximum + 1, plus FUE +3 in melee
    (burst,) = run(book, Attack(weapon="pulse rifle", defense=30, mode="long"), faces=[20, 3])
    assert burst.damage == 2 * 10 + 1


def test_ranged_fumble_jams_until_cleared_at_14(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, Attack(weapon="pulse rifle", defense=5), faces=[1])
    assert ev.jammed and not ev.hit
    assert sheet(book)["jammed"] == ["pulse rifle"]
    with pytest.raises(RuleError, match="is jammed"):
        run(book, Attack(weapon="pulse rifle", defense=5), faces=[15])
    (fail,) = run(book, Unjam(), faces=[11])  # 11 + DES 1 + precision 1 = 13
    assert not fail.roll.success and sheet(book)["jammed"] == ["pulse rifle"]
    (fixed,) = run(book, Unjam(), faces=[12])
    assert fixed.roll.success and sheet(book)["jammed"] == []


def test_melee_fumble_leaves_the_attacker_exposed(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, Attack(weapon="combat knife", defense=5), faces=[1])
    assert ev.exposed and sheet(book)["exposed"]


def test_range_bands_and_cover(book: Ledger) -> None:
    make(book)
    (close,) = run(book, Attack(weapon="pulse rifle", defense=12, distance=1.5), faces=[3, 15, 4])
    assert close.range == "point-blank" and close.roll.mode == "advantage"
    (far,) = run(book, Attack(weapon="pulse rifle", defense=12, range="extreme"), faces=[3, 15])
    assert far.roll.mode == "disadvantage" and not far.hit
    (covered,) = run(
        book, Attack(weapon="pulse rifle", defense=12, cover="partial", running=True), faces=[15]
    )
    assert covered.defense == 18 and not covered.hit
    with pytest.raises(RuleError, match="total cover cannot be attacked"):
        run(book, Attack(weapon="pulse rifle", defense=12, cover="total"), faces=[15])
    with pytest.raises(RuleError, match="out of range"):
        run(book, Attack(weapon="pulse rifle", defense=12, distance=81), faces=[15])


# --- wounds, stress, panic ------------------------------------------------------------------------------


def test_a_calm_point_per_wound_and_panic_due_at_zero(book: Ledger) -> None:
    make(book, "Ash", "scientist", {"fue": 8, "des": 9, "con": 18, "int": 15, "sab": 12, "car": 13})
    assert sheet(book, "Ash")["calm"]["current"] == 6
    for _ in range(5):
        run(book, TakeDamage(amount=1), who="Ash")
    assert sheet(book, "Ash")["calm"]["current"] == 1 and not sheet(book, "Ash")["panic_due"]
    (ev,) = run(book, TakeDamage(amount=1), who="Ash")
    assert isinstance(ev, Damaged) and ev.panic_due
    s = sheet(book, "Ash")
    assert s["calm"]["current"] == 0 and s["panic_due"] and s["hp"]["current"] == 3
    layout = book.system(book.campaign("Station")).read.sheet_layout
    assert layout is not None
    rendered = sheets.text(sheets.view(layout, s))
    assert "PANIC ROLL DUE" in rendered


def test_panic_table_trauma_and_calm_back(book: Ledger) -> None:
    make(book)
    with pytest.raises(RuleError, match="no panic roll due"):
        run(book, Panic(), faces=[5, 3, 2])
    run(book, Stress(difficulty=20), faces=[5, 10])
    (ev,) = run(book, Panic(), faces=[5, 3, 2])  # panic 5, trauma d10 3, 1d4 = 2 calm back
    assert isinstance(ev, Panicked) and ev.trauma and ev.trauma.startswith("Paranoia")
    s = sheet(book)
    assert s["calm"]["current"] == 2 and not s["panic_due"] and s["traumas"] == [ev.trauma]
    run(book, Stress(difficulty=20), faces=[5, 10])
    (low,) = run(book, Panic(), faces=[3, 4])  # below 4: no trauma die
    assert low.trauma is None and sheet(book)["calm"]["current"] == 4


def test_stress_fumble_brings_panic_even_with_calm_left(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, Stress(difficulty=11), faces=[1, 2])
    assert isinstance(ev, Stressed) and ev.loss_face == 2 and ev.panic_due
    assert sheet(book)["calm"]["current"] == 8 and sheet(book)["panic_due"]
    (ok,) = run(book, Stress(difficulty=11), faces=[10])  # 10 + INS 1 + SAB 0 = 11
    assert ok.roll.success and ok.loss_face is None


def test_death_at_zero_hp_ends_the_character(book: Ledger) -> None:
    make(book)
    (ev,) = run(book, TakeDamage(amount=40, cause="xenomorph"))
    assert ev.died and sheet(book)["alive"] is False and sheet(book)["hp"]["current"] == 0
    with pytest.raises(GameOverError, match="Ripley is dead"):
        run(book, Check(attribute="des", dc="11"), faces=[10])


def test_rest_heals_the_level_but_not_synthetic_hit_points(book: Ledger) -> None:
    make(book)
    make(book, "Bishop", "synthetic")
    run(book, TakeDamage(amount=3))
    run(book, TakeDamage(amount=3), who="Bishop")
    run(book, Rest())
    assert sheet(book)["hp"]["current"] == 9 and sheet(book)["calm"]["current"] == 10
    assert sheet(book, "Bishop")["hp"]["current"] == sheet(book, "Bishop")["hp"]["max"] - 3
    assert book.state("Station").core.day == 1


def test_first_aid_and_synthetic_repairs(book: Ledger) -> None:
    make(book)
    make(book, "Bishop", "synthetic", {"fue": 12, "des": 13, "con": 15, "int": 18, "sab": 9, "car": 8})
    run(book, TakeDamage(amount=5))
    (aid,) = run(book, Heal(target="Ripley", kit=True), faces=[13, 6], who="Bishop")
    assert (
        aid.method == "first-aid" and aid.sides == 6 and sheet(book)["hp"]["current"] == 11
    )  # 6 + 6, capped
    run(book, TakeDamage(amount=4), who="Bishop")
    (fix,) = run(book, Heal(), faces=[11, 3], who="Bishop")  # 11 + INT 3 + technology 1 = 15
    assert fix.method == "repair" and fix.sides == 4 and fix.face == 3
    with pytest.raises(RuleError, match="unhurt"):
        run(book, Heal(target="Ripley"), faces=[15, 2], who="Bishop")


def test_therapy_takes_six_months_and_can_cure(book: Ledger) -> None:
    make(book)
    run(book, Stress(difficulty=20), faces=[5, 10])
    run(book, Panic(), faces=[6, 1, 4])
    (ev,) = run(book, Treat(), faces=[16])  # 16 + INS 1 + SAB 0 = 17
    assert ev.roll.success and sheet(book)["traumas"] == []
    assert book.state("Station").core.day == 180


# --- tables, facts, history -----------------------------------------------------------------------------


def test_user_tables_replace_sections(tmp_path: Path) -> None:
    own = tmp_path / "mine.toml"
    own.write_text(
        '[weapons.unarmed]\nkind = "melee"\ndamage = "1d2"\n'
        '[weapons."pulse rifle"]\nkind = "ranged"\ndamage = "1d12"\nrange = 30\n'
        'ammo = "rifle rounds"\nautofire = true\n'
        '[weapons."combat knife"]\nkind = "melee"\ndamage = "1d6"\n'
        '[weapons."plasma cutter"]\nkind = "melee"\ndamage = "1d8"\n'
        '[weapons.pistol]\nkind = "ranged"\ndamage = "1d6"\nrange = 15\nammo = "pistol rounds"\n'
    )
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("d20", "Mine", tables=str(own))
        tables = book.state("Mine").core.tables
        assert tables["weapons"]["pulse rifle"]["sides"] == 12 and "weapons" not in tables["sample"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[weapons.laser]\nkind = "ranged"\ndamage = "lots"\n')
    with Ledger(str(tmp_path / "t.ledger")) as book, pytest.raises(TableError, match="is not dice like"):
        book.new_campaign("d20", "Bad", tables=str(bad))


def test_facts_carry_exact_probabilities_wounds_and_deaths(book: Ledger) -> None:
    make(book)
    run(book, Check(attribute="des", dc="14", skill="precision", adv=True), faces=[2, 12])
    run(book, TakeDamage(amount=40))
    rows = [f for env in book.effective(book.campaign("Station")) for f in facts(env)]
    checks = [f for f in rows if isinstance(f, RollFact) and f.purpose == "check"]
    assert checks[0].p_success == pytest.approx(0.6975) and checks[0].success
    assert [d.kept for d in checks[0].dice] == [False, True]
    assert WoundFact(character="Ripley", track="hp", amount=40, cause="wound") in rows
    assert WoundFact(character="Ripley", track="calm", amount=1, cause="wound") in rows
    assert DeathFact(character="Ripley", cause="wound") in rows


def test_undo_and_fork_rewind_a_death(book: Ledger) -> None:
    make(book)
    run(book, TakeDamage(amount=40))
    book.fork("Station", "Survivor", at=head(book) - 1)
    assert book.state("Survivor").game.heroes["Ripley"].alive
    book.undo("Station")
    assert sheet(book)["alive"] is True


def test_errors_are_one_line(book: Ledger) -> None:
    make(book)
    for command in (
        Use(resource="fuel"),
        Check(attribute="des", dc="impossible"),
        Attack(weapon="bazooka", defense=10),
        Supply(resource="fuel", die="d7"),
    ):
        with pytest.raises(LedgerError) as info:
            run(book, command, faces=None)
        assert "\n" not in str(info.value)


@given(modifier=st.integers(-10, 20), target=st.integers(1, 40))
def test_advantage_is_one_minus_two_misses_and_disadvantage_two_hits(modifier: int, target: int) -> None:
    p = p_success(modifier, target)
    assert p_success(modifier, target, "advantage") == 1 - (1 - p) ** 2
    assert p_success(modifier, target, "disadvantage") == p**2
    assert Fraction(1, 20) <= p <= Fraction(19, 20)


def test_physical_dice_and_time_travel(book: Ledger) -> None:
    make(book)
    run(book, Check(attribute="des", dc="11"), faces=[15])
    version = head(book)
    run(book, TakeDamage(amount=5))
    rows = [f for env in book.effective(book.campaign("Station")) for f in facts(env)]
    assert all(f.manual for f in rows if isinstance(f, RollFact))
    past = book.system(book.campaign("Station")).read.sheet(book.state("Station", at=version), "Ripley")
    assert past["hp"]["current"] == 11 and sheet(book)["hp"]["current"] == 6


def test_initiative_ends_exposure_and_failed_therapy_keeps_the_trauma(book: Ledger) -> None:
    make(book)
    run(book, Attack(weapon="combat knife", defense=5), faces=[1])
    (init,) = run(book, RollInitiative(), faces=[12])
    assert init.total == 12 and not sheet(book)["exposed"]
    run(book, Stress(difficulty=20), faces=[5, 10])
    run(book, Panic(), faces=[4, 2, 1])
    (ev,) = run(book, Treat(), faces=[15])
    assert not ev.roll.success and len(sheet(book)["traumas"]) == 1


def test_pushing_with_the_last_calm_point_brings_panic(book: Ledger) -> None:
    make(book)
    run(book, Stress(difficulty=20), faces=[5, 9])
    assert sheet(book)["calm"]["current"] == 1 and not sheet(book)["panic_due"]
    (ev,) = run(book, Check(attribute="int", dc="11", push=True), faces=[4, 15])
    assert ev.calm_after == 0 and ev.panic_due and sheet(book)["panic_due"]


def test_push_is_refused_when_the_roll_already_has_advantage(book: Ledger) -> None:
    make(book)
    with pytest.raises(RuleError, match="already has"):
        run(book, Attack(weapon="pulse rifle", defense=12, mode="long", push=True), faces=[4, 15, 1, 1])
    (ev,) = run(book, Attack(weapon="pulse rifle", defense=12, range="extreme", push=True), faces=[15, 3])
    assert ev.roll.mode == "normal" and ev.calm_after == 9


def test_assign_with_unknown_random_dice_is_refused_before_rolling(book: Ledger) -> None:
    with pytest.raises(RuleError, match="an assignment at creation needs dice known in advance"):
        book.execute(Create(name="Hicks", assign=STRONG), "Station")
    book.execute(Create(name="Hicks"), "Station")
    assert "Hicks" in book.state("Station").game.heroes
    book.new_campaign("d20", "Seeded", seed=3)
    with pytest.raises(RuleError, match="the kept rolls are") as refused:
        book.execute(Create(name="Hudson", assign=STRONG), "Seeded")
    kept = json.loads(str(refused.value).split("kept rolls are ")[1].split(";")[0])
    book.execute(Create(name="Hudson", assign=dict(zip(STRONG, kept, strict=True))), "Seeded")
    assert sorted(book.state("Seeded").game.heroes["Hudson"].attributes.values(), reverse=True) == kept


def test_one_user_file_can_hold_panic_and_traumas_with_their_own_dice(tmp_path: Path) -> None:
    own = tmp_path / "horror.toml"
    panic = "".join(f'{i} = "panic {i}"\n' for i in range(1, 5))
    traumas = "".join(f'{i} = "trauma {i}"\n' for i in range(1, 7))
    own.write_text(f'[panic]\ndie = "d4"\ntrauma_from = 3\n{panic}[traumas]\ndie = "d6"\n{traumas}')
    tables, source = load_tables(str(own))
    assert tables["panic"]["die"] == 4 and tables["panic"]["trauma_from"] == 3
    assert tables["traumas"]["die"] == 6 and tables["traumas"]["results"]["6"] == "trauma 6"
    assert source.endswith("(samples for modifiers, levels, difficulties, skills, classes, weapons)")
    (tmp_path / "typo.toml").write_text('[weapon.x]\nkind = "melee"\n')
    with pytest.raises(TableError, match="unknown section"):
        load_tables(str(tmp_path / "typo.toml"))
