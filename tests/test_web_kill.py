"""``kill -9`` of ``ledger serve`` in the middle of a burst of actions from several clients.

Four GM clients each send a burst of actions (a d20 character's creation, two events, and
a roll, one event, in turn) while each keeps its own stream open. The server is killed
with SIGKILL once some actions were acknowledged and before the burst is over, then
started again on the same port. Afterwards the ledger verifies, every action is whole or
absent (its events all there, in one run of versions, or none of them), every
acknowledged action is there as it was answered, and every client, having reconnected
with its last event id, has received exactly the log (``ledger log --json``): no event
missing, none twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import msgspec
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from ledger.trust.seats import seats_of
from tests.helpers_web import bearer, free_port

CLIENTS = 4
BURST = 30
"""Actions each client sends; the server is killed long before the last of them."""
KILL_AFTER = 6
"""Acknowledged actions, over all clients, before the kill."""
KINDS = {"d20.Create": ["character.added", "d20.created"], "core.Roll": ["dice.rolled"]}


def body(client: int, i: int) -> dict[str, Any]:
    if i % 2 == 0:
        return {"command": "d20.Create", "args": {"name": f"Hero{client}x{i}"}}
    return {"command": "core.Roll", "args": {"notation": "4d6kh3", "actor": "Ana"}}


def start(db: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ledger.cli.main", "--db", db, "serve", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/schema", timeout=1)
            return proc
        except httpx.TransportError:
            assert proc.poll() is None, f"ledger serve ended: {log.read_text()}"
            assert time.monotonic() < deadline, "ledger serve did not start within 30 s"
            time.sleep(0.1)


@contextmanager
def stopped_at_the_end(procs: list[subprocess.Popen[bytes]]) -> Iterator[None]:
    try:
        yield
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


class Client:
    """One GM's device: a burst of actions, and its own stream, resumed after a drop."""

    def __init__(self, base: str, secret: str, n: int) -> None:
        self.base, self.secret, self.n = base, secret, n
        self.acked: list[dict[str, Any]] = []
        self.refused: list[str] = []
        self.failed: list[str] = []
        self.received: list[dict[str, Any]] = []
        self.reconnects = 0
        self.stop = threading.Event()

    @property
    def last(self) -> int:
        return self.received[-1]["version"] if self.received else 0

    def burst(self, acked: list[int]) -> None:
        with httpx.Client(timeout=10) as http:
            for i in range(BURST):
                try:
                    answer = http.post(
                        f"{self.base}/api/c/Raid/actions", json=body(self.n, i), headers=bearer(self.secret)
                    )
                except httpx.TransportError as e:
                    self.refused.append(type(e).__name__)
                    return
                if answer.status_code != 200:
                    self.failed.append(answer.text)
                    return
                self.acked.append({"sent": body(self.n, i)["command"], **answer.json()})
                acked.append(1)

    def follow(self) -> None:
        while not self.stop.is_set():
            headers = bearer(self.secret)
            if self.received:
                headers["Last-Event-ID"] = str(self.last)
            try:
                with httpx.stream(
                    "GET",
                    f"{self.base}/api/c/Raid/stream",
                    headers=headers,
                    timeout=httpx.Timeout(10, read=30),
                ) as answer:
                    if answer.status_code != 200:
                        self.failed.append(answer.read().decode())
                        return
                    data = ""
                    for line in answer.iter_lines():
                        if line.startswith("data: "):
                            data = line[6:]
                        elif line == "" and data:
                            self.received.append(msgspec.json.decode(data))
                            data = ""
                        if self.stop.is_set():
                            return
            except httpx.TransportError:
                pass  # the server is away: killed, or not yet started again
            self.reconnects += 1
            time.sleep(0.05)


def test_kill_9_mid_burst_leaves_every_action_whole_or_absent_and_every_stream_exact(
    target: str, tmp_path: Path
) -> None:
    with Ledger(target) as book:
        book.new_campaign("d20", "Raid")
        from ledger.systems.d20.commands import Create

        book.execute(Create(name="Ana"), "Raid")
        raid = book.campaign("Raid")
        secrets = [seats_of(book).invite(raid.id, "gm", label=f"gm-{i}")[1] for i in range(CLIENTS)]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    first = start(target, port, log)
    procs = [first]
    with stopped_at_the_end(procs):
        clients = [Client(base, s, i) for i, s in enumerate(secrets)]
        streams = [threading.Thread(target=c.follow, daemon=True) for c in clients]
        for t in streams:
            t.start()
        acked: list[int] = []
        writers = [threading.Thread(target=c.burst, args=(acked,)) for c in clients]
        for t in writers:
            t.start()
        deadline = time.monotonic() + 60
        while len(acked) < KILL_AFTER and time.monotonic() < deadline:
            time.sleep(0.002)
        before_kill = len(acked)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
        for t in writers:
            t.join(30)
        assert before_kill >= 1, "the kill came before any action was acknowledged"
        assert len(acked) < CLIENTS * BURST, "the burst finished before the kill"
        assert any(c.refused for c in clients), "no request was cut off by the kill"
        assert [f for c in clients for f in c.failed] == []

        procs.append(start(target, port, log))
        runner = CliRunner()
        shown = runner.invoke(cli, ["--db", target, "--json", "-c", "Raid", "log"])
        assert shown.exit_code == 0, shown.output
        entries = json.loads(shown.output)
        head = entries[-1]["version"]
        deadline = time.monotonic() + 30
        while any(c.last < head for c in clients) and time.monotonic() < deadline:
            time.sleep(0.05)
        for c in clients:
            c.stop.set()
    for t in streams:  # the server has stopped: every stream has ended
        t.join(10)

    checked = runner.invoke(cli, ["--db", target, "--json", "-c", "Raid", "verify"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.output)["ok"] is True

    # Every action is whole: its events together, in one run of versions, all of its command's.
    actions: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        actions.setdefault(e["action"], []).append(e)
    for group in actions.values():
        got = [e["kind"] for e in group]
        assert got in ([*KINDS.values(), ["campaign.started"]]), got
        assert [e["version"] for e in group] == list(range(group[0]["version"], group[-1]["version"] + 1))
    # Every acknowledged action is stored as it was answered.
    for c in clients:
        for a in c.acked:
            stored = actions[a["action"]]
            assert [e["kind"] for e in stored] == KINDS[a["sent"]] == [e["kind"] for e in a["events"]]
            assert stored[-1]["version"] == a["version"]
    assert sum(len(c.acked) for c in clients) >= before_kill

    # Every client, resumed with its last event id, received exactly the log.
    assert [f for c in clients for f in c.failed] == []
    for c in clients:
        assert c.reconnects >= 1
        assert [e["version"] for e in c.received] == [e["version"] for e in entries]
        assert [{k: e[k] for k in entries[0]} for e in c.received] == entries
