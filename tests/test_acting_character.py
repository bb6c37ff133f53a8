"""The acting character is a choice kept in the ledger, per campaign, like the current
campaign: `--as` acts for one command only, `ledger use --as NAME` chooses who acts from
then on, `status` shows it, and with several characters and none chosen a command is
refused, naming them. Every action is still recorded under its actor, explicitly."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Session


def party(s: Session) -> None:
    s("new", "freeform", "Table")
    s("character", "create", "Ann")
    s("character", "create", "Bob")


def test_as_acts_for_one_command_only(ledger_cli: Session) -> None:
    party(ledger_cli)
    assert ledger_cli("--as", "Bob", "roll", "1d6", "--faces", "2").output == "Bob: 1d6 = 2  [2]\n"
    assert ledger_cli("roll", "1d6", "--faces", "3").output == "Ann: 1d6 = 3  [3]\n"
    assert ledger_cli("roll", "1d6", "--faces", "4", "--as", "Bob").output == "Bob: 1d6 = 4  [4]\n"
    assert ledger_cli("note", "the door creaks").output == "noted (v7)\n"
    assert [e["actor"] for e in json.loads(ledger_cli("log", "--json").output)][3:] == [
        "Bob",
        "Ann",
        "Bob",
        "Ann",
    ]


def test_a_later_character_does_not_take_over_from_the_first(ledger_cli: Session) -> None:
    party(ledger_cli)
    assert ledger_cli("roll", "1d4", "--faces", "1").output == "Ann: 1d4 = 1  [1]\n"


def test_use_as_chooses_who_acts_from_then_on_and_status_shows_it(ledger_cli: Session) -> None:
    party(ledger_cli)
    assert ledger_cli("use", "--as", "Bob").output == "Bob acts in 'Table'\n"
    assert ledger_cli("roll", "1d6", "--faces", "5").output == "Bob: 1d6 = 5  [5]\n"
    assert ledger_cli("roll", "1d6", "--faces", "6").output == "Bob: 1d6 = 6  [6]\n"
    assert "character Bob (also: Ann)" in ledger_cli("status").output.splitlines()
    shown = ledger_cli("status", "--as", "Ann").output.splitlines()
    assert "character Ann (also: Bob)" in shown
    assert "          with --as, for this command only; Bob acts without it" in shown
    assert json.loads(ledger_cli("status", "--json").output)["acting"] == "Bob"


def test_use_names_the_campaign_and_the_character_together(ledger_cli: Session) -> None:
    party(ledger_cli)
    ledger_cli("new", "freeform", "Other")
    out = ledger_cli("use", "Table", "--as", "Bob").output
    assert out == "now playing 'Table' (freeform)\nBob acts in 'Table'\n"
    assert ledger_cli("roll", "1d6", "--faces", "1").output == "Bob: 1d6 = 1  [1]\n"


def test_use_as_an_unknown_character_is_refused_and_changes_nothing(ledger_cli: Session) -> None:
    party(ledger_cli)
    out = ledger_cli("use", "--as", "Zed", ok=False)
    assert out.exit_code == 1
    assert out.stderr == (
        "error: no character named 'Zed' in 'Table' (characters: Ann, Bob); "
        "add one with `ledger character add Zed`\n"
    )
    assert ledger_cli("roll", "1d6", "--faces", "1").output == "Ann: 1d6 = 1  [1]\n"


def test_use_without_a_campaign_or_a_character_is_a_usage_error(ledger_cli: Session) -> None:
    party(ledger_cli)
    out = ledger_cli("use", ok=False)
    assert out.exit_code == 2 and "give a campaign NAME, --as CHARACTER, or both" in out.stderr


def test_several_characters_and_none_chosen_is_refused_naming_them(tmp_path: Path) -> None:
    home = Session(str(tmp_path / "home.ledger"))
    party(home)
    export = tmp_path / "table.jsonl"
    home("export", "-o", str(export))
    away = Session(str(tmp_path / "away.ledger"))
    away("import", str(export))
    assert (
        "character none acts of Ann, Bob: choose one with `ledger use --as NAME`"
        in away("status").output.splitlines()
    )
    before = away("log").output
    out = away("roll", "1d6", "--faces", "1", ok=False)
    assert out.exit_code == 1
    assert out.stderr == (
        "error: who acts? 'Table' has 2 characters (Ann, Bob) and none is chosen; choose one with "
        "`ledger use --as NAME` (or give --as NAME for one command)\n"
    )
    assert away("log").output == before
    assert away("--as", "Bob", "roll", "1d6", "--faces", "1").output == "Bob: 1d6 = 1  [1]\n"
    away("use", "--as", "Ann")
    assert away("roll", "1d6", "--faces", "2").output == "Ann: 1d6 = 2  [2]\n"


def test_an_export_of_actions_chosen_this_way_imports_and_verifies(tmp_path: Path) -> None:
    home = Session(str(tmp_path / "home.ledger"))
    party(home)
    home("use", "--as", "Bob")
    home("roll", "1d6", "--faces", "2")
    home("--as", "Ann", "roll", "1d6", "--faces", "3")
    home("roll", "1d6", "--faces", "4")
    export = tmp_path / "table.jsonl"
    home("export", "-o", str(export))
    away = Session(str(tmp_path / "away.ledger"))
    assert "imported 'Table' (freeform, 6 events, chain verified)" in away("import", str(export)).output
    rolls = [e["actor"] for e in json.loads(away("log", "--json").output) if e["kind"] == "dice.rolled"]
    assert rolls == ["Bob", "Ann", "Bob"]


def test_the_sheet_is_the_acting_characters_after_a_one_command_as(ledger_cli: Session) -> None:
    ledger_cli("new", "dicepool", "Seattle")
    ledger_cli("character", "add", "Ann", "--attr", "body=3")
    ledger_cli("character", "add", "Bob", "--attr", "body=5")
    ledger_cli("use", "--as", "Bob")
    ledger_cli("--as", "Ann", "dicepool", "test", "body", "--tn", "4", "--faces", "1,2,3")
    assert ledger_cli("sheet").output.splitlines()[0] == "Bob (active), Seattle, combat turn 0"


def test_a_fork_goes_on_with_the_acting_character(ledger_cli: Session) -> None:
    party(ledger_cli)
    ledger_cli("use", "--as", "Bob")
    ledger_cli("fork", "Table-what-if")
    assert ledger_cli("roll", "1d6", "--faces", "2").output == "Bob: 1d6 = 2  [2]\n"


def test_use_with_an_unknown_character_does_not_move_the_current_campaign(ledger_cli: Session) -> None:
    party(ledger_cli)
    ledger_cli("new", "freeform", "Other")
    out = ledger_cli("use", "Table", "--as", "Zed", ok=False)
    assert out.exit_code == 1 and "no character named 'Zed' in 'Table'" in out.stderr
    assert ledger_cli("status").output.splitlines()[0] == "campaign  Other (freeform), v1"
