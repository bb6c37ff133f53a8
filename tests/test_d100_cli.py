"""d100 through the `ledger` command line, and the golden sample campaign."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from ledger.campaign import Ledger
from ledger.cli.main import cli
from ledger.systems import get_system
from ledger.systems.d100.tables import load_tables

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "d100"
Invoke = Callable[..., Result]
ANA = ["TAM=12", "CON=11", "FUE=10", "INT=14", "EDU=15", "DES=9", "CAR=12", "POD=13"]


@pytest.fixture
def ledger(tmp_path: Path) -> Invoke:
    runner = CliRunner()
    db = str(tmp_path / "t.ledger")

    def invoke(*args: str, ok: bool = True) -> Result:
        result = runner.invoke(cli, ["--db", db, *args])
        if ok:
            assert result.exit_code == 0, result.output + (result.stderr or "")
        return result

    invoke("new", "d100", "inv")
    invoke("d100", "character", "Ana", *ANA, "skill.Trepar=40", "skill.Divisar=75")
    return invoke


def test_test_and_luck_with_json(ledger: Invoke) -> None:
    out = ledger("d100", "test", "Trepar", "--faces", "47", "--json")
    event = json.loads(out.output)["events"][0]
    assert (event["kind"], event["face"], event["level"], event["p_success"]) == (
        "d100.tested",
        47,
        "failure",
        0.4,
    )
    spent = json.loads(ledger("d100", "luck", "--json").output)["events"][0]
    assert spent["points"] == 7
    sheet = json.loads(ledger("sheet", "--json").output)
    assert sheet["luck"] == 65 - 7 and sheet["last_test"]["level"] == "success"
    assert ledger("d100", "refund").output.strip() == "Ana gets 7 luck back (luck 65)"


def test_text_output_names_the_levels(ledger: Invoke) -> None:
    out = ledger("d100", "test", "Divisar", "--faces", "99").output
    assert "rolled 99 -> FUMBLE" in out and "fumble >=99" in out


def test_sheet_keys(ledger: Invoke) -> None:
    ledger("d100", "damage", "3", "--cause", "caida")
    sheet = json.loads(ledger("sheet", "--as", "Ana", "--json").output)
    for key in ("characteristics", "skills", "hp", "valor", "fatigue", "luck", "state", "wounds"):
        assert key in sheet
    assert sheet["hp"] == {"current": 9, "max": 12}
    assert sheet["valor"] == {"current": 65, "max": 65}
    assert sheet["wounds"] == [{"number": 1, "amount": 3, "cause": "caida", "first_aid": False}]
    assert sheet["state"] == "ok" and sheet["skills"]["Trepar"] == 40


def test_refusals_are_one_line_and_record_nothing(ledger: Invoke) -> None:
    before = ledger("log").output
    bad = ledger("d100", "round", "--act", "Divisar", "--act", "Escuchar", "--attack", "Pelea", ok=False)
    assert bad.exit_code == 1
    assert bad.stderr.strip() == (
        "error: Ana declares 3 actions but DES 9 allows 2 with option 'actions'; declare fewer"
    )
    assert ledger("d100", "luck", ok=False).exit_code == 1
    assert ledger("d100", "test", "Trepar", "--faces", "0", ok=False).exit_code == 1
    assert ledger("log").output == before


def test_des_12_declares_three_actions(ledger: Invoke) -> None:
    quick = [a if not a.startswith("DES") else "DES=12" for a in ANA]
    ledger("d100", "character", "Bruno", *quick)
    out = ledger(
        "d100", "round", "--act", "Divisar", "--act", "Escuchar", "--attack", "Pelea", "--as", "Bruno"
    ).output
    assert out.strip() == "Bruno round 1 (actions): attack Brawl, Spot, Listen"


def test_heal_twice_and_rest_units(ledger: Invoke) -> None:
    ledger("d100", "damage", "5")
    assert "heals Ana 2" in ledger("d100", "heal", "firstaid", "--faces", "20,2").output
    again = ledger("d100", "heal", "firstaid", "--faces", "20,2", ok=False)
    assert "already had first aid" in again.stderr
    ledger("d100", "rest", "1w", "--faces", "3")
    sheet = json.loads(ledger("sheet", "--json").output)
    assert sheet["hp"]["current"] == 12 and sheet["clock"]["day"] == 7  # 7 + 2 + 3
    assert "not understood" in ledger("d100", "rest", "soon", ok=False).stderr


def test_character_creation_errors(ledger: Invoke) -> None:
    bad = ledger("d100", "character", "Eva", "DES=doce", ok=False)
    assert "is not KEY=NUMBER" in bad.stderr
    missing = ledger("d100", "character", "Eva", "DES=10", ok=False)
    assert "missing characteristics" in missing.stderr


def test_odds_command(ledger: Invoke) -> None:
    data = json.loads(ledger("d100", "odds", "40", "--json").output)
    assert data["faces"] == {"fumble": 3, "failure": 57, "success": 20, "special": 12, "critical": 8}


def test_custom_tables_are_validated(tmp_path: Path) -> None:
    from ledger.errors import TableError

    bad = tmp_path / "t.toml"
    bad.write_text(
        (SAMPLES / "tables.toml").read_text(encoding="utf-8").replace("Trepar = 40", "Trepar = 400"),
        encoding="utf-8",
    )
    with pytest.raises(TableError, match="Trepar"):
        load_tables(str(bad))
    tables, _ = load_tables(None)
    assert tables["sample"] is True and tables["skills"]["Trepar"] == 40


# --- the golden sample -----------------------------------------------------------


def test_sample_campaign_imports_verifies_and_tells_the_story(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "s.ledger")) as book, (SAMPLES / "campaign.jsonl").open("rb") as data:
        camp = book.import_(data)
        book.verify(camp.name)
        kinds = [e.event for e in book.log(camp.name)]
        levels = {getattr(e, "level", None) for e in kinds}
        assert {"fumble", "special", "critical"} <= levels
        assert any(e.kind == "d100.luck_spent" for e in kinds)
        assert any(e.kind == "d100.treated" and e.method == "firstaid" for e in kinds)
        assert any(e.kind == "d100.horrified" and e.panic for e in kinds)
        system = get_system("d100")
        day0 = system.read.sheet(book.state(camp, day=0), "Bruno")
        assert day0["state"] == "panic"
        facts = [f for env in book.effective(camp) for f in system.read.facts(env)]
        assert any(f.table == "rolls" and f.p_success is not None for f in facts)


def test_demo_imports_once_and_stays_short(tmp_path: Path) -> None:
    lines: list[str] = []
    with Ledger(str(tmp_path / "demo.ledger")) as book:
        get_system("d100").play.demo(book, lines.append)
        get_system("d100").play.demo(book, lines.append)
    assert sum("imported" in line for line in lines) == 1
    assert len(lines) < 120 and any("panic" in line for line in lines)


def test_undo_gives_the_luck_back(ledger: Invoke) -> None:
    ledger("d100", "test", "Trepar", "--faces", "50")
    ledger("d100", "luck")
    assert json.loads(ledger("sheet", "--json").output)["luck"] == 55
    ledger("undo")
    sheet = json.loads(ledger("sheet", "--json").output)
    assert sheet["luck"] == 65 and sheet["last_test"]["level"] == "failure"


def test_core_character_add_joins_the_party(ledger: Invoke) -> None:
    ledger("character", "add", "Eva", *[f"--attr={a}" for a in ANA], "--attr", "skill.Esquivar=55")
    out = ledger("d100", "dodge", "--against", "special", "--faces", "27", "--as", "Eva").output
    assert "Dodge target 55" in out and "cancels the special attack" in out


def test_sample_log_matches_the_rules_today(tmp_path: Path) -> None:
    """Rebuilding the sample gives the same events as the golden log (times and ids aside)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("d100_build_sample", SAMPLES / "build_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with Ledger(str(tmp_path / "rebuilt.ledger")) as book:
        module.build(book)
        rebuilt = [
            json.loads(msgspec.json.encode(e.event)) for e in book.envelopes(book.campaign(module.NAME))
        ]
    lines = (SAMPLES / "campaign.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    golden = [json.loads(line)["event"] for line in lines]
    assert rebuilt == golden


def test_a_refusal_words_its_fix_as_the_command_to_type(ledger: Invoke) -> None:
    result = ledger("d100", "luck", ok=False)
    assert result.exit_code == 1
    assert "Ana has no roll to spend luck on; roll with `ledger d100 test SKILL`" in result.output
    result = ledger("d100", "test", "POD", "--faces", "8", ok=False)
    assert "a test of POW needs a multiple (a luck test is POW times 4); pass --times N" in result.output
    ledger("d100", "fatigue", "21")
    result = ledger("d100", "test", "Trepar", "--faces", "8", ok=False)
    assert "Ana is exhausted (fatigue 0) and cannot roll; rest with `ledger d100 rest 15`" in result.output
    assert "`ledger" not in ledger("d100", "endcombat", ok=False).output
