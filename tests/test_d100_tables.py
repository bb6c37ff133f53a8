"""The d100 table file, typed: a bad value, a missing key or an unknown one is refused
with the file and its place, in one line, and the sample tables load as they did."""

from __future__ import annotations

import typing
from pathlib import Path

from click.testing import CliRunner

from ledger.cli.main import cli
from ledger.errors import TableError
from ledger.systems.d100.model import CHARACTERISTICS
from ledger.systems.d100.tables import SAMPLE, Characteristic, load_tables
from tests.helpers_tables import refused_file

TEXT = SAMPLE.read_text(encoding="utf-8")


def refusal(tmp_path: Path, text: str) -> TableError:
    return refused_file(load_tables, tmp_path, text)


def test_the_sample_tables_load_whole() -> None:
    tables, source = load_tables(None)
    assert source == "samples/d100/tables.toml"
    assert list(tables) == ["sample", "derived", "recovery", "rules", "tests", "skills"]
    assert tables["derived"]["hp"] == {"of": ["CON", "TAM"], "times": 1, "divide": 2}
    assert tables["recovery"] == {"hp_per_week": "1d3", "valor_per_day": "1"}
    assert tables["tests"]["Idea"] == {"characteristic": "INT", "times": 5}
    assert tables["sample"] is True and tables["rules"] == {"luck_buys_fumble": False}
    assert typing.get_args(Characteristic) == CHARACTERISTICS


def test_a_value_of_the_wrong_type_is_refused_at_its_place(tmp_path: Path) -> None:
    error = refusal(tmp_path, TEXT.replace("Trepar = 40", 'Trepar = "forty"'))
    assert error.message.endswith("own.toml: skills.Trepar: expected a whole number, got text")
    assert error.fix is not None and (error.fix.action, error.fix.table) == (
        "edit_tables",
        "skills",
    )
    error = refusal(
        tmp_path, TEXT.replace('Idea = { characteristic = "INT"', 'Idea = { characteristic = "IQ"')
    )
    assert "own.toml: tests.Idea.characteristic: invalid enum value 'IQ'" in error.message


def test_a_missing_key_is_refused_at_its_place(tmp_path: Path) -> None:
    error = refusal(tmp_path, TEXT.replace('[derived.luck]\nof = ["POD"]', "[derived.luck]"))
    assert error.message.endswith("own.toml: derived.luck: missing key `of`")
    error = refusal(tmp_path, TEXT.replace('valor_per_day = "1"', ""))
    assert error.message.endswith("own.toml: recovery: missing key `valor_per_day`")
    error = refusal(tmp_path, TEXT.split("[skills]")[0])
    assert error.message.endswith("own.toml: missing [skills]")
    assert error.fix is not None and error.fix.table == "skills"


def test_an_unknown_key_is_refused_at_its_place(tmp_path: Path) -> None:
    error = refusal(tmp_path, TEXT.replace("[derived.luck]", "[derived.fortune]"))
    assert error.message.endswith(
        "own.toml: derived: unknown key `fortune`; use any of hp, valor, fatigue, luck"
    )
    error = refusal(
        tmp_path, TEXT.replace("luck_buys_fumble = false", "luck_buys_fumble = false\nluck_heals = true")
    )
    assert error.message.endswith("own.toml: rules: unknown key `luck_heals`; use any of luck_buys_fumble")
    error = refusal(tmp_path, TEXT.replace("[recovery]", "[recover]"))
    assert "own.toml: unknown section `recover`; use any of derived, recovery" in error.message


def test_what_a_type_cannot_say_is_checked_after_decoding(tmp_path: Path) -> None:
    error = refusal(tmp_path, TEXT.replace('hp_per_week = "1d3"', 'hp_per_week = "a few"'))
    assert "[recovery] hp_per_week = 'a few' must be a whole number or dice" in error.message
    error = refusal(tmp_path, TEXT.replace("Trepar = 40", 'Trepar = 40\n"TREPAR" = 30'))
    assert "two skills or tests share a name" in error.message
    error = refusal(tmp_path, TEXT.replace("Trepar = 40", "Trepar = 400"))
    assert error.message.endswith("own.toml: skills.Trepar: expected a whole number <= 100, got 400")


def test_the_command_line_names_the_table_to_fix(tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text(TEXT.replace("divide = 2", "divide = 0"), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "t.ledger"), "new", "d100", "Bad", "--tables", str(own)]
    )
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert (
        "derived.hp.divide: expected a whole number >= 1, got 0; fix the [derived.hp] table" in result.output
    )
