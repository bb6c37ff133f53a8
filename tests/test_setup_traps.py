"""What a new user trips over first: the README's test command and what it needs, the
documents a help text names, ``--json`` in UTF-8, and a refused ``ledger new`` that
leaves no ledger file behind."""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ledger.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _set_up_section() -> str:
    start = README.index("## Set up")
    return README[start : README.index("\n## ", start + 1)]


# --- the README's test command -----------------------------------------------------------------

NEEDS = [
    # (what the README must name, the test file that fails under CI=true without it, its words there)
    ("PostgreSQL", "conftest.py", "CI=true but {why}"),
    ("Chromium", "test_report_browser.py", "Chromium is not installed"),
    ("coin plugin", "test_coin.py", "the coin plugin is not installed"),
    ("d20", "test_dice_oracle.py", "in CI the oracle must run, never skip"),
    ("mount rights", "test_reliability_corruption.py", "no mount rights"),
]


@pytest.mark.parametrize(("need", "test_file", "words"), NEEDS, ids=[n for n, _, _ in NEEDS])
def test_the_set_up_names_each_thing_the_tests_need_under_ci(need: str, test_file: str, words: str) -> None:
    """A test that fails under CI=true when something is missing: the Set up section names
    that thing, beside the test command, and says CI=true makes its absence a failure."""
    assert words in (ROOT / "tests" / test_file).read_text(encoding="utf-8")
    section = _set_up_section()
    after = section[section.index(".venv/bin/pytest") :]
    assert "CI=true" in after
    assert need in after, f"the Set up section does not name {need!r} as a test need"


# --- the documents a help text names ------------------------------------------------------------


def _help_documents() -> dict[str, str]:
    """Each ``.md`` a help text names (a command's help or epilog, an option's help), with
    the command whose help names it."""
    named: dict[str, str] = {}

    def walk(command: click.Command, path: str) -> None:
        ctx = click.Context(command, info_name=path)
        texts = [command.help or "", command.epilog or ""]
        texts += [getattr(p, "help", None) or "" for p in command.params]
        for text in texts:
            for doc in re.findall(r"\S+\.md\b", text):
                named[doc] = path
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    walk(sub, f"{path} {name}")

    walk(cli, "ledger")
    return named


def test_every_document_a_help_names_is_a_file_the_wheel_ships() -> None:
    import ledger.docs

    named = _help_documents()
    assert {Path(doc).name for doc in named} >= {"rulings.md", "dice.md"}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = project["tool"]["setuptools"]["package-data"]["ledger.docs"]
    assert "ledger.docs" in project["tool"]["setuptools"]["packages"]
    for doc, command in named.items():
        where = Path(doc)
        assert where.is_absolute() and where.is_file(), f"`{command} --help` names {doc}, not a file"
        inside = where.relative_to(ledger.docs.FOLDER).as_posix()
        assert any(fnmatch.fnmatch(inside, glob) for glob in shipped), f"{inside} is not package data"


# --- --json writes UTF-8 ------------------------------------------------------------------------


def test_json_output_writes_non_ascii_names_as_utf8(tmp_path: Path) -> None:
    db = str(tmp_path / "t.ledger")
    done = CliRunner().invoke(cli, ["--db", db, "--json", "new", "freeform", "Ñandú"])
    assert done.exit_code == 0, done.output
    assert '"name": "Ñandú"' in done.stdout_bytes.decode("utf-8")
    assert b"\\u00d1" not in done.stdout_bytes
    assert json.loads(done.stdout_bytes)["name"] == "Ñandú"


def test_json_errors_write_non_ascii_names_as_utf8(tmp_path: Path) -> None:
    db = str(tmp_path / "t.ledger")
    runner = CliRunner()
    runner.invoke(cli, ["--db", db, "new", "freeform", "Tomb"])
    done = runner.invoke(cli, ["--db", db, "--json", "use", "Ñandú"])
    assert done.exit_code == 1
    assert b"\\u00d1" not in done.stdout_bytes
    assert "'Ñandú'" in done.stdout_bytes.decode("utf-8")
    assert json.loads(done.stdout_bytes)["error"]["name"] == "Ñandú"


# --- a refused `ledger new` makes no ledger -----------------------------------------------------


def test_new_with_an_unknown_system_makes_no_ledger_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_DB", raising=False)
    done = CliRunner().invoke(cli, ["new", "gurps", "X"])
    assert done.exit_code == 1
    assert "unknown system 'gurps'" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_new_with_a_bad_name_makes_no_ledger_file(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    done = CliRunner().invoke(cli, ["--db", str(db), "new", "freeform", "   "])
    assert done.exit_code == 1
    assert "campaign name" in done.stderr
    assert not db.exists()
