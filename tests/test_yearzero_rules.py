"""The yearzero rules as a player meets them: given the events a campaign holds, when a
command is decided on the dice the player rolled, then exactly these events (or this
refusal). No database: the state is the system's own fold of the given events."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from ledger.cli import fixes
from ledger.dice.sources import Faces
from ledger.errors import FacesError, RuleError
from ledger.log.events import CampaignStarted, CharacterAdded, Event
from ledger.log.state import CampaignState
from ledger.systems.yearzero import commands as yz
from ledger.systems.yearzero import events as ev
from ledger.systems.yearzero.system import SYSTEM
from ledger.systems.yearzero.tables import load_tables
from tests.helpers_rules import decided, folded

TABLES, _ = load_tables(None)
ANA = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3", "skill.shoot": "2", "gear.rifle": "2"}
GRIT = {"strength": "4", "agility": "3", "wits": "4", "empathy": "2", "skill.jury_rig": "2"}
GRIT_ARMORED = {**GRIT, "armor.scrap_armor": "2"}
START = 8 * 60
"""Day 0, 08:00 (the sample tables' ``start_hour``): the minute the given events happen at."""


def given(
    *events: Event, party: tuple[tuple[str, dict[str, str]], ...] = (("Ana", ANA), ("Grit", GRIT))
) -> CampaignState:
    """A yearzero campaign on the sample tables with the party, then ``events``, each its own action."""
    started = CampaignStarted(name="zone", system="yearzero", tables=TABLES)
    members = [CharacterAdded(name=name, attrs=attrs) for name, attrs in party]
    return folded(
        SYSTEM,
        started,
        [*members, *events],
        lambda e: getattr(e, "character", None) or getattr(e, "name", None),
        at="2026-12-01T12:00:00.000Z",
    )


def when(state: CampaignState, command: Any, faces: list[int] | None = None) -> list[Event]:
    """The events ``command`` decides on the physical dice ``faces``, every one of them used."""
    return decided(SYSTEM, state, command, faces or [])


def refused(state: CampaignState, command: Any, faces: list[int] | None = None) -> RuleError:
    with pytest.raises(RuleError) as refusal:
        SYSTEM.rules.decide(state, command, Faces(faces or []))
    return refusal.value


def p(dice: int) -> float:
    """P(at least one 6 on ``dice`` d6)."""
    return float(1 - Fraction(5, 6) ** dice)


SHOT = ev.Rolled(
    character="Ana",
    attribute="agility",
    skill="shoot",
    dice=ev.Pool(base=(6, 1, 3), skill=(1, 4), gear=(1, 2)),
    item="rifle",
    successes=1,
    p_success=p(7),
    manual=True,
)
"""Ana shoots with her rifle: Agility 3 base dice, Shoot 2 skill dice, the rifle's 2 gear dice."""

SHOT_PUSHED = ev.Pushed(
    character="Ana",
    attribute="agility",
    skill="shoot",
    dice=ev.Pool(base=(6, 1, 1), skill=(5, 6), gear=(1, 5)),
    rerolled=ev.Pool(base=(1,), skill=(5, 6), gear=(5,)),
    successes=2,
    p_success=1.0,
    base_ones=2,
    trauma=2,
    attribute_after=1,
    mutation_points=2,
    item="rifle",
    gear_damage=1,
    item_bonus_after=1,
    manual=True,
)


def test_a_skill_roll_takes_base_dice_from_the_attribute_skill_dice_and_gear_dice() -> None:
    assert when(given(), yz.Roll(what="shoot", item="rifle", actor="Ana"), [6, 1, 3, 1, 4, 1, 2]) == [SHOT]


def test_a_push_rerolls_all_but_sixes_and_base_and_gear_ones_and_every_base_one_is_trauma() -> None:
    """The 3 on base, both skill dice (the 1 included) and the 2 on gear are re-rolled; the
    base 1 kept from the first roll and the new one are 2 trauma to Agility and 2 mutation
    points; the new 1 on the rifle's die takes a point of its bonus."""
    assert when(given(SHOT), yz.Push(actor="Ana"), [1, 5, 6, 5]) == [SHOT_PUSHED]


def test_a_roll_can_be_pushed_only_once() -> None:
    error = refused(given(SHOT, SHOT_PUSHED), yz.Push(actor="Ana"), [6, 6, 6])
    assert error.message == "that roll was already pushed; a roll can be pushed only once"


def test_a_push_takes_the_acting_characters_own_last_roll_while_another_acts_between() -> None:
    between = given(SHOT, ev.Initiative(character="Grit", face=4, agility=3, total=7))
    assert when(between, yz.Push(actor="Ana"), [1, 5, 6, 5]) == [SHOT_PUSHED]


def test_a_push_must_come_before_the_roller_acts_again_and_by_who_rolled() -> None:
    later = given(SHOT, ev.Initiative(character="Ana", face=4, agility=3, total=7))
    assert refused(later, yz.Push(actor="Ana"), [1, 5, 6, 5]).message.startswith("Ana has no roll to push")
    error = refused(given(SHOT), yz.Push(actor="Grit"), [1, 5, 6, 5])
    assert error.message.startswith("Grit has no roll to push")
    assert (
        error.fix is not None and error.fix.action == "choose_character" and error.fix.characters == ("Ana",)
    )


BROKEN_BY_PUSH = [
    ev.Pushed(
        character="Ana",
        attribute="strength",
        dice=ev.Pool(base=(1, 1, 1)),
        rerolled=ev.Pool(base=(1, 1, 1)),
        successes=0,
        p_success=p(3),
        base_ones=3,
        trauma=3,
        attribute_after=0,
        mutation_points=3,
        manual=True,
    ),
    ev.CriticalInjury(
        character="Ana", faces=(3, 4), result=7, name="winded", heals_at=None, effect="No lasting effect."
    ),
    ev.Broken(character="Ana", attribute="strength", getup_face=2, getup_at=START + 2 * 60),
]


def test_trauma_from_a_push_that_breaks_strength_rolls_a_critical_injury_then_the_hours_to_get_up() -> None:
    tried = given(
        ev.Rolled(
            character="Ana",
            attribute="strength",
            purpose="attribute",
            dice=ev.Pool(base=(2, 3, 4)),
            p_success=p(3),
            manual=True,
        )
    )
    assert when(tried, yz.Push(actor="Ana"), [1, 1, 1, 3, 4, 2]) == BROKEN_BY_PUSH


def test_a_broken_character_cannot_roll_and_gets_up_when_the_hours_are_over() -> None:
    state = given(
        ev.Rolled(character="Ana", attribute="strength", purpose="attribute", dice=ev.Pool(base=(2, 3, 4))),
        *BROKEN_BY_PUSH,
    )
    error = refused(state, yz.Roll(what="shoot", actor="Ana"), [6, 6, 6, 6, 6])
    assert error.message == (
        "Ana is broken by damage and cannot roll skills; a broken character may only make one maneuver a turn"
    )
    assert error.fix is not None and error.fix.action == "command"
    assert fixes.message(error).endswith("; heal them, or wait until they get up with `ledger yz tick`")
    up = START + 2 * 60
    assert when(state, yz.Tick(minutes=3 * 60, actor="Ana")) == [
        ev.Recovered(character="Ana", attribute="strength", amount=1, after=1, cause="got up", at=up),
        ev.InjuryHealed(character="Ana", name="winded", at=up),  # no healing time: gone once up
        ev.TimePassed(start=START, end=START + 3 * 60, activity="time passes"),
    ]


def test_worn_armor_rolls_its_dice_first_and_each_six_stops_a_point_of_damage() -> None:
    state = given(party=(("Grit", GRIT_ARMORED),))
    assert when(state, yz.Damage(kind="damage", amount=2, actor="Grit"), [6, 1]) == [
        ev.ArmorRolled(
            character="Grit", item="scrap_armor", slot="armor", faces=(6, 1), stopped=1, rating_after=1
        ),
        ev.Trauma(
            character="Grit",
            trauma="damage",
            attribute="strength",
            amount=1,
            after=3,
            cause="attack",
            at=START,
        ),
    ]


def test_contaminated_grub_is_a_rot_point_whose_ones_are_damage() -> None:
    assert when(given(), yz.Eat(contaminated=True, actor="Ana"), [1]) == [
        ev.Consumed(character="Ana", resource="grub", use="need", contaminated=True),
        ev.RotGained(
            character="Ana", source="contaminated grub", rot_faces=(1,), damage=1, total=1, at=START
        ),
        ev.Trauma(
            character="Ana", trauma="damage", attribute="strength", amount=1, after=2, cause="rot", at=START
        ),
    ]


def test_a_failed_cold_roll_left_unpushed_stands_before_the_next_command() -> None:
    state = given(
        ev.Rolled(
            character="Ana",
            attribute="strength",
            skill="endure",
            purpose="cold",
            dice=ev.Pool(base=(2, 3, 4)),
        )
    )
    assert when(state, yz.Initiative(actor="Grit"), [5]) == [
        ev.Settled(character="Ana", purpose="cold"),
        ev.Hypothermia(character="Ana", at=START),
        ev.Trauma(
            character="Ana", trauma="damage", attribute="strength", amount=1, after=2, cause="cold", at=START
        ),
        ev.Trauma(
            character="Ana", trauma="confusion", attribute="wits", amount=1, after=2, cause="cold", at=START
        ),
        ev.Initiative(character="Grit", face=5, agility=3, total=8),
    ]


def test_the_dead_do_not_act_and_nobody_helps_with_a_specialist_skill() -> None:
    dead = given(ev.Died(character="Ana", cause="crushed skull", at=START))
    error = refused(dead, yz.Roll(what="shoot", actor="Ana"), [6] * 5)
    assert error.message == "Ana is dead (crushed skull)"
    assert error.fix is not None and error.fix.characters == ("Grit",)
    assert fixes.message(error) == "Ana is dead (crushed skull); say who acts with --as NAME"
    helped = refused(given(), yz.Roll(what="jury_rig", helpers=1, actor="Grit"), [6] * 7)
    assert helped.message == "nobody can help with the specialist skill jury-rig"


def test_a_command_with_nobody_acting_is_refused_with_the_fix_that_fits() -> None:
    nobody = refused(given(party=()), yz.Roll(what="shoot"))
    assert nobody.message == "no character is acting" and nobody.fix is not None
    assert nobody.fix.action == "create_character"
    unnamed = refused(given(), yz.Roll(what="shoot"))
    assert unnamed.fix is not None and unnamed.fix.action == "choose_character"
    assert unnamed.fix.characters == ("Ana", "Grit")


# --- edges no other test tells apart -----------------------------------------------------------


def test_armor_rated_1_that_rolls_a_1_drops_to_0() -> None:
    # "Armor and shields roll their rating as gear dice: each 6 stops 1 damage, each 1 lowers the rating"
    state = given(party=(("Grit", {**GRIT, "armor.scrap_armor": "1"}),))
    armor, trauma = when(state, yz.Damage(kind="damage", amount=1, actor="Grit"), [1])
    assert (armor.stopped, armor.rating_after, trauma.amount) == (0, 0, 1)
    worn_out = given(armor, trauma, party=(("Grit", {**GRIT, "armor.scrap_armor": "1"}),))
    (unprotected,) = when(worn_out, yz.Damage(kind="damage", amount=1, actor="Grit"))
    assert (unprotected.amount, unprotected.after) == (1, 2)


def test_armor_does_not_roll_once_the_shield_stopped_all_the_damage() -> None:
    # "each 6 stops 1 damage": nothing is left for the armor to stop
    state = given(party=(("Grit", {**GRIT, "shield.door": "1", "armor.scrap_armor": "2"}),))
    shield, trauma = when(state, yz.Damage(kind="damage", amount=1, actor="Grit"), [6])
    assert (shield.slot, shield.stopped, trauma.amount) == ("shield", 1, 0)


def test_a_single_point_of_damage_that_breaks_strength_rolls_a_critical_injury() -> None:
    # "At 0 the character is broken; Strength 0 also means a critical injury (2d6 table)"
    state = given(party=(("Grit", {**GRIT, "strength": "1"}),))
    events = when(state, yz.Damage(kind="damage", amount=1, actor="Grit"), [3, 4, 2])
    assert [type(e).__name__ for e in events] == ["Trauma", "CriticalInjury", "Broken"]
    assert (events[1].result, events[2].getup_face) == (7, 2)


def test_a_rot_suit_rated_1_still_rolls_its_die() -> None:
    # "Rot suits roll their protection as gear dice to absorb the point; 1s lower the protection"
    state = given(party=(("Ana", {**ANA, "suit.hazmat": "1"}),))
    (absorbed,) = when(state, yz.Rot(points=1, actor="Ana"), [6])
    assert (absorbed.suit_faces, absorbed.absorbed, absorbed.suit_after) == ((6,), True, 1)


def test_damage_to_a_broken_strength_is_a_new_critical_injury_without_a_new_getup_roll() -> None:
    # rulings/yearzero.md: a critical injury for "every further damage suffered while at 0";
    # the hours to get up were rolled when the character broke
    state = given(party=(("Grit", GRIT),))
    broken = when(state, yz.Damage(kind="damage", amount=4, actor="Grit"), [3, 4, 2])
    assert [type(e).__name__ for e in broken] == ["Trauma", "CriticalInjury", "Broken"]
    with pytest.raises(FacesError):  # the hours to get up are a d6
        when(state, yz.Damage(kind="damage", amount=4, actor="Grit"), [3, 4, 7])
    again = when(
        given(*broken, party=(("Grit", GRIT),)), yz.Damage(kind="damage", amount=1, actor="Grit"), [3, 4]
    )
    assert [type(e).__name__ for e in again] == ["Trauma", "CriticalInjury"]


def test_only_its_specialists_roll_a_specialist_skill() -> None:
    # Grit has Jury Rig; Ana does not, and a specialist skill cannot be rolled untrained
    assert (
        "only its specialists roll it"
        in refused(given(), yz.Roll(what="jury_rig", actor="Ana"), [6] * 3).message
    )
    (rolled,) = when(given(), yz.Roll(what="jury_rig", actor="Grit"), [1, 2, 3, 4, 5, 6])
    assert (rolled.skill, len(rolled.dice.base), len(rolled.dice.skill)) == ("jury_rig", 4, 2)


def test_a_day_in_a_rot_free_place_records_no_decontamination_for_a_character_without_rot() -> None:
    # "Decontamination: 1 point a day in a Rot-free place": with no Rot, there is nothing to roll for
    events = when(given(), yz.Tick(minutes=16 * 60, actor="Ana"))
    assert not [e for e in events if isinstance(e, ev.RotLost)]
    assert [e for e in events if isinstance(e, ev.DayEnded)]


def test_a_push_rerolls_on_six_sided_dice() -> None:
    with pytest.raises(FacesError):
        when(given(SHOT), yz.Push(actor="Ana"), [7, 5, 6, 5])  # the base die re-rolled
    with pytest.raises(FacesError):
        when(given(SHOT), yz.Push(actor="Ana"), [1, 7, 6, 5])  # a skill die re-rolled
    with pytest.raises(FacesError):
        when(given(SHOT), yz.Push(actor="Ana"), [1, 5, 6, 7])  # the gear die re-rolled


def test_a_skill_the_character_lacks_adds_no_skill_dice() -> None:
    # "skill dice = skill level": Ana has no Sneak, so Agility's 3 base dice only
    (rolled,) = when(given(), yz.Roll(what="sneak", actor="Ana"), [1, 2, 3])
    assert (len(rolled.dice.base), rolled.dice.skill) == (3, ())


def test_a_cold_roll_with_a_single_six_succeeds_and_nothing_settles() -> None:
    # "At least one 6 succeeds": only a failed cold roll left unpushed stands as hypothermia
    state = given(
        ev.Rolled(
            character="Ana",
            attribute="strength",
            skill="endure",
            purpose="cold",
            dice=ev.Pool(base=(2, 3, 6)),
            successes=1,
        )
    )
    assert when(state, yz.Initiative(actor="Grit"), [5]) == [
        ev.Initiative(character="Grit", face=5, agility=3, total=8)
    ]


@pytest.mark.parametrize(
    ("skill", "gear"),
    [((6, 2), (2, 3)), ((2, 3), (6, 2))],
)
def test_a_six_kept_on_a_skill_or_gear_die_makes_the_push_certain(
    skill: tuple[int, ...], gear: tuple[int, ...]
) -> None:
    # "At least one 6 succeeds": a push keeps its sixes, wherever they are
    rolled = ev.Rolled(
        character="Ana",
        attribute="agility",
        skill="shoot",
        dice=ev.Pool(base=(2, 3, 4), skill=skill, gear=gear),
        item="rifle",
        successes=1,
        p_success=p(7),
        manual=True,
    )
    (pushed,) = when(given(rolled), yz.Push(actor="Ana"), [2, 3, 4, 2, 3, 4])
    assert (pushed.successes, pushed.p_success) == (1, 1.0)


@pytest.mark.parametrize(("rot", "washed"), [(1, 1), (3, 2), (4, 2)])
def test_washing_removes_half_the_rot_rounded_up(rot: int, washed: int) -> None:
    # "washing with clean water on return removes half, rounded up, once"
    gained = ev.RotGained(character="Ana", source="zone", rot_faces=(2,) * rot, total=rot, at=START)
    (lost,) = when(given(gained), yz.Wash(actor="Ana"), [4] * washed)
    assert (lost.faces, lost.lost, lost.total) == ((4,) * washed, washed, rot - washed)


def test_washing_without_rot_is_refused() -> None:
    assert "has no Rot that washing can remove" in refused(given(), yz.Wash(actor="Ana")).message


@pytest.mark.parametrize(("sixes", "successes"), [(0, 0), (1, 1), (2, 2)])
def test_one_six_succeeds_and_each_extra_six_is_a_stunt(sixes: int, successes: int) -> None:
    # "At least one 6 succeeds; each extra 6 is a stunt": Ana's 3 base, 2 skill and 2 gear dice
    faces = [6] * sixes + [2] * (7 - sixes)
    (rolled,) = when(given(), yz.Roll(what="shoot", item="rifle", actor="Ana"), faces)
    assert (rolled.successes, rolled.success) == (successes, successes >= 1)


def test_an_attribute_roll_has_no_skill_dice() -> None:
    # "Base dice = attribute, skill dice = skill level": no skill, no skill dice
    (rolled,) = when(given(), yz.Roll(what="strength", actor="Ana"), [1, 2, 3])
    assert (len(rolled.dice.base), rolled.dice.skill) == (3, ())


def test_each_six_on_a_negative_die_cancels_one_success() -> None:
    # rulings/yearzero.md: below zero skill dice, "each 6 on them cancels one success"
    (rolled,) = when(given(), yz.Roll(what="shoot", modifier=-3, actor="Ana"), [6, 6, 2, 6])
    assert (rolled.dice.base, rolled.dice.negative, rolled.successes) == ((6, 6, 2), (6,), 1)
