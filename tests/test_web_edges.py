"""The edges of ``ledger serve``, attacked on a real server process: a request's head is
bounded in size and in time, half-sent requests give way to a real one past the connection
limit, a stream that does not read is cut, forwarded headers are read only from named
proxies, guessing is bounded in memory and locks out no valid seat, malformed versions and
deep JSON are 400s, a fault of the server is told with its traceback, and stopping with
streams open ends them whole, with no traceback."""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from ledger import Ledger
from ledger.deciding.commands import Note
from ledger.web.app import create_app
from ledger.web.auth import Guesses
from ledger.web.server import HEAD_LIMIT, HEAD_TIMEOUT, STALL
from tests.helpers_web import Seated, TestClient, bearer, free_port, head, seat_table


@pytest.fixture
def seated(tmp_path: Path) -> Seated:
    return seat_table(str(tmp_path / "web.ledger"))


@dataclass
class Served:
    base: str
    port: int
    proc: subprocess.Popen[bytes]
    out: str = ""
    err: str = ""
    ended: list[str] = field(default_factory=list)


def _wait_ready(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(base + "/api/schema", timeout=1)
            return
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                out, err = proc.communicate(timeout=5)
                raise AssertionError(f"ledger serve did not start: {err.decode()}{out.decode()}") from None
            time.sleep(0.1)


@contextmanager
def server(
    db: str, *args: str, stop: int = signal.SIGTERM, files: int | None = None, program: str | None = None
) -> Iterator[Served]:
    """``ledger serve`` on ``db`` with ``args`` (``program``: Python run instead of the
    command line, given the same arguments); its output once it has stopped by ``stop``."""
    port = free_port()

    def limited() -> None:
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    command = ["--db", db, "serve", "--port", str(port), *args]
    launch = (
        [sys.executable, "-c", program, *command]
        if program
        else [sys.executable, "-m", "ledger.cli.main", *command]
    )
    proc = subprocess.Popen(launch, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limited)
    served = Served(f"http://127.0.0.1:{port}", port, proc)
    try:
        _wait_ready(served.base, proc)
        yield served
    finally:
        if proc.poll() is None:
            proc.send_signal(stop)
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        served.out, served.err = out.decode(), err.decode()


def raw(port: int, data: bytes = b"") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    if data:
        s.sendall(data)
    return s


def answer_of(s: socket.socket) -> bytes:
    got = b""
    try:
        while chunk := s.recv(65536):
            got += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return got


# --- the head ----------------------------------------------------------------------------


def test_a_head_past_16_kib_is_431_with_the_error_object_and_nothing_more_is_read(seated: Seated) -> None:
    with server(seated.db) as served:
        fits = raw(
            served.port,
            b"GET /api/schema HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * (HEAD_LIMIT - 200) + b"\r\n\r\n",
        )
        assert answer_of_head(fits).startswith(b"HTTP/1.1 200")
        fits.close()
        big = raw(served.port, b"GET /api/schema HTTP/1.1\r\nHost: x\r\n")
        sent = 0
        try:  # 16 MB of one header: the server answers and closes long before the end
            for _ in range(16 * 1024):
                big.sendall(b"X-Big: " + b"a" * 1017 + b"\r\n")
                sent += 1024
        except (BrokenPipeError, ConnectionResetError):
            pass
        got = answer_of(big)
        assert sent < 4 * 1024 * 1024, "the server read the whole header"
        status, _, body = got.partition(b"\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 431"), got[:200]
        assert b'"type":"HeadersTooLarge"' in body and b"16 KiB" in body


def answer_of_head(s: socket.socket) -> bytes:
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def test_a_head_that_does_not_arrive_in_10_s_is_408_and_a_silent_connection_is_closed(seated: Seated) -> None:
    with server(seated.db) as served:
        started = time.monotonic()
        half = raw(served.port, b"GET /api/schema HTTP/1.1\r\nHost: x\r\n")
        silent = raw(served.port)
        timed: dict[str, tuple[float, bytes]] = {}

        def wait(name: str, s: socket.socket) -> None:
            got = answer_of(s)
            timed[name] = (time.monotonic() - started, got)

        waits = [threading.Thread(target=wait, args=(n, s)) for n, s in (("half", half), ("silent", silent))]
        for t in waits:
            t.start()
        for t in waits:
            t.join(timeout=40)
        took, got = timed["half"]
        assert HEAD_TIMEOUT - 1 < took < HEAD_TIMEOUT + 5, took
        assert got.startswith(b"HTTP/1.1 408") and b'"type":"RequestTimeout"' in got
        took, got = timed["silent"]
        assert HEAD_TIMEOUT - 1 < took < HEAD_TIMEOUT + 5 and got == b""


def test_with_a_low_file_limit_half_sent_requests_give_way_to_the_gms_page(seated: Seated) -> None:
    """150 half-sent requests against a process that may open 128 files: the connections
    past the limit (128 less 64 kept for the ledger) close the longest-waiting half-sent
    ones, so the GM's request is answered."""
    with server(seated.db, files=128) as served:
        hanging = []
        for _ in range(150):
            try:
                hanging.append(raw(served.port, b"GET /api/schema HTTP/1.1\r\nHost: x\r\nX-Slow: "))
            except OSError:
                break
        time.sleep(0.5)
        answer = httpx.get(f"{served.base}/api/c/Friday", headers=bearer(seated.gm), timeout=5)
        assert answer.status_code == 200
        closed = 0
        for s in hanging:
            s.settimeout(0.01)
            with suppress(TimeoutError, ConnectionResetError):
                closed += s.recv(1) == b""
            s.close()
        assert closed >= 150 - 64
    assert "Too many open files" not in served.err


# --- streams ------------------------------------------------------------------------------


def test_a_stream_that_does_not_read_is_cut_and_the_server_holds_no_more_of_it(seated: Seated) -> None:
    """8,000 notes (some 10 MB of stream) to a client that reads nothing: the server holds
    one write buffer of it, and cuts the stream once nothing was read for STALL seconds."""
    with Ledger(seated.db) as book, book.batch("Friday") as batch:
        for _ in range(8000):
            batch.execute(Note(text="x" * 500))
    with server(seated.db) as served:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", served.port))
        s.sendall(
            b"GET /api/c/Friday/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
            + seated.watch.encode()
            + b"\r\n\r\n"
        )
        time.sleep(STALL + 5)
        s.settimeout(5)
        got = answer_of(s)
        s.close()
        assert 0 < len(got) < 8 * 1024 * 1024, len(got)  # cut: not the whole stream
        whole = []
        done = threading.Event()
        threading.Thread(
            target=stream_lines, args=(served.base, seated.ana, whole, done), daemon=True
        ).start()
        deadline = time.monotonic() + 60
        while f"id: {head(seated.db)}" not in whole[-5:] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert f"id: {head(seated.db)}" in whole  # a stream that reads gets all of it
    assert "Traceback" not in served.err, served.err


def stream_lines(base: str, secret: str, into: list[str], done: threading.Event) -> None:
    try:
        with httpx.stream(
            "GET", f"{base}/api/c/Friday/stream", headers=bearer(secret), timeout=httpx.Timeout(5, read=60)
        ) as answer:
            for line in answer.iter_lines():
                into.append(line)
        into.append("<ended whole>")
    except httpx.HTTPError as e:
        into.append(f"<cut: {type(e).__name__}>")
    finally:
        done.set()


def test_a_ninth_stream_of_one_seat_ends_its_oldest(seated: Seated) -> None:
    with server(seated.db) as served:
        heard = [[] for _ in range(9)]
        done = [threading.Event() for _ in range(9)]
        for n in range(9):
            threading.Thread(
                target=stream_lines, args=(served.base, seated.bob, heard[n], done[n]), daemon=True
            ).start()
            time.sleep(0.2)
        assert done[0].wait(10)
        assert "event: replaced" in heard[0] and heard[0][-1] == "<ended whole>"
        assert not any(d.is_set() for d in done[1:])


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_stopping_with_streams_open_ends_them_whole_and_prints_no_traceback(
    seated: Seated, stop: int
) -> None:
    with server(seated.db, stop=stop) as served:
        heard = [[] for _ in range(3)]
        done = [threading.Event() for _ in range(3)]
        for n, secret in enumerate((seated.gm, seated.ana, seated.watch)):
            threading.Thread(
                target=stream_lines, args=(served.base, secret, heard[n], done[n]), daemon=True
            ).start()
        deadline = time.monotonic() + 10
        while not all("retry: 1000" in h for h in heard) and time.monotonic() < deadline:
            time.sleep(0.05)
    for d in done:
        assert d.wait(10)
    assert [h[-1] for h in heard] == ["<ended whole>"] * 3
    assert "Traceback" not in served.err and "ERROR" not in served.err, served.err


# --- who is asking --------------------------------------------------------------------------


def guesses_until_refused(base: str, forwarded: bool, count: int = 25) -> list[int]:
    codes = []
    with httpx.Client(base_url=base, timeout=5) as client:
        for n in range(count):
            headers = bearer(f"guess-{n}")
            if forwarded:
                headers["X-Forwarded-For"] = f"203.0.113.{n}"
            codes.append(client.get("/api/c/Friday/events", headers=headers).status_code)
    return codes


def test_forwarded_headers_are_read_only_from_the_proxies_the_operator_names(seated: Seated) -> None:
    with server(seated.db) as served:  # no --forwarded-allow-ips: every guess is the loopback's
        codes = guesses_until_refused(served.base, forwarded=True)
        assert codes[:20] == [401] * 20 and codes[20:] == [429] * 5
        scheme = httpx.post(
            f"{served.base}/join/{seated.ana}",
            headers={"X-Forwarded-Proto": "https", "Origin": "https://127.0.0.1"},
        )
        assert scheme.status_code == 403  # the scheme is the connection's own: http
    with server(seated.db, "--forwarded-allow-ips", "127.0.0.1") as served:
        assert guesses_until_refused(served.base, forwarded=True) == [401] * 25  # each client its own
        joined = httpx.post(
            f"{served.base}/join/{seated.ana}",
            headers={"X-Forwarded-Proto": "https", "Origin": f"https://127.0.0.1:{served.port}"},
        )
        assert joined.status_code == 303 and "Secure" in joined.headers["set-cookie"]


def test_a_proxy_that_is_no_address_is_refused_in_one_line(seated: Seated) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ledger.cli.main",
            "--db",
            seated.db,
            "serve",
            "--forwarded-allow-ips",
            "proxy.lan",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "'proxy.lan' is no address or network" in done.stderr


def test_the_guess_limiter_counts_a_bounded_number_of_addresses() -> None:
    guesses = Guesses(limit=20, window=60, addresses=1000)
    for n in range(50_000):
        guesses.failed(f"198.51.{n // 256}.{n % 256}")
    assert len(guesses) == 1000
    for _ in range(100):
        guesses.failed("192.0.2.7")
    assert guesses.over("192.0.2.7") and len(guesses._seen["192.0.2.7"]) == 20


def test_a_guesser_behind_a_shared_address_locks_out_no_valid_seat(seated: Seated) -> None:
    with TestClient(create_app(seated.db, guesses=Guesses(limit=5, window=60))) as client:
        for n in range(8):
            client.get("/api/c/Friday/events", headers=bearer(f"guess-{n}"))
        assert client.get("/api/c/Friday/events", headers=bearer("guess-more")).status_code == 429
        assert client.get("/api/c/Friday/events", headers=bearer(seated.ana)).status_code == 200
        assert client.get("/api/c/Friday/events", headers=bearer(seated.bob)).status_code == 200
        with Ledger(seated.db) as book:  # a seat invited while the address is locked out
            from ledger.trust.seats import seats_of

            _seat, late = seats_of(book).invite(book.campaign("Friday").id, "watch", label="late")
        time.sleep(1.1)
        assert client.get(f"/join/{late}").status_code == 200
        assert client.get("/api/c/Friday/events", headers=bearer(late)).status_code == 200
        assert client.get("/join/another-guess").status_code == 429


# --- malformed input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "headers", "field"),
    [
        ("/api/c/Friday/events?after=%C2%B2", {}, "after"),
        ("/api/c/Friday/sheet?at=%C2%B9", {}, "at"),
        ("/api/c/Friday/map?day=%E2%91%A0", {}, "day"),
    ],
)
def test_digits_that_are_not_ascii_are_400_not_500(
    seated: Seated, path: str, headers: dict[str, str], field: str
) -> None:
    with TestClient(create_app(seated.db), raise_server_exceptions=False) as client:
        answer = client.get(path, headers={**bearer(seated.gm), **headers})  # type: ignore[dict-item]
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["type"] == "BadRequest" and answer.json()["error"]["field"] == field


def test_a_last_event_id_of_superscript_digits_is_400_not_500(seated: Seated) -> None:
    with server(seated.db) as served:
        s = raw(
            served.port,
            b"GET /api/c/Friday/stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\nLast-Event-ID: \xb3\r\n"
            + b"Authorization: Bearer "
            + seated.gm.encode()
            + b"\r\n\r\n",
        )
        got = answer_of(s)
    assert got.startswith(b"HTTP/1.1 400"), got[:300]
    assert b'"field":"last_event_id"' in got


def test_json_nested_1000_deep_is_400_not_500(seated: Seated) -> None:
    before = head(seated.db)
    deep = b'{"command": "core.Note", "args": {"text": ' + b"[" * 1000 + b"]" * 1000 + b"}}"
    with TestClient(create_app(seated.db), raise_server_exceptions=False) as client:
        answer = client.post(
            "/api/c/Friday/actions",
            content=deep,
            headers={**bearer(seated.gm), "Content-Type": "application/json"},
        )
        fork = client.post(
            "/api/c/Friday/fork",
            content=b'{"name": "x", "at": ' + b"[" * 1000 + b"]" * 1000 + b"}",
            headers={**bearer(seated.gm), "Content-Type": "application/json"},
        )
        nested_text = client.post(  # brackets inside a string are text, not depth
            "/api/c/Friday/actions",
            json={"command": "core.Note", "args": {"text": '\\"[{' * 100}},
            headers=bearer(seated.gm),
        )
    assert answer.status_code == fork.status_code == 400, answer.text
    assert answer.json()["error"]["type"] == "BadRequest" and answer.json()["error"]["field"] == "body"
    assert nested_text.status_code == 200
    assert head(seated.db) == before + 1


FAILING = """
import sys
from ledger.web import api

def broken(*args):
    raise RuntimeError("a made-up fault")

api.entries_after = broken
from ledger.cli.main import main
sys.argv = ["ledger", *sys.argv[1:]]
main()
"""


def test_a_fault_of_the_server_is_told_with_its_traceback_on_stderr(seated: Seated) -> None:
    with server(seated.db, program=FAILING) as served:
        answer = httpx.get(f"{served.base}/api/c/Friday/events", headers=bearer(seated.gm))
        assert answer.status_code == 500 and answer.json()["error"]["type"] == "ServerFault"
    assert "ERROR: the server failed on GET /api/c/Friday/events" in served.err
    assert "Traceback (most recent call last)" in served.err
    assert "RuntimeError: a made-up fault" in served.err
    assert os.path.exists(seated.db)
