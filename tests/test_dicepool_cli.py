"""The dicepool system through the ``ledger`` command line, as a player types it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ledger import Ledger
from ledger.cli.main import cli
from ledger.systems.dicepool.system import SAMPLE_NAME, SYSTEM


@pytest.fixture
def ledger_cli(tmp_path: Path) -> Any:
    runner = CliRunner()
    db = str(tmp_path / "t.ledger")

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, ["--db", db, *args])

    assert invoke("new", "dicepool", "alley").exit_code == 0
    add = invoke(
        "character",
        "add",
        "Eddie",
        "--attr",
        "body=4",
        "--attr",
        "quickness=5",
        "--attr",
        "skill.pistols=5",
        "--attr",
        "pool.combat=6",
        "--attr",
        "weapon=ares_predator",
    )
    assert add.exit_code == 0, add.output
    add = invoke(
        "dicepool", "join", "Mark", "--attr", "body=3", "--attr", "pool.combat=6", "--attr", "armor=2"
    )
    assert add.exit_code == 0, add.output
    return invoke


def test_the_worked_example_end_to_end(ledger_cli: Any) -> None:
    shot = ledger_cli(
        "dicepool",
        "attack",
        "--as",
        "Eddie",
        "--target",
        "Mark",
        "--skill",
        "pistols",
        "--pool",
        "4",
        "--range",
        "medium",
        "--mod",
        "smartlink_external",
        "--weapon",
        "ares_predator",
        "--faces",
        "3,5,5,6,4,5,1,6,6",
    )
    assert shot.exit_code == 0, shot.output
    assert "at TN 4: 7 successes [3, 5, 5, 6, 4, 5, 1, 6, 6]" in shot.output
    assert "TN 5 -1 smartlink, not implanted (sensiarma no implantado) = 4" in shot.output
    dodge = ledger_cli("dicepool", "dodge", "--as", "Mark", "--pool", "3", "--faces", "4,2,3")
    assert "1 success [4, 2, 3], 6 successes left to the attacker" in dodge.output
    resist = ledger_cli(
        "dicepool",
        "resist",
        "--as",
        "Mark",
        "--damage",
        "9L",
        "--armor",
        "2",
        "--pool",
        "3",
        "--faces",
        "2,6,1,5,6,2,6,3,5",
    )
    assert resist.exit_code == 0, resist.output
    assert "Mark resists 9L (armor 2, power 7) with 6 dice: 3 successes [2, 6+1=7, 5, 6+2=8, 6+3=9, 5]" in (
        resist.output
    )
    assert "net +3 stages L to G: G wound, 6 physical boxes" in resist.output
    sheet = json.loads(ledger_cli("sheet", "--as", "Mark", "--json").output)
    assert sheet["condition"] == {"physical": 6, "stun": 0, "boxes": 10, "overflow": 0}
    assert (sheet["wound_level"], sheet["tn_modifier"]) == ("G", 3)
    assert sheet["pools"] == {"combat": {"current": 0, "max": 6}}
    assert sheet["skills"] == {} and sheet["attributes"] == {"body": 3}
    view = ledger_cli("dicepool", "exchange")
    assert view.output.strip() == (
        "#1 Eddie -> Mark: 7 successes; 1 dodged (6 left); 9L vs armor 2 = power 7, 3 resisted; "
        "net +3, staged L -> G: 6 physical boxes; resolved"
    )
    before = json.loads(ledger_cli("dicepool", "exchange", "--at", "4", "--json").output)
    assert (before["attacker_successes"], before["dodged"], before["resisted"]) == (7, None, None)


def test_a_six_at_tn_9_then_3_is_a_success_then_2_is_not(ledger_cli: Any) -> None:
    hit = ledger_cli(
        "dicepool", "test", "pistols", "--tn", "9", "--dice", "1", "--faces", "6,3", "--as", "Eddie"
    )
    assert "at TN 9: 1 success [6+3=9]" in hit.output
    miss = ledger_cli("dicepool", "test", "pistols", "--tn", "9", "--dice", "1", "--faces", "6,2", "--json")
    event = json.loads(miss.output)["events"][0]
    assert event["roll"]["successes"] == 0
    assert event["roll"]["dice"] == [{"faces": [6, 2], "total": 8}]


def test_a_missing_reroll_face_is_refused_and_nothing_recorded(ledger_cli: Any) -> None:
    before = ledger_cli("log").output
    bad = ledger_cli(
        "dicepool", "test", "pistols", "--tn", "9", "--dice", "2", "--faces", "6,3,6", "--as", "Eddie"
    )
    assert bad.exit_code == 1
    assert "error: die 2 shows a 6 at TN 9, so the rule of six re-rolls it" in bad.output
    assert ledger_cli("log").output == before


def test_defaulting_is_said_in_the_output(ledger_cli: Any) -> None:
    out = ledger_cli("dicepool", "test", "athletics", "--tn", "4", "--as", "Mark", "--faces", "1,2,6,4")
    assert "Mark tests athletics, defaulting to attribute body 3 (TN+4, no pool) at TN 8" in out.output
    assert "+4 defaulting to attribute body = 8" in out.output
    refused = ledger_cli("dicepool", "test", "athletics", "--tn", "4", "--pool", "2", "--as", "Mark")
    assert refused.exit_code == 1
    assert refused.output == "error: no pool dice on a test of body, an attribute; pass --pool 0\n"


def test_bad_input_is_one_line_and_records_nothing(ledger_cli: Any) -> None:
    before = ledger_cli("log").output
    for args, message in [
        (("dicepool", "resist", "--as", "Mark", "--damage", "9X", "--against", "2"), "damage code '9X'"),
        (("dicepool", "dodge", "--as", "Mark", "--pool", "2"), "no open attack to dodge"),
        (
            ("dicepool", "attack", "--as", "Eddie", "--mod", "moonlight", "--range", "short"),
            "unknown modifier",
        ),
        (("dicepool", "attack", "--as", "Eddie", "--distance", "900"), "beyond the extreme range"),
        (("dicepool", "join", "Zed", "--attr", "body=many"), "attribute body=many does not fit"),
    ]:
        result = ledger_cli(*args)
        assert result.exit_code == 1, args
        assert result.output.startswith("error: ") and message in result.output
        assert result.output.count("\n") == 1
    assert ledger_cli("log").output == before


def test_a_refusal_says_the_command_that_puts_it_right(ledger_cli: Any) -> None:
    shot = ledger_cli(
        "dicepool", "attack", "--as", "Eddie", "--target", "Mark", "--range", "short", "--faces", "4,4,4,4,4"
    )
    assert shot.exit_code == 0, shot.output
    again = ledger_cli("dicepool", "attack", "--as", "Eddie", "--target", "Mark", "--range", "short")
    assert again.output == (
        "error: Eddie's attack (exchange 1) is still open; "
        "resolve it first (or undo it) with `ledger dicepool resist --as Mark`\n"
    )
    dodge = ledger_cli("dicepool", "dodge", "--as", "Eddie", "--pool", "1")
    assert dodge.output == "error: Eddie made this attack and cannot dodge it; say who acts with --as NAME\n"


def test_initiative_starts_a_turn_and_refreshes_pools(ledger_cli: Any) -> None:
    ledger_cli(
        "dicepool",
        "test",
        "pistols",
        "--tn",
        "4",
        "--pool",
        "6",
        "--as",
        "Eddie",
        "--faces",
        "1,1,1,1,1,1,1,1,1,1,1",
    )
    assert (
        json.loads(ledger_cli("sheet", "--as", "Eddie", "--json").output)["pools"]["combat"]["current"] == 0
    )
    out = ledger_cli("dicepool", "initiative", "--faces", "6,3")
    assert out.output.startswith("combat turn 1: initiative Eddie 6, Mark 3; pools refreshed")
    data = json.loads(ledger_cli("sheet", "--as", "Eddie", "--json").output)
    assert (data["pools"]["combat"]["current"], data["turn"], data["initiative"]) == (6, 1, 6)


def test_every_command_has_help() -> None:
    runner = CliRunner()
    from ledger.cli.dicepool import group

    for name, command in group.commands.items():
        assert command.help, name
        assert runner.invoke(cli, ["dicepool", name, "--help"]).exit_code == 0


def test_demo_imports_the_sample_once_and_stays_short(tmp_path: Path) -> None:
    lines: list[str] = []
    with Ledger(str(tmp_path / "demo.ledger")) as book:
        assert SYSTEM.play.demo is not None
        SYSTEM.play.demo(book, lines.append)
        SYSTEM.play.demo(book, lines.append)
        assert [c.name for c in book.campaigns()] == [SAMPLE_NAME]
    text = "\n".join(lines)
    assert "Mark (unconscious)" in text
    assert len(text.splitlines()) < 60
