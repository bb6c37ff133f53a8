"""Every kind of edit to the stored log is caught by ``ledger verify``; an edited
export is refused by ``ledger import``.

The edits are made with sqlite3 directly on the ``ledger_events`` table, the
way someone with the file in hand would do it.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

try:
    from tests import helpers_forgery as forgery
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_forgery as forgery  # type: ignore[no-redef]
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger

ROLLS = 8
TABLE = "ledger_events"


def build(db: str) -> str:
    """A campaign with characters, rolls, notes, an undo and a redo; returns its stream."""
    with Ledger(db) as book:
        camp = book.new_campaign("freeform", "Tomb", seed=7)
        book.add_character("Ana", "Tomb")
        for i in range(ROLLS):
            book.roll("2d6+1", "Tomb", label=f"roll {i}")
        book.note("the door is trapped", "Tomb")
        book.undo("Tomb")
        book.redo("Tomb")
        return camp.id


def rows_of(conn: sqlite3.Connection, stream: str) -> list[tuple[int, int, bytes]]:
    return [
        (r[0], r[1], bytes(r[2]))
        for r in conn.execute(
            f"SELECT rowid, originator_version, state FROM {TABLE} WHERE originator_id=? "
            "ORDER BY originator_version",
            (stream,),
        )
    ]


Named = tuple[str, tuple[int, ...]]
"""The campaign and the version(s) verification must name for an edit."""


def flip_payload_byte(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    rowid, v, state = rng.choice(rows_of(conn, stream)[1:-1])
    body_end = state.rindex(b',"hash":"')
    pos = state.index(b'"event":') + rng.randrange(8, body_end - state.index(b'"event":'))
    edited = bytearray(state)
    edited[pos] = ord("7") if edited[pos] != ord("7") else ord("8")
    conn.execute(f"UPDATE {TABLE} SET state=? WHERE rowid=?", (bytes(edited), rowid))
    return "Tomb", (v,)


def change_total_and_reseal(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    """The edited event's own hash recomputed: its total no longer follows from its dice."""
    rolls = [r for r in rows_of(conn, stream) if b'"dice.rolled"' in r[2]]
    rowid, v, state = rng.choice(rolls[:-1])
    env = json.loads(state)
    old = env["event"]["result"]["total"]
    edited = state.replace(f'"total":{old}'.encode(), f'"total":{old + 5}'.encode(), 1)
    assert edited != state
    conn.execute(f"UPDATE {TABLE} SET state=? WHERE rowid=?", (hr.reseal(edited), rowid))
    return "Tomb", (v,)


def change_total_and_reseal_chain(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    """A forger who re-seals the whole chain after the edit: every hash and link holds."""
    rolls = [r for r in rows_of(conn, stream) if b'"dice.rolled"' in r[2]]
    v = rng.choice(rolls)[1]

    def edit(events: list[dict[str, Any]]) -> None:
        events[v - 1]["event"]["result"]["total"] += 5

    forgery.forge_store(conn, stream, edit)
    return "Tomb", (v,)


def delete_middle_row(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    rowid, v, _s = rng.choice(rows_of(conn, stream)[1:-1])
    conn.execute(f"DELETE FROM {TABLE} WHERE rowid=?", (rowid,))
    return "Tomb", (v,)


def delete_middle_row_and_renumber(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    rows = rows_of(conn, stream)
    k = rng.randrange(1, len(rows) - 1)
    conn.execute(f"DELETE FROM {TABLE} WHERE rowid=?", (rows[k][0],))
    for rowid, v, _s in rows[k + 1 :]:
        conn.execute(f"UPDATE {TABLE} SET originator_version=? WHERE rowid=?", (v - 1, rowid))
    return "Tomb", (rows[k][1],)


def swap_rows(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    rows = rows_of(conn, stream)
    a, b = sorted(rng.sample(range(1, len(rows)), 2))
    (ra, va, sa), (rb, _vb, sb) = rows[a], rows[b]
    conn.execute(f"UPDATE {TABLE} SET state=? WHERE rowid=?", (sb, ra))
    conn.execute(f"UPDATE {TABLE} SET state=? WHERE rowid=?", (sa, rb))
    return "Tomb", (va,)


def insert_row(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    """Insert a forged, self-consistent event in the middle, shifting the rest up: the
    forged event itself is caught when what it says cannot be (a copied last_reset),
    else the event after it, which says it is the version the forged one took."""
    rows = rows_of(conn, stream)
    k = rng.randrange(1, len(rows) - 1)
    for rowid, v, _s in reversed(rows[k:]):
        conn.execute(f"UPDATE {TABLE} SET originator_version=? WHERE rowid=?", (v + 1, rowid))
    before = json.loads(rows[k - 1][2])
    forged = dict(
        json.loads(rows[k][2]),
        v=rows[k][1],
        prev=before["hash"],
        hash="",
        event={"kind": "note", "text": "forged"},
    )
    body = json.dumps(forged, separators=(",", ":")).encode()
    conn.execute(
        f"INSERT INTO {TABLE} (originator_id, originator_version, topic, state) VALUES (?,?,?,?)",
        (stream, rows[k][1], "note", hr.reseal(body)),
    )
    return "Tomb", (rows[k][1], rows[k][1] + 1)


def append_forged_tail(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    """A row added after the head whose ``prev`` names the wrong event."""
    rows = rows_of(conn, stream)
    wrong = json.loads(rows[rng.randrange(0, len(rows) - 1)][2])
    head = json.loads(rows[-1][2])
    forged = dict(head, v=rows[-1][1] + 1, prev=wrong["hash"], hash="")
    body = json.dumps(forged, separators=(",", ":")).encode()
    conn.execute(
        f"INSERT INTO {TABLE} (originator_id, originator_version, topic, state) VALUES (?,?,?,?)",
        (stream, rows[-1][1] + 1, head["event"]["kind"], hr.reseal(body)),
    )
    return "Tomb", (rows[-1][1] + 1,)


def change_hash(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    rowid, v, state = rng.choice(rows_of(conn, stream))
    i = state.rindex(b',"hash":"') + len(b',"hash":"') + rng.randrange(64)
    edited = bytearray(state)
    edited[i] = ord("0") if edited[i] != ord("0") else ord("1")
    conn.execute(f"UPDATE {TABLE} SET state=? WHERE rowid=?", (bytes(edited), rowid))
    return "Tomb", (v,)


def change_topic(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    rowid, v, state = rng.choice(rows_of(conn, stream)[1:])
    topic = "dice.rolled" if b'"kind":"note"' in state else "note"
    conn.execute(f"UPDATE {TABLE} SET topic=? WHERE rowid=?", (topic, rowid))
    return "Tomb", (v,)


def change_version_column(conn: sqlite3.Connection, stream: str, rng: random.Random) -> Named:
    rows = rows_of(conn, stream)
    rowid, v, _s = rows[-1]
    conn.execute(f"UPDATE {TABLE} SET originator_version=? WHERE rowid=?", (rows[-1][1] + 3, rowid))
    return "Tomb", (v,)


def tamper_registry(conn: sqlite3.Connection, _stream: str, rng: random.Random) -> Named:
    rowid, v, state = rows_of(conn, "registry")[-1]
    edited = state.replace(b'"name":"Tomb"', b'"name":"Toom"')
    assert edited != state
    conn.execute(f"UPDATE {TABLE} SET state=? WHERE rowid=?", (edited, rowid))
    return "(registry)", (v,)


TAMPERS: dict[str, Callable[[sqlite3.Connection, str, random.Random], Named]] = {
    "payload byte": flip_payload_byte,
    "payload edited and re-hashed": change_total_and_reseal,
    "payload edited, whole chain re-sealed": change_total_and_reseal_chain,
    "deleted middle row": delete_middle_row,
    "deleted row, later rows renumbered": delete_middle_row_and_renumber,
    "two rows swapped": swap_rows,
    "inserted row": insert_row,
    "forged row after the head": append_forged_tail,
    "changed hash": change_hash,
    "changed topic column": change_topic,
    "changed version column": change_version_column,
    "registry edited": tamper_registry,
}

TRIALS = 3


@pytest.mark.parametrize("trial", range(TRIALS))
@pytest.mark.parametrize("kind", list(TAMPERS))
def test_verify_catches_every_edit(tmp_path: Path, kind: str, trial: int) -> None:
    db = str(tmp_path / "t.ledger")
    stream = build(db)
    ok = hr.invoke(db, "verify", "--all")
    assert ok.exit_code == 0, ok.stderr
    conn = sqlite3.connect(db)
    with conn:
        campaign, versions = TAMPERS[kind](conn, stream, random.Random(f"{kind}:{trial}"))
    conn.close()
    result = hr.invoke(db, "verify", "--all")
    line = hr.assert_one_line_error(result, code=4)
    named = [f"campaign {campaign!r} fails verification at version {v}:" for v in versions]
    assert any(n in line for n in named), f"expected {' or '.join(named)}, got {line}"


def test_verify_names_the_edited_version(tmp_path: Path) -> None:
    db = str(tmp_path / "t.ledger")
    stream = build(db)
    conn = sqlite3.connect(db)
    with conn:
        rowid, v, state = rows_of(conn, stream)[5]
        conn.execute(
            f"UPDATE {TABLE} SET state=? WHERE rowid=?",
            (state.replace(b'"label":"roll', b'"label":"ROLL'), rowid),
        )
    conn.close()
    line = hr.assert_one_line_error(hr.invoke(db, "-c", "Tomb", "verify"), code=4)
    assert f"campaign 'Tomb' fails verification at version {v}:" in line
    assert "edited" in line


def test_edits_in_a_fork_are_caught(tmp_path: Path) -> None:
    db = str(tmp_path / "t.ledger")
    build(db)
    with Ledger(db) as book:
        fork = book.fork("Tomb", "Tomb-b", at=6)
        for i in range(4):
            book.roll("1d8", "Tomb-b", label=f"b {i}")
    assert hr.invoke(db, "verify", "--all").exit_code == 0
    conn = sqlite3.connect(db)
    with conn:
        delete_middle_row(conn, fork.id, random.Random(1))
    conn.close()
    line = hr.assert_one_line_error(hr.invoke(db, "verify", "--all"), code=4)
    assert "'Tomb-b'" in line


# --- exports ---------------------------------------------------------------------


def export_lines(tmp_path: Path) -> tuple[str, list[bytes]]:
    db = str(tmp_path / "t.ledger")
    build(db)
    out = tmp_path / "tomb.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Tomb")
    return db, out.read_bytes().splitlines()


def edit_byte(lines: list[bytes], rng: random.Random) -> list[bytes]:
    k = rng.randrange(1, len(lines))
    line = bytearray(lines[k])
    pos = rng.randrange(len(line))
    line[pos] = (line[pos] + 1) % 128 or 65
    return [*lines[:k], bytes(line), *lines[k + 1 :]]


EXPORT_EDITS: dict[str, Callable[[list[bytes], random.Random], list[bytes]]] = {
    "byte changed": edit_byte,
    "line deleted": lambda ls, r: [*ls[: (k := r.randrange(2, len(ls) - 1))], *ls[k + 1 :]],
    "lines swapped": lambda ls, r: [*ls[:3], ls[4], ls[3], *ls[5:]],
    "line duplicated": lambda ls, r: [*ls[:4], ls[3], *ls[4:]],
    "truncated": lambda ls, r: ls[: r.randrange(2, len(ls) - 1)],
    "total edited and re-hashed": lambda ls, r: [
        *ls[:4],
        hr.reseal(ls[4].replace(b'"total":', b'"total":1', 1)),
        *ls[5:],
    ],
    "header head changed": lambda ls, r: [ls[0].replace(b'"head": ', b'"head": 1'), *ls[1:]],
    "total edited, every hash and the header re-sealed": lambda ls, r: resealed(
        ls, lambda events: events[r.randrange(2, 2 + ROLLS)]["event"]["result"].update(total=99)
    ),
    "note given a line break, every hash and the header re-sealed": lambda ls, r: resealed(
        ls,
        lambda events: next(e for e in events if e["event"]["kind"] == "note")["event"].update(
            text="a\nv9 b"
        ),
    ),
}


def resealed(lines: list[bytes], edit: Callable[[list[dict[str, Any]]], None]) -> list[bytes]:
    """The export edited and re-sealed as a forger would: every hash, link and the header."""
    events = [json.loads(line) for line in lines[1:]]
    edit(events)
    sealed, last = forgery.reseal_chain(events)
    header = {k: v for k, v in json.loads(lines[0]).items() if k not in ("signed_by", "signature")}
    header = dict(header, head=len(sealed), head_hash=last)  # no key to sign with: unsigned
    return [json.dumps(header).encode(), *sealed]


@pytest.mark.parametrize("trial", range(TRIALS))
@pytest.mark.parametrize("kind", list(EXPORT_EDITS))
def test_edited_export_is_refused(tmp_path: Path, kind: str, trial: int) -> None:
    db, lines = export_lines(tmp_path)
    edited = EXPORT_EDITS[kind](lines, random.Random(f"{kind}:{trial}"))
    assert edited != lines
    path = tmp_path / "edited.jsonl"
    path.write_bytes(b"\n".join(edited) + b"\n")
    before = hr.store_rows(db)
    result = hr.invoke(db, "import", str(path), "--name", "Copy")
    line = hr.assert_one_line_error(result)
    assert hr.store_rows(db) == before, "a refused import recorded something"
    if "re-sealed" in kind:  # the chain holds: what the edited event means is refused
        edited_v = next(v for v, (a, b) in enumerate(zip(lines[1:], edited[1:], strict=True), 1) if a != b)
        assert f"fails verification at version {edited_v}: import refused:" in line, line


def test_untouched_export_imports_and_verifies(tmp_path: Path) -> None:
    db, lines = export_lines(tmp_path)
    path = tmp_path / "same.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    result = hr.invoke(db, "import", str(path), "--name", "Copy")
    assert result.exit_code == 0, result.stderr
    assert hr.invoke(db, "verify", "--all").exit_code == 0
    original = hr.invoke(db, "-c", "Tomb", "sheet", "--json").output
    copy = hr.invoke(db, "-c", "Copy", "sheet", "--json").output
    assert json.loads(copy)["rolls"] == json.loads(original)["rolls"] == ROLLS


READERS = (
    ["-c", "Tomb", "log", "--all"],
    ["-c", "Tomb", "sheet"],
    ["-c", "Tomb", "roll", "1d6"],
    ["-c", "Tomb", "undo"],
    ["-c", "Tomb", "export"],
    ["campaigns"],
)
"""Everyday commands: on a tampered log they may work or refuse, never crash."""


def assert_no_traceback(db: str, args: list[str]) -> None:
    result = hr.invoke(db, *args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"ledger {' '.join(args)} crashed: {result.exception!r}"
    )
    if result.exit_code != 0:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize("kind", sorted(TAMPERS))
def test_everyday_commands_on_a_tampered_log_never_crash(tmp_path: Path, kind: str) -> None:
    db = str(tmp_path / "t.ledger")
    stream = build(db)
    conn = sqlite3.connect(db)
    with conn:
        TAMPERS[kind](conn, stream, random.Random(kind))
    conn.close()
    for args in READERS:
        assert_no_traceback(db, list(args))


def test_an_unreadable_stored_event_gives_a_one_line_error(tmp_path: Path) -> None:
    db = str(tmp_path / "t.ledger")
    stream = build(db)
    conn = sqlite3.connect(db)
    with conn:
        rowid, _v, state = rows_of(conn, stream)[4]
        conn.execute(
            f"UPDATE {TABLE} SET state=? WHERE rowid=?",
            (state.replace(b'"kind":"dice.rolled"', b'"kind":"dice.rolle"'), rowid),
        )
    conn.close()
    for args in READERS:
        assert_no_traceback(db, list(args))


@pytest.mark.parametrize("kind", ["inserted row", "changed version column"])
def test_writing_on_moved_rows_is_not_blamed_on_other_writers(tmp_path: Path, kind: str) -> None:
    db = str(tmp_path / "t.ledger")
    stream = build(db)
    conn = sqlite3.connect(db)
    with conn:
        TAMPERS[kind](conn, stream, random.Random(kind))
    conn.close()
    for args in (["-c", "Tomb", "roll", "1d6"], ["-c", "Tomb", "undo"]):
        result = invoke_checked(db, args)
        assert "other processes" not in result.stderr, result.stderr


def invoke_checked(db: str, args: list[str]) -> object:
    result = hr.invoke(db, *args)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda s: s[: len(s) // 2], "cannot be read"),  # cut short: not JSON
        (lambda s: s.replace(b',"action":', b',\n"action":', 1), "it spans lines"),  # one event, two lines
    ],
)
def test_statistics_over_an_unreadable_stored_event_name_it_and_apply_nothing(
    tmp_path: Path, edit: Callable[[bytes], bytes], why: str
) -> None:
    from ledger.projections.warehouse.loading import Warehouse

    db = str(tmp_path / "t.ledger")
    stream = build(db)
    with Ledger(db) as book:
        Warehouse(book).catch_up()  # the warehouse holds the log so far
        book.roll("1d20", "Tomb")
        book.roll("1d20", "Tomb")
        before = Warehouse(book).position()
    conn = sqlite3.connect(db)
    with conn:
        rowid, _v, state = rows_of(conn, stream)[-2]
        conn.execute(f"UPDATE {TABLE} SET state=? WHERE rowid=?", (edit(state), rowid))
    conn.close()
    line = hr.assert_one_line_error(hr.invoke(db, "stats"))
    assert f"event {rowid} of campaign 'Tomb' cannot be read" in line and why in line, line
    assert "ledger verify -c Tomb" in line
    with Ledger(db) as book:
        assert Warehouse(book).position() == before  # the page with the bad event applied nothing
