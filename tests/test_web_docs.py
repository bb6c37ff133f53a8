"""docs/api.md stays true: its curl session runs as written against a real `ledger serve`,
each answer as the doc shows it (``…`` stands for an action id or a time)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers_web import free_port

DOC = (Path(__file__).parents[1] / "docs" / "api.md").read_text()


def session() -> list[tuple[str, list[str]]]:
    (body,) = re.findall(r"```console\n(.*?)```", DOC, flags=re.S)
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def matches(expected: str, got: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, got) is not None


def test_the_api_session_runs_as_written(tmp_path: Path) -> None:
    if shutil.which("curl") is None:
        pytest.fail("curl is not installed: the session in docs/api.md needs it")
    port = free_port()
    steps = session()
    script = []
    for n, (command, _) in enumerate(steps):
        script.append(f'echo; echo "@@@{n}"')
        if command == "ledger serve &":  # its own port, and wait until it answers
            script.append(f"ledger serve --port {port} >serve.log 2>&1 &")
            script.append(f"until curl -s localhost:{port}/api/schema >/dev/null; do sleep 0.1; done")
        else:
            script.append(command.replace("localhost:8000", f"localhost:{port}"))
    script.append('echo; echo "@@@end"; kill %1; wait')
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "LEDGER_DB": str(tmp_path / "campaigns.ledger"),
    }
    done = subprocess.run(
        ["bash", "-e", "-c", "\n".join(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr + (tmp_path / "serve.log").read_text()
    parts = re.split(r"^@@@(\d+|end)\n", done.stdout, flags=re.M)
    answers = {parts[k]: parts[k + 1].strip("\n") for k in range(1, len(parts) - 1, 2)}
    assert "end" in answers
    for n, (command, expected) in enumerate(steps):
        got = answers[str(n)].splitlines()
        assert len(got) == len(expected), (command, got)
        for want, line in zip(expected, got, strict=True):
            assert matches(want, line), (command, want, line)


def test_the_table_of_who_may_send_each_command_is_each_commands_declaration() -> None:
    """docs/api.md's table of commands says of each what its class declares
    (``ledger.deciding.authority``): who may send it, whether a player confirms it, and the
    field values that change either; every command of every installed system is in it once."""
    from ledger.deciding.authority import declared
    from ledger.deciding.commands import stable_commands
    from ledger.systems import get_system, system_names

    table = DOC.partition("<!-- authority: the table below is each command's declaration -->\n")[2]
    rows = [line for line in table.split("\n\n")[0].splitlines() if line.startswith("| `")]
    said: dict[str, tuple[str, bool, set[tuple[str, str]]]] = {}
    for row in rows:
        names, who, confirm, values = (cell.strip() for cell in row.strip("|").split("|"))
        reach = "own" if who.startswith("own") else re.fullmatch(r"GM \((\w+)\).*", who).group(1)  # type: ignore[union-attr]
        widened = set(re.findall(r"`(\w+): true`: (GM \(\w+\)|confirmed)", values))
        for name in re.findall(r"`([\w.]+)`", names):
            assert name not in said, f"{name} is in the table twice"
            said[name] = (reach, confirm.startswith("yes"), widened)
    declared_now: dict[str, tuple[str, bool, set[tuple[str, str]]]] = {}
    for system in system_names():
        for name, kind in stable_commands(get_system(system)).items():
            found = declared(kind)
            assert found is not None
            widened = {
                (w.field, f"GM ({w.reach.value})" if w.reach is not None else "confirmed") for w in found.when
            }
            declared_now[name] = (found.reach.value, found.confirm, widened)
    installed = {"core", *system_names()}
    assert {n: v for n, v in said.items() if n.split(".")[0] in installed} == declared_now
