"""``kill -9`` of ``ledger serve`` while it records a request sent with an
``Idempotency-Key``, then the same request again on a server started afresh: the action
is recorded exactly once, and a key whose action did not commit is free to retry.

The server runs with its database driver watched (``SERVE_PAUSED``): at the chosen point
of its first append it says which of the ledger's tables it has written to so far (in
this transaction or before) and waits there to be killed, so each kill lands at a point
the server itself reports, after the key's claim was sent, never after a guessed delay.

- ``inside the append``: the action's rows are sent, in their transaction, not committed
  (on PostgreSQL the statement runs inside ``BEGIN``, and the commit never comes). The
  kill undoes the transaction; the retry records the action (before the claim rode with
  the append, the claim had committed on its own and the retry got 409 forever).
- ``after the append``: the append has committed, the answer is not kept yet. The retry
  records nothing more and is told the action was recorded (a 409 that says so).
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from ledger import Ledger
from tests.conftest import postgres_schema_url
from tests.helpers_web import bearer, free_port, seat_table, serving

SERVE_PAUSED = r"""
import json, re, sys, time

point = sys.argv[1]
written = []  # the ledger tables inserted into, in order
paused = []
INSERT = re.compile(r'INSERT INTO\s+(?:"?\w+"?\.)?"?(ledger_\w+)', re.I)


def pause() -> None:
    paused.append(True)
    print("paused " + json.dumps(written), flush=True)
    time.sleep(3600)


def inserts(sql):
    if not sql.lstrip().upper().startswith(("INSERT", "WITH")):
        return False  # a table's creation names inserts in its functions' bodies
    found = INSERT.findall(sql)
    written.extend(found)
    return "ledger_events" in found


from eventsourcing import sqlite as es_sqlite

real_one, real_many = es_sqlite.SQLiteCursor.execute, es_sqlite.SQLiteCursor.executemany


def sqlite_execute(self, sql, *args, **kwargs):
    inserts(sql)
    return real_one(self, sql, *args, **kwargs)


def sqlite_executemany(self, sql, *args, **kwargs):
    events = inserts(sql)
    done = real_many(self, sql, *args, **kwargs)
    if events and point == "inside the append" and not paused:
        pause()  # inside the transaction: the rows are sent, the commit is not
    return done


es_sqlite.SQLiteCursor.execute, es_sqlite.SQLiteCursor.executemany = sqlite_execute, sqlite_executemany

import psycopg

real_cursor_execute = psycopg.Cursor.execute


def pg_execute(self, query, params=None, **kwargs):
    text = query if isinstance(query, str) else query.as_string(self.connection)
    if inserts(text) and point == "inside the append" and not paused:
        real_cursor_execute(self, "BEGIN")
        real_cursor_execute(self, query, params, **kwargs)
        pause()  # the statement ran inside BEGIN: its COMMIT never comes
    return real_cursor_execute(self, query, params, **kwargs)


psycopg.Cursor.execute = pg_execute

from ledger.log import store

real_append = store.Store.append


def append(self, events):
    real_append(self, events)
    if point == "after the append" and not paused and any(row[0] != "registry" for row in events):
        pause()  # committed; the answer is not kept yet


store.Store.append = append
sys.argv = ["ledger", *sys.argv[2:]]
from ledger.cli.main import main

main()
"""

KEY = {"Idempotency-Key": "climb-once"}
BODY = {"command": "core.Roll", "args": {"notation": "d20", "label": "the climb", "actor": "Ana"}}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        yield str(tmp_path / "table.ledger")
    else:
        yield from postgres_schema_url()


def climbs(db: str) -> int:
    with Ledger(db) as book:
        return sum(1 for e in book.log("Friday", show_all=True) if "the climb" in e.summary)


def start_paused(db: str, point: str, port: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE_PAUSED, point, "--db", db, "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/schema", timeout=1)
            return proc
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"the paused server did not start: {proc.communicate()}") from None
            time.sleep(0.1)


WAIT = 60


def paused_line(proc: subprocess.Popen[str]) -> str | None:
    """The line the server prints when it pauses (None if it does not within ``WAIT``)."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.strip())

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + WAIT
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            return None
        if line.startswith("paused "):
            return line
    return None


@pytest.mark.parametrize("point", ["inside the append", "after the append"])
def test_a_request_killed_with_its_append_is_recorded_exactly_once_by_its_retry(
    shared: str, point: str
) -> None:
    seated = seat_table(shared)
    port = free_port()
    proc = start_paused(shared, point, port)
    sent: dict[str, Any] = {}

    def send() -> None:
        try:
            sent["answer"] = httpx.post(
                f"http://127.0.0.1:{port}/api/c/Friday/actions",
                json=BODY,
                headers={**bearer(seated.ana), **KEY},
                timeout=60,
            )
        except httpx.TransportError as e:  # the server died under it
            sent["error"] = e

    client = threading.Thread(target=send)
    try:
        client.start()
        said = paused_line(proc)
        assert said is not None, f"the server did not reach {point!r} within {WAIT} s"
        written = json.loads(said.removeprefix("paused "))
        # The kill lands after the key's claim was sent (in this transaction, or before it).
        assert "ledger_requests" in written and written[-1] == "ledger_events", written
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        client.join(60)
    assert proc.returncode == -signal.SIGKILL
    assert "answer" not in sent  # the first request never got an answer
    assert climbs(shared) == (1 if point == "after the append" else 0)
    with serving(shared) as base:
        retry = httpx.post(
            f"{base}/api/c/Friday/actions", json=BODY, headers={**bearer(seated.ana), **KEY}, timeout=60
        )
        again = httpx.post(
            f"{base}/api/c/Friday/actions", json=BODY, headers={**bearer(seated.ana), **KEY}, timeout=60
        )
    if point == "inside the append":
        assert retry.status_code == 200, retry.text  # the key was free: its action had not committed
        assert again.status_code == 200 and again.json() == retry.json()
    else:
        assert retry.status_code == 409 and "was recorded" in retry.json()["error"]["message"]
        assert again.status_code == 409
    assert climbs(shared) == 1
    with Ledger(shared) as book:
        book.verify(every=True)
