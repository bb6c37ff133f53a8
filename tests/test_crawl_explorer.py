"""A crawl's explorer can be named, once: as the campaign starts (`--explorer NAME`) or
with `character create`; the log, the sheet and the report go by that name, and the
report shows an unnamed explorer's sheet too."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.conftest import Session


def report_data(s: Session, page: Path) -> dict[str, Any]:
    s("report", "-o", str(page))
    found = re.search(
        r'<script type="application/json"[^>]*id="report-data"[^>]*>(.*?)</script>', page.read_text(), re.S
    )
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def test_new_crawl_names_its_explorer_who_acts_in_the_log_and_the_report(
    ledger_cli: Session, tmp_path: Path
) -> None:
    out = ledger_cli("new", "crawl", "Mine", "--explorer", "Ñandú").output
    assert out.splitlines()[:2] == ["campaign 'Mine' started (crawl)", "Ñandú acts"]
    ledger_cli("crawl", "move", "n")
    assert ledger_cli("log").output.splitlines()[1:] == [
        "v2     d0 Ñandú: character Ñandú joins",
        "v3     d1 Ñandú: day 1: moved n to (0,-1)",
    ]
    data = report_data(ledger_cli, tmp_path / "mine.html")
    assert data["characters"] == ["Ñandú"]
    assert [list(step["sheets"]) for step in data["steps"]] == [["(unnamed)"], ["Ñandú"], ["Ñandú"]]
    assert [row["actor"] for row in data["log"]] == [None, "Ñandú", "Ñandú"]


def test_an_unnamed_explorer_still_has_a_sheet_in_the_report(ledger_cli: Session, tmp_path: Path) -> None:
    ledger_cli("new", "crawl", "Mine")
    ledger_cli("crawl", "move", "n")
    data = report_data(ledger_cli, tmp_path / "mine.html")
    assert [list(step["sheets"]) for step in data["steps"]] == [["(unnamed)"], ["(unnamed)"]]
    played = [row for row in data["log"] if row["kind"].startswith("crawl.")]
    assert played and all(row["actor"] == "(unnamed)" for row in played), "the log's who is the explorer's"


def test_character_create_names_the_explorer_once(ledger_cli: Session) -> None:
    ledger_cli("new", "crawl", "Mine")
    assert ledger_cli("character", "create", "Ada").output == "Ada explores in 'Mine'\n"
    ledger_cli("crawl", "move", "n")
    before = ledger_cli("log").output
    out = ledger_cli("character", "create", "Bea", ok=False)
    assert out.exit_code == 1
    assert out.stderr == (
        "error: crawl is solo: 'Mine' already has its character, 'Ada'; start another campaign "
        "for another character with `ledger new crawl NAME`\n"
    )
    assert ledger_cli("log").output == before
    assert "character Ada" in ledger_cli("status").output.splitlines()


def test_a_bad_explorer_name_starts_no_campaign(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Other")
    out = ledger_cli("new", "crawl", "Mine", "--explorer", "-Ada", ok=False)
    assert out.exit_code == 1 and out.stderr.startswith("error: character name '-Ada' is not allowed")
    assert ledger_cli("campaigns").output == "* Other                    freeform  v1\n"


def test_explorer_is_refused_where_a_system_creates_with_options(ledger_cli: Session) -> None:
    out = ledger_cli("new", "d100", "Cthulhu", "--explorer", "Carla", ok=False)
    assert out.exit_code == 2 and "`ledger character create Carla ...`" in out.stderr
    assert "error: no ledger at" in ledger_cli("campaigns", ok=False).stderr  # not even a ledger file


def test_the_help_a_new_player_reads_names_the_explorer_and_the_report(ledger_cli: Session) -> None:
    top = ledger_cli("--help").output
    assert "ledger new crawl Mine --explorer Ada" in top and "ledger report -o mine.html" in top
    crawl = " ".join(ledger_cli("crawl", "--help").output.split())
    assert "`ledger new crawl NAME --explorer ADA`" in crawl and "`ledger report -o FILE.html`" in crawl


def test_a_new_player_plays_a_crawl_day_and_sees_their_sheet_each_step(
    ledger_cli: Session, tmp_path: Path
) -> None:
    ledger_cli("new", "crawl", "Mine", "--explorer", "Ada")
    for step in (
        ("move", "n"),
        ("terrain", "--faces", "1"),
        ("event", "--faces", "3,4"),
        ("eat", "bar"),
        ("sleep", "wild"),
    ):
        ledger_cli("crawl", *step)
    data = report_data(ledger_cli, tmp_path / "mine.html")
    assert [list(step["sheets"]) for step in data["steps"]][1:] == [["Ada"]] * 6
    assert {row["actor"] for row in data["log"][1:]} == {"Ada"}
    pool = data["pool"]
    last = data["steps"][-1]
    keys, values = pool[last["sheets"]["Ada"]]
    sheet = {k: pool[i] for k, i in zip(pool[keys], values, strict=True)}
    assert sheet["day"] == 1 and sheet["health"] == 15
