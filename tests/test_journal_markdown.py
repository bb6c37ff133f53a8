"""`ledger journal --format md -o FILE`: a Markdown journal a notes vault or a blog can take."""

from __future__ import annotations

import json
from pathlib import Path

from ledger.projections.journal import escape
from tests.conftest import Session


def crawl_two_days(run: Session) -> None:
    run("new", "crawl", "C")
    run("crawl", "move", "n")
    run("crawl", "terrain", "--faces", "1")
    run("crawl", "event", "--faces", "4,6")
    run("note", "a *bold* [[link]] <b>x</b> # not a heading")
    run("crawl", "eat", "bar")
    run("crawl", "sleep", "wild")
    run("crawl", "move", "se")


def test_a_heading_per_day_events_as_items_and_the_state_at_each_days_end(
    ledger_cli: Session, tmp_path: Path
) -> None:
    crawl_two_days(ledger_cli)
    out = tmp_path / "vault" / "C.md"
    out.parent.mkdir()
    said = ledger_cli("journal", "--format", "md", "-o", str(out)).output
    assert said.strip() == f"journal written to {out}"
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# C"
    assert [line for line in lines if line.startswith("## ")] == ["## Day 1", "## Day 2"]
    day1 = lines[lines.index("## Day 1") : lines.index("## Day 2")]
    items = [line for line in day1 if line.startswith("- ")]
    log = [e for e in json.loads(ledger_cli("log", "--json").output) if e["day"] == 1]
    assert len(items) == len(log)
    end = [line for line in day1 if line.startswith("*End of day 1*")]
    sheet = json.loads(ledger_cli("sheet", "--json", "--day", "1").output)
    assert len(end) == 1 and f"health {sheet['health']}" in end[0] and f"energy {sheet['energy']}" in end[0]


def test_user_text_is_escaped(ledger_cli: Session) -> None:
    crawl_two_days(ledger_cli)
    text = ledger_cli("journal", "--format", "md").output
    note = next(line for line in text.splitlines() if "note:" in line)
    assert note == r"- note: a \*bold\* \[\[link\]\] \<b\>x\</b\> \# not a heading"
    assert json.loads(ledger_cli("journal", "--format", "md", "--json").output)["markdown"] == text
    assert escape("# title") == r"\# title" and escape("1. one") == r"1\. one" and escape("- x") == r"\- x"


def test_an_existing_file_is_refused_unless_forced(ledger_cli: Session, tmp_path: Path) -> None:
    crawl_two_days(ledger_cli)
    out = tmp_path / "j.md"
    out.write_text("mine", encoding="utf-8")
    refused = ledger_cli("journal", "--format", "md", "-o", str(out), ok=False)
    assert refused.exit_code != 0 and "--force" in refused.stderr and out.read_text() == "mine"
    ledger_cli("journal", "--format", "md", "-o", str(out), "--force")
    assert out.read_text().startswith("# C\n")


def test_a_system_without_days_gets_a_heading_per_calendar_day(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "F")
    ledger_cli("character", "create", "Ana_B")
    ledger_cli("--as", "Ana_B", "roll", "1d20", "--faces", "12")
    text = ledger_cli("journal", "--format", "md", "--at", "3").output
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    at = json.loads(ledger_cli("log", "--json").output)[-1]["at"]
    assert headings == [f"## {at[:10]}"]
    assert r"- **Ana\_B**: rolled 1d20 = 12 \[12\]" in text
