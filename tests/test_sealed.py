"""Sealed rolls and whispers: hidden from every seat that may not see them until the GM
reveals them, fixed in the chain when they are made, checked by verify after the reveal."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from ledger.deciding.commands import Note
from ledger.errors import LedgerError, TamperError
from ledger.log import chain
from ledger.log.events import FORMAT, envelope_decoder
from ledger.log.sealing import Viewer, commitment_of
from ledger.trust import admission
from ledger.web.app import create_app
from tests.helpers_web import Seated, TestClient, bearer, seat_table, serving, sse

TOTAL = "900777"
"""The total of the sealed roll: 1d1000+900000 with the face 777 (typed physical dice)."""
WHISPER = "the vault code is 4417"


def sealed_roll(db: str, visibility: str = "blind", actor: str = "Ana") -> int:
    with Ledger(db) as book:
        rec = book.roll(
            "1d1000+900000", "Friday", label="perception", faces=[777], actor=actor, visibility=visibility
        )
        return rec.version


def whisper(db: str) -> int:
    with Ledger(db) as book:
        return book.note(WHISPER, "Friday", actor="Ana", to=("Bob",)).version


@pytest.fixture
def seated(tmp_path: Path) -> Seated:
    return seat_table(str(tmp_path / "t.ledger"))


@pytest.fixture
def client(seated: Seated) -> Iterator[TestClient]:
    with TestClient(create_app(seated.db)) as client:
        yield client


def reads(client: TestClient, secret: str, version: int) -> str:
    """Every read a seat has of the campaign, as one text."""
    h = bearer(secret)
    texts = [
        client.get("/api/c/Friday/events", headers=h).text,
        client.get("/api/c/Friday/sheet", headers=h).text,
        client.get("/api/c/Friday/sheets", headers=h).text,
        client.get("/api/c/Friday", headers=h).text,
        client.get(f"/api/c/Friday/sealed/{version}", headers=h).text,
        client.get(f"/api/c/Friday/events?after={version - 1}", headers=h).text,
    ]
    return "\n".join(texts)


# --- the library and the command line ------------------------------------------------


def test_a_blind_roll_is_recorded_as_a_commitment_without_its_result(seated: Seated) -> None:
    v = sealed_roll(seated.db)
    with Ledger(seated.db) as book:
        c = book.campaign("Friday")
        raw = b"".join(bytes(r) for r in book.stored(c))
        assert TOTAL.encode() not in raw
        env = book.envelope(c, v)
        assert env.event.kind == "action.sealed" and env.decision is None
        assert TOTAL in book.sealed_content("Friday", v, Viewer("gm"))["summaries"][0]
        with pytest.raises(LedgerError, match="sealed"):
            book.sealed_content("Friday", v, Viewer("player", "ana", "Ana"))


def test_the_reveal_opens_the_commitment_and_verify_holds(seated: Seated) -> None:
    v = sealed_roll(seated.db)
    with Ledger(seated.db) as book:
        rec = book.reveal("Friday", v)
        ev = rec.envelopes[0].event
        assert ev.sealed == v and TOTAL in ev.content
        assert (
            commitment_of(ev.salt, ev.content) == book.envelope(book.campaign("Friday"), v).event.commitment
        )
        assert book.sealed_content("Friday", v, Viewer("player", "bob", "Bob"))["revealed"]
        book.verify("Friday")


def _resealed(envs: list[dict]) -> io.BytesIO:
    """Friday's events, edited, as an export a forger writes: every event sealed again by
    the ledger's own encoder (its bytes as the ledger writes them) and the header's head
    moved to the new last hash."""
    decode = envelope_decoder("freeform").decode
    prev, lines = chain.GENESIS, []
    for e in envs:
        e["prev"], e["hash"] = prev, ""
        raw, prev = chain.seal(decode(json.dumps(e).encode()))
        lines.append(raw)
    header = {
        "format": admission.EXPORT_FORMAT,
        "version": FORMAT,
        "name": "Friday",
        "system": "freeform",
        "campaign_id": envs[0]["campaign"],
        "head": len(lines),
        "head_hash": prev,
    }
    return io.BytesIO(json.dumps(header).encode() + b"\n" + b"\n".join(lines) + b"\n")


def _forged(db: str, edit: Callable[[dict, dict], None]) -> tuple[int, int, io.BytesIO]:
    """The campaign's export with its reveal (or its sealed event) edited by ``edit`` and
    every hash sealed again, as a forger would: the sealed version, the reveal's, the file."""
    v = sealed_roll(db)
    with Ledger(db) as book:
        r = book.reveal("Friday", v).version
        c = book.campaign("Friday")
        rows = [bytes(x) for x in book.stored(c)]
    envs = [json.loads(x) for x in rows]
    edit(envs[r - 1]["event"], envs[v - 1]["event"])
    data = _resealed(envs)
    return v, r, data


@pytest.mark.parametrize(
    ("what", "edit"),
    [
        (
            "other faces",
            lambda rev, sealed: rev.update(
                content=rev["content"].replace("900777", "900999").replace("777", "999")
            ),
        ),
        ("another salt", lambda rev, sealed: rev.update(salt="0" * 32)),
        ("a commitment moved", lambda rev, sealed: sealed.update(commitment="ab" * 32)),
    ],
)
def test_a_forged_reveal_is_named_by_verify(seated: Seated, tmp_path: Path, what: str, edit) -> None:
    _v, r, data = _forged(seated.db, edit)
    with Ledger(str(tmp_path / "other.ledger")) as other, pytest.raises(TamperError) as e:
        other.import_(data, "Forged")
    assert e.value.version == r, (what, str(e.value))
    assert "commitment" in str(e.value), (what, str(e.value))


def test_a_players_export_carries_commitments_only_and_the_gms_imports_whole(
    seated: Seated, tmp_path: Path
) -> None:
    v = sealed_roll(seated.db)
    w = whisper(seated.db)
    with Ledger(seated.db) as book:
        players, gms = io.BytesIO(), io.BytesIO()
        book.export(players, "Friday", players=True)
        book.export(gms, "Friday")
    assert TOTAL.encode() not in players.getvalue() and WHISPER.encode() not in players.getvalue()
    assert TOTAL.encode() in gms.getvalue()
    with Ledger(str(tmp_path / "p.ledger")) as book:
        players.seek(0)
        book.import_(players, "Friday")
        with pytest.raises(LedgerError, match="not in this ledger"):
            book.reveal("Friday", v)
    with Ledger(str(tmp_path / "g.ledger")) as book:
        gms.seek(0)
        book.import_(gms, "Friday")
        book.reveal("Friday", w)
        assert book.reveal("Friday").envelopes[0].event.sealed == v
        book.verify("Friday")


def test_the_dice_seed_is_not_revealed_while_a_sealed_roll_drawn_under_it_is_sealed(seated: Seated) -> None:
    with Ledger(seated.db) as book:
        v = book.roll("1d20", "Friday", actor="Ana", visibility="private").version
        assert book.envelope(book.campaign("Friday"), v).event.nonce == 0
        with pytest.raises(LedgerError, match=f"version {v}"):
            book.reveal_dice("Friday")
        book.reveal("Friday")
        book.reveal_dice("Friday")
        report = book.verify("Friday")
        assert report.checked["Friday"] > v


def test_undo_and_a_fork_before_the_reveal_keep_the_roll_sealed(seated: Seated) -> None:
    v = sealed_roll(seated.db)
    with Ledger(seated.db) as book:
        book.fork("Friday", "Branch", at=v)
        book.undo("Friday")
        assert book.sealed_content("Branch", v, Viewer("gm"))["revealed"] is False
        with pytest.raises(LedgerError, match="sealed"):
            book.sealed_content("Branch", v, Viewer("player", "ana", "Ana"))
        book.verify(every=True)


def test_a_roll_on_seeded_dice_and_a_blind_note_are_refused_sealed(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "s.ledger")) as book:
        book.new_campaign("freeform", "Seeded", seed=4)
        book.add_character("Ana", "Seeded")
        with pytest.raises(LedgerError, match="seeded dice"):
            book.roll("1d20", "Seeded", visibility="blind")
        book.new_campaign("freeform", "Open")
        book.add_character("Ana", "Open")
        with pytest.raises(LedgerError, match="only a roll"):
            book.execute(Note(text="x"), "Open", visibility="blind")
        assert book.head(book.campaign("Open")) == 2  # nothing recorded


def test_the_command_line_rolls_blind_whispers_and_reveals(tmp_path: Path) -> None:
    db = str(tmp_path / "c.ledger")
    run = CliRunner().invoke
    assert run(cli, ["--db", db, "new", "freeform", "Fri"]).exit_code == 0
    run(cli, ["--db", db, "character", "add", "Ana"])
    run(cli, ["--db", db, "character", "add", "Bo"])
    out = run(cli, ["--db", db, "roll", "1d20", "perception", "--blind"])
    assert out.exit_code == 0 and "sealed (blind)" in out.output, out.output
    out = run(cli, ["--db", db, "note", "psst", "--to", "Bo"])
    assert out.exit_code == 0, out.output
    log = run(cli, ["--db", db, "log"]).output
    assert "rolled perception, sealed (blind)" in log and "psst" not in log
    out = run(cli, ["--db", db, "reveal", "--all"])
    assert out.exit_code == 0 and "revealed v4" in out.output, out.output
    out = run(cli, ["--db", db, "reveal", "--all"])
    assert out.exit_code != 0 and "no sealed roll left" in out.output


def test_a_blind_system_check_is_told_by_what_it_rolls_not_by_its_result(tmp_path: Path) -> None:
    """The GM's perception check behind the screen: the log says which check was made
    (``check perception``), never its total or outcome."""
    db = str(tmp_path / "c.ledger")
    run = CliRunner().invoke
    assert run(cli, ["--db", db, "new", "d20", "Mesa"]).exit_code == 0
    assert run(cli, ["--db", db, "character", "create", "Ana"]).exit_code == 0
    assert run(cli, ["--db", db, "d20", "check", "SAB", "--dc", "12", "--faces", "5"]).exit_code == 0
    out = run(
        cli,
        [
            "--db",
            db,
            "d20",
            "check",
            "SAB",
            "--skill",
            "perception",
            "--dc",
            "12",
            "--faces",
            "17",
            "--blind",
        ],
    )
    assert out.exit_code == 0, out.output
    log = run(cli, ["--db", db, "log"]).output
    last = log.strip().splitlines()[-1]
    assert last.endswith("Ana: rolled check perception, sealed (blind)"), last
    assert "17" not in last and "success" not in last


def test_a_blind_roll_is_told_by_the_words_after_its_notation(client: TestClient, seated: Seated) -> None:
    """``1d100 encuentro`` sent from the page behind the screen reads "rolled encuentro", as
    it would in public, on every seat's log."""
    body = {"command": "core.Roll", "args": {"notation": "1d100 encuentro", "actor": "Ana"}}
    r = client.post("/api/c/Friday/actions", json={**body, "visibility": "blind"}, headers=bearer(seated.gm))
    assert r.status_code == 200, r.text
    events = client.get("/api/c/Friday/events", headers=bearer(seated.bob)).json()
    assert "rolled encuentro, sealed (blind)" in json.dumps(events), events


# --- the live table, as each seat ------------------------------------------------------


def test_a_blind_roll_is_in_no_players_read_until_the_reveal(client: TestClient, seated: Seated) -> None:
    v = sealed_roll(seated.db)
    for secret in (seated.ana, seated.bob, seated.watch):
        text = reads(client, secret, v)
        assert TOTAL not in text
        assert "rolled perception, sealed (blind)" in text
    assert client.get(f"/api/c/Friday/sealed/{v}", headers=bearer(seated.ana)).status_code == 404
    assert TOTAL in client.get(f"/api/c/Friday/sealed/{v}", headers=bearer(seated.gm)).text
    refused = client.post("/api/c/Friday/reveal", json={"version": v}, headers=bearer(seated.ana))
    assert refused.status_code == 403
    assert client.get(f"/api/c/Friday/sheet?at={v}", headers=bearer(seated.ana)).status_code == 403
    done = client.post("/api/c/Friday/reveal", json={"version": v}, headers=bearer(seated.gm))
    assert done.status_code == 200, done.text
    for secret in (seated.ana, seated.bob, seated.watch):
        assert TOTAL in client.get(f"/api/c/Friday/sealed/{v}", headers=bearer(secret)).text
        assert TOTAL in client.get("/api/c/Friday/events", headers=bearer(secret)).text


def test_a_private_roll_is_the_rollers_and_the_gms(client: TestClient, seated: Seated) -> None:
    made = client.post(
        "/api/c/Friday/actions",
        json={
            "command": "roll",
            "args": {"notation": "1d1000+900000", "label": "stealth"},
            "faces": [777],
            "visibility": "private",
        },
        headers=bearer(seated.ana),
    )
    assert made.status_code == 200, made.text
    assert TOTAL not in made.text
    v = made.json()["version"]
    assert TOTAL in client.get(f"/api/c/Friday/sealed/{v}", headers=bearer(seated.ana)).text
    assert TOTAL in client.get(f"/api/c/Friday/sealed/{v}", headers=bearer(seated.gm)).text
    for secret in (seated.bob, seated.watch):
        text = reads(client, secret, v)
        assert TOTAL not in text and "sealed (private)" in text


def test_a_whisper_is_in_no_other_seats_log(client: TestClient, seated: Seated) -> None:
    made = client.post(
        "/api/c/Friday/actions",
        json={"command": "note", "args": {"text": WHISPER}, "to": ["Bob"]},
        headers=bearer(seated.ana),
    )
    assert made.status_code == 200, made.text
    v = made.json()["version"]
    for secret in (seated.ana, seated.bob, seated.gm):
        assert WHISPER in client.get(f"/api/c/Friday/sealed/{v}", headers=bearer(secret)).text
        assert "whispered to Bob" in client.get("/api/c/Friday/events", headers=bearer(secret)).text
    text = reads(client, seated.watch, v)
    assert WHISPER not in text, text[text.find(WHISPER) - 300 :][:400]
    assert "whispered to" not in text
    bad = client.post(
        "/api/c/Friday/actions",
        json={"command": "note", "args": {"text": WHISPER}, "to": ["Nobody"]},
        headers=bearer(seated.ana),
    )
    assert bad.status_code == 422 and WHISPER not in bad.text


def test_the_stream_carries_no_sealed_result_and_no_others_whisper(seated: Seated) -> None:
    v = sealed_roll(seated.db)
    w = whisper(seated.db)
    with serving(seated.db) as base:
        with httpx.stream(
            "GET", f"{base}/api/c/Friday/stream?after={v - 1}", headers=bearer(seated.watch), timeout=10
        ) as answer:
            got = sse(answer.iter_lines(), 1, time.monotonic() + 5)
        assert [m["id"] for m in got] == [v]
        assert TOTAL not in json.dumps(got)
        # resuming across the reveal: the reveal comes, the whisper never
        with Ledger(seated.db) as book:
            book.reveal("Friday", v)
        with httpx.stream(
            "GET",
            f"{base}/api/c/Friday/stream",
            headers={**bearer(seated.watch), "Last-Event-ID": str(v)},
            timeout=10,
        ) as answer:
            got = sse(answer.iter_lines(), 1, time.monotonic() + 5)
        assert [m["id"] for m in got] == [w + 1] and TOTAL in json.dumps(got)
        with httpx.stream(
            "GET", f"{base}/api/c/Friday/stream?after={v}", headers=bearer(seated.bob), timeout=10
        ) as answer:
            got = sse(answer.iter_lines(), 2, time.monotonic() + 5)
        assert [m["id"] for m in got] == [w, w + 1]


def test_the_luck_counts_a_sealed_roll_once_it_is_revealed(seated: Seated, tmp_path: Path) -> None:
    from ledger.projections.stats.sheet import luck_from_log
    from ledger.projections.warehouse import open_warehouse

    with Ledger(seated.db) as book:
        v = book.roll("1d20>=11", "Friday", actor="Ana", faces=[15], visibility="blind").version
        assert luck_from_log(book, "Friday", "Ana")["judged"] == 0
        warehouse = open_warehouse(book, str(tmp_path / "w.duckdb"))
        con = warehouse.connect_read_only()
        assert con.execute("SELECT count(*) FROM rolls").fetchone() == (0,)
        con.close()
        book.reveal("Friday", v)
        assert luck_from_log(book, "Friday", "Ana") == {
            "judged": 1,
            "successes": 1,
            "expected": 0.5,
            "luck": 1.0,
        }
        warehouse = open_warehouse(book, str(tmp_path / "w.duckdb"))
        con = warehouse.connect_read_only()
        assert con.execute("SELECT character, outcome, p_success FROM rolls").fetchall() == [
            ("Ana", "success", 0.5)
        ]
        con.close()


def test_a_whisper_made_while_a_stream_is_open_never_reaches_another_seats_stream(seated: Seated) -> None:
    with serving(seated.db) as base:
        after = head_of(seated.db)
        with httpx.stream(
            "GET", f"{base}/api/c/Friday/stream?after={after}", headers=bearer(seated.watch), timeout=10
        ) as answer:
            lines = answer.iter_lines()
            assert next(lines).startswith("retry:")  # the stream is open and waiting
            time.sleep(0.5)
            w = whisper(seated.db)
            with Ledger(seated.db) as book:
                public = book.note("the door creaks", "Friday", actor="Bob").version
            got = sse(lines, 1, time.monotonic() + 5)
        assert [m["id"] for m in got] == [public], got
        assert w == public - 1 and WHISPER not in json.dumps(got)
        with httpx.stream(
            "GET", f"{base}/api/c/Friday/stream?after={after}", headers=bearer(seated.bob), timeout=10
        ) as answer:
            got = sse(answer.iter_lines(), 2, time.monotonic() + 5)
        assert [m["id"] for m in got] == [w, public]


def head_of(db: str) -> int:
    with Ledger(db) as book:
        return book.head(book.campaign("Friday"))


def test_the_journal_and_the_report_hold_no_sealed_result_until_the_reveal(
    seated: Seated, tmp_path: Path
) -> None:
    v = sealed_roll(seated.db)
    whisper(seated.db)
    run = CliRunner().invoke
    journal = run(cli, ["--db", seated.db, "-c", "Friday", "journal"])
    assert journal.exit_code == 0, journal.output
    assert (
        "sealed (blind)" in journal.output and TOTAL not in journal.output and WHISPER not in journal.output
    )
    page = tmp_path / "r.html"
    made = run(cli, ["--db", seated.db, "-c", "Friday", "report", "-o", str(page)])
    assert made.exit_code == 0, made.output
    assert TOTAL not in page.read_text() and WHISPER not in page.read_text()
    run(cli, ["--db", seated.db, "-c", "Friday", "reveal", str(v)])
    journal = run(cli, ["--db", seated.db, "-c", "Friday", "journal"])
    assert TOTAL in journal.output and WHISPER not in journal.output


def test_a_players_refusals_echo_nothing_sealed(client: TestClient, seated: Seated) -> None:
    v = sealed_roll(seated.db)
    w = whisper(seated.db)
    h = bearer(seated.watch)
    answers = [
        client.get(f"/api/c/Friday/sealed/{v}", headers=h),
        client.get(f"/api/c/Friday/sealed/{w}", headers=h),
        client.get(f"/api/c/Friday/sealed/{w + 1}", headers=h),
        client.get(f"/api/c/Friday/sheet?at={v}", headers=bearer(seated.bob)),
        client.post("/api/c/Friday/fork", json={"name": "Mine", "at": v}, headers=bearer(seated.bob)),
        client.post("/api/c/Friday/reveal", json={"all": True}, headers=bearer(seated.bob)),
        client.post("/api/c/Friday/undo", json={}, headers=bearer(seated.bob)),
        client.post(
            "/api/c/Friday/actions",
            json={"command": "note", "args": {"text": "x"}, "visibility": "blind"},
            headers=bearer(seated.bob),
        ),
    ]
    for answer in answers:
        assert answer.status_code >= 400, answer.text
        assert TOTAL not in answer.text and WHISPER not in answer.text and "4417" not in answer.text
    # the whisper's version and a version past the head are refused alike: nothing tells them apart
    assert answers[1].status_code == answers[2].status_code == 404
    assert answers[1].json()["error"]["message"].replace(str(w), "N") == answers[2].json()["error"][
        "message"
    ].replace(str(w + 1), "N")


def test_verify_of_a_forged_file_names_the_reveal(seated: Seated, tmp_path: Path) -> None:
    _v, r, data = _forged(seated.db, lambda rev, sealed: rev.update(salt="1" * 32))
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(data.getvalue())
    out = CliRunner().invoke(cli, ["--db", str(tmp_path / "v.ledger"), "verify", str(forged)])
    assert out.exit_code != 0
    assert f"version {r}" in out.output and "commitment" in out.output, out.output


def test_the_worked_example_of_docs_dice_md_holds() -> None:
    import re

    from ledger.dice.sources import committed_face
    from ledger.log.sealing import decode

    doc = (Path(__file__).parent.parent / "docs" / "dice.md").read_text()
    part = doc[doc.index("## Sealed rolls") :]
    part = part[part.index("### A worked example") :]
    blocks = re.findall(r"```(?:json|console)\n(.*?)\n```", part, re.S)
    sealed = json.loads(blocks[0])
    salt = re.search(r"its `salt` is `([0-9a-f]{32})`", part)[1]  # type: ignore[index]
    content = blocks[1]
    assert commitment_of(salt, content) == sealed["commitment"]
    assert blocks[2].splitlines()[1] == f"{sealed['commitment']}  -"
    seed = re.search(r"gives the seed\n`([0-9a-f]{64})`", part)[1]  # type: ignore[index]
    campaign = re.search(r"the campaign id is\n`([0-9a-f-]{36})`", part)[1]  # type: ignore[index]
    opened = decode(content, "freeform")
    assert opened.decision is not None and opened.decision.commitment == sealed["dice"]
    assert list(opened.decision.faces) == [committed_face(bytes.fromhex(seed), "", campaign, 0, 20)] == [6]


def test_a_sealed_roll_is_kept_beside_the_log_and_revealed_in_either_store(
    target: str, tmp_path: Path
) -> None:
    with Ledger(target) as book:
        book.new_campaign("freeform", "Friday")
        book.add_character("Ana", "Friday")
        v = sealed_roll(target)
        assert TOTAL in book.sealed_content("Friday", v, Viewer("gm"))["summaries"][0]
        gms = io.BytesIO()
        book.export(gms, "Friday")
        book.reveal("Friday", v)
        book.verify("Friday")
    with Ledger(str(tmp_path / "copy.ledger")) as copy:
        gms.seek(0)
        copy.import_(gms, "Friday")
        assert copy.reveal("Friday", v).envelopes[0].event.sealed == v


def _recommitted(rev: dict, sealed: dict, old: str, new: str) -> None:
    """A forger's reveal that commits again: the content edited, the sealed event's
    commitment made to match it (the chain sealed again after)."""
    rev["content"] = rev["content"].replace(old, new)
    rev["what"] = rev["what"].replace(old.split(":")[-1], new.split(":")[-1])
    sealed["commitment"] = commitment_of(rev["salt"], rev["content"])


def test_a_recommitted_reveal_whose_result_is_not_its_faces_is_named(seated: Seated, tmp_path: Path) -> None:
    _v, r, data = _forged(
        seated.db, lambda rev, sealed: _recommitted(rev, sealed, '"total":900777', '"total":900999')
    )
    with Ledger(str(tmp_path / "other.ledger")) as other, pytest.raises(TamperError) as e:
        other.import_(data, "Forged")
    assert e.value.version == r and "what its command decides with its faces" in str(e.value)


def test_a_recommitted_reveal_with_other_provable_faces_is_named(tmp_path: Path) -> None:
    db = str(tmp_path / "p.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Friday")
        book.add_character("Ana", "Friday")
        v = book.roll("1d20", "Friday", visibility="blind").version
        r = book.reveal("Friday", v).version
        book.reveal_dice("Friday")
        c = book.campaign("Friday")
        rows = [bytes(x) for x in book.stored(c)]
    envs = [json.loads(x) for x in rows]
    rev, sealed = envs[r - 1]["event"], envs[v - 1]["event"]
    face = json.loads(rev["content"])["decision"]["faces"][0]
    other = 1 + face % 20
    content = json.loads(rev["content"])
    content["decision"]["faces"] = [other]
    rolled = content["events"][0]["result"]
    rolled["groups"][0]["dice"][0]["face"] = rolled["groups"][0]["value"] = rolled["total"] = other
    rev["content"] = json.dumps(content, separators=(",", ":"))
    sealed["commitment"] = commitment_of(rev["salt"], rev["content"])
    rev["what"] = rev["what"].replace(f"= {face} [{face}]", f"= {other} [{other}]")
    data = _resealed(envs)
    with Ledger(str(tmp_path / "other.ledger")) as book, pytest.raises(TamperError) as e:
        book.import_(data, "Forged")
    assert e.value.version == v and "revealed seed" in str(e.value), str(e.value)


def test_an_undone_sealed_roll_is_revealed_but_never_played(seated: Seated) -> None:
    v = sealed_roll(seated.db, actor="Ana")
    with Ledger(seated.db) as book:
        book.undo("Friday")
        rec = book.reveal("Friday", v)
        assert rec.envelopes[0].event.folded is False
        assert book.state("Friday").game.rolls == 0  # the sheet counts no roll
        w = book.roll("1d6", "Friday", actor="Bob", visibility="private").version
        assert book.reveal("Friday", w).state.game.rolls == 1
        book.verify("Friday")


def test_a_reveal_that_plays_an_undone_roll_is_named(seated: Seated, tmp_path: Path) -> None:
    v = sealed_roll(seated.db)
    with Ledger(seated.db) as book:
        book.undo("Friday")
        r = book.reveal("Friday", v).version
        c = book.campaign("Friday")
        rows = [bytes(x) for x in book.stored(c)]
    envs = [json.loads(x) for x in rows]
    envs[r - 1]["event"]["folded"] = True
    data = _resealed(envs)
    with Ledger(str(tmp_path / "other.ledger")) as other, pytest.raises(TamperError) as e:
        other.import_(data, "Forged")
    assert e.value.version == r and "live at the reveal, which it was not" in str(e.value)
