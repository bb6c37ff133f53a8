"""Provable virtual dice: commit, roll, reveal, and recompute every face (docs/dice.md)."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest

from ledger import Ledger
from ledger.dice.sources import committed_face
from ledger.errors import LedgerError, TamperError
from ledger.projections.warehouse.loading import Warehouse
from ledger.systems.crawl.play import autoplay as crawl_autoplay
from ledger.trust.integrity import verify_dice, verify_dice_file
from tests import helpers_reliability as hr
from tests.conftest import Session
from tests.helpers_forgery import forge_store

DOC = Path(__file__).parents[1] / "docs" / "dice.md"


def carried(book: Ledger, tmp_path: Path) -> Ledger:
    """Another ledger (``away.ledger``), into which the campaign ``Tale`` of ``book`` was
    exported and imported."""
    path = tmp_path / "tale.jsonl"
    with path.open("wb") as out:
        book.export(out, "Tale")
    other = Ledger(str(tmp_path / "away.ledger"))
    with path.open("rb") as data:
        other.import_(data, "Tale")
    return other


def assert_verify_dice_fails(db: str, campaign: str, version: int) -> None:
    """``ledger verify --dice`` in a process of its own: exit 4, one line naming the version,
    no traceback."""
    process = hr.run_ledger(db, "verify", "--dice")
    assert process.returncode == 4
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: campaign {campaign!r} fails verification at version {version}")


def doc_face() -> Any:
    """The face function exactly as docs/dice.md prints it, run with nothing else."""
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert code is not None
    namespace: dict[str, Any] = {}
    exec(code.group(1), namespace)
    return namespace["face"]


def own_face(seed: bytes, client_seed: str, branch: str, nonce: int, sides: int) -> int:
    """The derivation written again from the issue's words, sharing no code with the ledger."""
    msg = f"{client_seed}:{branch}:{nonce}"
    candidates = [msg] + [f"{msg}:{k}" for k in range(1, 64)]
    for text in candidates:
        digest = hmac.new(seed, text.encode("utf-8"), hashlib.sha256).digest()
        words = [int.from_bytes(digest[4 * i : 4 * i + 4], "big") for i in range(8)]
        accepted = [x for x in words if x < 2**32 - (2**32 % sides)]
        if accepted:
            return 1 + accepted[0] % sides
    raise AssertionError("no word accepted in 64 digests")


def test_the_documented_snippet_gives_the_worked_example() -> None:
    text = DOC.read_text()
    face = doc_face()
    seed = re.search(r"- seed: `([0-9a-f]{64})`", text).group(1)  # type: ignore[union-attr]
    commitment = re.search(r"- commitment: `([0-9a-f]{64})`", text).group(1)  # type: ignore[union-attr]
    client = re.search(r"- client seed: `([^`]*)`", text).group(1)  # type: ignore[union-attr]
    branch = re.search(r"- branch: `([0-9a-f-]{36})`", text).group(1)  # type: ignore[union-attr]
    rows = re.findall(r"^\| (\d+) \| (\d+) \| (\d+) \|$", text, re.M)
    assert len(rows) == 7
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    for nonce, sides, shown in rows:
        got = face(seed, client, branch, int(nonce), int(sides))
        assert got == int(shown), (nonce, sides)
        assert committed_face(bytes.fromhex(seed), client, branch, int(nonce), int(sides)) == got
        assert own_face(bytes.fromhex(seed), client, branch, int(nonce), int(sides)) == got


def test_the_example_die_whose_words_are_all_rejected_continues_with_msg_1() -> None:
    seed = bytes(range(32))
    branch = "0b5e3f4c-9a1d-4e2b-8c7f-6d5a4b3c2e1f"
    sides = 2**31 + 1
    msg = f"table-7:{branch}:395"
    first = hmac.new(seed, msg.encode(), hashlib.sha256).digest()
    limit = 2**32 - 2**32 % sides
    assert all(int.from_bytes(first[i : i + 4], "big") >= limit for i in range(0, 32, 4))
    second = hmac.new(seed, f"{msg}:1".encode(), hashlib.sha256).digest()
    word = next(x for i in range(0, 32, 4) if (x := int.from_bytes(second[i : i + 4], "big")) < limit)
    assert committed_face(seed, "table-7", branch, 395, sides) == 1 + word % sides


def _decisions(book: Ledger, name: str) -> list[Any]:
    c = book.campaign(name)
    return [env for env in book.envelopes(c) if env.decision is not None and env.decision.faces]


def _seed_of(book: Ledger, commitment: str) -> str:
    raw = book.store.seed_record("dice-seed:" + commitment)
    assert raw is not None
    return str(json.loads(raw)["seed"])


def test_every_face_is_recomputed_from_the_revealed_seed_independently(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "a.ledger"))
    book.new_campaign("freeform", "Main", client_seed="our table")
    for notation in ("3d6", "4dF", "2d6!", "4d6kh3", "1d20+5>=15", "8d6>=5", "1d100"):
        book.roll(notation, "Main")
    book.roll("2d6", "Main", faces=[3, 4])
    revealed, _ = book.reveal_dice("Main").events
    envs = _decisions(book, "Main")
    face = doc_face()
    virtual = [env for env in envs if not env.decision.manual]
    assert len(virtual) == 7
    for env in virtual:
        how = env.decision
        assert how.commitment == revealed.commitment
        again = [
            face(revealed.seed, "our table", env.campaign, how.nonce + i, sides)
            for i, sides in enumerate(how.sides)
        ]
        assert tuple(again) == how.faces
        rolled = [d.face for g in env.event.result.groups for d in g.dice]
        assert rolled == again  # the faces the roll shows are the derived ones (Fate as d3)
    nonces = [
        n for env in virtual for n in range(env.decision.nonce, env.decision.nonce + len(env.decision.faces))
    ]
    assert nonces == list(range(len(nonces)))
    physical = [env for env in envs if env.decision.manual]
    assert physical[0].decision.nonce is None and physical[0].decision.commitment is None
    report = verify_dice(book, "Main")["Main"]
    assert (report.proven, report.pending, report.physical) == (len(nonces), 0, 2)


def _forge_face(db: str, stream: str, version: int) -> int:
    """Change the first face of the roll at ``version`` (and its decision and total) and
    re-seal the chain, as a forger holding the file could; returns the new face."""
    new_face = 0

    def edit(events: list[dict[str, Any]]) -> None:
        nonlocal new_face
        env = events[version - 1]
        die = env["event"]["result"]["groups"][0]["dice"][0]
        old = die["face"]
        new_face = 1 if old != 1 else 2
        die["face"] = new_face
        group = env["event"]["result"]["groups"][0]
        group["value"] += new_face - old
        env["event"]["result"]["total"] += new_face - old
        faces = list(env["decision"]["faces"])
        faces[0] = new_face
        env["decision"]["faces"] = faces

    forge_store(db, stream, edit)
    return new_face


def test_a_forged_face_resealed_passes_verify_but_fails_verify_dice_at_that_roll(tmp_path: Path) -> None:
    db = str(tmp_path / "f.ledger")
    book = Ledger(db)
    c = book.new_campaign("freeform", "Main")
    book.roll("1d20", "Main")
    target = book.roll("3d6", "Main").version
    book.roll("1d8", "Main")
    book.reveal_dice("Main")
    assert verify_dice(book, "Main")["Main"].proven == 5
    book.close()
    _forge_face(db, c.id, target)
    book = Ledger(db)
    book.verify("Main")  # the chain and what every event means: whole
    with pytest.raises(
        TamperError, match=rf"'Main' fails verification at version {target}: its die 1 .* gives"
    ):
        verify_dice(book, "Main")


def test_cli_verify_dice_names_the_forged_roll(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "Main")
    ledger_cli("roll", "2d6")
    ledger_cli("dice", "reveal")
    assert "dice  Main: 2 dice proven" in ledger_cli("verify", "--dice").output
    c = Ledger(db)
    cid = c.campaign("Main").id
    c.close()
    _forge_face(db, cid, 2)
    assert ledger_cli("verify").exit_code == 0
    failed = ledger_cli("verify", "--dice", ok=False)
    assert failed.exit_code == 4
    assert "campaign 'Main' fails verification at version 2: its die 1 (nonce 0, d6)" in failed.output
    assert ledger_cli("verify", "--all", ok=False).exit_code == 4


def _warehouse_text(book: Ledger, path: Path) -> str:
    wh = Warehouse(book, path)
    wh.rebuild()

    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        return "\n".join(str(con.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables)
    finally:
        con.close()


def test_the_seed_stays_out_of_exports_the_warehouse_and_the_log_until_revealed(
    ledger_cli: Session, db: str, tmp_path: Path
) -> None:
    ledger_cli("new", "freeform", "Main")
    ledger_cli("roll", "3d6")
    ledger_cli("fork", "Alt")
    ledger_cli("-c", "Alt", "roll", "1d6")
    book = Ledger(db)
    seeds = [
        _seed_of(book, st["commitment"])
        for st in (book.dice_status("Main"), book.dice_status("Alt"))
        if st["commitment"] is not None
    ]
    assert len(seeds) == 2
    exported = b"".join(
        ledger_cli("-c", name, "export", "--unsigned").output.encode() for name in ("Main", "Alt")
    )
    logs = "".join(ledger_cli("--json", "-c", name, "log", "--all").output for name in ("Main", "Alt"))
    stored = (
        sqlite3.connect(db)
        .execute("SELECT group_concat(CAST(state AS TEXT), '') FROM ledger_events")
        .fetchone()[0]
    )
    shown = _warehouse_text(book, tmp_path / "w.duckdb")
    status = ledger_cli("--json", "dice", "status").output
    for seed in seeds:
        for where in (exported.decode(), logs, stored, shown, status):
            assert seed not in where
    ledger_cli("-c", "Main", "dice", "reveal")
    assert seeds[0] in ledger_cli("--json", "-c", "Main", "log").output  # published once revealed
    assert seeds[1] not in ledger_cli("-c", "Alt", "export", "--unsigned").output


def _all_nonces(book: Ledger) -> list[tuple[str, str, int]]:
    seen = []
    for c in book.campaigns():
        _stream, after, _ = c.lineage[-1]
        for env in book.envelopes(c, after):
            how = env.decision
            if how is not None and how.nonce is not None:
                seen += [(env.campaign, how.commitment, how.nonce + i) for i in range(len(how.faces))]
    return seen


def test_undo_redo_and_fork_never_give_a_die_number_back(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "u.ledger"))
    book.new_campaign("freeform", "Main")
    book.roll("2d6", "Main")  # nonces 0, 1
    book.undo("Main")
    book.roll("1d20", "Main")  # nonce 2, not 0 again
    book.undo("Main")
    book.redo("Main")
    book.roll("1d4", "Main")  # nonce 3
    assert book.dice_status("Main")["drawn"] == 4
    book.fork("Main", "Alt", at=2)
    book.roll("1d6", "Alt")
    book.roll("1d6", "Main")
    seen = _all_nonces(book)
    assert len(seen) == len(set(seen)) == 6
    main = [n for b, _, n in seen if b == book.campaign("Main").id]
    assert main == [0, 1, 2, 3, 4]
    alt = [(k, n) for b, k, n in seen if b == book.campaign("Alt").id]
    assert alt == [(book.dice_status("Alt")["commitment"], 0)]
    assert book.dice_status("Alt")["commitment"] != book.dice_status("Main")["commitment"]
    again = Ledger(str(tmp_path / "u.ledger"))  # a new process reads the count back from the log
    assert again.roll("1d6", "Main").envelopes[0].decision.nonce == 5
    assert verify_dice(again, every=True)["Main"].pending == 6


def test_a_forged_repeated_nonce_is_named(tmp_path: Path) -> None:
    db = str(tmp_path / "n.ledger")
    book = Ledger(db)
    c = book.new_campaign("freeform", "Main")
    book.roll("1d6", "Main")
    book.roll("1d6", "Main")
    book.close()

    def edit(events: list[dict[str, Any]]) -> None:
        events[2]["decision"]["nonce"] = 0

    forge_store(db, c.id, edit)
    with pytest.raises(TamperError, match=r"version 3: its first die is number 0 .* where 1 comes next"):
        verify_dice(Ledger(db), "Main")
    assert_verify_dice_fails(db, "Main", 3)


def test_a_fork_revealing_its_seed_tells_nothing_of_the_parent(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "k.ledger"))
    book.new_campaign("freeform", "Main")
    book.roll("1d6", "Main")
    book.fork("Main", "Alt")
    shown, _ = book.reveal_dice("Alt").events
    main = book.dice_status("Main")
    assert main["commitment"] != shown.commitment and main["drawn"] == 1
    # the parent's next die under its own secret seed, not the fork's revealed one
    nxt = book.roll("1d20", "Main").envelopes[0].decision
    assert nxt.commitment == main["commitment"]
    proofs = verify_dice(book, every=True)
    assert proofs["Main"].pending == 2 and proofs["Alt"].pending == 1 and proofs["Alt"].proven == 0
    book.reveal_dice("Main")
    assert verify_dice(book, "Alt")["Alt"].proven == 1  # the parent's reveal proves the shared history


def test_seeded_campaigns_keep_working_and_are_not_provable(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Sim", "--seed", "7")
    ledger_cli("roll", "3d6")
    assert "seeded dice (--seed)" in ledger_cli("dice", "status").output
    refused = ledger_cli("dice", "commit", ok=False)
    assert refused.exit_code == 1 and "never provable" in refused.output
    out = ledger_cli("verify", "--dice").output
    assert "dice  Sim: 0 dice proven, 3 seeded (--seed, not provable)" in out


def test_no_commit_rolls_are_unproven_until_a_commitment_opens(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Plain", "--no-commit")
    ledger_cli("roll", "1d6")
    assert "no dice commitment open" in ledger_cli("dice", "status").output
    committed = ledger_cli("dice", "commit", "--client-seed", "ours")
    assert "dice committed in 'Plain'" in committed.output
    again = ledger_cli("dice", "commit", ok=False)
    assert again.exit_code == 1 and "reveal it first with `ledger dice reveal`" in again.output
    ledger_cli("roll", "2d6")
    assert "2 dice drawn" in ledger_cli("dice", "status").output
    ledger_cli("dice", "reveal")
    assert (
        "dice  Plain: 2 dice proven, 1 virtual without a commitment" in ledger_cli("verify", "--dice").output
    )
    assert "undo v4: rolled 2d6" in ledger_cli("undo").output  # past the reveal and commitment


def test_undo_takes_back_the_roll_not_the_commitment(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Main")
    refused = ledger_cli("undo", ok=False)
    assert refused.exit_code == 1 and "nothing to undo" in refused.output
    ledger_cli("roll", "1d6")
    ledger_cli("dice", "reveal")
    assert "undo v2: rolled 1d6" in ledger_cli("undo").output


def _play(book: Ledger) -> None:
    book.new_campaign("freeform", "Tale", client_seed="players")
    book.add_character("Ana", "Tale")
    for notation in ("3d6", "4dF", "2d6!", "1d20+2>=12"):
        book.roll(notation, "Tale", actor="Ana")
    book.undo("Tale")
    book.roll("1d8", "Tale", actor="Ana")
    book.new_campaign("crawl", "Trip")
    crawl_autoplay(book, "Trip", 2)


def test_a_campaign_in_two_systems_revealed_exported_and_imported_proves_every_face(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "home.ledger"))
    _play(book)
    for name in ("Tale", "Trip"):
        book.reveal_dice(name)
    other = Ledger(str(tmp_path / "away.ledger"))
    for name in ("Tale", "Trip"):
        drawn = sum(len(env.decision.faces) for env in _decisions(book, name) if not env.decision.manual)
        assert drawn > 0
        path = tmp_path / f"{name}.jsonl"
        with path.open("wb") as out:
            book.export(out, name)
        with path.open("rb") as data:
            _, alone = verify_dice_file(data)
        assert (alone.proven, alone.pending, alone.unproven) == (drawn, 0, 0), name
        with path.open("rb") as data:
            other.import_(data, name)
        there = verify_dice(other, name)[name]
        assert (there.proven, there.pending) == (drawn, 0)
        assert set(there.marks.values()) <= {"proven", "physical"}


def test_an_import_opens_its_own_commitment_and_never_rolls_under_the_imported_one(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "home.ledger"))
    book.new_campaign("freeform", "Tale")
    book.roll("1d6", "Tale")
    theirs = book.dice_status("Tale")["commitment"]
    other = carried(book, tmp_path)
    ours = other.dice_status("Tale")
    assert ours["commitment"] != theirs and ours["provable"] and ours["drawn"] == 0
    other.roll("1d6", "Tale")
    other.reveal_dice("Tale")  # reveals this ledger's seed, never the home ledger's
    report = verify_dice(other, "Tale")["Tale"]
    assert (report.proven, report.pending) == (1, 1)
    assert "never revealed: its dice can never be proven" in report.warnings[0]


def test_verify_file_dice_on_the_command_line(ledger_cli: Session, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "Main")
    ledger_cli("roll", "2d6")
    ledger_cli("roll", "1d6", "--faces", "4")
    path = str(tmp_path / "m.jsonl")
    ledger_cli("export", "-o", path)
    out = ledger_cli("verify", path, "--dice").output
    assert "dice  Main: 0 dice proven, 2 pending (commitment not revealed), 1 physical" in out


def test_the_report_marks_each_roll_proven_pending_or_physical(tmp_path: Path) -> None:
    from ledger.projections.report import build

    book = Ledger(str(tmp_path / "r.ledger"))
    book.new_campaign("freeform", "Main")
    first = book.roll("1d6", "Main").version
    physical = book.roll("1d6", "Main", faces=[2]).version
    book.reveal_dice("Main")
    later = book.roll("1d6", "Main").version
    book.note("no dice here", "Main")
    marks = {row["v"]: row["dice"] for row in build(book, "Main")["log"]}
    assert marks[first] == "proven" and marks[physical] == "physical" and marks[later] == "pending"
    assert {v for v, m in marks.items() if m} == {first, physical, later}


def test_two_writers_racing_for_a_head_draw_each_die_number_once(target: str) -> None:
    a, b = Ledger(target), Ledger(target)
    a.new_campaign("freeform", "Main")
    first = b.roll("1d6", "Main")  # b now keeps v2 as the head it knows
    second = a.roll("1d6", "Main")  # a reads the head, draws the next number
    third = b.roll("1d6", "Main")  # b decides on its stale head, loses the version, decides again
    nonces = [r.envelopes[0].decision.nonce for r in (first, second, third)]
    assert nonces == [0, 1, 2]
    a.reveal_dice("Main")
    assert verify_dice(b, "Main")["Main"].proven == 3
    seed = a.store.seed_record("dice-seed:" + first.envelopes[0].decision.commitment)
    assert seed is not None  # the seed table lives in the store, on SQLite and PostgreSQL alike
    a.close()
    b.close()


def test_text_that_looks_like_a_commitment_does_not_stop_the_count(tmp_path: Path) -> None:
    path = str(tmp_path / "t.ledger")
    book = Ledger(path)
    book.new_campaign("freeform", "Main")
    book.roll("2d6", "Main")
    book.add_character("Ana", "Main", {"commitment": "x" * 64})
    book.note('"commitment": none', "Main")
    book.close()
    again = Ledger(path)  # reads the next number back from the log
    assert again.roll("1d6", "Main").envelopes[0].decision.nonce == 2


def test_a_client_seed_without_a_commitment_is_refused_and_nothing_recorded(ledger_cli: Session) -> None:
    for flag in (["--no-commit"], ["--seed", "4"]):
        refused = ledger_cli("new", "freeform", "X", *flag, "--client-seed", "ours", ok=False)
        assert refused.exit_code == 1
        assert refused.output.strip().startswith("error: --client-seed goes into a dice commitment")
    assert "no campaigns yet" in ledger_cli("campaigns").output
    bad = ledger_cli("new", "freeform", "X", "--client-seed", "a\nb", ok=False)
    assert bad.exit_code == 1 and "--client-seed" in bad.output


# --- the players' client seed, given after the commitment (dice.seeded) ---------------------


def _faces_under(book: Ledger, name: str, seed: bytes, client_seed: str) -> tuple[list[int], list[int]]:
    """Every virtual face of a branch as recorded, and as the derivation gives it under
    ``seed`` and ``client_seed`` (written again, sharing no code with the ledger)."""
    recorded, derived = [], []
    for env in _decisions(book, name):
        how = env.decision
        if how.manual or how.nonce is None:
            continue
        recorded += list(how.faces)
        derived += [
            own_face(seed, client_seed, env.campaign, how.nonce + i, sides)
            for i, sides in enumerate(how.sides)
        ]
    return recorded, derived


def test_dice_seeded_after_the_commitment_use_the_players_client_seed(tmp_path: Path) -> None:
    db = str(tmp_path / "s.ledger")
    book = Ledger(db)
    book.new_campaign("freeform", "Main", client_seed="given early")
    opened = book.dice_status("Main")
    seeded = book.seed_dice("  table 7 ", "Main").events[0]
    assert (seeded.kind, seeded.commitment, seeded.client_seed) == (
        "dice.seeded",
        opened["commitment"],
        "table 7",
    )
    status = book.dice_status("Main")
    assert (status["client_seed"], status["seeded_at"], status["drawn"]) == ("table 7", 2, 0)
    Ledger(db).roll("3d6", "Main")  # a new process reads the client seed back from the seeding
    Ledger(db).roll("2d20", "Main")  # and from behind a die drawn under it
    book = Ledger(db)
    assert book.dice_status("Main")["client_seed"] == "table 7"
    shown, _ = book.reveal_dice("Main").events
    recorded, derived = _faces_under(book, "Main", bytes.fromhex(shown.seed), "table 7")
    assert len(recorded) == 5 and recorded == derived
    _, early = _faces_under(book, "Main", bytes.fromhex(shown.seed), "given early")
    assert early != recorded  # the commitment's own client seed would give other dice
    report = verify_dice(book, "Main")["Main"]
    assert report.proven == 5
    assert (report.commitments[0]["client_seed"], report.commitments[0]["seeded"]) == ("table 7", 2)


def test_a_fork_after_seeding_carries_the_seeded_client_seed(tmp_path: Path) -> None:
    db = str(tmp_path / "f.ledger")
    book = Ledger(db)
    book.new_campaign("freeform", "Main")
    book.seed_dice("ours", "Main")
    book.roll("1d6", "Main")
    Ledger(db).fork("Main", "Alt")
    assert Ledger(db).dice_status("Alt")["client_seed"] == "ours"


def test_seeding_after_a_die_was_drawn_is_refused_and_records_nothing(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "d.ledger"))
    c = book.new_campaign("freeform", "Main")
    book.roll("1d6", "Main")
    book.undo("Main")  # an undone die keeps its number: the commitment has drawn one
    head = book.head(c)
    with pytest.raises(LedgerError, match=r"^1 die was drawn under dice commitment [0-9a-f]{16} in 'Main'"):
        book.seed_dice("too late", "Main")
    assert book.head(c) == head
    assert book.dice_status("Main")["client_seed"] == ""
    book.reveal_dice("Main")  # the next commitment can be seeded
    assert book.seed_dice("in time", "Main").events[0].kind == "dice.seeded"


def test_seeding_with_no_commitment_open_is_refused(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "n.ledger"))
    plain = book.new_campaign("freeform", "Plain", commit=False)
    with pytest.raises(LedgerError, match=r"no dice commitment is open in 'Plain' to seed"):
        book.seed_dice("ours", "Plain")
    assert book.head(plain) == 1
    sim = book.new_campaign("freeform", "Sim", seed=7)
    with pytest.raises(LedgerError, match=r"rolls seeded dice"):
        book.seed_dice("ours", "Sim")
    assert book.head(sim) == 1
    book.commit_dice("Plain")
    with pytest.raises(LedgerError, match=r"`client_seed` is empty"):
        book.seed_dice("  ", "Plain")
    assert book.head(plain) == 2


def test_an_imported_campaign_seeds_the_commitment_its_import_opened(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "home.ledger"))
    book.new_campaign("freeform", "Tale")
    other = carried(book, tmp_path)
    other.seed_dice("ours", "Tale")
    status = other.dice_status("Tale")
    assert (status["client_seed"], status["seeded_at"]) == ("ours", 3)
    assert status["commitment"] != book.dice_status("Tale")["commitment"]


def test_the_cli_seeds_shows_it_and_refuses_a_late_seed_in_one_line(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "Main")
    assert "players may seed it before the first roll" in ledger_cli("dice", "status").output
    out = ledger_cli("dice", "seed", "table 7").output
    assert out.startswith("dice seeded in 'Main': commitment ") and "client seed 'table 7'" in out
    status = ledger_cli("dice", "status").output
    assert "client seed 'table 7' (seeded after the commitment, v2), 0 dice drawn" in status
    assert "dice seeded: " in ledger_cli("log").output
    ledger_cli("roll", "2d6")
    assert "2 dice drawn" in ledger_cli("dice", "status").output
    before = hr.store_rows(db)
    process = hr.run_ledger(db, "dice", "seed", "late")
    assert process.returncode == 1
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1, process.stderr
    assert lines[0].startswith("error: 2 dice were drawn under dice commitment ")
    assert lines[0].endswith(
        "reveal it with `ledger dice reveal` (that opens the next one) and seed the next one"
    )
    assert hr.store_rows(db) == before
    ledger_cli("dice", "reveal")
    assert "dice  Main: 2 dice proven" in ledger_cli("verify", "--dice").output


def test_undo_passes_over_a_seeding(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Main")
    ledger_cli("dice", "seed", "ours")
    refused = ledger_cli("undo", ok=False)
    assert refused.exit_code == 1 and "nothing to undo" in refused.output
    ledger_cli("roll", "1d6")
    assert "undo v3: rolled 1d6" in ledger_cli("undo").output
    assert (
        "client seed 'ours' (seeded after the commitment, v2), 1 die drawn"
        in ledger_cli("dice", "status").output
    )


def test_verify_dice_names_a_seeding_after_a_die_was_drawn(tmp_path: Path) -> None:
    db = str(tmp_path / "v.ledger")
    book = Ledger(db)
    c = book.new_campaign("freeform", "Main")
    commitment = book.dice_status("Main")["commitment"]
    book.roll("1d6", "Main")
    book.note("then the players chose", "Main")
    book.close()

    def edit(events: list[dict[str, Any]]) -> None:
        events[2].pop("decision")
        events[2]["event"] = {"kind": "dice.seeded", "commitment": commitment, "client_seed": "late"}

    forge_store(db, c.id, edit)
    with pytest.raises(
        TamperError, match=r"version 3: it seeds dice commitment [0-9a-f]{16} after 1 of its dice"
    ):
        verify_dice(Ledger(db), "Main")
    assert_verify_dice_fails(db, "Main", 3)


def test_an_import_keeps_the_client_seed_given_after_the_commitment(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "home.ledger"))
    book.new_campaign("freeform", "Tale")
    book.seed_dice("ours", "Tale")
    book.roll("2d6", "Tale")
    carried(book, tmp_path)
    status = Ledger(str(tmp_path / "away.ledger")).dice_status("Tale")  # read back by a new Ledger
    # the import's own commitment opens with the client seed in force at the file's head
    assert (status["client_seed"], status["seeded_at"], status["drawn"]) == ("ours", None, 0)
    with (tmp_path / "tale.jsonl").open("rb") as data:
        _, alone = verify_dice_file(data)
    assert alone.pending == 2 and alone.commitments[0]["client_seed"] == "ours"
