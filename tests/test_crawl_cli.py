"""``ledger crawl ...`` through the command line, the 3d6 terrain variant and the sample campaign."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.crawl import demo
from ledger.cli.main import cli
from ledger.errors import RuleError
from ledger.projections.crawl import views
from ledger.projections.crawl.game import Crawl
from ledger.systems.crawl import events as ev
from ledger.systems.crawl.order import Explore, Move, Sleep, Terrain
from ledger.systems.crawl.system import SYSTEM
from tests.test_crawl import write_tables

SAMPLE = Path(__file__).parents[1] / "samples" / "crawl" / "campaign.jsonl"


@pytest.fixture
def run(tmp_path: Path) -> Any:
    runner = CliRunner()
    db = str(tmp_path / "cli.ledger")

    def invoke(*args: str) -> Any:
        return runner.invoke(cli, ["--db", db, *args])

    return invoke


def test_a_day_on_the_command_line(run: Any, tmp_path: Path) -> None:
    tables = write_tables(tmp_path / "t.toml")
    assert run("new", "crawl", "trip", "--tables", tables).exit_code == 0
    moved = run("crawl", "move", "n")
    assert moved.exit_code == 0 and "next: crawl terrain" in moved.output
    out = run("crawl", "event", "--faces", "3,4")
    assert out.exit_code == 1
    assert out.output.strip() == ("error: event is out of the day's order: expected terrain on day 1")
    terrain = run("crawl", "terrain", "--faces", "2", "--json")
    assert json.loads(terrain.output)["events"][0]["terrain"] == "wood"
    assert "a ration: bar +1" in run("crawl", "event", "--faces", "3,4").output
    assert run("note", "the woods are quiet").exit_code == 0
    assert "Health +2" in run("crawl", "eat", "bar").output
    slept = run("crawl", "sleep", "wild", "--json")
    assert json.loads(slept.output)["expected"] == ["crawl move DIR"]
    sheet = json.loads(run("sheet", "--json").output)
    for key in (
        "health",
        "energy",
        "attack",
        "defense",
        "food",
        "bits",
        "day",
        "alive",
        "hunger_streak",
        "techniques",
        "inventory",
    ):
        assert key in sheet
    assert (sheet["health"], sheet["energy"], sheet["food"], sheet["day"]) == (
        15,
        13,
        {"bar": 3, "fruit": 0},
        1,
    )
    journal = run("journal").output
    assert "day 1  walked n; wood; a ration; ate bar; slept wild" in journal
    assert "note: the woods are quiet" in journal


def test_bad_input_is_one_line_and_records_nothing(run: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("sample = true\n[terrain]\n1 = 'x'\n")
    out = run("new", "crawl", "bad", "--tables", str(bad))
    assert (
        out.exit_code == 1
        and out.output.count("\n") == 1
        and "terrain: missing key `2`; fix the [terrain] table" in out.output
    )
    assert "bad" not in run("campaigns").output
    run("new", "crawl", "trip")
    out = run("crawl", "terrain", "--faces", "7")
    assert out.exit_code == 1 and out.output.startswith("error: terrain is out of the day's order")
    run("crawl", "move", "s")
    out = run("crawl", "terrain", "--faces", "7")
    assert out.exit_code == 1 and "face 7 (position 1) is not on a d6" in out.output
    assert json.loads(run("sheet", "--json").output)["phase"] == "terrain"


def test_map_hunger_and_calendar_with_time_travel(run: Any) -> None:
    run("new", "crawl", "trip", "--seed", "5")
    assert "played 4 days" in run("crawl", "autoplay", "--days", "4").output
    entries = json.loads(run("crawl", "map", "--json").output)
    assert sum(e["here"] for e in entries) == 1 and all(
        {"q", "r", "terrain", "icon"} <= set(e) for e in entries
    )
    assert len({(e["q"], e["r"]) for e in entries}) == len(entries)
    day2 = json.loads(run("crawl", "map", "--json", "--day", "2").output)
    assert len(day2) < len(entries) or sum(e["visits"] for e in day2) < sum(e["visits"] for e in entries)
    text = run("crawl", "map").output
    assert "@" in text and "walked" in text
    assert len(run("crawl", "map", "--radius", "0").output.splitlines()) == 4  # you, a blank, the legend
    cal = json.loads(run("crawl", "calendar", "--json", "--day", "2").output)
    assert cal["day"] == 2 and cal["next"]["day"] == 3 and cal["next"]["name"] == "the Sleepers"
    assert "chapter 1  the Sleepers" in run("crawl", "calendar").output
    hunger = json.loads(run("crawl", "hunger", "--json", "--day", "1").output)
    assert set(hunger) == {"day", "streak", "longest", "lost", "meals_today"} and hunger["day"] == 1


def test_tables_command_checks_a_file(run: Any, tmp_path: Path) -> None:
    out = run("crawl", "tables")
    assert out.exit_code == 0 and "(sample content)" in out.output
    path = write_tables(tmp_path / "mine.toml", settings='terrain = "3d6"')
    data = json.loads(run("crawl", "tables", path, "--json").output)
    assert data["settings"]["terrain"] == "3d6" and data["sample"] is False


def test_a_setting_given_at_the_start_rules_the_campaign(run: Any, tmp_path: Path) -> None:
    """--setting wins over the tables' [settings]: the 3d6 terrain variant, chosen on the
    command line over the sample tables' 1d6, is what the campaign lists and rolls."""
    assert run("new", "crawl", "trip", "--setting", "terrain=3d6").exit_code == 0
    assert "this campaign rolls 3d6" in run("tables", "terrain").output
    run("crawl", "move", "n")
    rolled = run("crawl", "terrain", "--faces", "2,5,6", "--json")
    assert rolled.exit_code == 0, rolled.output


@pytest.mark.parametrize(
    ("system", "setting", "why"),
    [
        ("freeform", "repeat=pass", "the freeform system takes no settings; drop --setting"),
        ("crawl", "bogus=1", "the crawl system has no setting 'bogus'; its settings are terrain, repeat"),
        (
            "crawl",
            "repeat=maybe",
            "the setting repeat='maybe' is refused: invalid enum value 'maybe'; use any of",
        ),
    ],
)
def test_a_setting_the_system_does_not_take_is_refused_at_the_start(
    run: Any, system: str, setting: str, why: str
) -> None:
    result = run("new", system, "trip", "--setting", setting)
    assert result.exit_code == 1 and why in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "trip" not in run("campaigns").output  # nothing recorded


def test_every_crawl_command_has_help(run: Any) -> None:
    from ledger.cli.crawl import group

    for name, command in group.commands.items():
        assert command.help, name
        assert run("crawl", name, "--help").exit_code == 0


def test_the_3d6_terrain_variant_lets_neighbour_pairs_set_a_die(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "v.ledger")) as book:
        book.new_campaign(
            "crawl", "run", tables=write_tables(tmp_path / "v.toml", settings='terrain = "3d6"')
        )
        for direction in ("n", "ne"):
            book.execute(Move(direction=direction), "run")
            book.execute(Terrain(), "run", faces=[1, 1, 1])
            book.execute(Explore(), "run", faces=[3, 4] if direction == "n" else [1, 1])
            book.execute(Sleep(where="wild"), "run")
        book.execute(Move(direction="s"), "run")  # (1,-1) touches both plains
        rolled = book.execute(Terrain(), "run", faces=[4, 5, 6]).events[0]
        assert rolled.options == ("bog", "scrap", "peak", "plain") and rolled.terrain == "plain"
        book.undo("run")
        assert book.execute(Terrain(choose="peak"), "run", faces=[4, 5, 6]).events[0].terrain == "peak"
        book.undo("run")
        with pytest.raises(RuleError, match="terrain 'wood' is not on the dice nor set by a neighbour pair"):
            book.execute(Terrain(choose="wood"), "run", faces=[4, 5, 6])


def test_the_sample_campaign_is_a_complete_golden_log(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "s.ledger")) as book, SAMPLE.open("rb") as f:
        camp = book.import_(f)
        book.verify(camp.name)
        state = book.state(camp.name)
        g: Crawl = state.game
        events = [e.event for e in book.effective(camp)]
        assert g.alive and g.day >= 60 and g.chapters == (1, 2, 3, 4, 5) and g.towns >= 2
        assert any(e.kind == "branch.forked" for e in events)
        assert any(isinstance(e, ev.Escaped) for e in events)
        assert any(isinstance(e, ev.EnemyDefeated) for e in events)
        assert g.longest_streak >= 2
        hid = [e.day for e in book.effective(camp) if isinstance(e.event, ev.Hid)]
        assert hid == [25]
        assert len([row for row in views.journal(state) if not row["text"].startswith("note")]) == g.day
        assert SYSTEM.read.sheet(state, None)["explorer"] == "Nadia"


def test_the_demo_imports_the_sample_once_and_stays_short(tmp_path: Path) -> None:
    lines: list[str] = []
    with Ledger(str(tmp_path / "d.ledger")) as book:
        demo(book, lines.append)
        demo(book, lines.append)
        assert [c.name for c in book.campaigns()] == ["crawl-sample"]
    shown = "\n".join(lines[: len(lines) // 2]).splitlines()
    assert len(shown) < 60 and "Nadia in crawl-sample" in shown[1]


def test_hungry_days_on_the_command_line(run: Any, tmp_path: Path) -> None:
    run("new", "crawl", "trip", "--tables", write_tables(tmp_path / "t.toml"))
    # day 1 a new hex (2d6); day 2 the start hex again (terrain, then 1d6); day 3 the Sleepers (1d6)
    for direction, terrain, event in (("n", True, "2,4"), ("s", True, "2"), ("n", False, "2")):
        assert run("crawl", "move", direction).exit_code == 0
        if terrain:
            assert run("crawl", "terrain", "--faces", "1").exit_code == 0
        assert run("crawl", "event", "--faces", event).exit_code == 0
        assert "no meal" in run("crawl", "sleep", "wild").output
    hunger = json.loads(run("crawl", "hunger", "--json").output)
    assert (hunger["streak"], hunger["longest"], hunger["lost"]) == (3, 3, 2 + 3 + 4)
    assert json.loads(run("crawl", "hunger", "--json", "--day", "1").output)["lost"] == 2


def test_the_map_shows_the_sign_of_day_3(run: Any, tmp_path: Path) -> None:
    run("new", "crawl", "trip", "--tables", write_tables(tmp_path / "t.toml"))
    # day 1 a new hex (2d6); day 2 the start hex again (1d6); day 3 a new hex: the Sleepers (1d6)
    for direction, event in (("n", "2,4"), ("s", "2"), ("ne", "4")):
        assert run("crawl", "move", direction).exit_code == 0
        assert run("crawl", "terrain", "--faces", "1").exit_code == 0
        assert run("crawl", "event", "--faces", event).exit_code == 0
        assert run("crawl", "sleep", "wild").exit_code == 0
    entries = json.loads(run("crawl", "map", "--json").output)
    signs = [(e["q"], e["r"], e["icon"], e["number"], e["chapter"]) for e in entries if e["icon"]]
    assert signs == [(1, -1, "divine", 1, "chapter 1")]
    text = run("crawl", "map").output.splitlines()
    assert any(".p+1" in line or "@p+1" in line for line in text)
    assert "divine signs: +1 chapter 1" in text
