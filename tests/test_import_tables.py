"""A campaign's stored tables are checked at import against the system's own table types.

A crawl campaign stores its tables in its start event. A forger who edits them (an
item's attack +1000, an enemy's Health below zero, a terrain row that is a number) and
re-seals the chain must be refused in one line, nothing written: the stored tables are
judged by the same types, bounds and checks as a table file given at the start. The
older golden logs, whose tables were valid, keep importing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

try:
    from tests import helpers_forgery as forgery
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_forgery as forgery  # type: ignore[no-redef]
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.errors import TableError, TamperError
from ledger.systems.crawl import tables as crawl_tables

SAMPLES = Path(__file__).parents[1] / "samples" / "crawl"
LOGS = sorted(SAMPLES.glob("*.jsonl"))
Tables = dict[str, Any]


def tables_of(events: list[dict[str, Any]]) -> Tables:
    return events[0]["event"]["tables"]  # type: ignore[no-any-return]


EDITS: dict[str, Callable[[Tables], None]] = {
    "an item's attack +1000": lambda t: t["items"]["knife"].update(attack=1000),
    "an enemy's attack 10**15": lambda t: t["enemies"]["wild dog"].update(attack=10**15),
    "an enemy's Health below zero": lambda t: t["enemies"]["wild dog"].update(health=-5),
    "an enemy's Health as text": lambda t: t["enemies"]["wild dog"].update(health="lots"),
    "a terrain row as a number": lambda t: t["terrain"].update({"1": 7}),
    "a row as a list": lambda t: t["events"]["forest"].update({"2": [1, 2]}),
    "a price below zero": lambda t: t["shop"]["bar"].update(price=-3),
    "an escape beyond the die": lambda t: t["enemies"]["wild dog"].update(esc=9),
    "a start with 10**9 bits": lambda t: t["start"].update(bits=10**9),
    "an enemy no table names": lambda t: t["encounters"]["forest"].update({"1": "nobody"}),
    "a row's Health change of 1000": lambda t: t["events"]["forest"]["2"].update(health=1000),
    "a table left out": lambda t: t.pop("ruins"),
    "an unknown table": lambda t: t.update(extra={}),
    "a terrain's events left out": lambda t: t["events"].pop("forest"),
}


def forged(tmp_path: Path, edit: Callable[[Tables], None], log: Path = SAMPLES / "campaign.jsonl") -> Path:
    def change(_head: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        edit(tables_of(events))
        return events

    return forgery.forge_export(log, tmp_path / "forged.jsonl", change)


@pytest.mark.parametrize("case", list(EDITS))
def test_an_edited_stored_table_is_refused_at_import(case: str, tmp_path: Path) -> None:
    path = forged(tmp_path, EDITS[case])
    with Ledger(str(tmp_path / "t.ledger")) as book:
        with path.open("rb") as data, pytest.raises(TamperError) as refused:
            book.import_(data, "Copy")
        assert "Copy" not in {c.name for c in book.campaigns()}
    message = str(refused.value)
    assert "\n" not in message
    assert "fails verification at version 1: import refused: the stored tables" in message


@pytest.mark.parametrize(
    "case", ["an item's attack +1000", "a terrain row as a number", "an enemy's Health as text"]
)
def test_the_command_line_refuses_an_edited_table_with_exit_4(case: str, tmp_path: Path) -> None:
    path = forged(tmp_path, EDITS[case])
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Home")
    before = hr.store_rows(db)
    line = hr.assert_one_line_error(hr.invoke(db, "import", str(path), "--name", "Copy"), code=4)
    assert "the stored tables" in line
    assert hr.store_rows(db) == before


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_the_stored_tables_of_every_crawl_golden_log_pass(path: Path) -> None:
    _head, events = forgery.read_export(path)
    crawl_tables.check_stored(tables_of(events))


def test_a_table_file_and_the_tables_it_stores_are_judged_alike(tmp_path: Path) -> None:
    stored, _source = crawl_tables.load_tables(None)
    crawl_tables.check_stored(stored)
    stored["items"]["knife"]["attack"] = 1000
    with pytest.raises(TableError, match="the stored tables"):
        crawl_tables.check_stored(stored)
    text = (SAMPLES / "tables.toml").read_text(encoding="utf-8")
    edited = tmp_path / "tables.toml"
    edited.write_text(
        text.replace("[items.knife]\nattack = 2", "[items.knife]\nattack = 1000"), encoding="utf-8"
    )
    assert edited.read_text(encoding="utf-8") != text
    with pytest.raises(TableError, match="attack"):
        crawl_tables.load_tables(str(edited))


# --- a campaign stored by an older ledger, whose tables hold no table ---------------------

NOT_TABLES: dict[str, Any] = {"a list": [1, 2], "a number": 5, "text": "x"}
PLACES: dict[str, Callable[[Tables, Any], None]] = {
    "terrain": lambda t, v: t.update(terrain=v),
    "chapters": lambda t, v: t.update(chapters=v),
    "a chapter": lambda t, v: t["chapters"].update({"1": v}),
    "items": lambda t, v: t.update(items=v),
    "the knife": lambda t, v: t["items"].update(knife=v),
}


@pytest.mark.parametrize(
    ("command", "place"), [("crawl map", "terrain"), *(("report", place) for place in PLACES)]
)
@pytest.mark.parametrize("value", list(NOT_TABLES))
def test_map_and_report_on_stored_tables_holding_no_table_refuse_in_one_line(
    command: str, place: str, value: str, tmp_path: Path
) -> None:
    """Such tables are refused at import; an older ledger may have stored them, so the
    campaign is written to the store directly."""
    from ledger.systems.crawl.order import Move

    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        camp = book.new_campaign("crawl", "Copy", seed=3)
        book.execute(Move(direction="n"), "Copy")
    forgery.forge_store(db, camp.id, lambda events: PLACES[place](tables_of(events), NOT_TABLES[value]))
    args = [*command.split(), *(["-o", str(tmp_path / "r.html")] if command == "report" else [])]
    line = hr.assert_one_line_error(hr.invoke(db, "-c", "Copy", *args), code=1)
    assert "the campaign's stored tables hold" in line


# --- the other systems with tables ------------------------------------------------------------

ROOT = Path(__file__).parents[1] / "samples"
OTHER_EDITS: dict[str, tuple[str, Callable[[Tables], None], str]] = {
    "d100 a skill at 1000": ("d100", lambda t: t["skills"].update(Actuar=1000), "not d100 tables"),
    "d100 hit points from no characteristic": (
        "d100",
        lambda t: t["derived"]["hp"].update(of=[]),
        "not d100 tables",
    ),
    "d100 a recovery that is no dice": (
        "d100",
        lambda t: t["recovery"].update(hp_per_week="lots"),
        "must be a whole number or dice",
    ),
    "yearzero a Rot level as text": (
        "yearzero",
        lambda t: t["rot_levels"].update({"1": "x"}),
        "not yearzero tables",
    ),
    "yearzero a critical injury left out": (
        "yearzero",
        lambda t: t["critical_injuries"].pop("2"),
        "rows 2 to 12",
    ),
    "dicepool a weapon's damage as a number": (
        "dicepool",
        lambda t: t["weapons"]["ares_predator"].update(damage=9),
        "not dicepool tables",
    ),
    "dicepool a section left out": ("dicepool", lambda t: t.pop("ranges"), "have no [ranges]"),
    "dicepool an unknown field": (
        "dicepool",
        lambda t: t["skills"]["pistols"].update(bonus=1000),
        "not dicepool tables",
    ),
    "d20 a weapon of 50 dice": (
        "d20",
        lambda t: t["weapons"]["pistol"].update(count=50),
        "weapon 'pistol' count: expected a whole number from 1 to 10, got 50",
    ),
    "d20 an endurance die as text": (
        "d20",
        lambda t: t["classes"]["marine"].update(endurance="lots"),
        "is not one of d4",
    ),
    "d20 a difficulty of 1000": (
        "d20",
        lambda t: t["difficulties"].update(hard=1000),
        "not d20 tables",
    ),
    "d20 a panic entry left out": (
        "d20",
        lambda t: t["panic"]["results"].pop("3"),
        "needs entries 1 to 6",
    ),
}


@pytest.mark.parametrize("case", list(OTHER_EDITS))
def test_another_systems_edited_stored_table_is_refused_at_import(case: str, tmp_path: Path) -> None:
    system, edit, problem = OTHER_EDITS[case]
    path = forged(tmp_path, edit, ROOT / system / "campaign.jsonl")
    with Ledger(str(tmp_path / "t.ledger")) as book:
        with path.open("rb") as data, pytest.raises(TamperError) as refused:
            book.import_(data, "Copy")
        assert "Copy" not in {c.name for c in book.campaigns()}
    message = str(refused.value)
    assert "\n" not in message
    assert "fails verification at version 1: import refused: " in message
    assert "the stored tables" in message and problem in message


def stored_crawl(tmp_path: Path, edit: Callable[[Tables], None]) -> str:
    """A seeded crawl campaign whose stored tables an older ledger let be edited: written to
    the store directly, as an import refuses them now."""
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        camp = book.new_campaign("crawl", "Copy", seed=3)
    forgery.forge_store(db, camp.id, lambda events: edit(tables_of(events)))
    return db


def every_terrain_a_number(t: Tables) -> None:
    t["terrain"] = {str(face): face for face in range(1, 7)}


def every_event_a_wild_dog_with_text_health(t: Tables) -> None:
    t["enemies"]["wild dog"]["health"] = "lots"
    for rows in t["events"].values():
        for total in rows:
            rows[total] = {"text": "a dog growls", "enemy": "wild dog"}


@pytest.mark.parametrize(
    ("edit", "commands", "problem"),
    [
        (every_terrain_a_number, [["move", "n"], ["terrain"]], "a number where the terrain of a"),
        (
            every_event_a_wild_dog_with_text_health,
            [["move", "n"], ["terrain"], ["event"]],
            "give enemy 'wild dog' a value no table file can",
        ),
    ],
    ids=["a terrain row as a number", "an enemy's Health as text"],
)
def test_a_rule_reading_a_stored_value_of_another_type_refuses_and_writes_no_unreadable_event(
    edit: Callable[[Tables], None], commands: list[list[str]], problem: str, tmp_path: Path
) -> None:
    db = stored_crawl(tmp_path, edit)
    for args in commands[:-1]:
        assert hr.invoke(db, "-c", "Copy", "crawl", *args).exit_code == 0
    before = hr.store_rows(db)
    line = hr.assert_one_line_error(hr.invoke(db, "-c", "Copy", "crawl", *commands[-1]), code=1)
    assert problem in line
    assert hr.store_rows(db) == before
    for args in (["sheet"], ["log"], ["undo"], ["export", "-o", str(tmp_path / "out.jsonl")]):
        result = hr.invoke(db, "-c", "Copy", *args)
        assert result.exit_code == 0, (args, result.stderr)
