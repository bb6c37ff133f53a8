"""`ledger roll` typed into a real shell: what the shell does to unquoted notation,
and whether the documented examples survive it."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli.main import cli

ROOT = Path(__file__).parents[1]
LEDGER = Path(sys.executable).parent / "ledger"
BASH = shutil.which("bash")

needs_bash = pytest.mark.skipif(
    BASH is None or not LEDGER.exists(), reason="needs bash and the ledger script"
)


def shell(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEDGER_DB": str(cwd / "c.ledger"), "PATH": f"{LEDGER.parent}:{os.environ['PATH']}"}
    return subprocess.run([BASH or "bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True)


@needs_bash
def test_an_unquoted_comparison_warns_that_the_shell_redirected_it(tmp_path: Path) -> None:
    assert shell("ledger new freeform Shell", tmp_path).returncode == 0
    done = shell("ledger roll 3d6>=5 --faces 1,2,3", tmp_path)
    assert done.returncode == 0
    assert (tmp_path / "=5").read_text().strip() == "3d6 = 6  [1, 2, 3]"
    assert "took '>' in the notation as a redirection" in done.stderr
    assert "ledger roll '3d6>=5'" in done.stderr
    # Quoted, it counts dice and says nothing of files.
    quoted = shell("ledger roll '3d6>=5' --faces 1,5,6", tmp_path)
    assert quoted.stdout.strip() == "3d6>=5 = 2 successes  [1, 5, 6]" and quoted.stderr == ""


def test_no_warning_for_an_old_file_or_a_roll_with_a_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    db = str(tmp_path / "c.ledger")
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(cli, ["--db", db, "new", "freeform", "F"]).exit_code == 0
    Path("=5").write_text("")
    made = runner.invoke(cli, ["--db", db, "roll", "3d6", "--faces", "1,2,3"])
    assert "redirection" in made.stderr and "'=5'" in made.stderr
    counted = runner.invoke(cli, ["--db", db, "roll", "3d6>=5", "--faces", "1,2,3"])
    assert counted.exit_code == 0 and counted.stderr == ""
    os.utime("=5", (0, 0))  # made long ago: not this command's shell
    old = runner.invoke(cli, ["--db", db, "roll", "3d6", "--faces", "1,2,3"])
    assert old.exit_code == 0 and old.stderr == ""


SPECIAL = re.compile(r"[<>()!\[\]{}*]")


def console_lines(path: Path) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^\$ (ledger .*)$", path.read_text(), re.MULTILINE)]


@needs_bash
@pytest.mark.parametrize("doc", ["README.md", "docs/dice-notation.md"])
def test_documented_commands_reach_ledger_as_written(doc: str, tmp_path: Path) -> None:
    """Every `$ ledger ...` line, pasted into bash, gives ledger the words the page means:
    no redirection, no glob, no history expansion eats a notation."""
    lines = [line for line in console_lines(ROOT / doc) if SPECIAL.search(line)]
    assert lines, f"{doc} shows no notation a shell could misread"
    for line in lines:
        words = shlex.split(line)[1:]
        # An interactive bash, as a player's terminal: history expansion (!) on, no rc files.
        script = "set -H\nprintf '%s\\n' " + line.removeprefix("ledger ") + "\n"
        done = subprocess.run(
            [BASH or "bash", "--norc", "--noprofile", "-i"],
            cwd=tmp_path,
            input=script,
            capture_output=True,
            text=True,
            env={**os.environ, "HISTFILE": os.devnull, "PS1": ""},
        )
        assert done.stdout.splitlines() == words, f"{doc}: {line}"
        assert not [p.name for p in tmp_path.iterdir()], f"{doc}: {line} made a file"


def test_roll_help_quotes_what_a_shell_would_read() -> None:
    text = CliRunner().invoke(cli, ["roll", "--help"]).output
    for example in ("'8d6>=5'", "'1d20+5>=15'", "'(1d6+2)*3'", "'3d6!'"):
        assert example in text
