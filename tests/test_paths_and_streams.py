"""Paths and streams.

`--db` (and `LEDGER_DB`) naming a named pipe, a socket or a device is refused at once, in
one line, before anything opens it: opening a named pipe waits for a writer for ever, and a
device is no file a ledger can live in. The same check (``ledger.trust.outfile.not_a_file``)
refuses them as an output file and as the warehouse.

An export piped into `import` or `verify` (`/dev/stdin`, `-`, `<(...)`) is read once, as a file
is, every byte kept as it is read (``ledger.trust.infile``): imported whole or not at all, and
refused at the line a file would be, having read no further."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
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


# --- an export through a pipe -----------------------------------------------------------------


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A freeform campaign's export: a character, rolls, a note and an undo (6 events)."""
    folder = tmp_path_factory.mktemp("stream")
    db = str(folder / "src.ledger")
    for args in (
        ("new", "freeform", "Tomb", "--seed", "5"),
        ("character", "add", "Ana"),
        ("roll", "2d6", "--label", "gate"),
        ("roll", "1d20"),
        ("note", "the gate is shut"),
        ("undo",),
    ):
        assert ledger("--db", db, *args).returncode == 0, args
    out = folder / "tomb.jsonl"
    assert ledger("--db", db, "export", "-o", str(out)).returncode == 0
    return out.read_bytes()


def piped(db: Path, *args: str, data: bytes) -> subprocess.CompletedProcess[str]:
    """``ledger --db DB ARGS`` with ``data`` written to its standard input, a pipe."""
    return subprocess.run(
        [sys.executable, "-m", "ledger.cli.main", "--db", str(db), *args],
        input=data.decode(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def stored(db: Path) -> list[str]:
    """The campaigns of ``db`` as `campaigns --json` lists them, with their heads."""
    result = ledger("--db", str(db), "--json", "campaigns")
    assert result.returncode == 0, result.stderr
    import json

    return sorted(f"{c['name']} v{c['head']}" for c in json.loads(result.stdout))


@pytest.mark.parametrize("source", ["/dev/stdin", "-"])
def test_an_export_piped_into_import_is_imported_whole_once(
    tmp_path: Path, export: bytes, source: str
) -> None:
    db = tmp_path / "copy.ledger"
    result = piped(db, "import", source, "--name", "Copy", data=export)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("imported 'Copy' (freeform, 6 events, chain verified)"), result.stdout
    assert stored(db) == ["Copy v6"]
    assert ledger("--db", str(db), "verify", "--all").returncode == 0
    # The hint to trust the signer names the key itself: the pipe cannot be read again.
    assert f"key trust {source}" not in result.stdout and "key trust ed25519:" in result.stdout


def test_an_export_through_process_substitution_is_imported(tmp_path: Path, export: bytes) -> None:
    """``ledger import <(cat tomb.jsonl)``: the shell hands over /dev/fd/N, a pipe."""
    read, write = os.pipe()

    def feed() -> None:
        with os.fdopen(write, "wb") as w:
            w.write(export)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        db = tmp_path / "copy.ledger"
        result = subprocess.run(
            [sys.executable, "-m", "ledger.cli.main", "--db", str(db), "import", f"/dev/fd/{read}"],
            capture_output=True,
            text=True,
            timeout=60,
            pass_fds=(read,),
        )
    finally:
        os.close(read)
        writer.join()
    assert result.returncode == 0, result.stderr
    assert stored(db) == ["Tomb v6"]


def test_a_stream_cut_short_records_nothing_then_the_whole_stream_imports(
    tmp_path: Path, export: bytes
) -> None:
    db = tmp_path / "copy.ledger"
    assert ledger("--db", str(db), "new", "freeform", "Other").returncode == 0
    cut = export[: export.rindex(b"\n", 0, len(export) - 1) + 1]  # the last event lost on the way
    refused = piped(db, "import", "/dev/stdin", data=cut)
    assert refused.returncode == 4, refused.stderr
    assert "truncated" in refused.stderr and refused.stderr.count("\n") == 1, refused.stderr
    assert stored(db) == ["Other v1"]
    again = piped(db, "import", "/dev/stdin", data=export)
    assert again.returncode == 0, again.stderr
    assert stored(db) == ["Other v1", "Tomb v6"]


def test_an_export_piped_into_verify_is_read_once_for_the_chain_and_the_dice(
    export: bytes, tmp_path: Path
) -> None:
    result = piped(tmp_path / "none.ledger", "verify", "/dev/stdin", "--dice", data=export)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok  /dev/stdin: 'Tomb' (freeform), 6 events"), result.stdout
    assert "dice  Tomb:" in result.stdout, result.stdout


def test_an_endless_stream_is_refused_at_its_first_bad_line_not_read_to_its_end(
    tmp_path: Path, export: bytes
) -> None:
    """A valid header that promises 2^50 events, then bad lines for ever: refused as a file of
    them would be, at the first one, having read a few blocks of the stream."""
    import json

    fields = json.loads(export.split(b"\n", 1)[0])
    del fields["signed_by"], fields["signature"]  # unsigned, so the header itself is accepted
    header = json.dumps({**fields, "head": 2**50}).encode()
    db = tmp_path / "copy.ledger"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ledger.cli.main", "--db", str(db), "import", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    sent = 0
    try:
        proc.stdin.write(header + b"\n")
        line = b'{"not":"an event"}\n' * 4096
        while proc.poll() is None and sent < 2**30:
            proc.stdin.write(line)
            sent += len(line)
    except BrokenPipeError:
        pass
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 4, err
    assert err.count(b"\n") == 1 and b"at version 1" in err, err
    assert sent < 64 * 2**20, sent  # the import stopped reading: the pipe broke long before 1 GiB
    assert not db.exists() or stored(db) == []
