"""A forger's tools: edit an export or a stored log, then re-seal the whole chain.

The chain is unkeyed (``ledger/log/chain.py``): each event's hash is sha256 over its
own bytes before ``,"hash":``, and ``prev`` names the hash of the event before.
Anyone can therefore edit events and recompute every hash, every ``prev`` and the
export header's head, and the file is whole again. These helpers do exactly that,
so the tests can check that what such a file *means* is still refused.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
TAIL = b',"hash":""}'

Edit = Callable[[dict[str, Any], list[dict[str, Any]]], list[dict[str, Any]]]
"""(header, events) -> events, editing in place or returning a new list."""


def seal(event: dict[str, Any], raw: dict[bytes, bytes] | None = None) -> tuple[bytes, str]:
    """The stored bytes and hash of one envelope, as ``ledger.log.chain.seal`` writes them.

    ``raw`` replaces placeholder strings (their JSON, quotes included) by arbitrary
    JSON after encoding, for values Python's json cannot write (deep nesting)."""
    body = json.dumps({**event, "hash": ""}, separators=(",", ":"), ensure_ascii=False).encode()
    assert body.endswith(TAIL)
    body = body[: -len(TAIL)]
    for placeholder, value in (raw or {}).items():
        body = body.replace(json.dumps(placeholder.decode()).encode(), value)
    digest = hashlib.sha256(body).hexdigest()
    return body + b',"hash":"' + digest.encode() + b'"}', digest


def reseal_chain(
    events: list[dict[str, Any]], prev: str = GENESIS, raw: dict[bytes, bytes] | None = None
) -> tuple[list[bytes], str]:
    """Re-link and re-hash every event in order: (stored lines, last hash)."""
    out = []
    for event in events:
        event["prev"] = prev
        line, prev = seal(event, raw)
        out.append(line)
    return out, prev


def read_export(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = path.read_bytes().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line.strip()]


def forge_export(
    source: Path,
    target: Path,
    edit: Edit,
    *,
    header: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    raw: dict[bytes, bytes] | None = None,
    raw_header: bytes | None = None,
) -> Path:
    """Write ``source`` edited by ``edit`` to ``target``, every hash and the header re-sealed.

    A forger holds no signing key, so the signature is dropped: the file claims to be
    an unsigned export (the signature tests cover forgers who keep or replace it)."""
    head, events = read_export(source)
    events = edit(head, events)
    lines, last = reseal_chain(events, raw=raw)
    head = {k: v for k, v in head.items() if k not in ("signed_by", "signature")}
    head = dict(head, head=len(lines), head_hash=last)
    if header is not None:
        head = header(head)
    first = raw_header if raw_header is not None else json.dumps(head).encode()
    target.write_bytes(b"\n".join([first, *lines]) + b"\n")
    return target


def forge_store(
    db: str | sqlite3.Connection, stream: str, edit: Callable[[list[dict[str, Any]]], None]
) -> None:
    """Edit a stream's stored events in a SQLite ledger and re-seal the stream's chain
    (on an open connection, inside the caller's transaction)."""
    conn = db if isinstance(db, sqlite3.Connection) else sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT rowid, state FROM ledger_events WHERE originator_id=? ORDER BY originator_version",
            (stream,),
        ).fetchall()
        events = [json.loads(bytes(state)) for _rowid, state in rows]
        edit(events)
        lines, _last = reseal_chain(events)
        for (rowid, _state), line, event in zip(rows, lines, events, strict=True):
            conn.execute(
                "UPDATE ledger_events SET state=?, topic=? WHERE rowid=?",
                (line, event["event"]["kind"], rowid),
            )
        if conn is not db:
            conn.commit()
    finally:
        if conn is not db:
            conn.close()


LineEdit = Callable[[int, bytes], bytes]
"""(version, the event's bytes before ``,"hash":``) -> the bytes to seal instead."""


def forge_bytes(source: Path, target: Path, edit: LineEdit, *, header: bytes | None = None) -> Path:
    """Write ``source`` with each event's bytes edited as bytes (``edit``), every ``prev``,
    hash and the header's head re-sealed: for spellings Python's json never writes (a key
    twice, spaces, escapes). ``header`` replaces the first line as it is given."""
    head, _events = read_export(source)
    out, prev = [], GENESIS
    for v, line in enumerate(source.read_bytes().splitlines()[1:], start=1):
        body = line[: line.rindex(b',"hash":"')]
        body = re.sub(rb'"prev":"[0-9a-f]{64}"', b'"prev":"' + prev.encode() + b'"', edit(v, body), count=1)
        prev = hashlib.sha256(body).hexdigest()
        out.append(body + b',"hash":"' + prev.encode() + b'"}')
    head = {k: v for k, v in head.items() if k not in ("signed_by", "signature")}
    first = header if header is not None else json.dumps(dict(head, head_hash=prev)).encode()
    target.write_bytes(b"\n".join([first, *out]) + b"\n")
    return target


def forge_store_bytes(db: str, stream: str, edit: LineEdit) -> None:
    """Edit a stream's stored events in a SQLite ledger as bytes, every ``prev`` and hash
    re-sealed (what :func:`forge_bytes` does to a file)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT rowid, state FROM ledger_events WHERE originator_id=? ORDER BY originator_version",
            (stream,),
        ).fetchall()
        prev = GENESIS
        for v, (rowid, state) in enumerate(rows, start=1):
            line = bytes(state)
            body = line[: line.rindex(b',"hash":"')]
            body = re.sub(
                rb'"prev":"[0-9a-f]{64}"', b'"prev":"' + prev.encode() + b'"', edit(v, body), count=1
            )
            prev = hashlib.sha256(body).hexdigest()
            conn.execute(
                "UPDATE ledger_events SET state=? WHERE rowid=?",
                (body + b',"hash":"' + prev.encode() + b'"}', rowid),
            )
        conn.commit()
    finally:
        conn.close()
