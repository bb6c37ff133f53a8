"""The yearzero system through the library: rolls, pushes, trauma, gear, time, Rot, the Zone."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import Ledger
from ledger.errors import FacesError, RuleError, TableError
from ledger.projections.yearzero.fold import evolve, initial
from ledger.projections.yearzero.game import Character
from ledger.systems.yearzero import commands as yz
from ledger.systems.yearzero import events as ev
from ledger.systems.yearzero.engine import p_success
from ledger.systems.yearzero.system import SYSTEM
from ledger.systems.yearzero.tables import load_tables

ANA = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3", "skill.shoot": "2", "gear.rifle": "2"}
GUS = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3", "skill.jury_rig": "1"}


@pytest.fixture
def book(tmp_path: Path) -> Ledger:
    ledger = Ledger(str(tmp_path / "yz.ledger"))
    ledger.new_campaign("yearzero", "zone")
    ledger.add_character("Ana", "zone", ANA)
    return ledger


def run(book: Ledger, command: Any, faces: list[int] | None = None, actor: str | None = None) -> list[Any]:
    """Decide with physical dice only: a command that rolls needs its faces (none by default)."""
    return book.execute(command, "zone", faces=faces or [], actor=actor).events


def char(book: Ledger, name: str = "Ana") -> Character:
    return book.state("zone").game.characters[name]


def sheet(book: Ledger, name: str = "Ana") -> dict[str, Any]:
    return SYSTEM.read.sheet(book.state("zone"), name)


# --- rolls and the push -----------------------------------------------------------


def test_issue_scenario_roll_is_one_success(book: Ledger) -> None:
    [rolled] = run(book, yz.Roll(what="shoot", item="rifle"), [6, 1, 3, 1, 4, 1, 2])
    assert rolled.dice == ev.Pool(base=(6, 1, 3), skill=(1, 4), gear=(1, 2))
    assert rolled.successes == 1
    assert rolled.p_success == pytest.approx(float(1 - Fraction(5, 6) ** 7))


def test_push_rerolls_base_3_skill_1_and_4_gear_2_only(book: Ledger) -> None:
    run(book, yz.Roll(what="shoot", item="rifle"), [6, 1, 3, 1, 4, 1, 2])
    with pytest.raises(FacesError):
        run(book, yz.Push(), [2, 2, 2])  # four dice are re-rolled, not three
    pushed, *_ = run(book, yz.Push(), [1, 5, 6, 5])
    assert pushed.rerolled == ev.Pool(base=(1,), skill=(5, 6), gear=(5,))
    assert pushed.dice == ev.Pool(base=(6, 1, 1), skill=(5, 6), gear=(1, 5))
    assert pushed.successes == 2
    assert pushed.trauma == 2 and pushed.base_ones == 2  # the first-roll 1 counts
    c = char(book)
    assert c.current["agility"] == 1
    assert c.mutation_points == 2
    assert c.gear["rifle"].bonus == 1  # the gear 1 from the first roll lowers it
    with pytest.raises(RuleError, match="only once"):
        run(book, yz.Push(), [6])


def test_push_probability_keeps_sixes(book: Ledger) -> None:
    run(book, yz.Roll(what="shoot", item="rifle"), [2, 1, 3, 1, 4, 1, 2])
    pushed, *_ = run(book, yz.Push(), [2, 2, 2, 2, 2])
    assert pushed.p_success == pytest.approx(float(1 - Fraction(5, 6) ** 5))
    assert p_success(0, 0, kept_sixes=1) == 1.0
    assert p_success(1, 1) == pytest.approx(float(Fraction(1, 6) * Fraction(5, 6)))


def test_undo_of_a_push_restores_everything(book: Ledger) -> None:
    run(book, yz.Roll(what="shoot", item="rifle"), [6, 1, 3, 1, 4, 1, 2])
    before = book.state("zone").game
    run(book, yz.Push(), [1, 5, 6, 1])
    assert char(book) != before.characters["Ana"]
    book.undo("zone")
    after = book.state("zone").game
    assert after.characters["Ana"] == before.characters["Ana"]
    assert after.pending == before.pending
    assert sheet(book)["can_push"] is True
    pushed, *_ = run(book, yz.Push(), [2, 2, 2, 2])  # the roll can be pushed again
    assert pushed.trauma == 1


def test_push_must_follow_the_roll(book: Ledger) -> None:
    with pytest.raises(RuleError, match="no roll to push"):
        run(book, yz.Push(), [1])
    run(book, yz.Roll(what="shoot"), [6, 2, 3, 4, 5])
    run(book, yz.Initiative(), [3])
    with pytest.raises(RuleError, match="right after"):
        run(book, yz.Push(), [1, 1, 1, 1])


def test_helpers_and_negative_modifiers(book: Ledger) -> None:
    [rolled] = run(book, yz.Roll(what="shoot", helpers=3), [1, 1, 1, 1, 1, 1, 1, 1])
    assert len(rolled.dice.skill) == 5
    with pytest.raises(RuleError, match="at most 3"):
        run(book, yz.Roll(what="shoot", helpers=4), [1] * 9)
    [rolled] = run(book, yz.Roll(what="shoot", modifier=-4), [6, 2, 2, 6, 3])
    assert rolled.dice.negative == (6, 3) and rolled.dice.skill == ()
    assert rolled.successes == 0  # the negative 6 cancels the base 6


def test_pushing_to_zero_strength_breaks_and_rolls_a_critical_injury(book: Ledger) -> None:
    run(book, yz.Roll(what="force"), [1, 1, 2])
    events = run(book, yz.Push(), [1, 3, 4, 2])  # push, then 2d6 = 7, then 1d6 = 2 hours
    kinds = [e.kind for e in events]
    assert kinds == ["yz.pushed", "yz.critical", "yz.broken"]
    c = char(book)
    assert c.current["strength"] == 0 and c.mutation_points == 3
    assert [i.name for i in c.injuries] == ["winded"]
    assert sheet(book)["broken"] is True
    with pytest.raises(RuleError, match="broken"):
        run(book, yz.Roll(what="shoot"), [1, 1, 1, 1, 1])


# --- trauma, armor, critical injuries -------------------------------------------------


def test_armor_and_shield_roll_in_order(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "a.ledger"))
    book.new_campaign("yearzero", "zone")
    book.add_character("Bo", "zone", {**ANA, "armor.leather": "2", "shield.door": "3"})
    events = run(book, yz.Damage(kind="damage", amount=3), [6, 1, 2, 6, 6])
    shield, armor, trauma = events
    assert (shield.slot, shield.stopped, shield.rating_after) == ("shield", 1, 2)
    assert (armor.slot, armor.stopped, armor.rating_after) == ("armor", 2, 2)
    assert trauma.amount == 0
    [trauma] = run(book, yz.Damage(kind="fatigue", amount=2))  # armor does not stop fatigue
    assert trauma.after == 1


def test_strength_zero_lethal_injury_kills_at_the_deadline(book: Ledger) -> None:
    events = run(book, yz.Damage(kind="damage", amount=5), [2, 2, 4])  # 2d6 = 4: severed artery
    assert [e.kind for e in events] == ["yz.trauma", "yz.critical", "yz.broken"]
    assert sheet(book)["critical_injuries"][0]["lethal"] is True
    run(book, yz.Tick(minutes=29))
    assert not char(book).dead
    events = run(book, yz.Tick(minutes=1))
    assert any(isinstance(e, ev.Died) for e in events)
    with pytest.raises(RuleError, match="dead"):
        run(book, yz.Booze(), [1])


def test_heal_saves_and_each_healer_rolls_once(book: Ledger) -> None:
    book.add_character("Doc", "zone", {**ANA, "skill.heal": "1"})
    run(book, yz.Damage(kind="damage", amount=3), [2, 2, 4], actor="Ana")
    run(book, yz.Heal(target="Ana"), [1, 2, 3, 4], actor="Doc")
    with pytest.raises(RuleError, match="only once"):
        run(book, yz.Heal(target="Ana"), [6, 2, 3, 4], actor="Doc")
    book.undo("zone")
    events = run(book, yz.Heal(target="Ana"), [6, 2, 3, 4], actor="Doc")
    assert events[-1].saved == ("severed artery",)
    run(book, yz.Tick(minutes=60))
    assert not char(book).dead


# --- conditions, time, recovery -------------------------------------------------------


def test_a_day_without_grub_makes_hungry_and_blocks_strength_recovery(book: Ledger) -> None:
    run(book, yz.Drink())
    run(book, yz.Sleep(hours=8))  # 08:00-16:00: the day's sleep, and a Wits resource
    events = run(book, yz.Tick(minutes=8 * 60))  # to midnight
    assert any(isinstance(e, ev.ConditionChanged) and e.condition == "hungry" for e in events)
    c = char(book)
    assert c.has("hungry") and c.current["strength"] == 2
    assert not c.has("thirsty") and not c.has("sleepless")
    run(book, yz.Eat())  # lifts hunger: it is the day's ration
    run(book, yz.Rest(hours=4))
    assert char(book).current["strength"] == 2  # no ration for recovery yet
    run(book, yz.Eat())  # a second ration: for recovery
    run(book, yz.Rest(hours=4))
    c = char(book)
    assert not c.has("hungry") and c.current["strength"] == 3


def test_booze_heals_now_and_the_trauma_returns(book: Ledger) -> None:
    run(book, yz.Damage(kind="damage", amount=1))
    events = run(book, yz.Booze(), [3])
    assert events[0].damage == 1 and events[0].doubt == 0
    c = char(book)
    assert c.current["strength"] == 3 and c.current["wits"] == 2
    run(book, yz.Tick(minutes=3 * 60))
    assert char(book).current["strength"] == 2


# --- Rot ----------------------------------------------------------------------------------


def test_rot_rolls_base_dice_equal_to_total_rot(book: Ledger) -> None:
    events = run(book, yz.Rot(points=2), [2, 1, 3])
    first, second, trauma = events
    assert first.rot_faces == (2,) and first.total == 1
    assert second.rot_faces == (1, 3) and second.damage == 1
    assert trauma.amount == 1 and char(book).rot == 2


def test_rot_suit_absorbs_on_a_six_and_wears_on_ones(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "s.ledger"))
    book.new_campaign("yearzero", "zone")
    book.add_character("Ana", "zone", {**ANA, "suit.hazmat": "3"})
    [absorbed] = run(book, yz.Rot(points=1), [6, 1, 2])
    assert absorbed.absorbed and absorbed.suit_after == 2
    [failed] = run(book, yz.Rot(points=1), [1, 1, 4])
    assert not failed.absorbed and failed.suit_after == 0 and failed.total == 1
    assert char(book).gear["hazmat"].bonus == 0


def test_decontamination_and_washing(book: Ledger) -> None:
    run(book, yz.Rot(points=4), [2, 2, 2, 2, 2, 2, 2, 2, 2, 2])
    assert char(book).rot == 4
    events = run(book, yz.Wash(), [1, 4])  # half of 4: two points, the 1 stays for good
    assert events[0].lost == 1 and events[0].permanent_gained == 1
    c = char(book)
    assert (c.rot, c.permanent_rot) == (3, 1)
    with pytest.raises(RuleError, match="once"):
        run(book, yz.Wash(), [2])
    events = run(book, yz.Tick(minutes=16 * 60), [5])  # midnight in the Ark
    lost = [e for e in events if isinstance(e, ev.RotLost)]
    assert lost[0].cause == "decontamination" and lost[0].lost == 1
    assert char(book).rot == 2


def test_contaminated_water_gives_a_rot_point(book: Ledger) -> None:
    events = run(book, yz.Drink(contaminated=True), [1])
    assert events[1].source == "contaminated water" and events[1].damage == 1


# --- the Zone ---------------------------------------------------------------------------


def test_zone_travel(book: Ledger) -> None:
    with pytest.raises(RuleError, match="not next to"):
        run(book, yz.Enter(sector="H8", rot_level=1))
    run(book, yz.Enter(sector="G9", rot_level=1))  # diagonal
    [explored, *_] = run(book, yz.Explore())
    assert explored.minutes == 240
    assert book.state("zone").game.minute == 12 * 60
    run(book, yz.Enter(sector="F8"))  # the Ark, explored: an hour on foot
    assert book.state("zone").game.minute == 13 * 60
    run(book, yz.Enter(sector="G9", vehicle=True))  # explored: 30 minutes by vehicle
    assert book.state("zone").game.minute == 13 * 60 + 30
    with pytest.raises(RuleError, match="already explored"):
        run(book, yz.Explore())
    run(book, yz.Enter(sector="G10"), [6])  # Rot level rolled on the table: 6 -> 2
    assert book.state("zone").game.sectors["G10"].rot_level == 2


def test_night_doubles_and_heavy_rot_comes_each_hour(book: Ledger) -> None:
    run(book, yz.Tick(minutes=12 * 60))  # 20:00
    run(book, yz.Enter(sector="F7", rot_level=2))
    events = run(book, yz.Explore(hurry=True), [2, 2, 2])  # 1 hour doubled: two Rot points
    assert events[0].minutes == 120
    assert [e.total for e in events if isinstance(e, ev.RotGained)] == [1, 2]


# --- gear repair ------------------------------------------------------------------------


def test_repair_failure_fixes_the_bonus_and_destroys_at_zero(book: Ledger) -> None:
    book.add_character("Gus", "zone", GUS)
    run(book, yz.Roll(what="shoot", item="rifle"), [2, 2, 2, 2, 2, 1, 1], actor="Ana")
    run(book, yz.Push(), [2, 2, 2, 2, 2], actor="Ana")
    assert char(book).gear["rifle"].bonus == 0
    run(book, yz.Repair(item="rifle"), [2, 2, 2, 2], actor="Gus")
    run(book, yz.Tick(minutes=60))  # the failed roll, not pushed, becomes final
    rifle = char(book).gear["rifle"]
    assert rifle.destroyed


def test_repair_pushed_to_success(book: Ledger) -> None:
    book.add_character("Gus", "zone", GUS)
    run(book, yz.Roll(what="shoot", item="rifle"), [2, 2, 2, 2, 2, 1, 2], actor="Ana")
    run(book, yz.Push(), [2, 2, 2, 2, 2, 2], actor="Ana")
    assert char(book).gear["rifle"].bonus == 1
    run(book, yz.Repair(item="rifle"), [2, 2, 2, 2], actor="Gus")
    run(book, yz.Push(), [2, 2, 2, 6], actor="Gus")
    assert char(book).gear["rifle"].bonus == 2


# --- characters and tables --------------------------------------------------------------


def test_character_attrs_convention(book: Ledger) -> None:
    book.add_character(
        "Odd", "zone", {"strength": "5", "skill.fly": "2", "gear.knife": "1", "armor.vest": "3"}
    )
    data = sheet(book, "Odd")
    assert data["strength"] == {"current": 5, "max": 5} and data["agility"]["max"] == 3
    assert data["gear"]["vest"]["worn"] is True
    assert data["ignored"] == ["skill.fly=2"]
    with pytest.raises(RuleError, match="missing"):
        run(book, yz.CreateCharacter(name="Zed", attrs={"strength": "3"}))
    with pytest.raises(RuleError, match="cannot read"):
        run(book, yz.CreateCharacter(name="Zed", attrs={**ANA, "skill.fly": "1"}))


def test_tables_are_validated(tmp_path: Path) -> None:
    tables, source = load_tables(None)
    assert tables["sample"] is True and source == "sample"
    bad = tmp_path / "bad.toml"
    bad.write_text(
        (Path(__file__).parents[1] / "samples/yearzero/tables.toml")
        .read_text()
        .replace("[critical_injuries.7]", "[critical_injuries.13]")
    )
    with pytest.raises(TableError, match="missing 7"):
        load_tables(str(bad))


def test_facts_carry_p_success_and_pushes(book: Ledger) -> None:
    run(book, yz.Roll(what="shoot", item="rifle"), [6, 1, 3, 1, 4, 1, 2])
    run(book, yz.Push(), [1, 5, 6, 5])
    facts = [f for env in book.effective(book.campaign("zone")) for f in SYSTEM.read.facts(env)]
    tables = [f.table for f in facts]
    assert tables == ["rolls", "rolls", "pushes"]
    assert [f.purpose for f in facts[:2]] == ["shoot", "push shoot"]  # the skill pushed
    assert facts[2].attribute == "agility"
    assert facts[0].p_success == pytest.approx(float(1 - Fraction(5, 6) ** 7)) and facts[0].manual
    assert facts[2].trauma == 2 and facts[2].mutation_points == 2 and facts[2].gear_damage == 1


def test_a_push_recorded_before_its_skill_was_kept_names_the_attribute(book: Ledger) -> None:
    import msgspec

    run(book, yz.Roll(what="shoot", item="rifle"), [6, 1, 3, 1, 4, 1, 2])
    run(book, yz.Push(), [1, 5, 6, 5])
    *_, env = book.envelopes(book.campaign("zone"))
    stored = msgspec.to_builtins(env.event)
    del stored["skill"]  # as a push was stored before the field existed
    old = msgspec.convert(stored, ev.Pushed)
    assert old.skill is None
    (roll, _) = SYSTEM.read.facts(msgspec.structs.replace(env, event=old))
    assert roll.purpose == "push agility"


def test_game_day(book: Ledger) -> None:
    assert SYSTEM.rules.day(book.state("zone").game) == 0
    run(book, yz.Tick(minutes=20 * 60))
    assert book.state("zone").core.day == 1


# --- properties -----------------------------------------------------------------------


def _fresh_game() -> Any:
    from ledger.log.events import CampaignStarted, CharacterAdded, Envelope

    tables, _ = load_tables(None)
    env: Envelope[Any] = Envelope(v=0, campaign="", action="a", at="", prev="", event=None)
    game = initial(CampaignStarted(name="z", system="yearzero", tables=tables))
    return evolve(game, CharacterAdded(name="Ana", attrs=ANA), env)


@settings(max_examples=60, deadline=None)
@given(
    first=st.lists(st.integers(1, 6), min_size=7, max_size=7),
    second=st.lists(st.integers(1, 6), min_size=7, max_size=7),
)
def test_a_push_rerolls_exactly_the_dice_the_rules_allow(first: list[int], second: list[int]) -> None:
    from ledger.deciding.decider import Draft
    from ledger.dice.sources import Faces
    from ledger.log.state import CampaignState

    start = CampaignState(game=_fresh_game())
    command = yz.Roll(what="shoot", item="rifle", actor="Ana")
    d = Draft(start, command, Faces(first), SYSTEM.rules.evolve)
    yz.roll(d, command)
    base, skill, gear = first[:3], first[3:5], first[5:]
    eligible = (
        sum(f not in (1, 6) for f in base) + sum(f != 6 for f in skill) + sum(f not in (1, 6) for f in gear)
    )
    faces = Faces(second[:eligible] + [1] * 20)  # extra trailing faces are never used
    push = Draft(CampaignState(game=d.game), yz.Push(actor="Ana"), faces, SYSTEM.rules.evolve)
    yz.push(push, yz.Push(actor="Ana"))
    pushed = push.events[0]
    rerolled = pushed.rerolled
    assert [*rerolled.base, *rerolled.skill, *rerolled.gear] == second[:eligible]
    assert all(new == old for new, old in zip(pushed.dice.base, base, strict=True) if old in (1, 6))
    assert all(new == old for new, old in zip(pushed.dice.skill, skill, strict=True) if old == 6)
    assert all(new == old for new, old in zip(pushed.dice.gear, gear, strict=True) if old in (1, 6))
    assert pushed.base_ones == pushed.dice.base.count(1) == pushed.mutation_points
    assert pushed.gear_damage == pushed.dice.gear.count(1)


@given(n=st.integers(0, 4), m=st.integers(0, 2))
def test_p_success_matches_enumeration(n: int, m: int) -> None:
    from itertools import product

    wins = sum(
        1 for faces in product(range(1, 7), repeat=n + m) if faces[:n].count(6) - faces[n:].count(6) >= 1
    )
    assert p_success(n, m) == pytest.approx(wins / 6 ** (n + m), abs=1e-12)
