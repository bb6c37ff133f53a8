"""Statistics that mean what they say: physical dice marked in every system, simulated
campaigns apart, damage to Health only, an enemy's roll the enemy's luck, the same bytes
from the same seed, and a replacing die's ``reroll_of``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from ledger import Ledger
from ledger.facts import rolled_fact
from ledger.projections.crawl.fold import blow_loss
from ledger.projections.crawl.game import Crawl
from ledger.projections.stats.reports import Scope, _luck_row, report
from ledger.projections.stats.sheet import luck_from_log
from ledger.projections.warehouse.loading import Warehouse
from ledger.systems.crawl import events as ev
from ledger.systems.crawl.order import Attack, Explore, Fight, Move, Terrain
from ledger.systems.yearzero import commands as yz
from tests.conftest import Session
from tests.helpers_facts import assert_same_facts
from tests.test_crawl import write_tables


def _warehouse_rows(book: Ledger, sql: str) -> list[tuple[Any, ...]]:
    wh = Warehouse(book)
    wh.catch_up()
    con = wh.connect_read_only()
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "crawl" / "campaign.jsonl"


def _crawl(book: Ledger, tmp_path: Path, name: str = "run") -> None:
    book.new_campaign("crawl", name, tables=write_tables(tmp_path / f"{name}.toml"))


FIGHT = (
    (Move(direction="n"), None),
    (Terrain(), [1]),
    (Explore(), [4, 5]),  # a dummy: Health 60, Attack 0
    (Fight(), [6]),  # 6 against Defense 1: 5 damage, Health 5
    (Attack(), [5]),  # 4 damage, Health 1
    (Attack(), [6]),  # a blow of 5 against Health 1: 1 lost, the explorer dies
)


def _fight(book: Ledger, name: str = "run") -> list[Any]:
    events = []
    for command, faces in FIGHT:
        events += book.execute(command, name, faces=faces).events
    return events


# --- physical dice ----------------------------------------------------------------------------


def test_crawl_rolls_typed_with_faces_are_physical_in_the_log_and_the_warehouse(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "c.ledger")) as book:
        _crawl(book, tmp_path)
        events = _fight(book)
        rolling = [e for e in events if isinstance(e, ev.TerrainRolled | ev.TableRolled | ev.EnemyStruck)]
        assert len(rolling) == 5 and all(e.manual for e in rolling)
        assert all(e.summary().endswith("(physical dice)") for e in rolling)
        rolls = _warehouse_rows(book, "SELECT purpose, manual FROM rolls ORDER BY position")
        assert rolls == [
            ("terrain", True),
            ("events.plain", True),
            ("enemy attack", True),
            ("enemy attack", True),
            ("enemy attack", True),
        ]
        assert _warehouse_rows(book, "SELECT count(*), bool_and(manual) FROM dice") == [(6, True)]
        with SAMPLE.open("rb") as f:
            book.import_(f, "sample")  # every other kind of crawl fact, for the SQL twin
        assert assert_same_facts(book, "crawl") > 5


def test_crawl_faces_on_the_command_line_are_physical_dice(tmp_path: Path) -> None:
    session = Session(str(tmp_path / "cli.ledger"))
    session("new", "crawl", "trip", "--tables", write_tables(tmp_path / "t.toml"))
    session("crawl", "move", "n")
    session("crawl", "terrain", "--faces", "4")
    session("crawl", "event", "--faces", "6,6")
    assert session("log").output.count("(physical dice)") == 2
    rows = json.loads(
        session("query", "SELECT purpose, manual FROM rolls ORDER BY position", "--json").output
    )
    assert rows == [{"purpose": "terrain", "manual": True}, {"purpose": "events.bog", "manual": True}]
    [d6] = json.loads(session("stats", "--report", "fairness", "--json").output)["fairness"]
    assert (d6["die"], d6["throws"]) == ("d6", 3)


def test_crawl_rolls_of_random_dice_stay_virtual(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "c.ledger")) as book:
        _crawl(book, tmp_path)
        book.execute(Move(direction="n"), "run")
        [terrain] = book.execute(Terrain(), "run").events
        assert not terrain.manual and "physical" not in terrain.summary()
        assert _warehouse_rows(book, "SELECT count(*) FILTER (WHERE manual) FROM rolls") == [(0,)]


def test_the_fairness_report_sees_crawl_faces(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "c.ledger")) as book:
        _crawl(book, tmp_path)
        _fight(book)
        wh = Warehouse(book)
        wh.catch_up()
        con = wh.connect_read_only()
        try:
            [d6] = report(con, Scope(), ["fairness"])["fairness"]
        finally:
            con.close()
        assert d6["die"] == "d6" and d6["throws"] == 6


def test_an_action_decided_on_physical_dice_marks_rolls_whose_event_has_no_mark(tmp_path: Path) -> None:
    # A Year Zero initiative records no mark of its own; its action's decision does.
    from tests.test_yearzero_conditions import ANA

    with Ledger(str(tmp_path / "yz.ledger")) as book:
        book.new_campaign("yearzero", "zone")
        book.add_character("Ana", "zone", ANA)
        book.execute(yz.Initiative(), "zone", faces=[4])
        book.execute(yz.Initiative(), "zone")
        found = _warehouse_rows(book, "SELECT purpose, manual FROM rolls ORDER BY position")
        assert found == [("initiative", True), ("initiative", False)]
        assert _warehouse_rows(book, "SELECT manual FROM dice ORDER BY roll_id") == [(True,), (False,)]


@pytest.mark.parametrize("batch", [1, 1000])
def test_the_mark_of_an_action_reaches_its_later_events_in_another_page(tmp_path: Path, batch: int) -> None:
    # Damage past Strength 0 rolls a critical injury: the second event of the action.
    from tests.test_yearzero_conditions import ANA

    with Ledger(str(tmp_path / "yz.ledger")) as book:
        book.new_campaign("yearzero", "zone")
        book.add_character("Ana", "zone", ANA)
        events = book.execute(yz.Damage(kind="damage", amount=5, armor=False), "zone", faces=[6, 6]).events
        assert [e.kind for e in events] == ["yz.trauma", "yz.critical", "yz.died"]
        wh = Warehouse(book)
        wh.catch_up(batch=batch)  # one event a page: the decision is in an earlier page than the roll
        con = wh.connect_read_only()
        try:
            found = con.execute(
                "SELECT r.purpose, r.manual, d.manual FROM rolls r JOIN dice d USING (roll_id)"
            )
            assert found.fetchall() == [("critical injury", True, True)] * 2
        finally:
            con.close()


# --- simulated campaigns ----------------------------------------------------------------------


def test_stats_leave_simulated_campaigns_out_unless_asked(tmp_path: Path) -> None:
    session = Session(str(tmp_path / "s.ledger"))
    session("new", "freeform", "table")
    session("roll", "1d20>=11", "--faces", "15")
    session("simulate", "freeform", "--campaigns", "2", "--seed", "3")
    real = json.loads(session("stats", "--json").output)
    assert real["overview"]["campaigns"] == 1 and real["overview"]["rolls"] == 1
    assert [d["throws"] for d in real["fairness"]] == [1]
    assert real["scope"]["simulated_left_out"] == 2
    assert "(2 simulated campaigns left out; --simulated brings them in)" in session("stats").output
    everything = json.loads(session("stats", "--simulated", "--json").output)
    assert everything["overview"]["campaigns"] == 3 and everything["overview"]["rolls"] > 1
    one = json.loads(session("stats", "-c", "sim-freeform-3-00001", "--json").output)
    assert one["overview"]["campaigns"] == 1  # a campaign named is read, simulated or not
    rows = json.loads(
        session("query", "SELECT campaign, simulated FROM campaigns ORDER BY position", "--json").output
    )
    assert rows == [
        {"campaign": "table", "simulated": False},
        {"campaign": "sim-freeform-3-00001", "simulated": True},
        {"campaign": "sim-freeform-3-00002", "simulated": True},
    ]


def test_a_fork_of_a_simulated_campaign_is_simulated(tmp_path: Path) -> None:
    session = Session(str(tmp_path / "s.ledger"))
    session("simulate", "freeform", "--campaigns", "1", "--seed", "3")
    session("-c", "sim-freeform-3-00001", "fork", "branch")
    rows = json.loads(session("query", "SELECT campaign, simulated FROM campaigns", "--json").output)
    assert {r["campaign"]: r["simulated"] for r in rows} == {"sim-freeform-3-00001": True, "branch": True}


# --- damage and luck ----------------------------------------------------------------------------


def test_damage_counts_health_not_energy(tmp_path: Path) -> None:
    session = Session(str(tmp_path / "s.ledger"))
    session("simulate", "crawl", "--campaigns", "6", "--seed", "7")
    energy = session(
        "query", "SELECT count(*) AS n FROM wounds WHERE track = 'energy' AND amount > 0", "--json"
    ).output
    assert json.loads(energy)[0]["n"] > 0  # the crawl loses Energy, and it is no damage
    health = json.loads(
        session(
            "query",
            "SELECT sum(amount) AS taken FROM wounds WHERE NOT undone AND track = 'health' "
            "AND amount > 0 AND day IS NOT NULL",
            "--json",
        ).output
    )[0]["taken"]
    data = json.loads(session("stats", "--simulated", "--json").output)
    assert sum(r["taken"] for r in data["damage"]) == health
    by_cause = json.loads(
        session(
            "query",
            "SELECT cause, count(*) AS wounds, sum(amount) AS taken FROM wounds WHERE NOT undone "
            "AND track = 'health' AND amount > 0 GROUP BY cause ORDER BY taken DESC, cause LIMIT 10",
            "--json",
        ).output
    )
    assert data["damage_causes"] == by_cause


def test_an_enemys_attack_is_no_part_of_the_explorers_luck(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "c.ledger")) as book:
        _crawl(book, tmp_path)
        book.execute(Move(direction="n"), "run")
        book.execute(Terrain(), "run", faces=[1])
        book.execute(Explore(), "run", faces=[4, 5])
        book.execute(Fight(), "run", faces=[1])  # a miss: the dummy's bad luck, not the explorer's good
        book.execute(Attack(), "run", faces=[1])
        assert luck_from_log(book, "run")["judged"] == 0
        from ledger.projections import report as html_report

        assert html_report.build(book, "run")["rolls"]["points"] == []  # nor in the report's chart
        wh = Warehouse(book)
        wh.catch_up()
        con = wh.connect_read_only()
        try:
            data = report(con, Scope(), ["luck", "rolls"])
        finally:
            con.close()
        assert data["luck"]["overall"]["judged"] == 0 and data["luck"]["characters"] == []
        [enemy] = [r for r in data["rolls"] if r["purpose"] == "enemy attack"]
        # The enemies' own luck: 2 misses where they hit on 5 of 6 faces.
        assert (enemy["judged"], enemy["successes"], enemy["expected"]) == (2, 0, pytest.approx(1.67))


# --- the same seed, the same bytes ---------------------------------------------------------------


def test_a_luck_of_zero_is_never_negative_zero() -> None:
    row = _luck_row({"judged": 100, "wins": 50, "expected": 50.0001, "variance": 25.0})
    assert json.dumps(row["luck"]) == "0.0"
    assert (
        json.dumps(_luck_row({"judged": 1, "wins": 0, "expected": 0.00001, "variance": 1.0})["luck"]) == "0.0"
    )


def test_the_same_seed_gives_the_same_stats_bytes(tmp_path: Path) -> None:
    outputs = []
    for name in ("a", "b"):
        session = Session(str(tmp_path / f"{name}.ledger"))
        session("simulate", "crawl", "--campaigns", "12", "--seed", "7")
        outputs.append(session("stats", "--simulated", "--json").output)
    assert outputs[0] == outputs[1]
    assert "-0.0," not in outputs[0] and "-0.0}" not in outputs[0]


# --- reroll_of ------------------------------------------------------------------------------------


def test_a_die_rolled_to_replace_a_reroll_names_the_die_it_replaces(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "r.ledger")) as book:
        book.new_campaign("freeform", "c")
        book.roll("2d6ro1", "c", faces=[4, 1, 5])
        [roll] = [e.event for e in book.effective(book.campaign("c")) if e.event.kind == "dice.rolled"]
        dice = rolled_fact(roll).dice
        assert [(d.face, d.kept, d.reroll_of) for d in dice] == [
            (4, True, None),
            (1, False, None),
            (5, True, 1),
        ]
        found = _warehouse_rows(book, "SELECT face, kept, reroll_of FROM dice ORDER BY idx")
        assert found == [(4, True, None), (1, False, None), (5, True, 1)]


# --- a blow takes at most the Health there was -------------------------------------------------


def test_a_blow_larger_than_the_health_left_wounds_by_the_health_lost(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "c.ledger")) as book:
        _crawl(book, tmp_path)
        events = _fight(book)
        blows = [e for e in events if isinstance(e, ev.EnemyStruck)]
        assert [(b.damage, b.lost, b.health) for b in blows] == [(5, 5, 5), (4, 4, 1), (5, 1, 0)]
        wounds = _warehouse_rows(
            book, "SELECT amount FROM wounds WHERE track = 'health' AND cause = 'dummy' ORDER BY position"
        )
        assert wounds == [(5,), (4,), (1,)]
        with SAMPLE.open("rb") as f:
            book.import_(f, "sample")
        assert assert_same_facts(book, "crawl", defaults_left_out=True) > 5


def test_an_old_blow_without_its_loss_is_read_as_at_most_the_health_there_was() -> None:
    old = ev.EnemyStruck(foe="dummy", face=6, attack=6, defense=1, damage=5, health=0)
    data = msgspec.json.decode(msgspec.json.encode(old))
    assert "lost" in data and data["lost"] is None  # the field is new, with a default
    g = Crawl()
    assert blow_loss(msgspec.structs.replace(g, health=1), old) == 1
    assert blow_loss(msgspec.structs.replace(g, health=9), old) == 5
    assert blow_loss(msgspec.structs.replace(g, health=1), msgspec.structs.replace(old, lost=1)) == 1
