"""The yearzero tables file is typed: a wrong entry is refused on one line naming the file,
the entry and the table to fix; the sample loads and is stored exactly as it is written."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from ledger.cli import fixes
from ledger.errors import TableError
from ledger.systems.yearzero.tables import SAMPLE, Tables, decode, in_english, listing, load_tables

SAMPLE_TEXT = SAMPLE.read_text(encoding="utf-8")
TEXT = re.sub(r'\{ en = ("[^"]*"), es = "[^"]*" \}', r"\1", SAMPLE_TEXT)
"""The sample file with its texts in English alone (as a one-language file writes them)."""


def refusal(text: str) -> TableError:
    with pytest.raises(TableError) as refused:
        decode(text, "mine.toml")
    return refused.value


def edited(old: str, new: str) -> str:
    assert TEXT.count(old) == 1, old
    return TEXT.replace(old, new)


def test_the_sample_tables_load_as_stored_data_identical_to_the_file() -> None:
    tables, source = load_tables(None)
    written = tomllib.loads(SAMPLE_TEXT)
    assert in_english(written) == tomllib.loads(TEXT)
    assert source == "sample"
    # same keys, same order, its texts in English: the start event is unchanged
    assert json.dumps(tables) == json.dumps(in_english(written))
    typed = decode(TEXT, "sample")
    assert isinstance(typed, Tables) and typed.zone.ark == "F8"
    assert typed.critical_injuries["12"].instant is True and typed.rot_levels["2"].minutes_per_point == 60
    assert [t.name for t in listing(tables)] == ["sector_rot", "critical_injuries", "rot_levels", "skills"]


OWN = """
[zone]
ark = "B2"
[rot_levels.0]
minutes_per_point = 0
[sector_rot]
1 = 0
2 = 0
3 = 0
4 = 0
5 = 0
6 = 0
""" + "".join(f'[critical_injuries.{n}]\nname = "bruise {n}"\n' for n in range(2, 13))


def test_a_key_the_file_leaves_out_stays_out_of_the_stored_tables(tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text(OWN, encoding="utf-8")
    tables, source = load_tables(str(own))
    assert source == str(own)
    assert tables == tomllib.loads(OWN)  # no sample flag, no settings, no flags nobody wrote
    assert tables["critical_injuries"]["2"] == {"name": "bruise 2"}
    assert listing(tables)[2].rows[0].text == "level 0: no Rot"


def test_a_value_of_the_wrong_type_is_refused_at_its_entry() -> None:
    error = refusal(
        edited('heal_days = 6\neffect = "Force and Fight', 'heal_days = "six"\neffect = "Force and Fight')
    )
    assert error.message == "mine.toml: critical_injuries.5.heal_days: expected a whole number, got text"
    assert error.fix is not None and error.fix.action == "edit_tables"
    assert error.fix.table == "critical_injuries.5"
    line = fixes.message(error)
    assert line.count("\n") == 0 and line.endswith(
        "fix the [critical_injuries.5] table of the tables file (`ledger new ... --tables FILE`)"
    )


def test_true_is_not_a_number_and_one_is_not_true() -> None:
    assert refusal(edited("night_end = 6", "night_end = true")).message.endswith(
        "settings.night_end: expected a whole number, got true or false"
    )
    assert refusal(edited('name = "winded"', 'name = "winded"\nlethal = 1')).message.endswith(
        "critical_injuries.7.lethal: expected true or false, got a whole number"
    )


def test_a_value_out_of_range_names_the_bound() -> None:
    assert refusal(edited("night_start = 20", "night_start = 25")).message.endswith(
        "settings.night_start: expected a whole number <= 23, got 25"
    )
    assert refusal(edited("minutes_per_point = 60 ", "minutes_per_point = -60 ")).message.endswith(
        "rot_levels.2.minutes_per_point: expected a whole number >= 0, got -60"
    )


def test_a_missing_field_is_refused_at_its_entry() -> None:
    error = refusal(edited('name = "concussion"\n', ""))
    assert error.message == "mine.toml: critical_injuries.8: missing key `name`"
    assert refusal(edited("minutes_per_point = 1440", "")).message.endswith(
        "rot_levels.1: missing key `minutes_per_point`"
    )


def test_missing_tables_are_named_together() -> None:
    error = refusal('sample = false\n[zone]\nark = "F8"\n')
    assert error.message == "mine.toml: missing [rot_levels], [sector_rot], [critical_injuries]"


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ("[zone]\n", "[zone]\nharbour = 'A1'\n", "zone: unknown key `harbour`; use any of ark"),
        (
            "sample = true",
            "sample = true\ncolour = 'red'",
            "unknown section `colour`; use any of sample, settings, zone, rot_levels, sector_rot, critical_injuries",
        ),
        (
            'name = "winded"',
            'name = "winded"\nletal = true',
            "critical_injuries.7: unknown key `letal`; use any of name, lethal, instant, deadline_minutes, heal_days, effect",
        ),
        (
            "max_hours = 168",
            "max_hours = 168\nmax_days = 7",
            "settings: unknown key `max_days`; use any of start_hour, night_start, night_end, suit_sixes_to_absorb, max_hours",
        ),
    ],
)
def test_an_unknown_key_is_refused_rather_than_ignored(old: str, new: str, where: str) -> None:
    """A misspelt key (``letal``) would otherwise leave the injury quietly not lethal."""
    error = refusal(edited(old, new))
    assert error.message == f"mine.toml: {where}"


def test_rules_across_entries_are_refused_with_the_entry() -> None:
    assert refusal(edited("deadline_minutes = 10\n", "")).message.endswith(
        "critical_injuries.2: a lethal injury that does not kill at once needs deadline_minutes"
    )
    assert refusal(edited('ark = "F8"', 'ark = "8F"')).message.endswith(
        "zone: ark should be a sector like \"F8\" (letters then a number), got '8F'"
    )
    assert refusal(edited('name = "winded"', 'name = "  "')).message.endswith(
        "critical_injuries.7: name should be a non-empty text"
    )
    assert refusal(edited("[rot_levels.3]", "[rot_levels.x]")).message.endswith(
        "rot_levels: key `x`: expected text matching regex '^[0-9]+$'"
    )
    assert refusal(edited("6 = 2", "6 = 7")).message.endswith(
        "sector_rot.6 should be a level listed in [rot_levels], got 7"
    )
    assert refusal(edited("6 = 2\n", "")).message.endswith(
        "[sector_rot] should be rows 1 to 6, got ['1', '2', '3', '4', '5']"
    )
    assert refusal(edited("[critical_injuries.7]", "[critical_injuries.13]")).message.endswith(
        "[critical_injuries] should be rows 2 to 12, got 'missing 7'"
    )


def test_a_file_that_is_not_toml_or_not_there_is_refused(tmp_path: Path) -> None:
    assert "is not valid TOML" in refusal(TEXT + "\n= =\n").message
    with pytest.raises(TableError, match="does not exist"):
        load_tables(str(tmp_path / "none.toml"))
    latin = tmp_path / "latin.toml"
    latin.write_bytes(TEXT.replace("Rot oasis", "Rot oasis \xe9").encode("latin-1"))
    with pytest.raises(TableError, match="is not UTF-8 text"):
        load_tables(str(latin))
