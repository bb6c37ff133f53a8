"""Snapshots make time travel fast and never change an answer."""

from __future__ import annotations

import functools
import random
import sqlite3
from pathlib import Path

import pytest

from ledger import Ledger
from ledger.deciding.commands import Roll
from ledger.errors import TamperError
from ledger.log import snapshots
from ledger.log.snapshots import EVERY
from ledger.systems import get_system

ROOT = Path(__file__).resolve().parents[1]


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


def _edited(monkeypatch: pytest.MonkeyPatch, module_file: Path) -> None:
    """The fingerprint reads ``module_file`` as if its source had been changed."""
    real = snapshots._source

    def source(path: Path) -> bytes:
        data = real(path)
        return data + b"\n# a changed rule\n" if path.resolve() == module_file.resolve() else data

    monkeypatch.setattr(snapshots, "_source", source)
    monkeypatch.setattr(snapshots, "_fingerprints", {})
    snapshots._imported.cache_clear()
    monkeypatch.setattr(snapshots, "_imported", functools.cache(snapshots._imported.__wrapped__))


@pytest.mark.parametrize(
    ("system", "helper"),
    [
        ("d100", "ledger/systems/d100/model.py"),
        ("d100", "ledger/systems/d100/events.py"),
        ("freeform", "ledger/dice/sources.py"),
    ],
)
def test_a_change_to_a_module_the_fold_imports_changes_the_fingerprint(
    monkeypatch: pytest.MonkeyPatch, system: str, helper: str
) -> None:
    sysdef = get_system(system)
    before, key = snapshots.fingerprint(sysdef), snapshots.key("s", sysdef)
    _edited(monkeypatch, ROOT / helper)
    assert snapshots.fingerprint(sysdef) != before
    assert snapshots.key("s", sysdef) != key


def test_a_module_the_fold_never_imports_leaves_the_fingerprint_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sysdef = get_system("d100")
    assert "ledger.systems.d100.play" not in snapshots.dependencies(["ledger.projections.d100.state"])
    before = snapshots.fingerprint(sysdef)
    _edited(monkeypatch, ROOT / "ledger/systems/d100/play.py")
    assert snapshots.fingerprint(sysdef) == before


def test_the_dependencies_follow_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    pkg = tmp_path / "fold_pkg"
    (pkg / "rules").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "rules" / "__init__.py").write_text("")
    (pkg / "rules" / "table.py").write_text("ROWS = (1, 2)\n")
    (pkg / "rules" / "helper.py").write_text("from . import table\n")
    (pkg / "fold.py").write_text(
        '"""A fold."""\n\ndef evolve(state, event):\n    from fold_pkg.rules.helper import (\n'
        "        table,  # the rule table\n    )\n    return state\n"
    )
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        found = snapshots.dependencies(["fold_pkg.fold"])
    finally:
        sys.path.remove(str(tmp_path))
    assert set(found) == {"fold_pkg.fold", "fold_pkg.rules.helper", "fold_pkg.rules", "fold_pkg.rules.table"}


def test_a_snapshot_folded_before_a_helper_changed_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Ledger(str(tmp_path / "h.ledger")) as book:
        long_campaign(book, "Long", EVERY + 5)
        c = book.campaign("Long")
        system = book.system(c)
        book.state("Long", at=EVERY + 2)  # keeps the snapshot at EVERY
        assert book.history.snapshot(c, EVERY + 2, 0, system) is not None
        _edited(monkeypatch, ROOT / "ledger/dice/sources.py")
        assert book.history.snapshot(c, EVERY + 2, 0, system) is None
        assert book.state("Long", at=EVERY + 2) == book.state_at(c, EVERY + 2, system, use_snapshots=False)
