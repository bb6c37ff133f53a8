"""The current campaign is state of the ledger: `new`, `use` and `fork` set it, bulk
commands never move it, `-c` overrides it for one command, and `campaigns` and
`status` show it. A campaign imported under another name is called by that name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger import Ledger
from ledger.errors import NoCurrentCampaignError
from tests.conftest import Session


def as_json(result: object) -> object:
    return json.loads(result.stdout)  # type: ignore[attr-defined]


def current_of(s: Session) -> list[str]:
    return [row["name"] for row in as_json(s("--json", "campaigns")) if row["current"]]  # type: ignore[attr-defined]


def test_simulate_does_not_move_the_current_campaign(target: str) -> None:
    s = Session(target)
    s("new", "crawl", "Mine")
    s("simulate", "freeform", "--campaigns", "3", "--days", "1", "--seed", "7")
    assert current_of(s) == ["Mine"]
    moved = as_json(s("--json", "crawl", "move", "n"))
    assert moved["campaign"] == "Mine"  # type: ignore[index]


def test_import_does_not_move_the_current_campaign(target: str, tmp_path: Path) -> None:
    s = Session(target)
    s("new", "freeform", "Home")
    s("note", "at home")
    s("export", "-o", str(tmp_path / "home.jsonl"))
    s("new", "freeform", "Away")
    s("import", str(tmp_path / "home.jsonl"), "--name", "Copy")
    assert current_of(s) == ["Away"]
    assert as_json(s("--json", "note", "still away"))["campaign"] == "Away"  # type: ignore[index]


def test_use_switches_and_dash_c_overrides_for_one_command(target: str) -> None:
    s = Session(target)
    s("new", "freeform", "One")
    s("new", "freeform", "Two")
    assert current_of(s) == ["Two"]
    assert s("use", "One").stdout.strip() == "now playing 'One' (freeform)"
    assert as_json(s("--json", "note", "a"))["campaign"] == "One"  # type: ignore[index]
    assert as_json(s("--json", "-c", "Two", "note", "b"))["campaign"] == "Two"  # type: ignore[index]
    assert current_of(s) == ["One"]  # -c did not move it


def test_campaigns_marks_exactly_one_current(target: str) -> None:
    s = Session(target)
    for name in ("A", "B", "C"):
        s("new", "freeform", name)
    s("use", "B")
    rows = as_json(s("--json", "campaigns"))
    assert [r["current"] for r in rows] == [False, True, False]  # type: ignore[attr-defined]
    lines = s("campaigns").stdout.splitlines()
    assert [ln[0] for ln in lines] == [" ", "*", " "]


def test_fork_switches_to_the_branch_and_says_so(target: str) -> None:
    s = Session(target)
    s("new", "freeform", "Trunk")
    s("note", "one")
    out = s("fork", "Branch").stdout.strip()
    assert out == "forked 'Branch' at version 2; now playing it (back with `ledger use Trunk`)"
    assert current_of(s) == ["Branch"]
    assert as_json(s("--json", "note", "two"))["campaign"] == "Branch"  # type: ignore[index]


def test_use_refuses_an_unknown_campaign_and_keeps_the_current(target: str) -> None:
    s = Session(target)
    s("new", "freeform", "Real")
    s("new", "freeform", "Other")
    refused = s("use", "Nope", ok=False)
    assert refused.exit_code == 1
    assert "no campaign named 'Nope'" in refused.stderr
    assert current_of(s) == ["Other"]


def test_several_campaigns_and_none_chosen_is_refused_naming_use(tmp_path: Path) -> None:
    """A ledger whose campaigns were all made by bulk work has no current campaign:
    a command without -c is refused, naming `ledger use`, and records nothing."""
    db = str(tmp_path / "bulk.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Sim1")
        book.new_campaign("freeform", "Sim2")
    s = Session(db)
    refused = s("note", "where?", ok=False)
    assert refused.exit_code == 1
    assert "ledger use NAME" in refused.stderr and "Sim1, Sim2" in refused.stderr
    assert current_of(s) == []
    with Ledger(db) as book:
        assert [e.kind for e in book.log("Sim1")] == ["campaign.started"]


def test_the_library_sets_and_reads_the_current_campaign(target: str) -> None:
    """A bot driving the library: use() is seen by another Ledger on the same store."""
    with Ledger(target) as book:
        book.new_campaign("freeform", "Bot1")
        book.new_campaign("freeform", "Bot2")
        with pytest.raises(NoCurrentCampaignError):
            book.current()
        book.use("Bot2")
        assert book.current().name == "Bot2"
        book.note("from the bot")  # no campaign named: the current one
    with Ledger(target) as other:
        assert other.current().name == "Bot2"
        assert [e.kind for e in other.log("Bot2")][-1] == "note"
    assert current_of(Session(target)) == ["Bot2"]


def test_status_shows_campaign_system_character_day_and_next(target: str) -> None:
    s = Session(target)
    s("new", "crawl", "Walk")
    data = as_json(s("--json", "status"))
    assert data["campaign"] == "Walk" and data["system"] == "crawl" and data["current"]  # type: ignore[index]
    assert data["next"]  # type: ignore[index]
    text = s("status").stdout
    assert text.splitlines()[0].startswith("campaign  Walk (crawl)")
    assert "next: " in text
    s("crawl", "move", "n")
    after = as_json(s("--json", "status"))
    assert after["next"] != data["next"]  # type: ignore[index]
    assert after["day"] == 1 and after["version"] == 2  # type: ignore[index]
    assert "day       1" in s("status").stdout.splitlines()


def test_status_of_a_freeform_campaign_names_its_character(target: str) -> None:
    s = Session(target)
    s("new", "freeform", "Table")
    assert "character add NAME" in s("status").stdout
    s("character", "add", "Ines")
    lines = s("status").stdout.splitlines()
    assert "character Ines" in lines


def test_a_campaign_imported_under_another_name_is_called_by_it(target: str, tmp_path: Path) -> None:
    s = Session(target)
    s("new", "freeform", "Ash")
    s("character", "add", "Bo")
    s("export", "-o", str(tmp_path / "ash.jsonl"))
    s("import", str(tmp_path / "ash.jsonl"), "--name", "Ash2")
    sheet = as_json(s("--json", "-c", "Ash2", "sheet"))
    assert sheet["campaign"] == "Ash2"  # type: ignore[index]
    assert s("-c", "Ash2", "sheet").stdout.startswith("Ash2 (freeform)\n")
    assert as_json(s("--json", "-c", "Ash2", "sheet", "--at", "1"))["campaign"] == "Ash2"  # type: ignore[index]
    assert as_json(s("--json", "-c", "Ash", "sheet"))["campaign"] == "Ash"  # type: ignore[index]
