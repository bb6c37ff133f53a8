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
    lines = zone(ledger_cli)("journal").output.splitlines()
    assert "   day 0  day 0 ends" in lines and "   day 1  day 0 ends" not in lines


def test_the_markdown_journal_names_whom_each_event_is_about(ledger_cli: Session) -> None:
    text = zone(ledger_cli)("journal", "--format", "md").output
    assert "- **Vesna**: Vesna has a ration of grub (need)" in text
    assert "- **Mira**: Vesna has a ration of grub (need)" not in text
    day0 = text.split("## Day 0", 1)[1].split("## Day 1", 1)[0]
    assert "day 0 ends" in day0
