"""A committed campaign whose seed the seed table lost says so and draws no die in its
place: ``dice status`` still shows the open commitment, ``roll`` refuses in one line
naming the missing seed (never an unproven die in silence), an action that draws no die
is recorded. A refused import leaves no row in the seed table."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ledger import Ledger
from tests import helpers_reliability as hr


def seed_rows(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM ledger_seeds").fetchone()[0])
    finally:
        conn.close()


def lose_the_seeds(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute("DELETE FROM ledger_seeds")
        conn.commit()
    finally:
        conn.close()


def committed(db: Path) -> str:
    with Ledger(str(db)) as book:
        book.new_campaign("freeform", "Tale")
        book.roll("1d20", "Tale")
        commitment: str = book.dice_status("Tale")["commitment"]
    return commitment


def test_dice_status_still_shows_the_commitment_whose_seed_is_lost(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    commitment = committed(db)
    lose_the_seeds(db)
    shown = hr.run_ledger(str(db), "dice", "status")
    assert shown.returncode == 0
    assert f"commitment {commitment}" in shown.stdout
    assert "its seed is missing from this ledger's seed table" in shown.stdout
    with Ledger(str(db)) as book:
        status = book.dice_status("Tale")
        assert (status["commitment"], status["drawn"], status["provable"]) == (commitment, 1, False)


def test_roll_refuses_unproven_dice_when_the_seed_is_lost(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    committed(db)
    lose_the_seeds(db)
    refused = hr.run_ledger(str(db), "roll", "1d20")
    assert refused.returncode == 1
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: the seed of the open dice commitment ")
    assert "is missing from this ledger's seed table" in lines[0] and "dice commit" in lines[0]
    with Ledger(str(db)) as book:
        assert book.head(book.campaign("Tale")) == 2  # nothing recorded
    # an action that draws no die needs no seed; a new commitment rolls again
    assert hr.run_ledger(str(db), "note", "the seeds went missing").returncode == 0
    assert hr.run_ledger(str(db), "roll", "1d6", "--faces", "4").returncode == 0
    assert hr.run_ledger(str(db), "dice", "commit").returncode == 0
    assert hr.run_ledger(str(db), "roll", "1d20").returncode == 0
    with Ledger(str(db)) as book:
        assert book.dice_status("Tale")["drawn"] == 1


def test_a_refused_import_leaves_no_seed_row(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    committed(db)
    export = tmp_path / "tale.jsonl"
    assert hr.run_ledger(str(db), "export", "-o", str(export)).returncode == 0
    before = seed_rows(db)
    refused = hr.run_ledger(str(db), "import", str(export))  # 'Tale' exists
    assert refused.returncode == 1 and "exists" in refused.stderr
    assert seed_rows(db) == before


def test_an_import_refused_for_a_lookalike_name_leaves_no_seed_row(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    committed(db)
    export = tmp_path / "tale.jsonl"
    assert hr.run_ledger(str(db), "export", "-o", str(export)).returncode == 0
    before = seed_rows(db)
    refused = hr.run_ledger(str(db), "import", str(export), "--name", "T\u0430le")  # a Cyrillic a
    assert refused.returncode == 1 and "looks like the existing campaign 'Tale'" in refused.stderr
    assert seed_rows(db) == before
