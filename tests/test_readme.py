"""The README stays true: its session and its library snippet run as written, and the
Spanish README's session (README.es.md) runs as written in Spanish (``LEDGER_LANG=es``).

After a change to what a session prints, write each README's outputs again from what the
ledger prints now, and read the difference before committing it::

    .venv/bin/python -m tests.test_readme README.md README.es.md
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli.main import cli

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()
READMES = {"README.md": "en", "README.es.md": "es"}
"""Each README, by the language its session is in."""

SESSION = re.compile(r"```console\n(.*?)```", flags=re.S)


def session_blocks(text: str = README) -> list[list[tuple[str, list[str]]]]:
    blocks = []
    for body in SESSION.findall(text):
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def played(text: str, lang: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """Each command of ``text``'s session in order, what the README says it prints and what
    it prints, run in the current folder in ``lang``."""
    runner = CliRunner()
    for steps in session_blocks(text):
        for command, expected in steps:
            args = shlex.split(command)
            assert args[0] == "ledger"
            result = runner.invoke(cli, args[1:], env={"LEDGER_LANG": lang}, prog_name="ledger")
            assert result.exit_code == 0, (command, result.output)
            yield command, expected, result.output.rstrip("\n").splitlines()


@pytest.mark.parametrize(("readme", "lang"), READMES.items())
def test_the_readme_session_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readme: str, lang: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_DB", raising=False)
    text = (ROOT / readme).read_text()
    assert session_blocks(text)
    for command, expected, printed in played(text, lang):
        assert printed == expected, command
    assert (tmp_path / "campaigns.ledger").exists()


def test_the_spanish_session_speaks_spanish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Spanish README's session is in Spanish where the command line puts it into words."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_DB", raising=False)
    said = {command: printed for command, _, printed in played((ROOT / "README.es.md").read_text(), "es")}
    assert said["ledger new freeform Viernes"][0] == "campaña 'Viernes' empezada (freeform)"
    assert said["ledger character create Inés --attr clase=pícara"] == ["Inés se une a 'Viernes'"]
    assert said["ledger fork Viernes-y-si --at 4"] == [
        "rama 'Viernes-y-si' creada en la versión 4; ahora se juega (vuelve con `ledger use Viernes`)"
    ]
    assert said["ledger use Viernes"] == ["ahora se juega 'Viernes' (freeform)"]
    assert said["ledger status"][:2] == ["campaña   Viernes (freeform), v8", "personaje Inés (también: Bo)"]
    assert "[deshecho]" in said["ledger log --all"][3]
    assert said["ledger campaigns"][1].endswith("(rama de Viernes en v4)")


def write(readme: Path, lang: str) -> None:
    """Write ``readme``'s session outputs again from what the ledger prints now (run in a
    fresh folder), leaving its commands and every other line as they are."""
    import tempfile

    text = readme.read_text()
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        os.environ.pop("LEDGER_DB", None)
        try:
            outputs = [(command, printed) for command, _, printed in played(text, lang)]
        finally:
            os.chdir(cwd)
    steps = iter(outputs)

    def block(match: re.Match[str]) -> str:
        lines = []
        for line in match.group(1).splitlines():
            if line.startswith("$ "):
                command, printed = next(steps)
                assert command == line[2:]
                lines += [line, *printed]
        return "```console\n" + "".join(f"{line}\n" for line in lines) + "```"

    readme.write_text(SESSION.sub(block, text))


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


def test_the_spanish_quick_start_gives_the_same_two_set_up_commands() -> None:
    english = re.findall(r"```sh\n(python3 -m venv .*?)\n```", README)
    spanish = re.findall(r"```sh\n(python3 -m venv .*?)\n```", (ROOT / "README.es.md").read_text())
    assert len(english) == 2 and spanish == english


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


if __name__ == "__main__":
    for name in sys.argv[1:] or list(READMES):
        write(ROOT / name, READMES[name])
