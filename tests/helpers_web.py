"""A table to serve in tests: a ledger with a campaign, two characters and a seat of each
kind, and a real ``ledger serve`` process for what needs sockets (SSE, several processes)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import msgspec

from ledger import Ledger
from ledger.trust.seats import seats_of

with warnings.catch_warnings():
    # Starlette 1 names httpx2 as the TestClient's future transport; httpx is today's.
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient

__all__ = ["TestClient"]


class Seated(msgspec.Struct):
    """The secrets of a table's seats: the GM, Ana's and Bob's players, a watcher, and a
    GM of another campaign."""

    db: str
    gm: str
    ana: str
    bob: str
    watch: str
    other_gm: str


def seat_table(db: str, system: str = "freeform") -> Seated:
    """Campaign 'Friday' (``system``) with Ana and Bob, and campaign 'Other'."""
    with Ledger(db) as book:
        book.new_campaign(system, "Friday")
        book.add_character("Ana", "Friday")
        book.add_character("Bob", "Friday")
        book.new_campaign(system, "Other")
        friday, other = book.campaign("Friday"), book.campaign("Other")
        seats = seats_of(book)
        return Seated(
            db,
            gm=seats.invite(friday.id, "gm", label="gm")[1],
            ana=seats.invite(friday.id, "player", "Ana", label="ana")[1],
            bob=seats.invite(friday.id, "player", "Bob", label="bob")[1],
            watch=seats.invite(friday.id, "watch", label="watch")[1],
            other_gm=seats.invite(other.id, "gm", label="other-gm")[1],
        )


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def join(client: Any, secret: str, origin: str = "http://testserver") -> Any:
    """Open an invitation link and confirm it, as a browser does: the confirm page, then its
    form posted from this server's own origin. The answer to the post (its 303 and cookie)."""
    page = client.get(f"/join/{secret}")
    assert page.status_code == 200, page.text
    return client.post(f"/join/{secret}", headers={"Origin": origin}, follow_redirects=False)


def head(db: str, campaign: str = "Friday") -> int:
    with Ledger(db) as book:
        return book.head(book.campaign(campaign))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(db: str, port: int | None = None, **env: str) -> Iterator[str]:
    """``ledger serve`` in its own process on ``db``; yields its base URL."""
    port = port or free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ledger.cli.main", "--db", db, "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(base + "/api/schema", timeout=1)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    out, err = proc.communicate(timeout=5)
                    raise AssertionError(
                        f"ledger serve did not start: {err.decode()}{out.decode()}"
                    ) from None
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def sse(lines: Iterator[str], count: int, deadline: float) -> list[dict[str, Any]]:
    """The next ``count`` messages of an event stream (``id`` and ``data`` of each)."""
    got: list[dict[str, Any]] = []
    message: dict[str, Any] = {}
    for line in lines:
        if line.startswith("id: "):
            message["id"] = int(line[4:])
        elif line.startswith("data: "):
            message["data"] = msgspec.json.decode(line[6:])
        elif line.startswith("event: "):
            message["event"] = line[7:]
        elif line == "" and message:
            got.append(message)
            message = {}
            if len(got) == count:
                return got
        if time.monotonic() > deadline:
            break
    return got
