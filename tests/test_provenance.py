"""Provenance: exports are signed by their ledger's key, and import and verify say by whom.

The chain alone proves nothing about who wrote a file: a forger who edits an
event and re-seals every hash and the header makes a file the chain accepts.
These tests play that forger, and check that without the exporter's private
key the forgery can only come in as unsigned or signed by an unknown key, is
refused under ``--require-signed``, and that a signature which does not match
is refused outright.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import Ledger
from ledger.errors import SignatureError
from ledger.log.chain import GENESIS
from ledger.log.store import KEYS_TABLE, is_postgres
from tests.conftest import Session
from tests.helpers_reliability import assert_one_line_error, store_rows


def make_campaign(session: Session, name: str = "Tomb") -> None:
    session("new", "freeform", name)
    session("-c", name, "character", "add", "Ines")
    session("-c", name, "--as", "Ines", "note", "the door is sealed")
    session("-c", name, "--as", "Ines", "roll", "2d6", "--faces", "5,4")


def export_to(session: Session, path: Path, *extra: str, name: str = "Tomb") -> list[bytes]:
    session("-c", name, "export", "-o", str(path), *extra)
    return path.read_bytes().splitlines()


def write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def reseal(lines: list[bytes]) -> list[bytes]:
    """What a careful forger does after editing events: recompute every event's
    ``prev`` and hash, then the header's head hash (see ledger/log/chain.py)."""
    prev = GENESIS
    events = []
    for raw in lines[1:]:
        raw = re.sub(rb'"prev":"[0-9a-f]{64}"', b'"prev":"' + prev.encode() + b'"', raw, count=1)
        body = raw[: raw.rindex(b',"hash":"')]
        prev = hashlib.sha256(body).hexdigest()
        events.append(body + b',"hash":"' + prev.encode() + b'"}')
    header = json.loads(lines[0])
    header["head_hash"] = prev
    return [json.dumps(header).encode(), *events]


def forge(lines: list[bytes]) -> list[bytes]:
    """The export with its note rewritten and the chain and header re-sealed."""
    edited = [ln.replace(b"the door is sealed", b"the door is open!") for ln in lines]
    assert edited != lines
    return reseal(edited)


def header_of(lines: list[bytes]) -> dict[str, object]:
    return json.loads(lines[0])


def without_signature(lines: list[bytes]) -> list[bytes]:
    header = {k: v for k, v in header_of(lines).items() if k not in ("signed_by", "signature")}
    return [json.dumps(header).encode(), *lines[1:]]


def stdout_line(result: Result) -> str:
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.fixture
def alice(tmp_path: Path) -> Session:
    session = Session(str(tmp_path / "alice.ledger"))
    make_campaign(session)
    return session


@pytest.fixture
def bob(tmp_path: Path) -> Session:
    return Session(str(tmp_path / "bob.ledger"))


def fingerprint_of(session: Session) -> str:
    return json.loads(session("key", "show", "--json").output)["fingerprint"]


# --- the cases a user meets -----------------------------------------------------------------


def test_own_export_imports_as_signed_by_this_ledger(alice: Session, tmp_path: Path) -> None:
    lines = export_to(alice, tmp_path / "tomb.jsonl")
    assert header_of(lines)["signed_by"] == json.loads(alice("key", "show", "--json").output)["public_key"]
    line = stdout_line(alice("import", str(tmp_path / "tomb.jsonl"), "--name", "Tomb-copy"))
    assert line.startswith("imported 'Tomb-copy' (freeform, 4 events, chain verified); ")
    assert line.endswith(f"signed by this ledger's key {fingerprint_of(alice)}")
    verified = alice("-c", "Tomb-copy", "verify").output
    # a copy of a campaign this ledger holds: the 4 exported events, then the fork giving it its own id
    assert "Tomb-copy: 5 events" in verified and "imported, signed by this ledger's key" in verified


def test_own_key_signs_on_every_store(target: str, tmp_path: Path) -> None:
    """The key table lives in the store, so a PostgreSQL ledger signs and knows its own key."""
    session = Session(target)
    make_campaign(session)
    export_to(session, tmp_path / "tomb.jsonl")
    with Ledger(target) as book, (tmp_path / "tomb.jsonl").open("rb") as f:
        camp = book.import_(f, "Tomb-copy", require_signed=True)
        assert camp.signed_by is not None
    with Ledger(target) as book:  # the signer was recorded, not only returned
        from ledger.trust import provenance

        signer = provenance.of_campaign(book, book.campaign("Tomb-copy"))
        assert signer is not None and signer.status == "own"
    if is_postgres(target):
        assert "signed by this ledger's key" in session("-c", "Tomb-copy", "verify").output


def test_a_second_ledger_sees_an_unknown_key_until_it_trusts_it(
    alice: Session, bob: Session, tmp_path: Path
) -> None:
    path = tmp_path / "tomb.jsonl"
    export_to(alice, path)
    fp = fingerprint_of(alice)
    line = stdout_line(bob("import", str(path)))
    assert (
        f"signed by an unknown key {fp}; if it is the sender's, trust it with `ledger key trust {path}"
        in line
    )
    assert "unknown key" in bob("-c", "Tomb", "verify").output
    assert f"unknown key {fp}" in stdout_line(bob("verify", str(path)))

    assert stdout_line(bob("key", "trust", str(path), "--name", "alice")) == f"trusted key 'alice' ({fp})"
    assert "imported, signed by trusted key 'alice'" in bob("-c", "Tomb", "verify").output
    line = stdout_line(bob("import", str(path), "--name", "Tomb-2", "--require-signed"))
    assert line.endswith(f"signed by trusted key 'alice' ({fp})")
    assert [r["name"] for r in json.loads(bob("key", "list", "--json").output)] == ["alice"]

    bob("key", "forget", "alice")
    assert "unknown key" in bob("-c", "Tomb", "verify").output


def test_trusting_a_pasted_public_key(alice: Session, bob: Session, tmp_path: Path) -> None:
    path = tmp_path / "tomb.jsonl"
    export_to(alice, path)
    public = json.loads(alice("key", "show", "--json").output)["public_key"]
    bob("key", "trust", public, "--name", "alice")
    assert "trusted key 'alice'" in stdout_line(bob("import", str(path), "--require-signed"))


def test_a_forger_who_reseals_but_cannot_sign(alice: Session, bob: Session, tmp_path: Path) -> None:
    genuine = export_to(alice, tmp_path / "tomb.jsonl")
    bob("key", "trust", str(tmp_path / "tomb.jsonl"), "--name", "alice")
    forged = forge(genuine)

    # Keeping alice's signature: it no longer matches the head hash, so it is tampering.
    before = store_rows(bob.db)
    for args in (
        ("import", str(write(tmp_path / "kept.jsonl", forged))),
        ("verify", str(tmp_path / "kept.jsonl")),
    ):
        refusal = assert_one_line_error(bob(*args, ok=False), code=4)
        assert "signature does not match" in refusal
    assert store_rows(bob.db) == before

    # Dropping the signature: the chain holds, so it imports, but only as unsigned.
    stripped = write(tmp_path / "stripped.jsonl", without_signature(forged))
    refusal = assert_one_line_error(bob("import", str(stripped), "--require-signed", ok=False), code=4)
    assert "unsigned" in refusal
    assert store_rows(bob.db) == before
    line = stdout_line(bob("import", str(stripped), "--name", "Forged"))
    assert "chain verified); unsigned" in line
    assert "the door is open!" in bob("-c", "Forged", "log").output  # the forgery is chain-valid
    assert "imported, unsigned" in bob("-c", "Forged", "verify").output

    # Signing it with a key of their own: an unknown key, never alice's.
    mallory = Session(str(tmp_path / "mallory.ledger"))
    with Ledger(mallory.db) as book:
        from ledger.trust import provenance

        header = provenance.sign(book.store, header_of(without_signature(forged)))
    resigned = write(tmp_path / "resigned.jsonl", [json.dumps(header).encode(), *forged[1:]])
    refusal = assert_one_line_error(bob("import", str(resigned), "--require-signed", ok=False), code=4)
    assert f"unknown key {fingerprint_of(mallory)}" in refusal
    line = stdout_line(bob("import", str(resigned), "--name", "Resigned"))
    assert f"signed by an unknown key {fingerprint_of(mallory)}" in line
    assert fingerprint_of(mallory) != fingerprint_of(alice)


def test_a_flipped_signature_byte_is_refused(alice: Session, bob: Session, tmp_path: Path) -> None:
    lines = export_to(alice, tmp_path / "tomb.jsonl")
    Ledger(bob.db).close()  # bob's ledger exists, with no campaign yet
    header = header_of(lines)
    signature = str(header["signature"])
    for at in (0, len(signature) // 2, len(signature) - 1):
        flipped = signature[:at] + ("0" if signature[at] != "0" else "1") + signature[at + 1 :]
        header["signature"] = flipped
        path = write(tmp_path / "flipped.jsonl", [json.dumps(header).encode(), *lines[1:]])
        before = store_rows(bob.db)
        refusal = assert_one_line_error(bob("import", str(path), ok=False), code=4)
        assert "signature does not match its header" in refusal
        assert store_rows(bob.db) == before
        assert_one_line_error(alice("verify", str(path), ok=False), code=4)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "Other"),
        ("system", "crawl"),
        ("head", 3),
        ("campaign_id", "00000000-0000-4000-8000-000000000000"),
        ("signed_by", None),
    ],
)
def test_a_signed_header_edited_alone_is_refused(
    alice: Session, tmp_path: Path, field: str, value: object
) -> None:
    """The signature covers every header field, not only the head hash."""
    lines = export_to(alice, tmp_path / "tomb.jsonl")
    header = header_of(lines)
    header[field] = value
    path = write(tmp_path / "edited.jsonl", [json.dumps(header).encode(), *lines[1:]])
    with Ledger(alice.db) as book:
        with path.open("rb") as f, pytest.raises(SignatureError):
            book.import_(f, "Edited")
        assert "Edited" not in [c.name for c in book.campaigns()]


def test_the_private_key_never_leaves_the_key_table(alice: Session, tmp_path: Path) -> None:
    lines = export_to(alice, tmp_path / "tomb.jsonl")
    conn = sqlite3.connect(alice.db)
    try:
        ((state,),) = conn.execute(f"SELECT state FROM {KEYS_TABLE} WHERE originator_id = 'signing-key'")
    finally:
        conn.close()
    private_hex = json.loads(state)["private_key"]
    private = bytes.fromhex(private_hex)
    assert len(private) == 32
    alice("import", str(tmp_path / "tomb.jsonl"), "--name", "Tomb-copy")
    seen = [
        b"\n".join(lines),
        alice("-c", "Tomb", "log", "--all", "--json").output.encode(),
        alice("-c", "Tomb-copy", "log", "--all", "--json").output.encode(),
        alice("key", "show", "--json").output.encode(),
        alice("key", "list", "--json").output.encode(),
        alice("verify", "--all", "--json").output.encode(),
        alice("verify", str(tmp_path / "tomb.jsonl"), "--json").output.encode(),
        b"".join(row[3] for row in store_rows(alice.db)),
    ]
    for text in seen:
        assert private_hex.encode() not in text.lower()
        assert private not in text
    assert json.loads(alice("key", "show", "--json").output)["public_key"].encode() in seen[0]


def test_verify_file_checks_without_importing(alice: Session, tmp_path: Path) -> None:
    path = tmp_path / "tomb.jsonl"
    lines = export_to(alice, path)
    before = store_rows(alice.db)
    line = stdout_line(alice("verify", str(path)))
    assert line.startswith(f"ok  {path}: 'Tomb' (freeform), 4 events, head ")
    assert line.endswith(f"signed by this ledger's key {fingerprint_of(alice)}")
    assert store_rows(alice.db) == before
    # A re-sealed forgery without a signature passes the chain and says so.
    stripped = write(tmp_path / "stripped.jsonl", without_signature(forge(lines)))
    assert stdout_line(alice("verify", str(stripped))).endswith("nothing says who exported it")
    assert_one_line_error(alice("verify", str(stripped), "--require-signed", ok=False), code=4)
    # An edit without re-sealing fails the chain, as an import would.
    broken = write(tmp_path / "broken.jsonl", [ln.replace(b"sealed", b"SEALED") for ln in lines])
    assert "fails verification at version 3" in assert_one_line_error(alice("verify", str(broken), ok=False))


def test_verify_file_with_no_ledger_creates_none(alice: Session, tmp_path: Path) -> None:
    path = tmp_path / "tomb.jsonl"
    export_to(alice, path)
    absent = tmp_path / "nowhere.ledger"
    line = stdout_line(Session(str(absent))("verify", str(path)))
    assert "signed by an unknown key" in line
    assert not absent.exists()


def test_unsigned_export_imports_as_unsigned(alice: Session, bob: Session, tmp_path: Path) -> None:
    lines = export_to(alice, tmp_path / "tomb.jsonl", "--unsigned")
    assert "signature" not in header_of(lines) and "signed_by" not in header_of(lines)
    assert stdout_line(bob("import", str(tmp_path / "tomb.jsonl"))).endswith("nothing says who exported it")
    assert "(this ledger)" not in alice("key", "list").output  # --unsigned made no key


def test_key_commands_refuse_what_they_cannot_use(alice: Session, bob: Session, tmp_path: Path) -> None:
    signed = tmp_path / "tomb.jsonl"
    export_to(alice, signed)
    unsigned = tmp_path / "unsigned.jsonl"
    export_to(alice, unsigned, "--unsigned")
    assert "own" in assert_one_line_error(alice("key", "trust", str(signed), ok=False))
    assert "unsigned" in assert_one_line_error(bob("key", "trust", str(unsigned), ok=False))
    assert "64 hex digits" in assert_one_line_error(
        bob("key", "trust", "ed25519:zz", "--name", "x", ok=False)
    )
    assert "--name" in assert_one_line_error(
        bob("key", "trust", json.loads(alice("key", "show", "--json").output)["public_key"], ok=False)
    )
    bob("key", "trust", str(signed), "--name", "alice")
    other = Session(str(tmp_path / "carol.ledger"))
    public = json.loads(other("key", "show", "--json").output)["public_key"]
    assert "given to key" in assert_one_line_error(bob("key", "trust", public, "--name", "alice", ok=False))
    assert "no trusted key" in assert_one_line_error(bob("key", "forget", "carol", ok=False))
    assert "--require-signed goes with FILE" in assert_one_line_error(
        bob("verify", "--require-signed", ok=False)
    )


def test_the_key_is_the_ledgers_across_sessions(alice: Session, tmp_path: Path) -> None:
    first = header_of(export_to(alice, tmp_path / "a.jsonl"))["signed_by"]
    second = header_of(export_to(alice, tmp_path / "b.jsonl"))["signed_by"]
    assert first == second
    with Ledger(alice.db) as book:
        from ledger.trust import provenance

        own = provenance.own_key(book.store, create=False)
        assert own is not None and own.key == first


def test_writers_making_the_key_at_once_all_get_the_same_one(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four sessions exporting at once all find no key and make one at the same moment:
    the first stored wins, and every export is signed with it."""
    import threading

    from ledger.trust import provenance

    writers = 4
    barrier = threading.Barrier(writers, timeout=30)
    made = provenance._now

    def now_after_everyone_looked() -> str:
        barrier.wait()  # called between finding no key and storing a new one
        return made()

    monkeypatch.setattr(provenance, "_now", now_after_everyone_looked)
    books = [Ledger(target) for _ in range(writers)]
    keys: list[str] = []
    errors: list[BaseException] = []

    def make(book: Ledger) -> None:
        try:
            header = provenance.sign(book.store, {"format": "campaign-ledger-export", "head": 1})
            provenance.check_signature(header)
            keys.append(str(header["signed_by"]))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=make, args=(b,)) for b in books]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        for b in books:
            b.close()
    assert not errors, errors
    assert len(keys) == writers and len(set(keys)) == 1
    monkeypatch.setattr(provenance, "_now", made)
    with Ledger(target) as book:
        assert len(book.store.key_records(provenance.SIGNING_STREAM)) == 1
        own = provenance.own_key(book.store, create=False)
        assert own is not None and own.key == keys[0]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.text(max_size=80)
    | st.sampled_from([[], {}]),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=4)
        | st.dictionaries(st.text(max_size=8), inner, min_size=1, max_size=4)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def signed_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Session, list[bytes]]:
    folder = tmp_path_factory.mktemp("signed")
    session = Session(str(folder / "alice.ledger"))
    make_campaign(session)
    return session, export_to(session, folder / "tomb.jsonl")


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    field=st.sampled_from(
        ["signed_by", "signature", "name", "system", "head", "head_hash", "campaign_id", "version"]
    ),
    value=json_values | st.text(alphabet="0123456789abcdefABCDEF:ed", max_size=140),
)
def test_any_change_to_a_signed_header_is_refused_in_one_line(
    signed_export: tuple[Session, list[bytes]],
    tmp_path_factory: pytest.TempPathFactory,
    field: str,
    value: object,
) -> None:
    session, lines = signed_export
    header = header_of(lines)
    if header[field] == value:
        return
    header[field] = value
    path = tmp_path_factory.mktemp("edited") / "edited.jsonl"
    write(path, [json.dumps(header).encode(), *lines[1:]])
    before = store_rows(session.db)
    assert_one_line_error(session("import", str(path), "--name", "Edited", ok=False))
    assert store_rows(session.db) == before
    assert_one_line_error(session("verify", str(path), ok=False))


def test_trusting_a_saved_key_file(alice: Session, bob: Session, tmp_path: Path) -> None:
    path = tmp_path / "tomb.jsonl"
    export_to(alice, path)
    shown = alice("key", "show").output.splitlines()[1].split()[-1]
    key_file = tmp_path / "alice.pub"
    key_file.write_text(shown + "\n")
    assert stdout_line(bob("key", "trust", str(key_file), "--name", "alice")).startswith(
        "trusted key 'alice'"
    )
    assert "trusted key 'alice'" in stdout_line(bob("import", str(path), "--require-signed"))
    key_file.write_text("not a key\n")
    assert "64 hex digits" in assert_one_line_error(
        bob("key", "trust", str(key_file), "--name", "x", ok=False)
    )
