"""The d20 table files, typed: a bad value, a missing key or an unknown one is refused
with the file and its place, in one line, and the sample tables load as they did."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ledger.cli.main import cli
from ledger.errors import TableError
from ledger.systems.d20.tables import load_tables
from tests.helpers_tables import refused_file


def refusal(tmp_path: Path, text: str) -> TableError:
    return refused_file(load_tables, tmp_path, text)


def test_the_sample_tables_load_whole() -> None:
    tables, source = load_tables(None)
    assert source == "samples/d20 (sample tables)"
    assert list(tables) == [
        "modifiers",
        "levels",
        "income_per_level",
        "difficulties",
        "skills",
        "weapons",
        "classes",
        "panic",
        "traumas",
        "sample",
    ]
    assert tables["weapons"]["pulse rifle"] == {
        "kind": "ranged",
        "count": 1,
        "sides": 10,
        "autofire": True,
        "range": 40,
        "ammo": "rifle rounds",
    }
    assert tables["classes"]["marine"]["usage"] == {"rifle rounds": 8, "oxygen": 8, "rations": 6}
    assert tables["panic"]["die"] == 6 and tables["panic"]["trauma_from"] == 4
    assert [band["min"] for band in tables["modifiers"]] == [3, 4, 6, 9, 13, 16, 18]
    json.dumps(tables)  # plain data, as the start event stores it


def test_a_value_of_the_wrong_type_is_refused_at_its_place(tmp_path: Path) -> None:
    error = refusal(
        tmp_path,
        '[classes.cook]\nendurance = "d6"\nmoney = "lots"\n[classes.cook.talents]\na = "x"\nb = "y"\n',
    )
    assert error.message.endswith("own.toml: classes.cook.money: expected a whole number, got text")
    assert error.fix is not None and (error.fix.action, error.fix.table) == (
        "edit_tables",
        "classes.cook",
    )


def test_a_missing_key_is_refused_at_its_place(tmp_path: Path) -> None:
    error = refusal(tmp_path, "[[modifiers]]\nmin = 3\nmax = 18\n")
    assert error.message.endswith("own.toml: modifiers[1]: missing key `mod`")
    error = refusal(tmp_path, '[weapons.laser]\ndamage = "1d8"\n')
    assert error.message.endswith("own.toml: weapons.laser: missing key `kind`")


def test_an_unknown_key_is_refused_at_its_place(tmp_path: Path) -> None:
    error = refusal(tmp_path, '[weapons."combat knife"]\nkind = "melee"\ndamage = "1d4"\ncolour = "red"\n')
    assert error.message.endswith(
        'own.toml: weapons."combat knife": unknown key `colour`; use any of kind, damage, range, ammo, autofire'
    )
    error = refusal(tmp_path, '[weapon.x]\nkind = "melee"\n')
    assert "own.toml: unknown section `weapon`; use any of" in error.message


def test_a_value_out_of_bounds_and_what_a_type_cannot_say(tmp_path: Path) -> None:
    error = refusal(tmp_path, "[difficulties]\nimpossible = 50\n")
    assert error.message.endswith("own.toml: difficulties.impossible: expected a whole number <= 40, got 50")
    error = refusal(tmp_path, "[[modifiers]]\nmin = 3\nmax = 17\nmod = 0\n")
    assert "own.toml: [[modifiers]] bands cover scores" in error.message
    weapons = '[weapons.unarmed]\nkind = "melee"\ndamage = "1d3"\n'
    error = refusal(tmp_path, weapons)  # the sample classes carry weapons this file lacks
    assert "own.toml: class 'marine': weapon 'pulse rifle' is not in [weapons]" in error.message


def test_the_command_line_names_the_table_to_fix(tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text('[classes.cook]\nendurance = 6\n[classes.cook.talents]\na = "x"\nb = "y"\n')
    result = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "t.ledger"), "new", "d20", "Bad", "--tables", str(own)]
    )
    assert result.exit_code == 1
    assert result.output.count("\n") == 1
    assert (
        "classes.cook.endurance: expected text, got a whole number; fix the [classes.cook] table"
        in result.output
    )
