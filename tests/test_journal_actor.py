"""An event about a character is told as that character's, in the log, the journal and the
Markdown journal, whoever's action recorded it; a day's end is told on the day it ends."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Session

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "yearzero" / "campaign.jsonl"


def zone(ledger_cli: Session) -> Session:
    ledger_cli("import", str(SAMPLE))
    return ledger_cli


def test_the_log_tells_a_ration_as_the_eaters(ledger_cli: Session) -> None:
    lines = zone(ledger_cli)("log").output.splitlines()
    assert lines[5:8] == [
        "v6     d0 Vesna: Vesna has a ration of grub (need)",
        "v7     d0 Grit: Grit has a ration of grub (need)",
        "v8     d0 Mira: Mira has a ration of grub (need)",
    ]
    rows = json.loads(ledger_cli("log", "--json").output)
    assert (rows[5]["actor"], rows[5]["who"]) == ("Mira", "Vesna")  # recorded under Mira's action


def test_the_journal_tells_a_days_end_on_that_day(ledger_cli: Session) -> None:
    days = json.loads(zone(ledger_cli)("journal", "--json").output)
    told = {entry["day"]: [act["text"] for act in entry["actions"]] for entry in days}
    assert "day 0 ends" in told[0] and "day 0 ends" not in told[1]


def test_the_markdown_journal_names_whom_each_event_is_about(ledger_cli: Session) -> None:
    text = zone(ledger_cli)("journal", "--format", "md").output
    assert "- **Vesna**: Vesna has a ration of grub (need)" in text
    assert "- **Mira**: Vesna has a ration of grub (need)" not in text
    day0 = text.split("## Day 0", 1)[1].split("## Day 1", 1)[0]
    assert "day 0 ends" in day0


def test_the_journal_is_one_entry_per_day_telling_who_made_each_plain_roll(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "table")
    ledger_cli("character", "add", "Ann")
    ledger_cli("character", "add", "Bo")
    ledger_cli("roll", "1d6", "--faces", "4", "--as", "Bo")
    ledger_cli("roll", "1d6", "--faces", "2", "--as", "Ann")
    ledger_cli("note", "a quiet night", "--as", "Ann")
    lines = ledger_cli("journal").output.splitlines()
    assert len(lines) == 3 and lines[0].endswith("  Ann: character Ann joins")  # the date heads the entry
    assert lines[1:] == [
        "            Bo: character Bo joins; rolled 1d6 = 4 [4] (physical dice)",
        "            Ann: rolled 1d6 = 2 [2] (physical dice); note: a quiet night",
    ]
    (entry,) = json.loads(ledger_cli("journal", "--json").output)
    assert [(act["who"], act["text"]) for act in entry["actions"]][2:] == [
        ("Bo", "rolled 1d6 = 4 [4] (physical dice)"),
        ("Ann", "rolled 1d6 = 2 [2] (physical dice)"),
        ("Ann", "note: a quiet night"),
    ]
