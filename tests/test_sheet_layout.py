"""Sheets a player reads: each system declares its sheet's layout once (ledger.systems.SheetLayout),
and the terminal, ``--json`` (``view``) and the report draw that declaration; internal fields stay out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.projections import report, sheets
from ledger.systems import SheetLayout, get_system
from tests.conftest import Session

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
BUILT_IN = ["freeform", "crawl", "dicepool", "yearzero", "d100", "d20"]
SAMPLED = ["crawl", "dicepool", "yearzero", "d100", "d20"]
INTERNAL = {
    "crawl": ["phase", "position.q", "position.r", "meals_today_raw"],
    "d100": ["medicine_again_at_minute", "refundable_luck", "aiming", "steady", "therapy_day"],
    "yearzero": ["can_push", "recovery_resources", "broken_by"],
    "dicepool": ["tn_modifier_raw", "ignored"],
    "d20": ["synthetic", "panic_due", "run"],
}


def imported(tmp_path: Path, system: str) -> tuple[Ledger, str]:
    book = Ledger(str(tmp_path / "s.ledger"))
    with (SAMPLES / system / "campaign.jsonl").open("rb") as f:
        return book, book.import_(f).name


def row_keys(view: dict[str, Any]) -> list[str]:
    return [r["key"] for r in view["headline"]] + [r["key"] for s in view["sections"] for r in s["rows"]]


@pytest.mark.parametrize("system", BUILT_IN)
def test_every_built_in_system_declares_its_sheet(system: str) -> None:
    layout = get_system(system).read.sheet_layout
    assert isinstance(layout, SheetLayout) and layout.title
    assert layout.sections, "a sheet in sections, not one list"


@pytest.mark.parametrize("system", SAMPLED)
def test_every_field_a_layout_names_is_on_the_sample_sheets(tmp_path: Path, system: str) -> None:
    """A misspelt key in a layout would silently drop a field: over the sample campaign's
    whole history, every declared field is shown at least once."""
    book, name = imported(tmp_path, system)
    sysdef = book.system(book.campaign(name))
    assert sysdef.read.sheet_layout is not None
    data = report.build(book, name)
    seen: set[str] = set()
    for step in data["steps"]:
        for who in step["views"]:
            v = report.view_at(data, step, who)
            assert v is not None
            seen.update(row_keys(v))
    declared = {f.key for f in sysdef.read.sheet_layout.headline} | {
        f.key for s in sysdef.read.sheet_layout.sections for f in s.fields
    }
    optional = {"fight.enemy", "fight.health", "fight.attack", "fight.defense", "fight.esc", "fight.effects"}
    optional |= {"next_chapter", "overflow", "problems", "traumas", "flags", "injury_lines", "wound_level"}
    optional |= {"round", "shown_conditions", "wound_lines", "ignored", "exchange_line", "party_lines"}
    assert declared - seen <= optional, f"never shown: {sorted(declared - seen - optional)}"


@pytest.mark.parametrize("system", SAMPLED)
def test_the_report_sheet_leaves_internal_fields_out(tmp_path: Path, system: str) -> None:
    book, name = imported(tmp_path, system)
    data = report.build(book, name)
    last = data["steps"][-1]
    for who in last["views"]:
        v = report.view_at(data, last, who)
        assert v is not None
        keys = row_keys(v)
        for internal in INTERNAL[system]:
            assert internal not in keys, (who, internal)
        raw = report.sheet_at(data, last, who)
        assert len(keys) < len(raw) + 8, "a few fields a player reads, not every field of the data"


def test_d100_shows_the_skills_raised_above_their_base_not_all_of_them(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "d100")
    sysdef = book.system(book.campaign(name))
    state = book.state(name)
    who = state.core.characters[0]
    data = sysdef.read.sheet(state, who)
    assert sysdef.read.sheet_layout is not None
    v = sheets.view(sysdef.read.sheet_layout, data)
    (skills,) = [r for s in v["sections"] if s["title"] == "Skills" for r in s["rows"]]
    assert len(data["skills"]) > 40
    assert skills["value"] == data["trained"] and 0 < len(skills["value"]) < 10


def test_the_crawl_sheet_reads_as_a_player_says_it(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "crawl")
    sysdef = book.system(book.campaign(name))
    data = sysdef.read.sheet(book.state(name), None)
    assert sysdef.read.sheet_layout is not None
    v = sheets.view(sysdef.read.sheet_layout, data)
    head = {r["key"]: r for r in v["headline"]}
    assert head["health"]["max"] == 20 and head["energy"]["max"] == 20
    assert head["attack"]["text"] == f"{data['weapon']['attack']} with {data['weapon']['name']}"
    (at,) = [r for s in v["sections"] for r in s["rows"] if r["key"] == "position"]
    pos = data["position"]
    assert at["text"] == f"({pos['q']}, {pos['r']}) {pos['terrain']}"
    text = sheets.text(v)
    assert "Position Q" not in text and "Expected" not in text
    assert text.splitlines()[1].startswith(f"Health {data['health']}/20  Energy {data['energy']}/20")


def test_ledger_sheet_prints_the_view_and_json_carries_it(tmp_path: Path) -> None:
    s = Session(str(tmp_path / "t.ledger"))
    s("new", "crawl", "Moor", "--seed", "3")
    shown = s("sheet").stdout
    assert shown.splitlines()[0] == "the explorer in Moor, day 0: alive"
    assert "Supplies: bars 3   fruit 0   bits 3   arrows 0" in shown
    data = json.loads(s("--json", "sheet").stdout)
    layout = get_system("crawl").read.sheet_layout
    assert layout is not None
    raw = {k: v for k, v in data.items() if k != "view"}
    assert data["view"] == sheets.view(layout, raw)
    assert sheets.text(data["view"]) in shown


def test_a_section_shows_only_while_its_value_is_set() -> None:
    from ledger.systems import SheetField, SheetSection

    layout = SheetLayout(
        title=("{name}",),
        headline=(SheetField("hp", "hp"),),
        sections=(SheetSection("Fighting", (SheetField("fight.enemy", "enemy"),), when="fight"),),
    )
    calm = sheets.view(layout, {"name": "Ann", "hp": {"current": 3, "max": 9}, "fight": None})
    assert calm == {
        "title": "Ann",
        "headline": [{"key": "hp", "label": "hp", "value": 3, "max": 9}],
        "sections": [],
    }
    fighting = sheets.view(layout, {"name": "Ann", "hp": {"current": 3, "max": 9}, "fight": {"enemy": "rat"}})
    assert fighting["sections"] == [
        {"title": "Fighting", "rows": [{"key": "fight.enemy", "label": "enemy", "value": "rat"}]}
    ]
    assert sheets.text(fighting) == "Ann\nhp 3/9\nFighting: enemy rat"


def test_a_party_sheet_takes_the_title_for_no_character_yet() -> None:
    layout = get_system("yearzero").read.sheet_layout
    assert layout is not None
    v = sheets.view(layout, {"campaign": "Ark", "system": "yearzero", "time": {"text": "day 0 08:00"}})
    assert v["title"] == "Ark (yearzero) day 0 08:00: no characters yet"
