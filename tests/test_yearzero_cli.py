"""The ``ledger yz`` commands as a player types them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from ledger import Ledger
from ledger.cli.main import cli
from ledger.systems.yearzero.system import SAMPLE_LOG, SYSTEM


def make(tmp_path: Path) -> Any:
    runner = CliRunner()
    db = str(tmp_path / "t.ledger")

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, ["--db", db, *args])

    assert invoke("new", "yearzero", "zone").exit_code == 0
    added = invoke(
        "character",
        "add",
        "Ana",
        "--attr",
        "strength=3",
        "--attr",
        "agility=3",
        "--attr",
        "wits=3",
        "--attr",
        "empathy=3",
        "--attr",
        "skill.shoot=2",
        "--attr",
        "gear.rifle=2",
    )
    assert added.exit_code == 0, added.output
    return invoke


def test_roll_push_and_sheet_json(tmp_path: Path) -> None:
    invoke = make(tmp_path)
    out = invoke("yz", "roll", "shoot", "--item", "rifle", "--faces", "6,1,3,1,4,1,2", "--json")
    assert out.exit_code == 0, out.output
    rolled = json.loads(out.output)["events"][0]
    assert rolled["successes"] == 1 and rolled["dice"]["gear"] == [1, 2]
    out = invoke("yz", "push", "--faces", "1,5,6,5")
    assert "2 trauma to agility, +2 MP, rifle bonus 1" in out.output
    again = invoke("yz", "push", "--faces", "6")
    assert again.exit_code == 1 and again.output.count("\n") == 1 and "only once" in again.output
    data = json.loads(invoke("sheet", "--json").output)
    assert data["agility"] == {"current": 1, "max": 3}
    assert data["mutation_points"] == 2 and data["gear"]["rifle"]["bonus"] == 1
    assert data["rot"] == {"total": 0, "permanent": 0} and data["broken"] is False
    for key in ("strength", "wits", "empathy", "conditions", "critical_injuries", "time"):
        assert key in data
    assert invoke("undo").exit_code == 0
    data = json.loads(invoke("sheet", "--json").output)
    assert data["agility"]["current"] == 3 and data["mutation_points"] == 0
    assert data["gear"]["rifle"]["bonus"] == 2 and data["can_push"] is True


def test_helpers_counts_people_helping_and_help_shows_help(tmp_path: Path) -> None:
    invoke = make(tmp_path)
    out = invoke("yz", "roll", "shoot", "--helpers", "2", "--faces", "1,1,1,1,1,1,1", "--json")
    assert out.exit_code == 0, out.output
    assert len(json.loads(out.output)["events"][0]["dice"]["skill"]) == 4
    assert "SKILL|ATTRIBUTE" in invoke("yz", "roll", "-h").output
    for command in ("roll", "heal", "repair"):
        shown = invoke("yz", command, "--help")
        assert shown.exit_code == 0 and "--helpers" in shown.output, shown.output


def test_bad_input_is_one_line_and_records_nothing(tmp_path: Path) -> None:
    invoke = make(tmp_path)
    before = invoke("log").output
    for args in (
        ("yz", "roll", "juggle"),
        ("yz", "roll", "shoot", "--helpers", "5"),
        ("yz", "roll", "shoot", "--faces", "6,6"),
        ("yz", "enter", "Q99"),
        ("yz", "wash"),
        ("yz", "tick", "0"),
        ("yz", "tick", "soon"),
        ("yz", "repair", "rifle"),
    ):
        out = invoke(*args)
        assert out.exit_code != 0, args
        assert out.output.startswith("error: ") and out.output.count("\n") == 1, out.output
    assert invoke("log").output == before


def test_zone_and_rot_views(tmp_path: Path) -> None:
    invoke = make(tmp_path)
    assert invoke("yz", "enter", "G7", "--rot-level", "2").exit_code == 0
    out = invoke("yz", "explore", "--faces", "2,2,2,2,2,2,2,2,2,2")
    assert out.exit_code == 0, out.output
    assert "explores G7" in out.output and "Rot point" in out.output
    zone = json.loads(invoke("yz", "zone", "--json").output)
    assert zone["position"] == "G7" and zone["sectors"]["G7"] == {
        "rot_level": 2,
        "explored": True,
        "visits": 1,
    }
    assert "@E2" in invoke("yz", "zone").output
    rot = json.loads(invoke("yz", "rot", "--json").output)
    assert rot["characters"]["Ana"]["total"] == 4 and len(rot["history"]) == 4
    assert rot["sectors"][-1] == {"sector": "G7", "rot_level": 2}
    old = json.loads(invoke("yz", "rot", "--json", "--at", "4").output)
    assert old["characters"]["Ana"]["total"] == 0


def test_yz_character_validates(tmp_path: Path) -> None:
    invoke = make(tmp_path)
    out = invoke(
        "yz",
        "character",
        "Gus",
        "--strength",
        "3",
        "--agility",
        "3",
        "--wits",
        "4",
        "--empathy",
        "2",
        "--skill",
        "jury_rig=2",
        "--gear",
        "wrench=1",
        "--armor",
        "scrap=2",
    )
    assert out.exit_code == 0, out.output
    data = json.loads(invoke("sheet", "--as", "Gus", "--json").output)
    assert data["skills"] == {"jury_rig": 2} and data["gear"]["scrap"]["worn"] is True
    bad = invoke(
        "yz",
        "character",
        "Zed",
        "--strength",
        "3",
        "--agility",
        "3",
        "--wits",
        "4",
        "--empathy",
        "2",
        "--skill",
        "levitate=2",
    )
    assert bad.exit_code == 1 and "levitate" in bad.output


def test_sample_campaign_is_a_verified_golden_log(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "s.ledger"))
    with SAMPLE_LOG.open("rb") as data:
        camp = book.import_(data, "sample")
    book.verify("sample")
    state = book.state(camp)
    game = state.game
    assert len(game.order) == 3
    assert game.day >= 6
    assert any(c.rot for c in game.characters.values())
    kinds = {env.event.kind for env in book.effective(camp)}
    assert {"yz.pushed", "yz.broken", "yz.rot", "yz.entered", "yz.explored"} <= kinds
    assert game.characters["Grit"].dead and not game.characters["Mira"].dead
    assert game.position == game.ark == "F8"
    lines: list[str] = []
    SYSTEM.play.demo(book, lines.append)  # type: ignore[misc]
    assert 5 < len(lines) <= 60
    fork = book.state("yz-sample-turn-back").game
    assert not any(c.dead for c in fork.characters.values())


def test_own_tables_file_is_checked(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "t.ledger")
    bad = tmp_path / "mine.toml"
    bad.write_text('sample = false\n[zone]\nark = "F8"\n')
    out = runner.invoke(cli, ["--db", db, "new", "yearzero", "mine", "--tables", str(bad)])
    assert out.exit_code == 1 and out.output.count("\n") == 1
    assert "critical_injuries" in out.output and "fix" in out.output
    assert "mine" not in runner.invoke(cli, ["--db", db, "campaigns"]).output


def test_settings_from_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "t.ledger")

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, ["--db", db, *args])

    assert invoke("new", "yearzero", "strict", "--setting", "suit_sixes_to_absorb=2").exit_code == 0
    invoke(
        "yz",
        "character",
        "Ana",
        "--strength",
        "3",
        "--agility",
        "3",
        "--wits",
        "3",
        "--empathy",
        "3",
        "--suit",
        "hazmat=3",
    )
    out = invoke("yz", "rot", "1", "--faces", "6,2,3,4", "--json")  # one 6 is not enough here
    assert json.loads(out.output)["events"][0]["absorbed"] is False
    refused = invoke("new", "yearzero", "odd", "--setting", "night_start=dusk")
    assert refused.exit_code == 1 and refused.stderr.count("\n") == 1
    assert "the setting night_start='dusk' is refused: expected a whole number" in refused.stderr
    assert "odd" not in invoke("campaigns").output


def test_the_golden_log_is_what_the_rules_decide_today(tmp_path: Path) -> None:
    """Rebuilding the sample gives the same events: a rule change that alters play shows here."""
    import importlib.util

    import msgspec

    spec = importlib.util.spec_from_file_location("build_sample", SAMPLE_LOG.with_name("build_sample.py"))
    assert spec is not None and spec.loader is not None
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    book = Ledger(str(tmp_path / "b.ledger"))
    builder.build(book)
    rebuilt = [json.loads(msgspec.json.encode(e.event)) for e in book.envelopes(book.campaign(builder.NAME))]
    golden = [json.loads(line)["event"] for line in SAMPLE_LOG.read_text().splitlines()[1:]]
    assert rebuilt == golden


def test_a_push_takes_the_acting_characters_own_roll_when_another_rolled_since(tmp_path: Path) -> None:
    invoke = make(tmp_path)
    bo = ("--strength", "3", "--agility", "3", "--wits", "3", "--empathy", "3")
    assert invoke("yz", "character", "Bo", *bo).exit_code == 0
    assert invoke("yz", "roll", "wits", "--as", "Ana", "--faces", "2,3,4").exit_code == 0
    assert invoke("yz", "roll", "empathy", "--as", "Bo", "--faces", "2,3,4").exit_code == 0
    assert json.loads(invoke("sheet", "--as", "Ana", "--json").output)["can_push"] is True
    ana = invoke("yz", "push", "--as", "Ana", "--faces", "6,6,5")
    assert ana.exit_code == 0 and ana.output.startswith("Ana pushes"), ana.output
    assert json.loads(invoke("sheet", "--as", "Ana", "--json").output)["wits"]["current"] == 3
    assert invoke("yz", "push", "--as", "Bo", "--faces", "6,5,5").output.startswith("Bo pushes")
    assert invoke("verify").exit_code == 0
    invoke("yz", "roll", "wits", "--as", "Ana", "--faces", "2,3,4")
    invoke("yz", "initiative", "--as", "Ana", "--faces", "3")
    late = invoke("yz", "push", "--as", "Ana", "--faces", "6,6,6")
    assert late.exit_code == 1 and "Ana has no roll to push" in late.output
