"""Shared pieces of the reliability tests, and the writer processes they start.

Run as a script it is a writer: ``python helpers_reliability.py MODE TARGET
CAMPAIGN WORKER COUNT`` records COUNT actions labelled ``WORKER:i`` (MODE is
``roll``, ``roll-undo``, ``batch`` for 4-event actions, ``new`` or
``same-name`` for campaign creation) and prints one JSON line with what it
recorded and what was refused. The tests (and
``bench/soak.py``) start several of these at once, or kill them mid-work.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:  # the script form runs with tests/ as its path
    sys.path.insert(0, str(ROOT))

from ledger.log.store import EVENTS_TABLE, is_postgres  # noqa: E402

BATCH = 4
"""Events in one simulated multi-event action (all or none must be stored)."""


# --- running the command line ---------------------------------------------------


def ledger_cmd(*args: str) -> list[str]:
    """The ``ledger`` command run by this interpreter (CI's own venv)."""
    return [sys.executable, "-m", "ledger.cli.main", *args]


def run_ledger(db: str, *args: str, timeout: float = 60, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ledger_cmd("--db", db, *args), capture_output=True, text=True, timeout=timeout, cwd=ROOT, **kw
    )


def invoke(db: str, *args: str) -> Any:
    """Run ``ledger`` in this process through click's CliRunner."""
    from click.testing import CliRunner

    from ledger.cli.main import cli

    return CliRunner().invoke(cli, ["--db", db, *args], catch_exceptions=True)


def terminal_lines(text: str) -> list[str]:
    """The lines a terminal shows: split at line feeds and carriage returns only."""
    return [ln for ln in text.strip().replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def assert_one_line_error(result: Any, *, code: int | None = None) -> str:
    """A refusal: non-zero exit, a SystemExit (no traceback), one ``error:`` line."""
    assert result.exit_code != 0, f"expected a refusal, got success: {result.output!r}"
    assert isinstance(result.exception, SystemExit), f"traceback: {result.exception!r}"
    lines = terminal_lines(result.stderr)
    assert len(lines) == 1, f"expected one line on stderr, got {result.stderr!r}"
    assert lines[0].startswith(("error: ", "Error: ")), lines[0]
    assert "Traceback" not in result.output
    if code is not None:
        assert result.exit_code == code, (result.exit_code, result.stderr)
    return lines[0]


def assert_process_refused(proc: subprocess.CompletedProcess[str], *, code: int | None = None) -> str:
    assert proc.returncode != 0, f"expected a refusal, got success: {proc.stdout!r}"
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = terminal_lines(proc.stderr)
    assert len(lines) == 1, f"expected one line on stderr, got {proc.stderr!r}"
    assert lines[0].startswith("error: "), lines[0]
    if code is not None:
        assert proc.returncode == code, (proc.returncode, proc.stderr)
    return lines[0]


# --- looking at the store directly ----------------------------------------------


Row = tuple[str, int, str, bytes]


def store_rows(target: str) -> list[Row]:
    """Every stored row (stream, version, topic, bytes), in storage order."""
    sql = f"SELECT originator_id, originator_version, topic, state FROM {EVENTS_TABLE} ORDER BY "
    if is_postgres(target):
        sql += "notification_id"
        import psycopg

        base, _, query = target.partition("?")
        schema = query.partition("schema=")[2].partition("&")[0]
        with psycopg.connect(base, autocommit=True) as conn:
            if schema:
                conn.execute(f'SET search_path TO "{schema}"')
            return [(str(a), int(b), str(c), bytes(d)) for a, b, c, d in conn.execute(sql)]
    conn = sqlite3.connect(f"file:{target}?mode=ro", uri=True)
    try:
        return [(str(a), int(b), str(c), bytes(d)) for a, b, c, d in conn.execute(sql + "rowid")]
    finally:
        conn.close()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def reseal(state: bytes) -> bytes:
    """Recompute a stored event's own hash after editing it (what a careful forger does)."""
    body = state[: state.rindex(b',"hash":"')]
    return body + b',"hash":"' + hashlib.sha256(body).hexdigest().encode() + b'"}'


def decoded(rows: Iterable[Row]) -> list[dict[str, Any]]:
    return [json.loads(r[3]) for r in rows]


def assert_streams_contiguous(rows: Sequence[Row]) -> dict[str, int]:
    """Each stream's versions are contiguous with no duplicate; returns heads."""
    by_stream: dict[str, list[int]] = {}
    for stream, version, _topic, _state in rows:
        by_stream.setdefault(stream, []).append(version)
    heads = {}
    for stream, versions in by_stream.items():
        ordered = sorted(versions)
        assert len(set(ordered)) == len(ordered), f"duplicate versions in {stream}"
        assert ordered == list(range(ordered[0], ordered[0] + len(ordered))), f"gap in {stream}"
        heads[stream] = ordered[-1]
    return heads


def labels(rows: Iterable[Row]) -> Counter[str]:
    """How often each writer label (``worker:i``) was recorded."""
    found: Counter[str] = Counter()
    for env in decoded(rows):
        event = env["event"]
        label = event.get("label") or event.get("text")
        if label and ":" in label:
            found[label] += 1
    return found


def batch_actions(rows: Sequence[Row]) -> tuple[Counter[str], dict[str, int]]:
    """The simulated actions stored: how often each writer action ``worker:i`` was
    stored whole, and the actions (by action id) that do not hold exactly BATCH
    notes of one writer action."""
    actions: Counter[str] = Counter()
    label_of: dict[str, set[str]] = {}
    for env in decoded(rows):
        text = env["event"].get("text", "")
        if text.startswith("batch "):
            actions[env["action"]] += 1
            label_of.setdefault(env["action"], set()).add(text[len("batch ") :].rsplit(":", 1)[0])
    broken = {a: n for a, n in actions.items() if n != BATCH or len(label_of[a]) != 1}
    whole: Counter[str] = Counter(next(iter(label_of[a])) for a in actions if a not in broken)
    return whole, broken


def assert_batches_whole(rows: Sequence[Row]) -> set[str]:
    """Every simulated action holds exactly BATCH notes, all of one writer's action
    ``worker:i``, stored once; returns those action labels."""
    whole, broken = batch_actions(rows)
    assert not broken, f"half-written actions: {broken}"
    twice = [label for label, n in whole.items() if n > 1]
    assert not twice, f"actions stored twice: {twice}"
    return set(whole)


def sqlite_writes(path: str) -> tuple[int, int] | None:
    """Size and mtime of a SQLite file's write-ahead log, None while it holds no frame."""
    try:
        st = os.stat(path + "-wal")
    except FileNotFoundError:
        return None
    return (st.st_size, st.st_mtime_ns) if st.st_size > 0 else None


def kill_once_written(proc: subprocess.Popen[Any], path: str, timeout: float = 120) -> bool:
    """SIGKILL ``proc`` as soon as it writes to the SQLite ledger at ``path`` (its
    write-ahead log gains a frame, in or at the end of a transaction). True when the
    kill landed on the live process after it wrote; False when it ended first."""
    import signal

    before = sqlite_writes(path)
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        now = sqlite_writes(path)
        if now is not None and now != before:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            return proc.returncode == -signal.SIGKILL
        time.sleep(0.0005)
    if proc.poll() is None:
        proc.kill()
        raise AssertionError(f"the process wrote nothing in {timeout} s")
    return False


# --- writer processes --------------------------------------------------------------


def start_writers(
    target: str, jobs: Sequence[tuple[str, str, int]], mode: str = "roll"
) -> list[subprocess.Popen[str]]:
    """Start one writer per (campaign, worker, count) at once."""
    return [
        subprocess.Popen(
            [sys.executable, str(HERE), mode, target, campaign, worker, str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for campaign, worker, count in jobs
    ]


def finish_writers(procs: Sequence[subprocess.Popen[str]], timeout: float = 120) -> list[dict[str, Any]]:
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=timeout)
        assert p.returncode == 0, f"writer failed ({p.returncode}): {err}"
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


def _write(target: str, campaign: str, worker: str, count: int, mode: str) -> dict[str, Any]:
    from ledger import Ledger
    from ledger.errors import ConflictError, DuplicateNameError, StoreError
    from ledger.log.events import Noted

    recorded, conflicts, store_errors, duplicates, undos = [], 0, 0, 0, 0
    start = time.perf_counter()
    with Ledger(target) as book:
        for i in range(count):
            label = f"{worker}:{i}"
            try:
                if mode == "roll":
                    book.roll("1d20", campaign, label=label)
                elif mode == "roll-undo":  # the roll is counted even when the undo after it fails
                    book.roll("1d20", campaign, label=label)
                    recorded.append(label)
                    if i % 3 == 2:
                        book.undo(campaign)
                        undos += 1
                    continue
                elif mode == "new":
                    book.new_campaign("freeform", f"{campaign} {worker} {i}")
                elif mode == "same-name":
                    book.new_campaign("freeform", campaign)
                elif mode == "batch":
                    book.record(
                        lambda _s, _d, i=i: [Noted(text=f"batch {worker}:{i}:{k}") for k in range(BATCH)],
                        campaign,
                    )
                else:
                    raise SystemExit(f"unknown writer mode {mode!r}")
                recorded.append(label)
            except ConflictError:
                conflicts += 1
            except DuplicateNameError:
                duplicates += 1
            except StoreError:
                store_errors += 1
            if mode == "batch" and recorded and recorded[-1] == label:  # acknowledged: it is stored
                print(f"done {label}", flush=True)
    seconds = time.perf_counter() - start
    return {
        "worker": worker,
        "recorded": recorded,
        "conflicts": conflicts,
        "store_errors": store_errors,
        "duplicates": duplicates,
        "undos": undos,
        "seconds": seconds,
    }


def main(argv: list[str]) -> None:
    mode, target, campaign, worker, count = argv
    report = _write(target, campaign, worker, int(count), mode)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    os.chdir(ROOT)
    main(sys.argv[1:])


# --- a TCP proxy standing in for a PostgreSQL server that goes away ----------------------


class TcpProxy:
    """Forwards a local port to a server; ``stop()`` drops every connection and
    refuses new ones (a server going down), ``start()`` brings it back."""

    def __init__(self, host: str, port: int) -> None:
        import socket

        self.upstream = (host, port)
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._listener: Any = None
        self._sockets: list[Any] = []

    def start(self) -> None:
        import socket
        import threading

        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: Any) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            self._sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: Any, dst: Any) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.close()

    def stop(self) -> None:
        import socket

        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
            self._listener.close()
            self._listener = None
        for s in self._sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
                s.close()
        self._sockets.clear()
