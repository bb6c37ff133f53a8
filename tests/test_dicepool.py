"""The dicepool rules through the library: the test, defaulting, combat, facts."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import Ledger
from ledger.errors import FacesError, GameOverError, RuleError, TableError
from ledger.facts import DeathFact, RollFact, WoundFact
from ledger.projections.dicepool.state import parse_character
from ledger.systems.dicepool.combat import needed_to_avoid
from ledger.systems.dicepool.commands import Attack, Dodge, Heal, Initiative, Join, Resist
from ledger.systems.dicepool.commands import Test as SkillTest
from ledger.systems.dicepool.damage import DamageCode, burst, parse_damage, stage, staging_steps
from ledger.systems.dicepool.dice import p_at_least, p_die
from ledger.systems.dicepool.events import Attacked, InitiativeRolled, Resisted
from ledger.systems.dicepool.events import Tested as SkillTested
from ledger.systems.dicepool.system import SAMPLE_LOG, facts
from ledger.systems.dicepool.tables import load_tables

EDDIE = {
    "body": "4",
    "quickness": "5",
    "intelligence": "3",
    "skill.pistols": "5",
    "pool.combat": "6",
    "weapon": "ares_predator",
}
MARK = {"body": "3", "pool.combat": "6", "armor": "2"}


@pytest.fixture
def book(tmp_path: Path) -> Any:
    with Ledger(str(tmp_path / "t.ledger")) as ledger:
        ledger.new_campaign("dicepool", "alley")
        ledger.execute(Join(name="Eddie", attrs=EDDIE), "alley")
        ledger.execute(Join(name="Mark", attrs=MARK), "alley")
        yield ledger


def run(book: Ledger, command: Any, actor: str, faces: list[int] | None) -> Any:
    return book.execute(command, "alley", actor=actor, faces=faces)


def sheet(book: Ledger, who: str) -> dict[str, Any]:
    return book.system(book.campaign("alley")).read.sheet(book.state("alley"), who)


# --- the test and the rule of six ------------------------------------------------------


def test_one_die_odds_follow_the_rule_of_six() -> None:
    assert [p_die(tn) for tn in range(2, 7)] == [Fraction(n, 6) for n in (5, 4, 3, 2, 1)]
    assert p_die(7) == Fraction(1, 6)  # "la dificultad 6 [...] y la 7 [...] son iguales"
    assert p_die(9) == Fraction(1, 6) * Fraction(4, 6)
    assert p_die(12) == p_die(13) == Fraction(1, 36)
    assert p_at_least(2, 1, Fraction(1, 2)) == Fraction(3, 4)


@pytest.mark.parametrize(("faces", "successes"), [([6, 3], 1), ([6, 2], 0), ([5], 0), ([6, 6], 1)])
def test_at_tn_9_a_six_is_rerolled_and_added(book: Ledger, faces: list[int], successes: int) -> None:
    rec = run(book, SkillTest(skill="pistols", tn=9, dice=1), "Eddie", faces)
    event = rec.events[0]
    assert isinstance(event, SkillTested)
    assert event.roll.successes == successes
    assert event.roll.dice[0].faces == tuple(faces)


def test_a_six_without_its_reroll_face_records_nothing(book: Ledger) -> None:
    head = book.head(book.campaign("alley"))
    with pytest.raises(FacesError, match="die 2 shows a 6 at TN 9"):
        run(book, SkillTest(skill="pistols", tn=9, dice=2), "Eddie", [3, 6])
    assert book.head(book.campaign("alley")) == head


def test_sixes_are_not_rerolled_when_the_tn_is_6_or_less(book: Ledger) -> None:
    rec = run(book, SkillTest(skill="pistols", tn=6, dice=2), "Eddie", [6, 6])
    assert rec.events[0].roll.successes == 2
    with pytest.raises(FacesError, match="too many faces"):
        run(book, SkillTest(skill="pistols", tn=6, dice=1), "Eddie", [6, 3])


def test_the_tn_never_drops_below_2(book: Ledger) -> None:
    rec = run(book, SkillTest(skill="pistols", tn=3, mods=("smartlink", "-3")), "Eddie", [1, 2, 1, 2, 1])
    roll = rec.events[0].roll
    assert roll.tn == 2
    assert roll.successes == 2
    assert roll.p_success == pytest.approx(1 - (1 / 6) ** 5)


# --- defaulting ------------------------------------------------------------------------


def test_defaulting_to_a_related_skill_is_tn_plus_2_and_half_the_pool(book: Ledger) -> None:
    book.execute(
        Join(name="Gun", attrs={"body": "3", "skill.submachine_guns": "4", "pool.combat": "7"}), "alley"
    )
    with pytest.raises(RuleError, match=r"can spend 3 combat pool dice here \(half the pool"):
        run(book, SkillTest(skill="pistols", tn=4, pool=4), "Gun", None)
    rec = run(book, SkillTest(skill="pistols", tn=4, pool=3), "Gun", [1, 2, 3, 4, 5, 6, 6])
    event = rec.events[0]
    assert (event.defaulting.how, event.defaulting.used) == ("related", "submachine_guns")
    assert event.roll.tn == 6
    assert event.roll.successes == 2
    assert sheet(book, "Gun")["pools"]["combat"] == {"current": 4, "max": 7}


def test_defaulting_to_the_attribute_is_tn_plus_4_and_no_pool(book: Ledger) -> None:
    with pytest.raises(RuleError, match="no pool dice on a test of body"):
        run(book, SkillTest(skill="athletics", tn=3, pool=1), "Mark", None)
    rec = run(book, SkillTest(skill="athletics", tn=3), "Mark", [6, 1, 6, 2, 5])
    event = rec.events[0]
    assert (event.defaulting.how, event.defaulting.used, event.roll.tn) == ("default-attribute", "body", 7)
    assert [d.total for d in event.roll.dice] == [7, 8, 5]
    assert event.roll.successes == 2


def test_an_unknown_skill_is_refused_with_the_fix(book: Ledger) -> None:
    with pytest.raises(RuleError, match="has no skill 'basket weaving' and the skill web does not list it"):
        run(book, SkillTest(skill="basket weaving", tn=4), "Eddie", None)


# --- the worked example ------------------------------------------------------------------


def worked_example(book: Ledger) -> list[Any]:
    return [
        run(
            book,
            Attack(
                target="Mark",
                skill="pistols",
                pool=4,
                range="medium",
                mods=("smartlink_external",),
                weapon="ares_predator",
            ),
            "Eddie",
            [3, 5, 5, 6, 4, 5, 1, 6, 6],
        ),
        run(book, Dodge(pool=3), "Mark", [4, 2, 3]),
        run(book, Resist(damage="9L", armor=2, pool=3), "Mark", [2, 6, 1, 5, 6, 2, 6, 3, 5]),
    ]


def test_the_worked_example_stages_l_to_g(book: Ledger) -> None:
    attack, dodge, resist = (rec.events[0] for rec in worked_example(book))
    assert (attack.roll.tn, attack.roll.successes, attack.damage) == (4, 7, "9L")
    assert (dodge.roll.successes, dodge.remaining) == (1, 6)
    assert [d.total for d in resist.roll.dice] == [2, 7, 5, 8, 9, 5]
    assert (resist.power, resist.roll.successes, resist.net, resist.stages) == (7, 3, 3, 1)
    assert (resist.base_level, resist.level, resist.boxes) == ("L", "G", 6)
    mark = sheet(book, "Mark")
    assert mark["condition"]["physical"] == 6
    assert (mark["wound_level"], mark["tn_modifier"]) == ("G", 3)
    assert mark["pools"]["combat"] == {"current": 0, "max": 6}
    last = mark["last_exchange"]
    assert (last["attacker_successes"], last["dodged"], last["resisted"], last["staged"]) == (
        7,
        1,
        3,
        "L -> G",
    )


def test_the_worked_example_facts_carry_exact_odds_and_the_wound(book: Ledger) -> None:
    worked_example(book)
    rows = [f for env in book.effective(book.campaign("alley")) for f in facts(env)]
    rolls = [f for f in rows if isinstance(f, RollFact)]
    assert [r.purpose for r in rolls] == ["attack", "dodge", "resist"]
    assert rolls[0].p_success == pytest.approx(1 - 0.5**9)
    assert rolls[1].p_success == 0.0  # three dice cannot cancel seven successes
    assert [d.face for d in rolls[2].dice[:3]] == [2, 6, 1]
    assert (rolls[2].dice[1].reroll_of, rolls[2].dice[2].reroll_of) == (None, 1)
    assert [(w.track, w.amount) for w in rows if isinstance(w, WoundFact)] == [("physical", 6)]


def test_wounds_raise_every_tn_and_undo_heals_them(book: Ledger) -> None:
    worked_example(book)
    rec = run(book, SkillTest(skill="body", tn=4), "Mark", [1, 2, 5])
    assert rec.events[0].roll.tn == 7
    book.undo("alley", 2)
    assert sheet(book, "Mark")["condition"]["physical"] == 0


# --- staging and the condition monitor ------------------------------------------------------


def test_damage_codes_use_the_spanish_letters() -> None:
    assert parse_damage("9L") == DamageCode(9, "L")
    assert parse_damage("10G") == DamageCode(10, "G")
    assert parse_damage("6 moderate") == DamageCode(6, "L")  # English moderate is 3 boxes: leve
    assert parse_damage("STR+2M", strength=4) == DamageCode(6, "M")
    with pytest.raises(RuleError, match="damage code '9X' is not power"):
        parse_damage("9X")


def test_staging_every_two_net_successes() -> None:
    assert [staging_steps(n) for n in (-5, -3, -2, -1, 0, 1, 2, 3, 5)] == [-2, -1, -1, 0, 0, 0, 1, 1, 2]
    assert stage("L", 1) == "G"
    assert stage("G", 5) == "M"
    assert stage("S", -1) is None
    assert burst(DamageCode(7, "L"), 3) == DamageCode(10, "G")
    assert needed_to_avoid(6, "L", 6) == 7


def test_a_wound_staged_below_s_is_no_wound(book: Ledger) -> None:
    rec = run(book, Resist(damage="4S", armor=0, against=1, pool=0), "Mark", [5, 6, 4])
    event = rec.events[0]
    assert isinstance(event, Resisted)
    assert (event.net, event.level, event.boxes) == (-2, None, 0)
    assert event.roll.needed == 3  # net -2 needs 3 successes: certain only with 3 dice at TN 4
    assert sheet(book, "Mark")["condition"]["physical"] == 0


def test_stun_overflows_into_physical_and_physical_overflow_kills(book: Ledger) -> None:
    run(book, Resist(damage="12M", against=4, stun=True), "Mark", [1, 1, 1])
    assert sheet(book, "Mark")["condition"]["stun"] == 10
    assert sheet(book, "Mark")["status"] == "unconscious"
    run(book, Resist(damage="12M", against=4), "Mark", [1, 1, 1])
    assert sheet(book, "Mark")["condition"]["overflow"] == 0
    rec = run(book, Resist(damage="12M", against=4), "Mark", [1, 1, 1])
    assert any(isinstance(f, DeathFact) for f in facts(rec.envelopes[0]))
    assert sheet(book, "Mark")["status"] == "dead"
    with pytest.raises(GameOverError, match="Mark is dead"):
        run(book, Resist(damage="4S", against=1), "Mark", None)


def test_heal_clears_boxes(book: Ledger) -> None:
    worked_example(book)
    run(book, Heal(boxes=2, reason="first aid"), "Mark", None)
    assert sheet(book, "Mark")["condition"]["physical"] == 4
    with pytest.raises(RuleError, match="has 4 physical boxes marked"):
        run(book, Heal(boxes=5), "Mark", None)


# --- attacks --------------------------------------------------------------------------------


def test_a_scope_moves_the_range_class_closer(book: Ledger) -> None:
    rec = run(book, Attack(target="Mark", distance=35, scope=1), "Eddie", [4, 4, 4, 4, 4])
    event = rec.events[0]
    assert isinstance(event, Attacked)
    assert (event.range_class, event.effective_class, event.roll.tn) == ("long", "medium", 5)


def test_a_burst_raises_power_and_level_and_adds_recoil(book: Ledger) -> None:
    book.execute(
        Join(name="Ganger", attrs={"body": "3", "skill.submachine_guns": "4", "weapon": "ingram_smartgun"}),
        "alley",
    )
    rec = run(book, Attack(target="Mark", range="short", burst=3), "Ganger", [4, 6, 6, 1])
    event = rec.events[0]
    assert event.damage == "10G"
    assert event.roll.tn == 6  # short 4, recoil 3 less 1 compensated
    book.undo("alley")
    with pytest.raises(RuleError, match="fires at most 10"):
        run(book, Attack(target="Mark", range="short", burst=11), "Ganger", None)


def test_one_exchange_at_a_time_and_only_the_target_answers(book: Ledger) -> None:
    run(book, Attack(target="Mark", range="short"), "Eddie", [4, 4, 4, 4, 4])
    with pytest.raises(RuleError, match="still open; resolve it first"):
        run(book, Attack(target="Mark", range="short"), "Eddie", None)
    book.execute(Join(name="Bystander", attrs={"body": "2", "pool.combat": "2"}), "alley")
    with pytest.raises(RuleError, match="aimed at Mark; dodge as Mark") as refused:
        run(book, Dodge(pool=1), "Bystander", None)
    assert refused.value.fix is not None and refused.value.fix.action == "choose_character"
    assert refused.value.fix.characters == ("Mark",)


def test_a_dodge_that_cancels_everything_is_a_miss(book: Ledger) -> None:
    run(book, Attack(target="Mark", range="short"), "Eddie", [4, 1, 1, 1, 1])
    rec = run(book, Dodge(pool=2), "Mark", [5, 2])
    assert rec.events[0].remaining == 0
    assert sheet(book, "Mark")["last_exchange"]["status"] == "dodged"
    with pytest.raises(RuleError, match="no open attack"):
        run(book, Resist(pool=0), "Mark", None)


def test_melee_uses_tn_4_impact_armor_and_strength(book: Ledger) -> None:
    book.execute(
        Join(
            name="Blade",
            attrs={"body": "5", "strength": "5", "skill.edged_weapons": "4", "armor.impact": "1"},
        ),
        "alley",
    )
    rec = run(book, Attack(target="Mark", weapon="katana"), "Blade", [4, 5, 1, 1])
    assert (rec.events[0].melee, rec.events[0].roll.tn, rec.events[0].damage) == (True, 4, "8G")
    rec = run(book, Resist(), "Mark", [1, 1, 1])
    assert (rec.events[0].armor, rec.events[0].power, rec.events[0].level) == (0, 8, "M")


# --- initiative and pools -------------------------------------------------------------------


def test_initiative_never_rerolls_and_refreshes_every_pool(book: Ledger) -> None:
    worked_example(book)
    rec = run(book, Initiative(), "Eddie", [6, 2])
    event = rec.events[0]
    assert isinstance(event, InitiativeRolled)
    eddie, mark = event.entries
    assert (eddie.character, eddie.reaction, eddie.faces, eddie.score) == ("Eddie", 4, (6,), 10)
    assert (mark.character, mark.penalty, mark.score) == ("Mark", 3, 0)  # 0 + 2 - 3, never below 0
    assert sheet(book, "Mark")["pools"]["combat"]["current"] == 6
    assert sheet(book, "Eddie")["pools"]["combat"]["current"] == 6


def test_each_initiative_roll_counts_for_its_own_character(book: Ledger) -> None:
    rec = run(book, Initiative(), "Eddie", [6, 2])
    rolls = facts(rec.envelopes[0])
    assert [(r.character, [d.face for d in r.dice]) for r in rolls] == [("Eddie", [6]), ("Mark", [2])]


# --- characters and tables ------------------------------------------------------------------


def test_join_refuses_attributes_outside_the_convention(book: Ledger) -> None:
    with pytest.raises(RuleError, match="the attribute str=14 does not fit"):
        book.execute(Join(name="Bad", attrs={"body": "3", "str": "14"}), "alley")
    book.add_character("Loose", "alley", {"body": "3", "str": "14", "skill.pistols": "x"})
    assert sheet(book, "Loose")["ignored"] == {"str": "14", "skill.pistols": "x"}


def test_derived_reaction_and_combat_pool(book: Ledger) -> None:
    attrs = {"body": "3", "quickness": "5", "intelligence": "4", "willpower": "3"}
    book.execute(Join(name="Sam", attrs=attrs), "alley")
    data = sheet(book, "Sam")
    assert data["attributes"]["reaction"] == 4
    assert data["pools"]["combat"] == {"current": 6, "max": 6}


def test_a_users_table_replaces_a_section(tmp_path: Path) -> None:
    own = tmp_path / "mods.toml"
    own.write_text('[modifiers.rain]\ntn = 2\ntext = "rain"\n')
    tables, source = load_tables(str(own))
    assert list(tables["modifiers"]) == ["rain"]
    assert "ares_predator" in tables["weapons"]
    assert "samples for skills, ranges, weapons" in source
    own.write_text('[weapons.gun]\nname = "Gun"\nclass = "laser"\nskill = "pistols"\ndamage = "9L"\n')
    with pytest.raises(TableError, match=r"\[weapons.gun\]: class must be 'melee' or a \[ranges\] class"):
        load_tables(str(own))
    own.write_text("[monsters]\nx = 1\n")
    with pytest.raises(TableError, match=r"unknown section `monsters`; use any of"):
        load_tables(str(own))


def test_the_sample_campaign_imports_and_verifies(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "s.ledger")) as ledger, Path(SAMPLE_LOG).open("rb") as data:
        camp = ledger.import_(data, "sample")
        ledger.verify("sample")
        state = ledger.state(camp)
        log = ledger.log("sample", show_all=True)
    kinds = [e.kind for e in log]
    assert "action.undone" in kinds and [e for e in log if e.undone]
    assert state.game.characters["Mark"].physical == 10
    assert any(isinstance(e.event, SkillTested) and e.event.defaulting.how == "skill" for e in log)
    defaulted = [
        e.event for e in log if isinstance(e.event, Attacked) and e.event.defaulting.how == "related"
    ]
    assert defaulted and defaulted[0].attacker == "Mark"
    scoped = [
        e.event
        for e in log
        if isinstance(e.event, Attacked) and not e.undone and e.event.range_class == "long"
    ]
    assert scoped[0].effective_class == "short"


def test_wound_modifiers_setting_worst_track_only(tmp_path: Path) -> None:
    own = tmp_path / "rules.toml"
    own.write_text('[rules]\nwound_modifiers = "worst"\n')
    with Ledger(str(tmp_path / "w.ledger")) as ledger:
        for name, tables in (("cumulative", None), ("worst", str(own))):
            ledger.new_campaign("dicepool", name, tables=tables)
            ledger.execute(Join(name="Mark", attrs=MARK), name)
            ledger.execute(Resist(damage="2L", against=1, stun=True), name, faces=[1, 1, 1])
            ledger.execute(Resist(damage="2S", against=1), name, faces=[1, 1, 1])
        penalties = [ledger.state(n).game.characters["Mark"].tn_modifier for n in ("cumulative", "worst")]
    assert penalties == [3, 2]  # stun L +2 and physical S +1
    own.write_text('[rules]\nwound_modifiers = "both"\n')
    with pytest.raises(TableError, match="wound_modifiers must be one of cumulative, worst, got 'both'"):
        load_tables(str(own))


def test_the_autoplayer_replays_the_same_fight_from_the_same_seed(tmp_path: Path) -> None:
    from ledger.systems.dicepool.play import autoplay

    fights = []
    with Ledger(str(tmp_path / "auto.ledger")) as ledger:
        for name in ("one", "two"):
            ledger.new_campaign("dicepool", name, seed=99)
            turns = autoplay(ledger, name, 5)
            fights.append([e.summary for e in ledger.log(name)][1:])
            judged = [
                f
                for env in ledger.effective(ledger.campaign(name))
                for f in facts(env)
                if isinstance(f, RollFact) and f.p_success is not None
            ]
            assert judged and all(0 <= f.p_success <= 1 for f in judged)
        assert 1 <= turns <= 5
    assert fights[0] == fights[1]
    assert any("attacks" in line for line in fights[0])


@given(st.dictionaries(st.text(max_size=12), st.text(max_size=12), max_size=8))
def test_any_character_attributes_fold_without_raising(attrs: dict[str, str]) -> None:
    who = parse_character("Anyone", attrs)
    assert set(who.ignored) <= set(attrs)
    assert all(0 <= v <= 30 for v in (*who.attributes.values(), *who.skills.values()))
