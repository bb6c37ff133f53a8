"""The crawl rules as a player meets them, without a database: given the events of a
campaign so far, when the explorer gives a command on physical dice, then exactly these
events (or this refusal)."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from ledger.dice.sources import Faces, RandomDice
from ledger.errors import FacesError, GameOverError, OutOfOrderError, RuleError
from ledger.log.events import CampaignStarted, Event
from ledger.log.state import CampaignState
from ledger.systems.crawl import events as ev
from ledger.systems.crawl.order import Attack, Eat, Escape, Move, Sleep, Technique, Terrain
from ledger.systems.crawl.system import SYSTEM
from ledger.systems.crawl.tables import load_tables
from tests.helpers_rules import decided, folded
from tests.test_crawl import write_tables

RAT = ev.Foe(name="rat", health=5, max_health=5, esc=2)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The quiet test tables: rats (Health 5, ESC 2), a knife to start with, 100 bits."""
    found, _ = load_tables(write_tables(tmp_path_factory.mktemp("crawl") / "t.toml"))
    return found


def given(tables: dict[str, Any], *events: Event) -> CampaignState:
    """The campaign state these events lead to, folded as the ledger folds them."""
    return folded(SYSTEM, CampaignStarted(name="run", system="crawl", tables=tables), events)


def when(state: CampaignState, command: Any, *faces: int) -> list[Event]:
    """The events the command decides on these faces, every face used."""
    return decided(SYSTEM, state, command, faces)


def new_hex(day: int, text: str = "nothing 6", total: tuple[int, int] = (1, 5)) -> list[Event]:
    """A day walked north onto a blank hex: plain terrain and its event."""
    return [
        ev.Moved(day=day, direction="n", q=0, r=-day),
        ev.TerrainRolled(q=0, r=-day, dice=(1,), face=1, terrain="plain"),
        ev.TableRolled(table="events.plain", dice=total, total=sum(total), row=sum(total), text=text),
    ]


def hungry_night(day: int, streak: int, health: int, energy: int) -> list[Event]:
    """No meal: the streak's loss, a night in the wild, the day's end."""
    after = health - (streak + 1)
    return [
        ev.Starved(streak=streak, loss=streak + 1, health=after, cost=streak + 1),
        ev.Slept(where="wild", health_gain=3, energy_gain=2, health=after + 3, energy=energy + 2),
        ev.DayEnded(day=day, ate=False, streak=streak, how="slept", line=""),
    ]


def two_hungry_days() -> list[Event]:
    """Days 1 and 2 without a meal: Health 10 -2 +3 = 11, -3 +3 = 11; Energy 10, 12, 14."""
    return [*new_hex(1), *hungry_night(1, 1, 10, 10), *new_hex(2), *hungry_night(2, 2, 11, 12)]


def met_rat() -> list[Event]:
    """Day 1: a rat on the plain, the fight begun, its first blow missed."""
    return [
        *new_hex(1, "a rat", (1, 2)),
        ev.EnemyMet(foe=RAT),
        ev.CombatStarted(foe="rat"),
        ev.EnemyStruck(foe="rat", face=1, attack=1, defense=1, damage=0, health=10, lost=0),
    ]


def test_a_meal_resets_the_hunger_streak(tables: dict[str, Any]) -> None:
    state = given(
        tables,
        *two_hungry_days(),
        *new_hex(3),
        ev.Ate(food="bar", health_gain=2, energy_gain=1, health=13, energy=15),
    )
    assert state.game.hunger_streak == 2
    assert when(state, Sleep(where="wild")) == [
        ev.Slept(where="wild", health_gain=3, energy_gain=2, health=16, energy=17),
        ev.DayEnded(
            day=3, ate=True, streak=0, how="slept", line="walked n; plain; nothing 6; ate bar; slept wild"
        ),
    ]


def test_the_third_day_without_a_meal_costs_4_health(tables: dict[str, Any]) -> None:
    state = given(tables, *two_hungry_days(), *new_hex(3))
    assert when(state, Sleep(where="wild")) == [
        ev.Starved(streak=3, loss=4, health=7, cost=4),
        ev.Slept(where="wild", health_gain=3, energy_gain=2, health=10, energy=16),
        ev.DayEnded(
            day=3,
            ate=False,
            streak=3,
            how="slept",
            line="walked n; plain; nothing 6; went hungry (-4); slept wild",
        ),
    ]


def test_hunger_kills_an_explorer_with_less_health_than_it_costs(tables: dict[str, Any]) -> None:
    rockfall = ev.Changed(cause="a rockfall", health=-8, health_now=3, energy_now=14)
    state = given(tables, *two_hungry_days(), *new_hex(3), rockfall)
    assert when(state, Sleep(where="wild")) == [
        ev.Starved(streak=3, loss=3, health=0, cost=4),
        ev.Died(cause="hunger (day 3 without a meal)", day=3),
    ]


def test_the_third_day_opens_the_first_divine_chapter(tables: dict[str, Any]) -> None:
    state = given(tables, *two_hungry_days())
    assert when(state, Move(direction="n")) == [
        ev.Moved(day=3, direction="n", q=0, r=-3),
        ev.ChapterOpened(chapter=1, name="chapter 1", day=3),
    ]


def test_a_command_out_of_the_days_order_is_refused(tables: dict[str, Any]) -> None:
    walked = given(tables, ev.Moved(day=1, direction="n", q=0, r=-1))
    with pytest.raises(OutOfOrderError) as refused:
        when(walked, Eat(food="bar"))
    assert refused.value.message == "eat is out of the day's order: expected terrain on day 1"
    camp = given(tables, *new_hex(1))
    with pytest.raises(
        OutOfOrderError, match=r"^move is out of the day's order: expected eat or sleep on day 1$"
    ):
        when(camp, Move(direction="n"))
    meal = ev.Ate(food="bar", health_gain=0, energy_gain=0, health=10, energy=10)
    full = given(tables, *new_hex(1), meal, meal, meal)
    with pytest.raises(OutOfOrderError) as refused:
        when(full, Eat(food="bar"))
    assert refused.value.message == (
        "eat is out of the day's order (at most 3 rations a day; 3 eaten today): expected sleep on day 1"
    )


def test_an_impassable_hex_cannot_be_entered(tables: dict[str, Any]) -> None:
    state = given(tables, ev.IconPlaced(q=0, r=-1, icon="impassable"))
    with pytest.raises(
        RuleError, match=r"^the hex to the n \(0,-1\) is impassable; choose another direction$"
    ):
        when(state, Move(direction="n"))
    assert when(state, Move(direction="ne")) == [ev.Moved(day=1, direction="ne", q=1, r=-1)]


def test_an_escape_above_the_enemys_esc_ends_the_day_hungry(tables: dict[str, Any]) -> None:
    state = given(tables, *met_rat())
    assert when(state, Escape(), 3) == [
        ev.EscapeRolled(foe="rat", face=3, esc=2, success=True, p_success=4 / 6, manual=True),
        ev.Escaped(foe=RAT, q=0, r=-1, energy_cost=2, health_cost=2, energy=8, health=8),
        ev.Starved(streak=1, loss=2, health=8, cost=2),
        ev.DayEnded(
            day=1,
            ate=False,
            streak=1,
            how="escaped",
            line="walked n; plain; a rat; met rat; escaped from rat; went hungry (-2)",
        ),
    ]


def test_a_failed_escape_gives_the_enemy_its_blow(tables: dict[str, Any]) -> None:
    state = given(tables, *met_rat())
    assert when(state, Escape(), 2, 6) == [
        ev.EscapeRolled(foe="rat", face=2, esc=2, success=False, p_success=4 / 6, manual=True),
        ev.EnemyStruck(
            foe="rat", face=6, attack=6, defense=1, damage=5, health=5, p_success=5 / 6, manual=True, lost=5
        ),
    ]


def test_a_blow_with_the_knife_then_the_enemys_turn(tables: dict[str, Any]) -> None:
    state = given(tables, *met_rat())
    assert when(state, Attack(), 4) == [
        ev.PlayerStruck(foe="rat", weapon="knife", attack=3, defense=0, damage=3, foe_health=2),
        ev.EnemyStruck(
            foe="rat", face=4, attack=4, defense=1, damage=3, health=7, p_success=5 / 6, manual=True, lost=3
        ),
    ]


def test_a_killing_blow_rolls_no_enemy_die(tables: dict[str, Any]) -> None:
    hit = ev.PlayerStruck(foe="rat", weapon="knife", attack=3, defense=0, damage=3, foe_health=2)
    state = given(tables, *met_rat(), hit)
    assert when(state, Attack(weapon="knife")) == [
        ev.PlayerStruck(foe="rat", weapon="knife", attack=3, defense=0, damage=3, foe_health=0),
        ev.EnemyDefeated(foe="rat"),
    ]
    with pytest.raises(RuleError, match=r"^no weapon 'bow' in your inventory; use one of hands, knife$"):
        when(state, Attack(weapon="bow"))


def test_an_unknown_technique_points_to_the_table_that_teaches_it(tables: dict[str, Any]) -> None:
    state = given(tables, *met_rat())
    with pytest.raises(RuleError) as refused:
        when(state, Technique(number=1))
    assert refused.value.message.startswith(
        "technique 1 (dodge and strike) is not known (known: none yet); "
        "learn it first: it comes from events.plain on a 4, events.wood on a 4"
    )
    assert refused.value.fix is not None
    assert (refused.value.fix.action, refused.value.fix.table) == (
        "read_table",
        "events.plain",
    )


def test_only_rolls_on_physical_dice_are_marked_physical(tables: dict[str, Any]) -> None:
    state = given(tables, ev.Moved(day=1, direction="n", q=0, r=-1))
    assert when(state, Terrain(), 2) == [
        ev.TerrainRolled(q=0, r=-1, dice=(2,), face=2, terrain="wood", manual=True)
    ]
    (rolled,) = SYSTEM.rules.decide(state, Terrain(), RandomDice(random.Random(3)))
    assert isinstance(rolled, ev.TerrainRolled) and rolled.manual is False


def test_a_dead_explorer_takes_no_command(tables: dict[str, Any]) -> None:
    state = given(tables, *new_hex(1), ev.Died(cause="a rockfall", day=1))
    with pytest.raises(
        GameOverError, match=r"^the explorer died on day 1 \(a rockfall\); the campaign is over"
    ):
        when(state, Sleep(where="wild"))


def test_the_decider_takes_the_crawl_commands_by_class(tables: dict[str, Any]) -> None:
    assert SYSTEM.rules.commands == SYSTEM.rules.decide.commands  # type: ignore[attr-defined]
    assert [c.__name__ for c in SYSTEM.rules.commands] == [
        "Move",
        "Terrain",
        "Explore",
        "Eat",
        "Sleep",
        "Buy",
        "Quest",
        "Loot",
        "Hide",
        "Fight",
        "Attack",
        "Technique",
        "Escape",
    ]
    with pytest.raises(RuleError) as refused:
        SYSTEM.rules.decide(given(tables), object(), Faces([]))
    assert refused.value.message == "the crawl system has no command object"
    assert refused.value.fix is not None and refused.value.fix.action == "system_commands"


def test_bare_hands_strike_with_the_explorers_attack_alone(tables: dict[str, Any]) -> None:
    # "Damage = attack - defense": hands add nothing to Attack 1
    state = given(tables, *met_rat())
    struck = when(state, Attack(weapon="hands"), 2)[0]
    assert (struck.weapon, struck.attack, struck.damage) == ("hands", 1, 1)


def test_an_explorer_with_nothing_to_wear_defends_with_defense_alone(tables: dict[str, Any]) -> None:
    # "Damage = attack - defense, never below 0": Defense 1, no item, against a 4
    state = given(tables, *met_rat())
    bare = msgspec.structs.replace(state, game=msgspec.structs.replace(state.game, inventory=()))
    blow = when(bare, Attack(weapon="hands"), 4)[1]
    assert (blow.defense, blow.damage) == (1, 3)


def _with_fight(state: CampaignState, **changes: Any) -> CampaignState:
    """The state with the fight changed (its foe, its stun)."""
    fight = msgspec.structs.replace(state.game.fight, **changes)
    return msgspec.structs.replace(state, game=msgspec.structs.replace(state.game, fight=fight))


def test_the_enemys_attack_is_a_d6_and_its_chance_counts_every_face(tables: dict[str, Any]) -> None:
    # "The enemy's attack is a 1d6 roll": Attack 2 against Defense 1 hits on every face
    wolf = _with_fight(given(tables, *met_rat()), foe=msgspec.structs.replace(RAT, attack=2))
    blow = when(wolf, Attack(weapon="knife"), 1)[1]
    assert (blow.attack, blow.damage, blow.p_success) == (3, 2, 1.0)
    with pytest.raises(FacesError):
        when(wolf, Attack(weapon="knife"), 7)


def test_a_foe_stunned_for_one_turn_loses_that_turn(tables: dict[str, Any]) -> None:
    # "aturdido por tantos turnos como ...": one turn of stun left is one enemy turn lost
    stunned = _with_fight(given(tables, *met_rat()), stun=1)
    _struck, skipped = when(stunned, Attack(weapon="knife"))
    assert skipped == ev.EnemyStruck(
        foe="rat", face=None, attack=0, defense=0, damage=0, health=10, stunned=True
    )


def test_a_blow_below_the_foes_defense_does_no_damage(tables: dict[str, Any]) -> None:
    # "Damage = attack - defense, never below 0": the knife's 3 against Defense 5
    armoured = _with_fight(given(tables, *met_rat()), foe=msgspec.structs.replace(RAT, defense=5))
    struck = when(armoured, Attack(weapon="knife"), 1)[0]
    assert (struck.attack, struck.damage, struck.foe_health) == (3, 0, 5)


def test_a_bow_fires_its_last_arrow_and_not_one_more(tables: dict[str, Any]) -> None:
    # "The basic attack always hits (bows spend arrows)"
    bow = {"attack": 5, "defense": 0, "bow": True, "tool": False}
    state = given({**tables, "items": {**tables["items"], "bow": bow}}, *met_rat())
    game = msgspec.structs.replace(state.game, inventory=("knife", "bow"), arrows=1)
    last = msgspec.structs.replace(state, game=game)
    shot = when(last, Attack(weapon="bow"))[0]  # 1 + 5 fells the rat: no enemy die
    assert (shot.weapon, shot.arrows_spent) == ("bow", 1)
    assert when(last, Attack())[0].weapon == "bow"  # the best weapon, while an arrow is left
    none_left = msgspec.structs.replace(last, game=msgspec.structs.replace(game, arrows=0))
    with pytest.raises(RuleError, match="needs arrows and you have none"):
        when(none_left, Attack(weapon="bow"))


def test_techniques_5_to_7_last_the_combat_and_cannot_be_stacked(tables: dict[str, Any]) -> None:
    # "Techniques 5-7 cost their Energy, end the turn, and last for the rest of the combat"
    state = _with_fight(given(tables, *met_rat()), effects=(5,))
    game = msgspec.structs.replace(state.game, techniques={5: 0}, energy=20)
    with pytest.raises(RuleError, match=r"technique 5 .* is already active for this combat"):
        when(msgspec.structs.replace(state, game=game), Technique(number=5))


def test_an_escape_from_a_foe_with_esc_0_is_certain(tables: dict[str, Any]) -> None:
    # "Escape: 1d6 greater than the enemy's ESC": every face beats 0
    slow = _with_fight(given(tables, *met_rat()), foe=msgspec.structs.replace(RAT, esc=0))
    rolled = when(slow, Escape(), 1)[0]
    assert (rolled.success, rolled.p_success) == (True, 1.0)


def test_a_technique_may_spend_the_last_energy_points(tables: dict[str, Any]) -> None:
    # "Techniques 5-7 cost their Energy": sprint costs 2, and 2 is enough
    state = given(tables, *met_rat())
    tired = msgspec.structs.replace(
        state, game=msgspec.structs.replace(state.game, techniques={5: 0}, energy=2)
    )
    sprint = when(tired, Technique(number=5), 1)[0]
    assert (sprint.energy_cost, sprint.energy) == (2, 0)


def test_an_escape_needs_2_energy_and_rolls_a_d6(tables: dict[str, Any]) -> None:
    # "Escape: 1d6 greater than the enemy's ESC; success costs 2 Energy"; rulings/crawl.md:
    # "Escaping needs the 2 Energy; with less it is refused"
    state = given(tables, *met_rat())
    two = msgspec.structs.replace(state, game=msgspec.structs.replace(state.game, energy=2))
    assert when(two, Escape(), 6)[1].energy == 0
    one = msgspec.structs.replace(state, game=msgspec.structs.replace(state.game, energy=1))
    with pytest.raises(RuleError, match="escaping costs 2 Energy and you have 1"):
        when(one, Escape())
    with pytest.raises(FacesError):
        when(state, Escape(), 7)


def test_a_sprint_lowers_the_escape_number_to_0_and_no_lower(tables: dict[str, Any]) -> None:
    # technique 5 (sprint) takes 2 off the enemy's ESC: the rat's 2 becomes 0
    sprinting = _with_fight(given(tables, *met_rat()), effects=(5,))
    rolled = when(sprinting, Escape(), 1)[0]
    assert (rolled.esc, rolled.success) == (0, True)


@pytest.mark.parametrize(("hunger", "cost"), [("fixed", 2), ("streak", 4)])
def test_the_escapes_hunger_by_setting(tables: dict[str, Any], hunger: str, cost: int) -> None:
    # rulings/crawl.md, "Escaping": `fixed` costs exactly 2, `streak` what the streak would
    # (a third day without food: 4)
    ruled = {**tables, "settings": {**tables.get("settings", {}), "escape_hunger": hunger}}
    rat_on_day_3 = [
        *new_hex(3, "a rat", (1, 2)),
        ev.EnemyMet(foe=RAT),
        ev.CombatStarted(foe="rat"),
        ev.EnemyStruck(foe="rat", face=1, attack=1, defense=1, damage=0, health=11, lost=0),
    ]
    state = given(ruled, *two_hungry_days(), *rat_on_day_3)
    escaped = when(state, Escape(), 6)[1]
    assert (escaped.health_cost, escaped.health) == (cost, 11 - cost)
