"""The crawl rules, scripted with physical dice: the day's order, hunger,
escape, techniques, God, undo and fork."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from ledger import Ledger
from ledger.dice.sources import Faces
from ledger.errors import FacesError, GameOverError, OutOfOrderError, RuleError, TableError
from ledger.projections.crawl import fold, views
from ledger.projections.crawl.game import DIRECTIONS, Crawl, Hex, key, neighbour
from ledger.projections.crawl.game import Fight as FightState
from ledger.systems.crawl import events as ev
from ledger.systems.crawl.order import (
    Attack,
    Buy,
    Eat,
    Escape,
    Explore,
    Fight,
    Hide,
    Loot,
    Move,
    Quest,
    Sleep,
    Technique,
    Terrain,
)
from ledger.systems.crawl.system import SYSTEM

TERRAIN = ["plain", "wood", "hill", "bog", "scrap", "peak"]
QUIET_ROWS = {
    3: '{ text = "a rat", enemy = "rat" }',
    4: '{ text = "a manual", technique = 1 }',
    7: '{ text = "a ration", bar = 1 }',
    8: '{ text = "a town", town = true }',
    9: '{ text = "a dummy", enemy = "dummy" }',
}


def quiet(k: int) -> str:
    return f'{{ text = "nothing {k}" }}'


def write_tables(
    path: Path, rows: dict[int, str] | None = None, bits: int = 100, settings: str = 'repeat = "pass"'
) -> str:
    """Quiet tables for scripting: every row is 'nothing' except ``rows``."""
    rows = QUIET_ROWS if rows is None else rows

    def table(name: str, keys: range, special: dict[int, str] | None = None) -> list[str]:
        special = special or {}
        return [f"[{name}]"] + [f"{k} = {special.get(k, quiet(k))}" for k in keys]

    lines = [
        "sample = false",
        "[settings]",
        settings,
        "[start]",
        f"bits = {bits}",
        'inventory = ["knife"]',
        "[terrain]",
    ]
    lines += [f'{i} = "{t}"' for i, t in enumerate(TERRAIN, start=1)]
    lines += table("events.default", range(2, 13), rows)
    for t in TERRAIN:
        lines += [f"[encounters.{t}]", '1 = "rat"', '3 = "rat"', '5 = "rat"']
    for name, stats in {"rat": (5, 0, 0, 2), "dummy": (60, 0, 0, 6), "god": (15, 2, 2, 5)}.items():
        h, a, d, e = stats
        lines += [f"[enemies.{name}]", f"health = {h}", f"attack = {a}", f"defense = {d}", f"esc = {e}"]
    lines += table("ruins", range(1, 7)) + table("rewards", range(1, 7)) + table("quests", range(1, 7))
    for n in (1, 2, 4, 5):
        lines += [*table(f"chapters.{n}", range(1, 7)), f'name = "chapter {n}"']
    lines += ["[chapters.3]", 'name = "God himself"', "god = true"]
    lines += ["[items.knife]", "attack = 2", '[items."solar taser"]', "tool = true"]
    lines += ["[shop.bar]", "price = 2", 'text = "a bar"', "bar = 1"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def book(tmp_path: Path) -> Any:
    with Ledger(str(tmp_path / "c.ledger")) as ledger:
        ledger.new_campaign("crawl", "run", tables=write_tables(tmp_path / "t.toml"))
        yield ledger


def game(book: Ledger) -> Crawl:
    return book.state("run").game


def do(book: Ledger, command: Any, *faces: int) -> list[Any]:
    rec = book.execute(command, "run", faces=list(faces) if faces else None)
    return rec.events


def walk(
    book: Ledger, direction: str, event: tuple[int, ...] = (2, 4), quiet: tuple[int, ...] = (2,)
) -> None:
    """Move, roll a plain terrain if the hex is blank, roll the event (``quiet``
    on a divine day or a revisit)."""
    do(book, Move(direction=direction))
    if game(book).phase == "terrain":
        do(book, Terrain(), 1)
    g = game(book)
    if g.phase == "event":
        again = g.chapter_today is not None or g.here.visits > 1
        do(book, Explore(), *(quiet if again else event))


def test_a_new_explorer_starts_as_the_text_says(book: Ledger) -> None:
    sheet = SYSTEM.read.sheet(book.state("run"), None)
    assert (sheet["health"], sheet["energy"], sheet["attack"], sheet["defense"]) == (10, 10, 1, 1)
    assert sheet["food"] == {"bar": 3, "fruit": 0}
    assert sheet["day"] == 0 and sheet["alive"] is True
    assert sheet["expected"] == ["crawl move DIR"]


def test_the_day_order_is_enforced_and_names_the_next_step(book: Ledger) -> None:
    with pytest.raises(OutOfOrderError, match=r"^eat is out of the day's order: expected move on day 0$"):
        do(book, Eat(food="bar"))
    do(book, Move(direction="n"))
    with pytest.raises(OutOfOrderError, match="expected terrain on day 1"):
        do(book, Explore(), 3, 4)
    do(book, Terrain(), 2)
    with pytest.raises(OutOfOrderError, match="expected event on day 1"):
        do(book, Sleep(where="wild"))
    assert game(book).day == 1 and game(book).here.terrain == "wood"


def test_three_hungry_days_cost_2_3_4_then_a_meal_resets_the_streak(book: Ledger) -> None:
    losses, healths = [], []
    for direction in ("n", "s", "n"):
        walk(book, direction)
        events = do(book, Sleep(where="wild"))
        starved = [e for e in events if isinstance(e, ev.Starved)]
        losses.append(starved[0].loss)
        healths.append(game(book).health)
    assert losses == [2, 3, 4]
    assert healths == [10 - 2 + 3, 11 - 3 + 3, 11 - 4 + 3]
    assert views.hunger(book.state("run")) == {
        "day": 3,
        "streak": 3,
        "longest": 3,
        "lost": 9,
        "meals_today": 0,
    }
    walk(book, "s")
    do(book, Eat(food="bar"))
    events = do(book, Sleep(where="wild"))
    assert not any(isinstance(e, ev.Starved) for e in events)
    assert game(book).hunger_streak == 0 and views.hunger(book.state("run"))["longest"] == 3


def test_a_fourth_ration_is_refused_and_counters_stop_at_20(book: Ledger) -> None:
    walk(book, "n", event=(4, 4))  # 8: a town
    assert game(book).here.icon == "town"
    for _ in range(3):
        do(book, Eat(food="tavern"))
    with pytest.raises(OutOfOrderError, match=r"at most 3 rations a day; 3 eaten today"):
        do(book, Eat(food="bar"))
    do(book, Sleep(where="hotel"))
    g = game(book)
    assert (g.health, g.energy) == (20, 20)
    assert g.bits == 100 - 4 * 3


def test_paying_needs_the_bits_and_a_town(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "p.ledger")) as poor:
        poor.new_campaign("crawl", "run", tables=write_tables(tmp_path / "p.toml", bits=2))
        walk(poor, "n")
        with pytest.raises(RuleError, match="a tavern meal needs a town"):
            do(poor, Eat(food="tavern"))
        with pytest.raises(RuleError, match="sleeping hotel needs a town"):
            do(poor, Sleep(where="hotel"))
        do(poor, Sleep(where="wild"))
        walk(poor, "n", event=(4, 4))
        with pytest.raises(RuleError, match="costs 3 bits and you have 2"):
            do(poor, Eat(food="tavern"))


def test_escape_costs_2_energy_2_health_and_the_enemy_waits_unhealed(book: Ledger) -> None:
    walk(book, "n", event=(1, 2))  # 3: a rat (Health 5, ESC 2)
    do(book, Fight(), 1)  # 1 + 0 vs Defense 1: no damage
    do(book, Attack(), 1)  # knife: 1 + 2 = 3 damage, rat at 2
    events = do(book, Escape(), 3)  # 3 > ESC 2
    assert [type(e) for e in events] == [ev.EscapeRolled, ev.Escaped, ev.Starved, ev.DayEnded]
    assert events[0].p_success == pytest.approx(4 / 6)
    g = game(book)
    assert (g.health, g.energy, g.phase, g.hunger_streak) == (8, 8, "dawn", 1)
    assert g.here.icon == "enemy" and g.here.foe is not None and g.here.foe.health == 2
    for direction in ("s", "s", "n"):  # day 3 is a divine day: its event takes the slot
        walk(book, direction)
        do(book, Eat(food="bar"))
        do(book, Sleep(where="wild"))
    do(book, Move(direction="n"))
    events = do(book, Explore())
    assert isinstance(events[0], ev.EnemyMet) and events[0].waiting and events[0].foe.health == 2
    do(book, Fight(), 1)
    with pytest.raises(OutOfOrderError, match="a waiting enemy cannot be escaped again"):
        do(book, Escape(), 6)
    events = do(book, Attack())
    assert isinstance(events[-1], ev.EnemyDefeated)
    assert game(book).here.icon == "" and "loot" in SYSTEM.read.sheet(book.state("run"), None)["expected"][0]


def test_a_failed_escape_loses_the_turn(book: Ledger) -> None:
    walk(book, "n", event=(1, 2))
    do(book, Fight(), 1)
    events = do(book, Escape(), 2, 4)  # 2 is not above ESC 2; the rat strikes 4 - 1
    assert [type(e) for e in events] == [ev.EscapeRolled, ev.EnemyStruck]
    assert events[1].damage == 3 and game(book).phase == "combat"


def _combat_state(book: Ledger, successes: int, known: int = 1) -> Any:
    state = book.state("run")
    foe = ev.Foe(name="dummy", health=60, max_health=60)
    techniques = {n: 0 for n in range(1, known + 1)} | {1: successes}
    g = replace(
        state.game, phase="combat", energy=20, techniques=techniques, fight=FightState(foe=foe, started=True)
    )
    return replace(state, game=g)


@pytest.mark.parametrize(("successes", "fail", "win"), [(0, 2, 1), (1, 3, 2), (3, 5, 4), (4, 6, 5)])
def test_the_nth_use_of_a_technique_needs_n_or_less(
    book: Ledger, successes: int, fail: int, win: int
) -> None:
    state = _combat_state(book, successes)
    failed = SYSTEM.rules.decide(state, Technique(number=1), Faces([fail, 1]))
    assert failed[0].success is False and failed[0].needed == successes + 1
    assert failed[0].p_success == pytest.approx((successes + 1) / 6)
    done = SYSTEM.rules.decide(state, Technique(number=1), Faces([win, 1]))
    assert done[0].success is True and done[0].successes == successes + 1
    assert isinstance(done[1], ev.PlayerStruck) and done[1].attack == 1 + 2 + 2


def test_the_sixth_use_of_a_technique_still_rolls_and_needs_6_or_less(book: Ledger) -> None:
    # "Techniques 1-4 need a training roll until used successfully 6 times: the n-th use
    # succeeds on a roll of n or less": five successes are not mastery yet
    sixth = SYSTEM.rules.decide(_combat_state(book, 5), Technique(number=1), Faces([6, 1]))
    assert (sixth[0].dice, sixth[0].needed, sixth[0].success, sixth[0].successes) == ((6,), 6, True, 6)
    assert sixth[0].p_success == 1.0
    assert sixth[1].arrows_spent == 0  # a technique's blow is never a bow shot


def test_a_mastered_grenade_still_rolls_its_d6_for_the_stun_rounded_up(book: Ledger) -> None:
    # rulings/crawl.md: technique 4 "rolls its dice even when mastered, for the duration", the
    # roll's total / 2 rounded up ("redondeando hacia arriba"): a 3 stuns for 2 turns
    state = _combat_state(book, 0)
    drone = ev.Foe(name="drone", health=60, max_health=60, robot=True)
    g = replace(
        state.game,
        techniques={4: 6},
        inventory=("knife", "solar taser"),
        fight=FightState(foe=drone, started=True),
    )
    grenade = SYSTEM.rules.decide(replace(state, game=g), Technique(number=4), Faces([3]))
    assert (grenade[0].dice, grenade[0].stun) == ((3,), 2)
    with pytest.raises(FacesError):
        SYSTEM.rules.decide(replace(state, game=g), Technique(number=4), Faces([7]))


def test_only_the_grenade_rolls_once_mastered(book: Ledger) -> None:
    # rulings/crawl.md: "After 6 successes no roll is made"; technique 4 alone rolls for its stun
    state = _combat_state(book, 0)
    g = replace(state.game, techniques={1: 0, 3: 6})
    jump = SYSTEM.rules.decide(replace(state, game=g), Technique(number=3), Faces([1]))
    assert (jump[0].dice, jump[0].success) == ((), True)


def test_a_mastered_technique_needs_no_roll_and_more_techniques_roll_more_dice(book: Ledger) -> None:
    mastered = SYSTEM.rules.decide(_combat_state(book, 6), Technique(number=1), Faces([1]))
    assert mastered[0].dice == () and mastered[0].success
    three = SYSTEM.rules.decide(_combat_state(book, 0, known=4), Technique(number=1), Faces([6, 5, 1, 1]))
    assert three[0].dice == (6, 5, 1) and three[0].success
    assert three[0].p_success == pytest.approx(1 - (5 / 6) ** 3)


def test_a_failed_technique_gives_minus_2_defense_for_one_enemy_turn(book: Ledger) -> None:
    walk(book, "n", event=(2, 2))  # 4: learn technique 1
    do(book, Sleep(where="wild"))
    walk(book, "n", event=(4, 5))  # 9: a dummy
    do(book, Fight(), 3)  # 3 vs Defense 1: 2 damage
    events = do(book, Technique(number=1), 2, 3)  # needs 1: fails; 3 vs Defense 1 - 2
    assert events[0].success is False and events[1].defense == -1 and events[1].damage == 4
    events = do(book, Attack(), 3)
    assert events[1].defense == 1 and events[1].damage == 2
    assert game(book).energy == 10 + 2 - 2  # slept +2 first, then the technique


def test_techniques_must_be_known_and_paid(book: Ledger) -> None:
    walk(book, "n", event=(4, 5))
    do(book, Fight(), 1)
    with pytest.raises(RuleError, match=r"technique 3 \(jump and attack\) is not known"):
        do(book, Technique(number=3), 1, 1)


def test_day_25_brings_god_and_hiding_skips_meal_and_sleep(book: Ledger) -> None:
    walk(book, "n", event=(4, 4))  # town 1
    do(book, Eat(food="tavern"))
    do(book, Sleep(where="town"))
    do(book, Move(direction="ne"))
    do(book, Terrain(), 2)  # another terrain's table: 8 is not a repeat there
    do(book, Explore(), 4, 4)
    assert game(book).towns == 2
    do(book, Sleep(where="town"))
    for day in range(3, 25):
        walk(book, "sw" if day % 2 else "ne")
        do(book, Eat(food="tavern"))
        do(book, Sleep(where="town"))
    assert game(book).chapters == (1, 2)
    do(book, Move(direction="sw"))
    events = do(book, Explore())
    assert game(book).day == 25 and isinstance(events[-1], ev.EnemyMet) and events[-1].foe.god
    assert SYSTEM.read.sheet(book.state("run"), None)["expected"] == ["crawl fight", "crawl hide"]
    with pytest.raises(OutOfOrderError):
        do(book, Eat(food="tavern"))
    events = do(book, Hide())
    assert [type(e) for e in events] == [ev.Hid, ev.Starved, ev.DayEnded]
    assert events[1].loss == 2 and events[2].how == "hid"
    g = game(book)
    assert g.hunger_streak == 1 and g.phase == "dawn" and g.meals == 0
    assert views.calendar(book.state("run"))["next"]["day"] == 40


def test_death_at_health_0_ends_the_campaign(book: Ledger) -> None:
    walk(book, "n", event=(1, 2))
    do(book, Fight(), 6)  # 6 vs Defense 1: Health 5
    events = do(book, Attack(weapon="hands"), 6)  # 1 damage to the rat; 5 back
    assert isinstance(events[-1], ev.Died)
    g = game(book)
    assert not g.alive and g.cause == "killed by rat"
    with pytest.raises(GameOverError, match="the explorer died on day 1"):
        do(book, Attack())
    assert SYSTEM.read.sheet(book.state("run"), None)["alive"] is False


def test_undoing_a_day_removes_it_from_sheet_map_and_journal(book: Ledger) -> None:
    walk(book, "n", event=(3, 4))
    do(book, Eat(food="bar"))
    do(book, Sleep(where="wild"))
    before = book.state("run")
    walk(book, "ne", event=(3, 4))
    do(book, Eat(food="bar"))
    do(book, Sleep(where="wild"))
    assert len(views.map_entries(book.state("run"))) == 3
    book.undo("run", count=5)
    after = book.state("run")
    assert SYSTEM.read.sheet(after, None) == SYSTEM.read.sheet(before, None)
    assert views.map_entries(after) == views.map_entries(before)
    assert views.journal(after) == views.journal(before) and len(views.journal(after)) == 1


def test_a_fork_on_day_10_leaves_the_parent_map_untouched(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "f.ledger")) as book:
        book.new_campaign("crawl", "main", seed=12)
        SYSTEM.play.autoplay(book, "main", 12)
        parent_map = views.map_entries(book.state("main"))
        assert book.state("main").game.day >= 10
        book.fork("main", "other", day=10)
        child = book.state("other").game
        assert child.day == 10 and child.phase == "dawn"
        parent_next = next(
            e.event
            for e in book.effective(book.campaign("main"))
            if isinstance(e.event, ev.Moved) and e.event.day == 11
        )
        other = next(
            d
            for d in DIRECTIONS
            if d != parent_next.direction
            and (h := child.hexes.get(key(*neighbour(child.q, child.r, d)))) is None
        )
        book.execute(Move(direction=other), "other")
        assert views.map_entries(book.state("main")) == parent_map
        assert views.map_entries(book.state("other")) != parent_map
        assert h is None


def test_autoplay_plays_whole_days_by_the_rules(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "a.ledger")) as book:
        book.new_campaign("crawl", "auto", seed=3)
        played = SYSTEM.play.autoplay(book, "auto", 20)
        g = book.state("auto").game
        assert played == g.day == 20 and g.phase == "dawn"
        assert len(views.journal(book.state("auto"))) >= 20
        facts = [f for env in book.effective(book.campaign("auto")) for f in SYSTEM.read.facts(env)]
        tables = {type(f).table for f in facts}
        assert {"rolls", "meals", "nights", "days"} <= tables
        assert all(0 <= f.p_success <= 1 for f in facts if getattr(f, "p_success", None) is not None)


def test_time_travel_by_day(book: Ledger) -> None:
    for direction in ("n", "n", "n"):
        walk(book, direction, event=(3, 4))
        do(book, Eat(food="bar"))
        do(book, Sleep(where="wild"))
    day1 = book.state("run", day=1)
    assert day1.game.day == 1 and len(views.map_entries(day1)) == 2
    assert views.calendar(day1)["next"] == {
        "day": 3,
        "chapter": 1,
        "name": "chapter 1",
        "open": False,
        "in_days": 2,
    }


def test_tables_are_validated_with_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    write_tables(bad, rows={3: '{ text = "a ghost", enemy = "ghost" }'})
    with pytest.raises(TableError, match=r"\[events\.default\.3\.enemy\] names enemy 'ghost'") as ghost:
        SYSTEM.rules.load_tables(str(bad))  # type: ignore[misc]
    with pytest.raises(TableError, match="does not exist"):
        SYSTEM.rules.load_tables(str(tmp_path / "missing.toml"))  # type: ignore[misc]
    assert ghost.value.fix is not None and ghost.value.fix.table == "events.default"
    write_tables(bad, settings='repeat = "maybe"')
    with pytest.raises(
        TableError, match=r"settings\.repeat: invalid enum value 'maybe'; use any of shift, pass;"
    ):
        SYSTEM.rules.load_tables(str(bad))  # type: ignore[misc]
    tables, source = SYSTEM.rules.load_tables(None)  # type: ignore[misc]
    assert source == "sample" and tables["sample"] is True


def test_a_repeated_event_result_shifts_or_passes(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "r.ledger")) as book:
        path = write_tables(tmp_path / "r.toml", settings='repeat = "shift"')
        book.new_campaign("crawl", "run", tables=path)
        walk(book, "n", event=(3, 4))  # 7: a ration
        do(book, Eat(food="bar"))
        do(book, Sleep(where="wild"))
        do(book, Move(direction="n"))
        do(book, Terrain(), 1)
        events = book.execute(Explore(repeat="pass"), "run", faces=[3, 4]).events
        assert events[0].repeated and events[0].choice == "pass" and events[0].row is None
        assert game(book).bar == 3
        book.undo("run")
        events = do(book, Explore(), 4, 3)  # 7 again, odd: the row above (6)
        assert events[0].repeated and events[0].choice == "shift" and events[0].row == 6
        assert events[0].text == "nothing 6"


def test_a_town_trades_then_quests_then_feeds_and_one_quest_ever(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "q.ledger")) as book:
        book.new_campaign("crawl", "run", tables=write_tables(tmp_path / "q.toml"))
        walk(book, "n", event=(4, 4))  # town 1
        assert SYSTEM.read.sheet(book.state("run"), None)["expected"][:2] == ["crawl buy bar", "crawl quest"]
        events = do(book, Buy(item="bar"))
        assert isinstance(events[0], ev.Bought) and game(book).bits == 98 and game(book).bar == 4
        do(book, Quest(), 2)
        with pytest.raises(OutOfOrderError, match="a town's order is trade, quest, eat, sleep"):
            do(book, Buy(item="bar"))
        do(book, Eat(food="tavern"))
        do(book, Sleep(where="town"))
        walk(book, "s")
        do(book, Eat(food="bar"))
        do(book, Sleep(where="wild"))
        do(book, Move(direction="n"))  # day 3: the chapter's event comes first, even in town
        do(book, Explore(), 2)
        with pytest.raises(OutOfOrderError, match="one quest per town; this town's is done"):
            do(book, Quest(), 2)


def test_a_win_can_be_looted_once(book: Ledger) -> None:
    walk(book, "n", event=(1, 2))
    do(book, Fight(), 1)
    do(book, Attack(), 1)
    events = do(book, Attack())
    assert isinstance(events[-1], ev.EnemyDefeated)
    looted = do(book, Loot(), 3)
    assert looted[0].table == "rewards" and looted[0].row == 3
    with pytest.raises(OutOfOrderError, match="loot right after a win, once"):
        do(book, Loot(), 3)


def test_sprint_lowers_esc_and_the_grenade_stuns_robots(book: Ledger) -> None:
    state = _combat_state(book, 0)
    g = replace(state.game, techniques={5: 0}, inventory=("knife", "solar taser"))
    sprint = SYSTEM.rules.decide(replace(state, game=g), Technique(number=5), Faces([1]))
    assert sprint[0].dice == () and sprint[0].energy == 18
    after = fold.evolve(g, sprint[0], None)  # type: ignore[arg-type]
    escape = SYSTEM.rules.decide(replace(state, game=after), Escape(), Faces([2]))  # ESC 3 - 2
    assert escape[0].esc == 1 and escape[0].success and escape[0].p_success == pytest.approx(5 / 6)
    assert isinstance(escape[1], ev.Escaped) and escape[1].energy == 16
    with pytest.raises(RuleError, match=r"technique 4 .* is not known"):
        SYSTEM.rules.decide(replace(state, game=g), Technique(number=4), Faces([1, 1]))
    robot = replace(g.fight, foe=replace(g.fight.foe, robot=True))
    g4 = replace(g, techniques={4: 0, 5: 0}, fight=robot)
    grenade = SYSTEM.rules.decide(replace(state, game=g4), Technique(number=4), Faces([1, 4]))
    assert grenade[0].success and grenade[0].stun == 3 and grenade[1].stunned


def test_an_empty_hex_revisited_rolls_1d6_odd_meets_its_encounter(book: Ledger) -> None:
    walk(book, "n")
    do(book, Sleep(where="wild"))
    walk(book, "s")  # the start hex: terrain now, then a revisit roll
    assert game(book).here.terrain == "plain"
    do(book, Sleep(where="wild"))
    do(book, Move(direction="n"))  # day 3 is the Sleepers' day
    do(book, Explore(), 2)
    do(book, Eat(food="bar"))
    do(book, Sleep(where="wild"))
    do(book, Move(direction="s"))
    events = do(book, Explore(), 3)
    assert events[0].table == "revisit" and isinstance(events[1], ev.EnemyMet)
    assert events[1].foe.name == "rat"


def test_a_treasure_icon_marks_the_neighbour_and_pays_when_reached(tmp_path: Path) -> None:
    rows = {**QUIET_ROWS, 10: '{ text = "a map", treasure = "n" }', 11: '{ text = "a sigil", divine = 4 }'}
    with Ledger(str(tmp_path / "i.ledger")) as book:
        book.new_campaign("crawl", "run", tables=write_tables(tmp_path / "i.toml", rows=rows))
        walk(book, "n", event=(5, 5))
        assert game(book).hexes[key(0, -2)].icon == "treasure"
        do(book, Sleep(where="wild"))
        walk(book, "n", event=(6,))  # the treasure: 1d6 on the rewards table
        assert game(book).here.icon == "" and game(book).seen["treasure"] == (6,)
        do(book, Sleep(where="wild"))
        walk(book, "ne", event=(2,))  # day 3: the Sleepers
        do(book, Sleep(where="wild"))
        walk(book, "se", event=(5, 6))  # a sigil of the closed chapter 4
        assert game(book).here.icon == "divine" and game(book).here.number == 4
        do(book, Sleep(where="wild"))
        for direction, face in (("nw", 2), ("se", 3)):  # back on the sigil: 1d6, odd plays that row
            walk(book, direction, quiet=(face,))
            do(book, Eat(food="bar"))
            do(book, Sleep(where="wild"))
        rows = [e for e in views.journal(book.state("run")) if e["day"] == 6]
        assert "nothing 3" in rows[0]["text"]
        closed = [
            e.event for e in book.effective(book.campaign("run")) if e.event.kind == "crawl.table_rolled"
        ]
        assert (closed[-1].table, closed[-1].row) == ("chapter.4", 3)


def test_charged_arrows_add_to_every_bow_shot(book: Ledger) -> None:
    state = _combat_state(book, 0)
    g = replace(state.game, techniques={6: 0}, arrows=2, inventory=("reinforced bow", "solar taser"))
    tables = {
        **state.core.tables,
        "items": {**state.core.tables["items"], "reinforced bow": {"attack": 4, "bow": True, "defense": 0}},
    }
    state = replace(state, core=replace(state.core, tables=tables), game=g)
    charged = SYSTEM.rules.decide(state, Technique(number=6), Faces([1]))
    g = fold.evolve(g, charged[0], None)  # type: ignore[arg-type]
    shot = SYSTEM.rules.decide(replace(state, game=g), Attack(), Faces([1]))
    assert shot[0].weapon == "reinforced bow" and shot[0].attack == 1 + 4 + 2 and shot[0].arrows_spent == 1
    bare = replace(g, inventory=("reinforced bow",))
    with pytest.raises(RuleError, match="needs solar taser"):
        SYSTEM.rules.decide(
            replace(state, game=replace(bare, fight=FightState(foe=g.fight.foe))),
            Technique(number=6),
            Faces([1]),
        )


def test_facts_feed_the_warehouse(book: Ledger) -> None:
    walk(book, "n", event=(1, 2))
    do(book, Fight(), 6)
    do(book, Attack(weapon="hands"), 6)
    facts = [f for env in book.effective(book.campaign("run")) for f in SYSTEM.read.facts(env)]
    enemy = [f for f in facts if getattr(f, "purpose", "") == "enemy attack"]
    # The rat's roll is the rat's (ruling 20): it hits on 5 of 6 faces, and both rolls hit.
    assert [f.p_success for f in enemy] == [pytest.approx(5 / 6)] * 2
    assert [f.success for f in enemy] == [True, True]
    assert [(f.character, f.opponent, f.manual) for f in enemy] == [("rat", True, True)] * 2
    wounds = [(f.track, f.amount, f.cause) for f in facts if type(f).table == "wounds"]
    assert wounds == [("health", 5, "rat"), ("health", 5, "rat")]
    assert [f.cause for f in facts if type(f).table == "deaths"] == ["killed by rat"]


# --- divine chapters leave their icon; the hunger tally is the Health lost --------------


def test_day_3_leaves_the_sleepers_sign_and_a_return_with_an_even_roll_plays_its_row(
    book: Ledger,
) -> None:
    walk(book, "n")
    do(book, Sleep(where="wild"))
    walk(book, "ne")
    do(book, Sleep(where="wild"))
    do(book, Move(direction="ne"))  # day 3, a blank hex: the Sleepers
    do(book, Terrain(), 1)
    events = do(book, Explore(), 4)
    assert events[0] == ev.IconPlaced(q=2, r=-3, icon="divine", number=1)
    assert (events[1].table, events[1].row) == ("chapter.1", 4)
    do(book, Eat(food="bar"))
    do(book, Sleep(where="wild"))
    walk(book, "sw", quiet=(2,))  # away (a revisit: even, nothing)
    do(book, Eat(food="bar"))
    do(book, Sleep(where="wild"))
    do(book, Move(direction="ne"))  # back on the sign of the open chapter
    events = do(book, Explore(), 2)
    rolled = [e for e in events if isinstance(e, ev.TableRolled)]
    assert [(e.table, e.row, e.text) for e in rolled] == [("chapter.1", 2, "nothing 2")]
    assert not any(isinstance(e, ev.IconPlaced) for e in events)  # the sign stays as it was
    sign = [e for e in views.map_entries(book.state("run")) if (e["q"], e["r"]) == (2, -3)]
    assert [(e["icon"], e["number"], e["chapter"]) for e in sign] == [("divine", 1, "chapter 1")]


def test_a_chapter_day_on_a_hex_with_an_icon_keeps_that_icon(book: Ledger) -> None:
    walk(book, "n", event=(4, 4))  # town 1
    do(book, Sleep(where="town"))
    walk(book, "s")
    do(book, Sleep(where="wild"))
    do(book, Move(direction="n"))  # day 3 in town 1
    events = do(book, Explore(), 2)
    assert not any(isinstance(e, ev.IconPlaced) for e in events)
    here = game(book).here
    assert (here.icon, here.number) == ("town", 1)


def test_the_map_draws_the_signs_and_names_their_chapters(book: Ledger) -> None:
    walk(book, "n")
    do(book, Sleep(where="wild"))
    walk(book, "n")
    do(book, Sleep(where="wild"))
    walk(book, "n", quiet=(2,))  # day 3: the Sleepers' sign on (0,-3)
    text = views.render_map(book.state("run"))
    assert "@p+1" in text.splitlines()[0]
    assert "divine signs: +1 chapter 1" in text.splitlines()


def test_a_return_to_gods_icon_meets_god_again(book: Ledger) -> None:
    state = book.state("run")
    god_hex = Hex(terrain="plain", icon="god", visits=2)
    g = replace(state.game, day=30, phase="event", chapters=(1, 2, 3), hexes={key(0, 0): god_hex})
    events = SYSTEM.rules.decide(replace(state, game=g), Explore(), Faces([]))
    assert [type(e) for e in events] == [ev.EnemyMet] and events[0].foe.god


def test_the_hunger_that_kills_records_the_health_there_was_and_the_streaks_cost(book: Ledger) -> None:
    healths = []
    for day in range(1, 7):  # six days without a meal: 2, 3, 4, 5, 6, then 7 asked of 5
        walk(book, "n" if day % 2 else "s")
        healths.append(game(book).health)
        events = do(book, Sleep(where="wild"))
    starved = events[0]
    assert healths[-1] == 5 and (starved.streak, starved.loss, starved.cost, starved.health) == (6, 5, 7, 0)
    assert isinstance(events[1], ev.Died) and "Health -5 (the streak asked 7)" in starved.summary()
    lost = [e.event.loss for e in book.effective(book.campaign("run")) if isinstance(e.event, ev.Starved)]
    assert lost == [2, 3, 4, 5, 6, 5]
    assert views.hunger(book.state("run"))["lost"] == sum(lost) == 25
    facts = [f for env in book.effective(book.campaign("run")) for f in SYSTEM.read.facts(env)]
    assert sum(f.amount for f in facts if type(f).table == "wounds" and f.cause == "hunger") == 25


def test_an_escape_with_less_health_than_its_hunger_loses_what_there_was(book: Ledger) -> None:
    walk(book, "n", event=(1, 2))  # a rat
    do(book, Fight(), 6)  # 6 vs Defense 1: Health 5
    do(book, Attack(), 5)  # the rat: 5 - 1, Health 1
    events = do(book, Escape(), 3)
    assert [type(e) for e in events] == [ev.EscapeRolled, ev.Escaped, ev.Starved, ev.Died]
    assert (events[1].health_cost, events[1].health) == (1, 0)
    assert (events[2].loss, events[2].cost, events[2].health) == (1, 2, 0)
    assert views.hunger(book.state("run"))["lost"] == 1


def test_an_older_starved_event_reads_as_the_health_there_was(book: Ledger) -> None:
    """Recorded before ``cost``, ``loss`` held the streak's cost even on the day it killed."""
    old = msgspec.json.decode(b'{"kind":"crawl.starved","streak":6,"loss":7,"health":0}', type=ev.Starved)
    assert old.cost is None
    g = replace(game(book), health=5, hunger_lost=20)
    assert fold.hunger_loss(g, old) == 5 and _fold(g, old).hunger_lost == 25
    # An older escape with Health 1: both events said 2, the fold reads the 1 there was.
    rat = ev.Foe(name="rat", health=2, max_health=5)
    fled = _fold(
        replace(g, health=1),
        ev.Escaped(foe=rat, q=0, r=0, energy_cost=2, health_cost=2, energy=8, health=0),
    )
    assert _fold(fled, ev.Starved(streak=1, loss=2, health=0)).hunger_lost == 21
    # A day that did not kill lost what it recorded.
    assert _fold(replace(g, health=9), ev.Starved(streak=3, loss=4, health=5)).hunger_lost == 24


def _fold(g: Crawl, event: Any) -> Crawl:
    folded = fold.evolve(g, event, None)  # type: ignore[arg-type]
    assert folded is not None
    return folded
