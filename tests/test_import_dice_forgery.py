"""Forged provable dice in an export are refused on import, as ``verify --all`` would
refuse them afterwards: a commitment the importing ledger already opened (published by
``dice status``), one opened twice, a fork reusing its parent's, faces that do not follow
a seed revealed in the same file, and a roll that shows other faces than its decision
derives. A file that takes another campaign's id is stored as a copy with its own."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.errors import TamperError
from ledger.trust.integrity import verify_dice, verify_dice_file
from tests import helpers_reliability as hr
from tests.helpers_forgery import forge_export


def export_to(book: Ledger, name: str, path: Path) -> Path:
    with path.open("wb") as out:
        book.export(out, name)
    return path


def rows(db: Path) -> tuple[int, int]:
    """The events and the seed-table records a ledger holds."""
    conn = sqlite3.connect(db)
    try:
        events = conn.execute("SELECT count(*) FROM ledger_events").fetchone()[0]
        seeds = conn.execute("SELECT count(*) FROM ledger_seeds").fetchone()[0]
    finally:
        conn.close()
    return events, seeds


def assert_refused(db: Path, forged: Path, version: int, problem: str) -> None:
    """``ledger import`` refuses the file in one line naming the version (exit 4) and
    records nothing, in the events or the seed table; ``verify FILE`` refuses it too."""
    before = rows(db)
    for args in (("import", str(forged), "--name", "Forged"), ("verify", str(forged))):
        process = hr.run_ledger(str(db), *args)
        assert process.returncode == 4, process.stdout + process.stderr
        lines = process.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ")
        assert f"at version {version}: " in lines[0] and problem in lines[0], lines[0]
    assert rows(db) == before


def test_a_start_that_reuses_the_importing_ledgers_open_commitment_is_refused(tmp_path: Path) -> None:
    victim_db = tmp_path / "victim.ledger"
    with Ledger(str(victim_db)) as victim:
        victim.new_campaign("freeform", "Mine")
        published = victim.dice_status("Mine")["commitment"]
    with Ledger(str(tmp_path / "forger.ledger")) as forger:
        forger.new_campaign("freeform", "Bait")
        genuine = export_to(forger, "Bait", tmp_path / "bait.jsonl")

    def reuse(_head: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        events[0]["event"]["commitment"] = published
        return events

    forged = forge_export(genuine, tmp_path / "forged.jsonl", reuse)
    before = rows(victim_db)
    process = hr.run_ledger(str(victim_db), "import", str(forged))
    assert process.returncode == 4
    assert "at version 1: import refused: it opens dice commitment " in process.stderr
    assert "which this ledger already holds for another campaign" in process.stderr
    assert rows(victim_db) == before


def test_a_commitment_opened_twice_in_the_file_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "home.ledger"
    with Ledger(str(db)) as book:
        book.new_campaign("freeform", "Tale")
        book.roll("1d20", "Tale")
        book.reveal_dice("Tale")  # v3 reveals the first commitment, v4 opens the next
        genuine = export_to(book, "Tale", tmp_path / "tale.jsonl")

    def reopen(_head: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        events[3]["event"]["commitment"] = events[0]["event"]["commitment"]
        return events

    forged = forge_export(genuine, tmp_path / "forged.jsonl", reopen)
    assert_refused(db, forged, 4, "a second time")


def test_a_fork_that_reuses_its_parents_commitment_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "home.ledger"
    with Ledger(str(db)) as book:
        book.new_campaign("freeform", "Tale")
        book.roll("1d20", "Tale")
        book.fork("Tale", "Tale-b")
        book.roll("1d20", "Tale-b")
        genuine = export_to(book, "Tale-b", tmp_path / "fork.jsonl")

    def reuse(_head: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        parents = events[0]["event"]["commitment"]
        events[2]["event"]["commitment"] = parents
        events[3]["decision"]["commitment"] = parents
        return events

    forged = forge_export(genuine, tmp_path / "forged.jsonl", reuse)
    assert_refused(db, forged, 3, "a second time")


def revealed_roll(tmp_path: Path, db: Path) -> tuple[Path, int]:
    """An export whose d20 roll (v2) is proven by the seed revealed at v3; its face."""
    with Ledger(str(db)) as book:
        book.new_campaign("freeform", "Tale")
        face = book.roll("1d20", "Tale").envelopes[0].decision.faces[0]
        book.reveal_dice("Tale")
        return export_to(book, "Tale", tmp_path / "tale.jsonl"), face


def set_face(result: dict[str, Any], face: int) -> None:
    result["groups"][0]["dice"][0]["face"] = face
    result["groups"][0]["value"] = face
    result["total"] = face


def test_faces_that_do_not_follow_the_seed_revealed_in_the_file_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "home.ledger"
    genuine, face = revealed_roll(tmp_path, db)
    other = face % 20 + 1

    def edit(_head: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        events[1]["decision"]["faces"] = [other]  # the roll and its decision agree; the seed does not
        set_face(events[1]["event"]["result"], other)
        return events

    forged = forge_export(genuine, tmp_path / "forged.jsonl", edit)
    assert_refused(db, forged, 2, f"records {other}, but the revealed seed of commitment")


def test_a_roll_showing_other_faces_than_its_proven_dice_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "home.ledger"
    genuine, face = revealed_roll(tmp_path, db)
    other = face % 20 + 1

    def edit(_head: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        set_face(events[1]["event"]["result"], other)  # the log shows another face
        return events

    forged = forge_export(genuine, tmp_path / "forged.jsonl", edit)
    with forged.open("rb") as data, pytest.raises(TamperError, match="at version 2: the roll it shows"):
        verify_dice_file(data)
    # The import decides the roll again on its decision's faces, so the shown face is refused there.
    assert_refused(db, forged, 2, "the event is not what its command decides on its recorded dice")


def test_a_file_with_another_campaigns_id_is_a_copy_with_its_own(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "forger.ledger")) as forger:
        forger.new_campaign("freeform", "Bait")
        forger.roll("1d6", "Bait")
        genuine = export_to(forger, "Bait", tmp_path / "bait.jsonl")
    with Ledger(str(tmp_path / "victim.ledger")) as victim:
        mine = victim.new_campaign("freeform", "Mine")
        victim.roll("1d20", "Mine")

        def take_id(head: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
            for event in events:
                event["campaign"] = mine.id
            return events

        forged = forge_export(
            genuine, tmp_path / "forged.jsonl", take_id, header=lambda h: dict(h, campaign_id=mine.id)
        )
        with forged.open("rb") as data:
            bait = victim.import_(data)
        assert bait.id != mine.id
        victim.roll("1d20", "Bait")
        victim.roll("1d20", "Mine")
        victim.verify(every=True)
        reports = verify_dice(victim, every=True)
        assert reports["Mine"].pending == 2 and reports["Bait"].pending == 2
        assert victim.dice_status("Mine")["drawn"] == 2


def test_a_genuine_copy_of_a_campaign_here_still_imports(tmp_path: Path) -> None:
    """The refusal of a known commitment spares the file that carries the very event that
    opened it here (an export imported back as a copy)."""
    with Ledger(str(tmp_path / "home.ledger")) as book:
        book.new_campaign("freeform", "Tale")
        book.roll("1d20", "Tale")
        data = io.BytesIO()
        book.export(data, "Tale")
        book.import_(io.BytesIO(data.getvalue()), "Tale-copy")
        book.roll("1d20", "Tale-copy")
        verify_dice(book, every=True)
