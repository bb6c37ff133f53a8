"""`--db` (and `LEDGER_DB`) naming a named pipe, a socket or a device is refused at once, in
one line, before anything opens it: opening a named pipe waits for a writer for ever, and a
device is no file a ledger can live in. The same check (``ledger.trust.outfile.not_a_file``)
refuses them as an output file and as the warehouse."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

COMMANDS = [("log",), ("new", "freeform", "Tomb"), ("stats",)]


def ledger(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ledger.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=30,  # a hang fails here, as it would hang a user's terminal
        env=env,
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.ledger"
    os.mkfifo(path)
    return path


@pytest.fixture
def listening_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock.ledger"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    yield path
    server.close()


def refused(path: Path, command: tuple[str, ...], kind: str, *, env: dict[str, str] | None = None) -> None:
    args = command if env is not None else ("--db", str(path), *command)
    result = ledger(*args, env=env)
    assert result.returncode == 3, (command, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"{path} is {kind}, not a ledger file" in result.stderr, result.stderr
    assert "give --db a ledger file" in result.stderr, result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_a_named_pipe_as_the_ledger_is_refused_at_once_not_waited_on(
    fifo: Path, command: tuple[str, ...]
) -> None:
    refused(fifo, command, "a named pipe (fifo)")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_named_pipe_in_ledger_db_is_refused_at_once(fifo: Path) -> None:
    refused(fifo, ("log",), "a named pipe (fifo)", env={**os.environ, "LEDGER_DB": str(fifo)})


def test_a_symlink_to_a_named_pipe_is_refused_at_once(fifo: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.ledger"
    link.symlink_to(fifo)
    refused(link, ("log",), "a named pipe (fifo)")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_socket_as_the_ledger_is_refused_as_a_socket(
    listening_socket: Path, command: tuple[str, ...]
) -> None:
    refused(listening_socket, command, "a socket")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_device_as_the_ledger_is_refused_as_a_device(command: tuple[str, ...]) -> None:
    refused(Path(os.devnull), command, "a device")


def test_a_named_pipe_as_the_warehouse_is_refused_naming_what_it_is(tmp_path: Path) -> None:
    db = str(tmp_path / "w.ledger")
    assert ledger("--db", db, "new", "freeform", "Tomb").returncode == 0
    pipe = tmp_path / "pipe.duckdb"
    os.mkfifo(pipe)
    result = ledger("--db", db, "stats", "--warehouse", str(pipe))
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"warehouse {pipe} is a named pipe (fifo), not a file" in result.stderr, result.stderr
