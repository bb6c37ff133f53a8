"""The dicepool table files: typed decoding, the path of what is wrong, the data a campaign keeps."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from ledger import Ledger
from ledger.cli.fixes import message
from ledger.errors import TableError
from ledger.systems.dicepool.tables import SAMPLES, SECTIONS, load_tables
from tests.helpers_tables import refused_file

GUN = '[weapons.gun]\nname = "Gun"\nclass = "light_pistol"\nskill = "pistols"\ndamage = "6L"\n'


def refused(tmp_path: Path, text: str) -> TableError:
    return refused_file(load_tables, tmp_path, text)


def test_the_sample_tables_load_as_their_files_say() -> None:
    tables, source = load_tables(None)
    assert source == "samples/dicepool (sample content)"
    for section in SECTIONS:
        raw = tomllib.loads((SAMPLES / f"{section}.toml").read_text())[section]
        # the start event keeps the sample as written: same keys, same order, no default filled in
        assert tables[section] == raw
        assert list(tables[section]) == list(raw)
    assert "burst" not in tables["weapons"]["ares_predator"]
    assert tables["skills"]["read_write"]["related"] == []


def test_a_wrong_type_is_refused_with_its_path(tmp_path: Path) -> None:
    error = refused(
        tmp_path,
        '[ranges.pistol]\nshort = 5\nmedium = "far"\nlong = 30\nextreme = 50\n',
    )
    assert error.message.endswith("own.toml: ranges.pistol.medium: expected a whole number, got text")
    assert "own.toml" in error.message
    assert error.fix is not None and error.fix.action == "edit_tables"
    assert error.fix.table == "ranges.pistol"
    assert message(error).endswith(
        "fix the [ranges.pistol] table of the tables file (`ledger new ... --tables FILE`)"
    )


def test_a_missing_field_is_refused_with_its_path(tmp_path: Path) -> None:
    error = refused(tmp_path, '[weapons.gun]\nname = "Gun"\nclass = "light_pistol"\ndamage = "6L"\n')
    assert error.message.endswith("own.toml: weapons.gun: missing key `skill`")


def test_an_unknown_key_is_refused_with_its_path(tmp_path: Path) -> None:
    error = refused(tmp_path, GUN + 'colour = "red"\n')
    assert error.message.endswith(
        "own.toml: weapons.gun: unknown key `colour`; use any of name, class, skill, damage, burst, recoil_comp, stun, reach"
    )
    error = refused(tmp_path, '[rules]\nwound_modifiers = "worst"\nhouse_rule = true\n')
    assert error.message.endswith("own.toml: rules: unknown key `house_rule`; use any of wound_modifiers")


def test_the_path_names_the_entry_that_is_wrong(tmp_path: Path) -> None:
    text = '[skills.first]\nattribute = "body"\n\n[skills.second]\nattribute = "body"\nrelated = ["a", 3]\n'
    error = refused(tmp_path, text)
    assert error.message.endswith("own.toml: skills.second.related[2]: expected text, got a whole number")
    assert error.fix is not None and error.fix.table == "skills.second"


def test_an_out_of_range_number_and_an_empty_section_are_refused(tmp_path: Path) -> None:
    error = refused(tmp_path, "[modifiers.storm]\ntn = 25\n")
    assert error.message.endswith("own.toml: modifiers.storm.tn: expected a whole number <= 20, got 25")
    error = refused(tmp_path, "[modifiers]\n")
    assert error.message.endswith("own.toml: modifiers: expected a table of length >= 1")


def test_an_unknown_section_or_none_at_all_is_refused(tmp_path: Path) -> None:
    error = refused(tmp_path, "[monsters]\nx = 1\n")
    assert "own.toml: unknown section `monsters`; use any of sample, skills, ranges" in str(error)
    error = refused(tmp_path, "sample = true\n")
    assert "has no known section" in error.message


def test_what_a_type_cannot_say_is_checked_after_decoding(tmp_path: Path) -> None:
    error = refused(tmp_path, GUN.replace("light_pistol", "laser"))
    assert "[weapons.gun]: class must be 'melee' or a [ranges] class" in error.message
    error = refused(tmp_path, GUN.replace("6L", "6X"))
    assert "[weapons.gun]: damage code '6X' is not power + wound level" in error.message
    error = refused(tmp_path, "[ranges.pistol]\nshort = 5\nmedium = 4\nlong = 30\nextreme = 50\n")
    assert "short < medium < long < extreme (meters) is required, got [5, 4, 30, 50]" in error.message
    error = refused(tmp_path, '[skills.dancing]\nattribute = "grace"\n')
    assert "[skills.dancing]: attribute must be one of body, quickness" in error.message


def test_broken_toml_names_the_line(tmp_path: Path) -> None:
    error = refused(tmp_path, "[modifiers.rain]\ntn = \n")
    assert "is not valid TOML" in error.message and "line 2" in error.message


def test_a_users_tables_are_kept_as_plain_data_and_a_bad_file_starts_nothing(tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text(GUN)
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("dicepool", "alley", tables=str(own))
        tables = book.state("alley").core.tables
        assert tables["weapons"] == {
            "gun": {"name": "Gun", "class": "light_pistol", "skill": "pistols", "damage": "6L"}
        }
        own.write_text(GUN + "burst = 0\n")
        with pytest.raises(
            TableError, match=r"own.toml: weapons.gun.burst: expected a whole number >= 1, got 0"
        ):
            book.new_campaign("dicepool", "street", tables=str(own))
        assert [c.name for c in book.campaigns()] == ["alley"]
