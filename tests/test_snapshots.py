"""Snapshots make time travel fast and never change an answer."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from ledger import Ledger
from ledger.commands import Roll
from ledger.errors import TamperError
from ledger.snapshots import EVERY


def long_campaign(book: Ledger, name: str, actions: int) -> None:
    book.new_campaign("freeform", name, seed=3)
    with book.batch(name) as batch:
        for i in range(actions):
            batch.execute(Roll(notation="2d6", label=f"r{i}"))


def test_states_with_and_without_snapshots_agree(book: Ledger) -> None:
    long_campaign(book, "Long", EVERY * 2 + 37)
    c = book.campaign("Long")
    book.undo("Long", 3)
    book.roll("1d6", "Long", faces=[6])
    book.fork("Long", "Branch", at=EVERY + 11)
    book.roll("1d4", "Branch", faces=[2])
    rng = random.Random(5)
    system = book.system(c)
    head = book.head(c)
    book.state("Long")  # writes snapshots along the way
    for v in [*rng.sample(range(1, head + 1), 12), EVERY, EVERY * 2, head]:
        assert book.state_at(c, v, system) == book.state_at(c, v, system, use_snapshots=False)
    branch = book.campaign("Branch")
    bh = book.head(branch)
    assert book.state_at(branch, bh, system) == book.state_at(branch, bh, system, use_snapshots=False)
    assert book.state("Long").game.rolls == EVERY * 2 + 37 - 3 + 1
    book.verify(every=True)


def test_an_edited_snapshot_is_reported_by_verify(tmp_path: Path) -> None:
    db = str(tmp_path / "s.ledger")
    with Ledger(db) as book:
        long_campaign(book, "Long", EVERY + 5)
        book.state("Long", at=EVERY + 2)
    with sqlite3.connect(db) as conn:
        (count,) = conn.execute("SELECT count(*) FROM ledger_snapshots").fetchone()
        assert count >= 1
        conn.execute(
            "UPDATE ledger_snapshots SET state = CAST(replace(CAST(state AS TEXT), '\"rolls\":', '\"rolls\":1') AS BLOB)"
        )
    with Ledger(db) as book, pytest.raises(TamperError, match="snapshot cached at this version"):
        book.verify("Long")
