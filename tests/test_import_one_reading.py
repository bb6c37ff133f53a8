"""One reading of every byte: an import accepts an event only as the ledger writes it.

JSON spells one value many ways. A key written twice is read as its last value by the
decoder that verifies and as its first by DuckDB (the warehouse), so a forged line could
pass ``verify`` and tell the statistics another story. Each file below is re-sealed after
an edit of its bytes (``helpers_forgery.forge_bytes``): every hash and link holds, every
value it decodes to is one the ledger could record, only the spelling is not the
ledger's. The import refuses it in one line naming the file's line and the reason, and
records nothing; ``verify`` refuses the same bytes in a store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    from tests import helpers_forgery as forgery
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_forgery as forgery  # type: ignore[no-redef]
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.errors import LedgerError
from ledger.trust import integrity

ROLL_LINE = 4
"""The file's line of the roll (v3: the header is line 1)."""
NOTE_LINE = 5


def build(db: str) -> None:
    """Ana, a roll of 1d20>=10 on a 15 (one success), a note."""
    with Ledger(db) as book:
        book.new_campaign("freeform", "Tomb", seed=7)
        book.add_character("Ana", "Tomb", attrs={"str": "3"})
        book.roll("1d20>=10", "Tomb", label="door", faces=[15])
        book.note("the door is trapped", "Tomb")


@pytest.fixture
def exported(tmp_path: Path) -> tuple[str, Path]:
    db = str(tmp_path / "t.ledger")
    build(db)
    out = tmp_path / "tomb.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Tomb")
    return db, out


def replace_at(version: int, old: bytes, new: bytes):  # type: ignore[no-untyped-def]
    def edit(v: int, body: bytes) -> bytes:
        if v != version:
            return body
        assert old in body, body
        return body.replace(old, new, 1)

    return edit


def assert_refused(db: str, path: Path, *expected: str) -> str:
    """One line, non-zero exit, every fragment in it, nothing written; ``verify FILE`` too."""
    before = hr.store_rows(db)
    result = hr.invoke(db, "import", str(path), "--name", "Copy")
    line = hr.assert_one_line_error(result)
    for fragment in expected:
        assert fragment in line, line
    assert hr.store_rows(db) == before, "a refused import recorded something"
    checked = hr.invoke(db, "verify", str(path))
    assert checked.exit_code != 0, checked.output
    return line


def test_the_forger_rewrites_bytes_faithfully(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported
    same = forgery.forge_bytes(path, tmp_path / "same.jsonl", lambda _v, body: body)
    assert same.read_bytes().splitlines()[1:] == path.read_bytes().splitlines()[1:]
    assert hr.invoke(db, "import", str(same), "--name", "Copy").exit_code == 0


# --- a key twice -------------------------------------------------------------------


def test_an_actor_written_twice_is_refused_naming_its_line(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported
    edit = replace_at(4, b'"actor":"Ana"', b'"actor":"Mallory","actor":"Ana"')
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, f"line {NOTE_LINE} of the file", "the key 'actor' twice")


def test_a_success_written_twice_never_reaches_the_statistics(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    """DuckDB would read the first, 0: a proven success told as a failure."""
    db, path = exported
    edit = replace_at(3, b'"successes":1', b'"successes":0,"successes":1')
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, f"line {ROLL_LINE} of the file", "the key 'successes' twice")


def test_a_face_written_twice_is_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported
    edit = replace_at(3, b'"face":15', b'"face":1,"face":15')
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, f"line {ROLL_LINE} of the file", "the key 'face' twice")


def test_a_key_written_twice_in_a_stored_event_fails_verify_all(tmp_path: Path) -> None:
    db = str(tmp_path / "t.ledger")
    build(db)
    with Ledger(db) as book:
        stream = book.campaign("Tomb").id
    forgery.forge_store_bytes(db, stream, replace_at(3, b'"successes":1', b'"successes":0,"successes":1'))
    result = hr.invoke(db, "verify", "--all")
    line = hr.assert_one_line_error(result)
    assert "fails verification at version 3" in line and "the key 'successes' twice" in line, line


# --- fields no event has, spaces, escapes ------------------------------------------------


def test_an_unknown_field_in_an_event_is_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported
    edit = replace_at(4, b'"kind":"note",', b'"kind":"note","trusted":true,')
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(
        db, forged, f"line {NOTE_LINE} of the file", "a field 'trusted'", "no event of the ledger has"
    )


def test_an_unknown_field_in_the_envelope_is_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported
    edit = replace_at(2, b'"v":2,', b'"v":2,"trusted":true,')
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, "line 3 of the file", "a field 'trusted'")


def test_whitespace_inside_an_event_is_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported
    edit = replace_at(4, b'"text":"the door', b'"text": "the door')
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, f"line {NOTE_LINE} of the file", "whitespace")


def test_an_escaped_ascii_character_is_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported
    edit = replace_at(3, b'"notation":"1d20>=10","groups"', b'"notation":"1d20\\u003e=10","groups"')
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, f"line {ROLL_LINE} of the file", "escapes a character")


def test_a_default_written_where_the_ledger_leaves_it_out_is_refused(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported
    edit = replace_at(3, b'"face":15}', b'"face":15,"kept":true}')
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, f"line {ROLL_LINE} of the file", "'kept'", "at its default")


def test_a_field_left_out_that_the_ledger_always_wrote_is_refused(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported
    edit = replace_at(4, b'"last_reset":0,', b"")
    forged = forgery.forge_bytes(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, f"line {NOTE_LINE} of the file", "leaves out the field 'last_reset'")


# --- the header --------------------------------------------------------------------------


def header_of(path: Path) -> dict[str, Any]:
    head, events = forgery.read_export(path)
    head = {k: v for k, v in head.items() if k not in ("signed_by", "signature")}
    return dict(head, head_hash=events[-1]["hash"])


@pytest.mark.parametrize(
    ("spelled", "reason"),
    [
        (lambda h: json.dumps({**h, "trusted": True}), "a field 'trusted'"),
        (
            lambda h: json.dumps(h).replace('"name": ', '"name": "Other", "name": ', 1),
            "the field 'name' twice",
        ),
        (lambda h: json.dumps(h, separators=(",", ":")), "is not written as `export` writes it"),
        (
            lambda h: json.dumps(h).replace('"freeform"', '"\\u0066reeform"'),
            "is not written as `export` writes it",
        ),
    ],
    ids=["unknown field", "field twice", "spacing", "escaped ascii"],
)
def test_a_header_spelled_otherwise_than_export_writes_it_is_refused(
    exported: tuple[str, Path], tmp_path: Path, spelled: Any, reason: str
) -> None:
    db, path = exported
    forged = tmp_path / "f.jsonl"
    lines = path.read_bytes().splitlines()
    forged.write_bytes(b"\n".join([spelled(header_of(path)).encode(), *lines[1:]]) + b"\n")
    line = assert_refused(db, forged, "line 1 of the import file, its header", reason)
    assert "export" in line


def test_a_header_as_export_writes_it_still_imports(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported
    forged = tmp_path / "f.jsonl"
    lines = path.read_bytes().splitlines()
    forged.write_bytes(b"\n".join([json.dumps(header_of(path)).encode(), *lines[1:]]) + b"\n")
    assert hr.invoke(db, "import", str(forged), "--name", "Copy").exit_code == 0


# --- hostile bytes at random ---------------------------------------------------------------


@pytest.fixture(scope="module")
def one_export(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    tmp = tmp_path_factory.mktemp("one")
    build(str(tmp / "t.ledger"))
    out = tmp / "t.jsonl"
    with Ledger(str(tmp / "t.ledger")) as book, out.open("wb") as f:
        book.export(f, "Tomb")
    return out.read_bytes()


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"an accepted line holds a key twice: {keys}"
    return dict(pairs)


def imported(data: bytes, tmp: Path) -> bool:
    source = tmp / "source.jsonl"
    source.write_bytes(data)
    try:
        with source.open("rb") as f:
            integrity.import_campaign(None, f, signer=lambda _h: None, dry_run=True)
    except LedgerError:
        return False
    return True


PERTURBATIONS = st.sampled_from(["space", "tab", "escape", "twice"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.integers(1, 4), where=st.floats(0, 1), how=PERTURBATIONS)
def test_whatever_an_import_accepts_is_spelled_as_the_ledger_writes_it(
    one_export: bytes, tmp_path: Path, line: int, where: float, how: str
) -> None:
    """Any one edit of spelling (a space or a tab after a comma or colon, an ASCII letter
    escaped, a key written again before itself with another value), re-sealed: the file
    is refused, or every line it holds reads one way (no key twice, compact, no needless
    escape: Python's json writes it back byte for byte)."""
    source = tmp_path / "one.jsonl"
    source.write_bytes(one_export)
    raw = one_export.splitlines()[line]
    cut = raw.rindex(b',"hash":"')
    if how in ("space", "tab"):
        spots = [i + 1 for i, b in enumerate(raw[:cut]) if b in b",:"]
    elif how == "escape":
        spots = [i for i, b in enumerate(raw[:cut]) if chr(b).isalpha()]
    else:
        spots = [i for i in range(cut) if raw[i : i + 2] == b',"']
    at = spots[min(int(where * len(spots)), len(spots) - 1)]

    def edit(v: int, b: bytes) -> bytes:
        if v != line:
            return b
        if how == "space":
            return b[:at] + b" " + b[at:]
        if how == "tab":
            return b[:at] + b"\t" + b[at:]
        if how == "escape":
            return b[:at] + f"\\u{b[at]:04x}".encode() + b[at + 1 :]
        key = b[at + 1 : b.index(b'":', at + 2) + 2]
        return b[: at + 1] + key + b'"forged",' + b[at + 1 :]

    forged = forgery.forge_bytes(source, tmp_path / "forged.jsonl", edit)
    if how == "twice":
        assert not imported(forged.read_bytes(), tmp_path), "a key written twice was accepted"
        return
    if imported(forged.read_bytes(), tmp_path):
        for kept in forged.read_bytes().splitlines()[1:]:
            tree = json.loads(kept, object_pairs_hook=_no_twice)
            assert json.dumps(tree, separators=(",", ":"), ensure_ascii=False).encode() == kept
