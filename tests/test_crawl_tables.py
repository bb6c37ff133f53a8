"""The crawl tables file: typed with msgspec, each refusal one line with its path and its fix,
and stored in a campaign's start event exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger.errors import TableError
from ledger.systems.crawl.tables import CrawlTables, decode, load_tables
from tests.test_crawl import write_tables

SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "crawl"


def refusal(tmp_path: Path, edit: tuple[str, str] | None = None, text: str | None = None) -> TableError:
    """The refusal of the quiet test tables with one edit (or of ``text``)."""
    path = tmp_path / "bad.toml"
    if text is None:
        assert edit is not None
        good = Path(write_tables(tmp_path / "good.toml")).read_text(encoding="utf-8")
        assert edit[0] in good
        text = good.replace(edit[0], edit[1], 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TableError) as refused:
        load_tables(str(path))
    assert "\n" not in str(refused.value)
    return refused.value


def test_the_sample_tables_load_as_the_golden_logs_stored_them() -> None:
    tables, source = load_tables(None)
    assert source == "sample" and tables["sample"] is True
    for log in ("campaign.jsonl", "campaign-2026-11-29.jsonl"):
        with (SAMPLES / log).open(encoding="utf-8") as lines:
            started = next(json.loads(line) for line in lines if '"campaign.started"' in line)
        assert json.dumps(started["event"]["tables"]) == json.dumps(tables), log


def test_the_sample_tables_decode_to_typed_tables() -> None:
    tables = decode((SAMPLES / "tables.toml").read_text(encoding="utf-8"), "sample")
    assert isinstance(tables, CrawlTables)
    assert tables.enemies["wild dog"].esc == 2 and tables.enemies["wild dog"].robot is False
    assert tables.items["bow"].bow is True and tables.items["knife"].attack == 2
    assert tables.chapters.c3.god is True and tables.chapters.c1.r2.technique == 3
    assert tables.shop["pipe"].price == 5 and tables.shop["pipe"].item == "pipe"


def test_a_bad_type_is_refused_with_its_path(tmp_path: Path) -> None:
    error = refusal(tmp_path, ("[enemies.rat]\nhealth = 5", '[enemies.rat]\nhealth = "5"'))
    assert error.message == f"{tmp_path / 'bad.toml'}: enemies.rat.health: expected a whole number, got text"
    assert error.fix is not None and (error.fix.action, error.fix.table) == (
        "edit_tables",
        "enemies.rat",
    )


def test_a_value_out_of_range_names_what_was_given(tmp_path: Path) -> None:
    error = refusal(tmp_path, ("[enemies.rat]\nhealth = 5", "[enemies.rat]\nhealth = 0"))
    assert error.message.endswith(": enemies.rat.health: expected a whole number >= 1, got 0")


def test_a_quoted_name_is_in_the_path_as_toml_writes_it(tmp_path: Path) -> None:
    error = refusal(tmp_path, ('[items."solar taser"]\ntool = true', '[items."solar taser"]\ntool = 1'))
    assert error.message.endswith(': items."solar taser".tool: expected true or false, got a whole number')
    assert error.fix is not None and error.fix.table == 'items."solar taser"'


def test_a_missing_field_is_refused_with_its_path(tmp_path: Path) -> None:
    error = refusal(tmp_path, ("[enemies.rat]\nhealth = 5\n", "[enemies.rat]\n"))
    assert error.message.endswith(": enemies.rat: missing key `health`")
    row = refusal(tmp_path, ('[ruins]\n1 = { text = "nothing 1" }\n', "[ruins]\n"))
    assert row.message.endswith(": ruins: missing key `1`")


def test_a_missing_table_is_refused_by_name(tmp_path: Path) -> None:
    good = Path(write_tables(tmp_path / "good.toml")).read_text(encoding="utf-8")
    start = good.index("[quests]")
    end = good.index("[chapters.1]")
    error = refusal(tmp_path, text=good[:start] + good[end:])
    assert error.message.endswith(": missing [quests]")
    assert error.fix is not None and error.fix.table == "quests"


def test_an_unknown_key_is_refused_with_its_path(tmp_path: Path) -> None:
    error = refusal(tmp_path, ('{ text = "a ration", bar = 1 }', '{ text = "a ration", bar = 1, gold = 2 }'))
    assert error.message.startswith(
        f"{tmp_path / 'bad.toml'}: events.default.7: unknown key `gold`; use any of "
    )
    assert "text, health, energy" in error.message
    setting = refusal(tmp_path, ('repeat = "pass"', 'weather = "rain"'))
    assert setting.message.endswith(
        ": settings: unknown key `weather`; use any of terrain, repeat, escape_hunger"
    )
    top = refusal(tmp_path, ("sample = false", "sample = false\nflavour = 1"))
    assert ": unknown section `flavour`; use any of sample, start, settings," in top.message


def test_a_choice_outside_its_list_names_the_list(tmp_path: Path) -> None:
    error = refusal(tmp_path, ('{ text = "a ration", bar = 1 }', '{ text = "a ration", treasure = "up" }'))
    assert error.message.endswith(
        ": events.default.7.treasure: invalid enum value 'up'; use any of n, ne, se, s, sw, nw"
    )
    row = refusal(tmp_path, ("[events.default]\n", '[events.default]\n13 = { text = "x" }\n'))
    assert row.message.endswith(
        ": events.default: key `13`: invalid enum value '13'; use any of 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12"
    )


def test_a_list_entry_is_named_by_its_index(tmp_path: Path) -> None:
    error = refusal(tmp_path, ('inventory = ["knife"]', 'inventory = ["knife", 3]'))
    assert error.message.endswith(": start.inventory[2]: expected text, got a whole number")
    assert error.fix is not None and error.fix.table == "start"


def test_names_the_types_cannot_check_are_checked_after(tmp_path: Path) -> None:
    item = refusal(tmp_path, ('{ text = "a ration", bar = 1 }', '{ text = "a sword", item = "sword" }'))
    assert item.message.endswith(
        ": [events.default.7.item] gives item 'sword', which is not in [items] (knife, solar taser)"
    )
    inventory = refusal(tmp_path, ('inventory = ["knife"]', 'inventory = ["sword"]'))
    assert inventory.message.endswith(
        ": [start.inventory[0]] is 'sword', which is not in [items] (knife, solar taser)"
    )
    encounter = refusal(tmp_path, ('[encounters.plain]\n1 = "rat"', '[encounters.plain]\n1 = "bat"'))
    assert encounter.message.endswith(
        ": [encounters.plain.1] names enemy 'bat', which is not in [enemies] (rat, dummy, god)"
    )
    god = refusal(tmp_path, ("[enemies.god]", "[enemies.godling]"))
    assert god.message.endswith(": [enemies] has no god")
    twice = refusal(tmp_path, ('2 = "wood"', '2 = "plain"'))
    assert twice.message.endswith(": [terrain] names 'plain' more than once")
    stray = refusal(tmp_path, ("[ruins]", '[events.lava]\n2 = { text = "hot" }\n[ruins]'))
    assert stray.message.endswith(": [events.lava] names no terrain")
    shop = refusal(tmp_path, ('text = "a bar"\nbar = 1', 'text = "a bar"\nenemy = "rat"'))
    assert shop.message.endswith(": [shop.bar.enemy] brings an enemy")


def test_a_terrain_without_all_its_events_is_refused(tmp_path: Path) -> None:
    error = refusal(tmp_path, ('[events.default]\n2 = { text = "nothing 2" }\n', "[events.default]\n"))
    assert error.message.endswith(": [events.plain] has no row 2, nor has [events.default]")
    good = Path(write_tables(tmp_path / "good.toml")).read_text(encoding="utf-8")
    rows = good.replace('[events.default]\n2 = { text = "nothing 2" }\n', "[events.default]\n")
    for terrain in ("plain", "wood", "hill", "bog", "scrap", "peak"):
        rows += f'\n[events.{terrain}]\n2 = {{ text = "{terrain} 2" }}\n'
    path = tmp_path / "rows.toml"
    path.write_text(rows, encoding="utf-8")
    tables, _ = load_tables(str(path))
    assert tables["events"]["bog"]["2"] == {"text": "bog 2"}
    assert list(tables["events"]["bog"]) == [str(n) for n in range(2, 13)]


def test_an_outcome_keeps_the_keys_written_in_their_order(tmp_path: Path) -> None:
    path = write_tables(
        tmp_path / "t.toml", rows={7: '{ text = "a cache", bar = 1, bits = 0, fruit = 2, town = false }'}
    )
    tables, _ = load_tables(path)
    row = tables["events"]["plain"]["7"]
    assert row == {"text": "a cache", "bar": 1, "bits": 0, "fruit": 2, "town": False}
    assert list(row) == ["text", "bar", "bits", "fruit", "town"]
    assert tables["settings"] == {"terrain": "d6", "repeat": "pass", "escape_hunger": "fixed"}
    assert tables["enemies"]["rat"] == {"health": 5, "attack": 0, "defense": 0, "esc": 2, "robot": False}
    assert tables["items"]["knife"] == {"attack": 2, "defense": 0, "bow": False, "tool": False}


def test_a_file_that_is_not_toml_says_so(tmp_path: Path) -> None:
    error = refusal(tmp_path, text="sample = \n")
    assert error.message.startswith(f"table file {str(tmp_path / 'bad.toml')!r} is not valid TOML (")
    assert error.fix is not None and error.fix.text == "fix the syntax"
    (tmp_path / "latin.toml").write_bytes(b"sample = '\xe9'\n")
    with pytest.raises(TableError, match="is not UTF-8 text"):
        load_tables(str(tmp_path / "latin.toml"))
    with pytest.raises(TableError, match="cannot be read"):
        load_tables(str(tmp_path))


def test_a_line_break_in_a_key_stays_on_the_one_line(tmp_path: Path) -> None:
    error = refusal(tmp_path, ("sample = false", 'sample = false\n"a\\nb" = 1'))
    assert ": unknown section `a\\nb`; use any of sample," in error.message
    assert error.fix is not None and error.fix.table == '"a\\nb"'
    enemy = refusal(
        tmp_path,
        ("[enemies.rat]\nhealth = 5", '[enemies."r\\nt"]\nhealth = "5"\nesc = 1\n[enemies.rat]\nhealth = 5'),
    )
    assert enemy.message.endswith(': enemies."r\\nt".health: expected a whole number, got text')
