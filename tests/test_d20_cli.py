"""The d20 system through the ``ledger`` command line, and the golden sample logs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from ledger import Ledger
from ledger.cli.d20 import demo, group
from ledger.cli.main import cli
from ledger.errors import TamperError
from ledger.systems import get_system

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "d20"
SEVEN = "6,5,4,3,3,2,1,1,2,6,6,6,4,4,4,5,5,3,2,3,4"
ASSIGN = "fue=18,des=15,con=13,int=12,sab=9,car=8"


Invoke = Callable[..., Result]


@pytest.fixture
def ledger(tmp_path: Path) -> Invoke:
    runner = CliRunner()
    db = str(tmp_path / "cli.ledger")

    def invoke(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, ["--db", db, *args])
        assert result.exit_code == code, result.output
        return result

    invoke("new", "d20", "Station")
    return invoke


def test_create_and_sheet_json(ledger: Invoke) -> None:
    out = ledger("d20", "create", "Ripley", "--class", "marine", "--assign", ASSIGN, "--faces", SEVEN).output
    assert "Ripley created: marine, STR 18 DEX 15 CON 13 INT 12 WIS 9 CHA 8, HP 11, CP 10, DEF 13" in out
    data = json.loads(ledger("sheet", "--json").output)
    for key in ("attributes", "hp", "calm", "def", "mov", "level", "usage", "traumas", "jammed", "alive"):
        assert key in data
    assert data["attributes"]["des"] == {"score": 15, "mod": 1}
    assert data["hp"] == {"current": 11, "max": 11} and data["calm"] == {"current": 10, "max": 10}
    assert data["usage"]["rifle rounds"] == "d8" and data["jammed"] == [] and data["alive"] is True


def test_bad_assignment_is_one_line_and_records_nothing(ledger: Invoke) -> None:
    result = ledger(
        "d20", "create", "Ripley", "--assign", ASSIGN.replace("car=8", "car=4"), "--faces", SEVEN, code=1
    )
    assert result.output.count("\n") == 1 and "the kept rolls are [18, 15, 13, 12, 9, 8]" in result.output
    assert "Ripley" not in ledger("log").output


def test_push_check_and_panic_flow(ledger: Invoke) -> None:
    ledger("d20", "create", "Ripley", "--assign", ASSIGN, "--faces", SEVEN)
    out = ledger(
        "d20", "check", "des", "--dc", "hard", "--skill", "precision", "--push", "--faces", "3,17"
    ).output
    assert "d20 [3/17]+2 = 19 vs 14: success (pushed: 1 CP spent)" in out
    pushed = json.loads(
        ledger("d20", "check", "des", "--dc", "11", "--push", "--faces", "8,2", "--json").output
    )
    assert pushed["events"][0]["roll"]["kept"] == 8 and pushed["events"][0]["calm_after"] == 8
    assert "panic roll due" in ledger("d20", "stress", "20", "--faces", "2,10").output
    assert "PANIC ROLL DUE" in ledger("sheet").output
    refused = ledger("d20", "check", "des", "--dc", "11", "--push", "--faces", "3,17", code=1)
    assert "no calm points left to push" in refused.output
    assert "recovers d4 [2] CP, CP 2" in ledger("d20", "panic", "--faces", "2,2").output


def test_usage_attack_and_unjam(ledger: Invoke) -> None:
    ledger("d20", "create", "Ripley", "--assign", ASSIGN, "--faces", SEVEN)
    assert "resupplies oxygen to d6" in ledger("d20", "supply", "oxygen", "d6").output
    assert "-> d4" in ledger("d20", "usage", "oxygen", "--faces", "2").output
    assert "-> exhausted" in ledger("d20", "usage", "oxygen", "--faces", "1").output
    assert "exhausted" in ledger("d20", "usage", "oxygen", "--faces", "3", code=1).output
    out = ledger(
        "d20", "attack", "-w", "pulse rifle", "--def", "12", "--mode", "long", "--faces", "14,5,7,8"
    ).output
    assert "long burst" in out and "15 damage [7,8]" in out
    assert (
        "the weapon jams"
        in ledger("d20", "attack", "-w", "pulse rifle", "--def", "12", "--faces", "1").output
    )
    assert "fixed" in ledger("d20", "unjam", "--faces", "12").output
    full = ledger(
        "d20", "attack", "-w", "pulse rifle", "--def", "12", "--mode", "full", "--faces", "10,9,1,1,1"
    )
    assert "magazine empty" in full.output
    assert "reloads" in ledger("d20", "reload", "--faces", "5").output


def test_damage_death_and_rest(ledger: Invoke) -> None:
    ledger("d20", "create", "Ripley", "--assign", ASSIGN, "--faces", SEVEN)
    ledger("d20", "create", "Ash", "--class", "scientist", "--faces", SEVEN)
    assert "HP 8, CP 9" in ledger("d20", "damage", "3", "--as", "Ripley").output
    assert "a day of rest (day 1): Ripley HP 9 CP 10" in ledger("d20", "rest").output
    assert "dead" in ledger("d20", "damage", "50", "--as", "Ash").output
    assert (
        "Ash is dead"
        in ledger("d20", "check", "int", "--dc", "8", "--as", "Ash", "--faces", "9", code=1).output
    )


def test_every_command_has_help() -> None:
    for name, command in group.commands.items():
        assert command.help, name
        assert isinstance(command, click.Command)


def test_golden_sample_logs_import_and_verify(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "g.ledger")) as book:
        for file in ("campaign.jsonl", "campaign-fork.jsonl"):
            with (SAMPLES / file).open("rb") as data:
                book.import_(data)
        book.verify(every=True)
        main = get_system("d20").read.sheet(book.state("derelict"), "Parker")
        dark = get_system("d20").read.sheet(book.state("derelict-dark"), "Parker")
    assert main["alive"] and main["traumas"] and main["hp"] == {"current": 8, "max": 8}
    assert main["crew"] == {"Ripley": "alive", "Parker": "alive", "Bishop": "alive"}
    assert not dark["alive"] and dark["crew"]["Parker"] == "dead"


def test_golden_log_refuses_an_edited_roll(tmp_path: Path) -> None:
    text = (SAMPLES / "campaign.jsonl").read_text()
    edited = tmp_path / "edited.jsonl"
    edited.write_text(text.replace('"faces":[12,17]', '"faces":[19,17]', 1))
    assert edited.read_text() != text
    with Ledger(str(tmp_path / "g.ledger")) as book, edited.open("rb") as data, pytest.raises(TamperError):
        book.import_(data)


def test_demo_shows_the_sample(tmp_path: Path) -> None:
    lines: list[str] = []
    with Ledger(str(tmp_path / "demo.ledger")) as book:
        demo(book, lines.append)
    text = "\n".join(lines)
    assert len(lines) < 60
    assert "Claustrophobia" in text and "alive: False" in text and "long burst" in text


def test_own_tables_file_and_bad_one(ledger: Invoke, tmp_path: Path) -> None:
    own = tmp_path / "panic.toml"
    own.write_text(
        'die = "d6"\ntrauma_from = 6\n[panic]\n' + "".join(f'{i} = "p{i}: x"\n' for i in range(1, 7))
    )
    ledger("new", "d20", "Mine", "--tables", str(own))
    ledger("-c", "Mine", "d20", "create", "Vasquez", "--faces", SEVEN)
    ledger("-c", "Mine", "d20", "stress", "20", "--faces", "1,10")  # a fumble: panic
    assert "trauma" not in ledger("-c", "Mine", "d20", "panic", "--faces", "5,1").output  # 5 < 6
    bad = tmp_path / "bad.toml"
    bad.write_text('die = "d6"\n[panic]\n1 = "only one"\n')
    result = ledger("new", "d20", "Bad", "--tables", str(bad), code=1)
    assert "a d6 table needs entries 1 to 6" in result.output and result.output.count("\n") == 1


def test_create_needs_a_name(ledger: Invoke) -> None:
    result = ledger("d20", "create", "--faces", SEVEN, code=1)
    assert "give the character's name" in result.output


def test_create_the_as_character(ledger: Invoke) -> None:
    ledger("character", "add", "Newt")
    out = ledger("d20", "create", "--as", "Newt", "--class", "pilot", "--faces", SEVEN).output
    assert "Newt created: pilot" in out and "character Newt joins" not in out
    assert json.loads(ledger("sheet", "--json", "--as", "Newt").output)["class"] == "pilot"


def test_a_refusal_words_its_fix_as_the_command_to_type(ledger: Invoke) -> None:
    ledger("d20", "create", "Ripley", "--assign", ASSIGN, "--faces", SEVEN)
    result = ledger("d20", "usage", "fuel", code=1)
    assert "Ripley has no 'fuel' (resources: rifle rounds, oxygen, rations)" in result.output
    assert "; add it with `ledger d20 supply fuel d6`" in result.output
    ledger("d20", "attack", "-w", "pulse rifle", "--def", "12", "--faces", "1")  # a fumble jams it
    result = ledger("d20", "attack", "-w", "pulse rifle", "--def", "12", "--faces", "15", code=1)
    assert (
        "the pulse rifle is jammed; clear it with `ledger d20 unjam --weapon 'pulse rifle'`" in result.output
    )
    result = ledger("d20", "check", "des", "--dc", "11", "--push", "--adv", "--faces", "3,4", code=1)
    assert "pushing buys advantage the roll already has; drop --push or --adv" in result.output
    ledger("character", "add", "Newt")
    data = json.loads(ledger("--json", "d20", "supply", "--as", "Newt", "x", "d6", code=1).output)
    fix = data["error"]["fix"]
    assert fix["action"] == "command" and fix["text"].startswith("create it with `ledger d20 create")
