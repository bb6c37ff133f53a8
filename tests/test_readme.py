"""The README stays true: its session and its library snippet run as written."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli.main import cli

README = (Path(__file__).parents[1] / "README.md").read_text()


def session_blocks() -> list[list[tuple[str, list[str]]]]:
    blocks = []
    for body in re.findall(r"```console\n(.*?)```", README, flags=re.S):
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def test_the_readme_session_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_DB", raising=False)
    runner = CliRunner()
    for steps in session_blocks():
        for command, expected in steps:
            args = shlex.split(command)
            assert args[0] == "ledger"
            result = runner.invoke(cli, args[1:])
            assert result.exit_code == 0, (command, result.output)
            assert result.output.rstrip("\n").splitlines() == expected, command
    assert (tmp_path / "campaigns.ledger").exists()


def test_the_library_snippet_runs(tmp_path: Path) -> None:
    (snippet,) = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(snippet, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "table.ledger").exists()


def test_the_setup_commands_are_the_ones_ci_runs() -> None:
    ci = (Path(__file__).parents[1] / ".ci" / "run").read_text()
    test_command = 'python3 -m venv .venv && .venv/bin/pip install -q -e ".[test]" -e samples/plugin-coin && .venv/bin/pytest'
    assert test_command in README and test_command in ci
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/ledger demo" in README


def test_ledger_demo_runs_to_the_end_and_again(tmp_path: Path) -> None:
    """The README's first command: the demo in an empty folder, every section through to
    the statistics and the chain check; a second run reuses what the first recorded."""
    import subprocess
    import sys

    root = Path(__file__).parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    for run in (1, 2):
        done = subprocess.run(
            [sys.executable, "-m", "ledger.cli.main", "demo"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"run {run}: {done.stderr or done.stdout[-2000:]}"
        assert "Traceback" not in done.stderr
        out = done.stdout
        assert "survival by day (Kaplan-Meier)" in out, out[-2000:]
        assert "ok  crawl-sample: 556 events" in out
        assert re.search(r"ok  200 simulated campaigns: \d+ events", out)
