"""Every word shown passes through the catalogs: the demo and the README session run in the
pseudo-language (``qps``), where each catalog sentence is bracketed; a word of the ledger's
own English vocabulary outside the brackets was shown without a catalog (helpers_pseudo)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli.main import cli
from tests.helpers_pseudo import typed, untranslated, vocabulary
from tests.test_readme import session_blocks

ROOT = Path(__file__).resolve().parents[1]


def test_the_vocabulary_is_the_catalogs() -> None:
    """The check has something to find: the catalogs' English holds the ledger's words."""
    assert {"campaign", "character", "undo"} <= vocabulary()


def test_the_demo_says_every_word_through_the_catalogs(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LEDGER_LANG": "qps"}
    done = subprocess.run(
        [sys.executable, "-m", "ledger.cli.main", "demo"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "⟦" in done.stdout
    assert untranslated(done.stdout + done.stderr) == []


def test_the_readme_session_says_every_word_through_the_catalogs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_DB", raising=False)
    runner = CliRunner()
    shown = []
    commands = [command for steps in session_blocks() for command, _expected in steps]
    for command in commands:
        args = shlex.split(command)
        result = runner.invoke(cli, ["--lang", "qps", *args[1:]])
        assert result.exit_code == 0, (command, result.output)
        shown.extend(untranslated(result.output, allowed=typed(commands)))
    assert shown == []
