"""No secret is ever at rest: after every kind of invite (the library's, the command
line's GM, player and watcher seats) and every fork through the API (with and without an
``Idempotency-Key``, and the key's replay), no table of the store holds any secret issued,
in any form: as text, as bytes, or base64-encoded inside a stored answer (at any depth).
On SQLite every byte of the ledger's files (the database and its write-ahead log) is read
too, not only what its tables show.

A replay of a fork sent with an ``Idempotency-Key`` is refused with a 409 that names the
fork and its GM seat, and says how to get a new link: the link was shown once.
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from ledger.cli.main import cli
from ledger.log.store import is_postgres
from ledger.web.app import create_app
from tests.conftest import postgres_schema_url
from tests.helpers_web import TestClient, bearer, seat_table

B64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        yield str(tmp_path / "table.ledger")
    else:
        yield from postgres_schema_url()


def readings(blob: bytes, depth: int = 3) -> list[bytes]:
    """The bytes, and every run of base64 in them decoded (standard or URL-safe), again
    inside what that decodes to, down to ``depth``."""
    found = [blob]
    if depth == 0:
        return found
    for run in B64_RUN.findall(blob):
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            for cut in range(4):  # the run may start inside a base64 quantum
                piece = run[cut:]
                try:
                    decoded = decode(piece + b"=" * (-len(piece) % 4))
                except (binascii.Error, ValueError):
                    continue
                found.extend(readings(decoded, depth - 1))
    return found


def cells(target: str) -> list[tuple[str, bytes]]:
    """Every cell of every table of the store, as bytes, named by its table."""
    out: list[tuple[str, bytes]] = []
    if is_postgres(target):
        base, _, query = target.partition("?")
        schema = query.partition("schema=")[2]
        with psycopg.connect(base) as conn:
            tables = [
                r[0]
                for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
                )
            ]
            for table in tables:
                for row in conn.execute(f'SELECT * FROM "{schema}"."{table}"'):
                    out.extend((table, _bytes(v)) for v in row)
    else:
        import sqlite3

        conn = sqlite3.connect(target)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                for row in conn.execute(f'SELECT * FROM "{table}"'):
                    out.extend((table, _bytes(v)) for v in row)
        finally:
            conn.close()
        for path in Path(target).parent.iterdir():  # the file, its -wal and -shm, page by page
            if path.name.startswith(Path(target).name):
                out.append((path.name, path.read_bytes()))
    return out


def _bytes(value: Any) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return str(value).encode()


def test_no_secret_issued_by_an_invite_or_a_fork_is_kept_in_any_table(shared: str) -> None:
    seated = seat_table(shared)  # the library's invites: a GM, two players, a watcher, another GM
    secrets = [seated.gm, seated.ana, seated.bob, seated.watch, seated.other_gm]
    runner = CliRunner()
    for how in (["--gm"], ["--as", "Ana"], ["--watch"]):
        done = runner.invoke(cli, ["--db", shared, "--json", "-c", "Friday", "table", "invite", *how])
        assert done.exit_code == 0, done.output
        secrets.append(_secret(done.output))
    with TestClient(create_app(shared)) as client:
        plain = client.post(
            "/api/c/Friday/fork", json={"name": "Plain", "take_table": False}, headers=bearer(seated.gm)
        )
        assert plain.status_code == 200, plain.text
        secrets.append(plain.json()["link"].removeprefix("/join/"))
        keyed = {**bearer(seated.gm), "Idempotency-Key": "fork-once"}
        first = client.post("/api/c/Friday/fork", json={"name": "Keyed", "take_table": False}, headers=keyed)
        assert first.status_code == 200, first.text
        secrets.append(first.json()["link"].removeprefix("/join/"))
        # The link works, once shown: the fork's GM reads it.
        assert client.get("/api/c/Keyed", headers=bearer(secrets[-1])).status_code == 200
        replay = client.post("/api/c/Friday/fork", json={"name": "Keyed", "take_table": False}, headers=keyed)
        assert replay.status_code == 409, replay.text
        error = replay.json()["error"]
        assert error["type"] == "ShownOnce" and "'Keyed'" in error["message"]
        assert "ledger table invite" in error["message"]
        assert not any(s in replay.text for s in secrets)
    assert len(set(secrets)) == len(secrets) == 10 and all(len(s) >= 20 for s in secrets)
    kept = cells(shared)
    assert any(table.endswith("ledger_requests") for table, _ in kept)  # the answers are there
    leaks = [
        (table, secret[:6])
        for table, blob in kept
        for reading in readings(blob)
        for secret in secrets
        if secret.encode() in reading
    ]
    assert leaks == []


def _secret(output: str) -> str:
    import json

    return str(json.loads(output)["link"]).rsplit("/join/", 1)[1]
