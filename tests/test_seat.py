"""The seat an action was recorded from (a device at a web table): kept on its decision,
verified, carried by an export, and admitted by an import only as the ledger writes it."""

from __future__ import annotations

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
from ledger.errors import InvalidNameError

SEAT = "Ana's phone"


@pytest.fixture
def seated(tmp_path: Path) -> tuple[str, Path]:
    """A campaign whose roll was recorded from a seat, and its export."""
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Tomb")
        book.add_character("Ana", "Tomb")
        rec = book.roll("2d6", "Tomb", faces=[5, 4], seat=SEAT)
        assert rec.envelopes[0].decision is not None and rec.envelopes[0].decision.seat == SEAT
        book.note("the door is trapped", "Tomb")
        out = tmp_path / "tomb.jsonl"
        with out.open("wb") as f:
            book.export(f, "Tomb")
    return db, out


def test_an_action_keeps_its_seat_verifies_and_an_export_carries_it(
    seated: tuple[str, Path], tmp_path: Path
) -> None:
    db, out = seated
    with Ledger(db) as book:
        camp = book.campaign("Tomb")
        stored = [env.decision.seat for env in book.envelopes(camp) if env.decision is not None]
        assert stored == [None, SEAT, None]  # the character, the roll, the note
        book.verify("Tomb")
        with out.open("rb") as f:
            copy = book.import_(f, "Copy")
        kept = [env.decision.seat for env in book.envelopes(copy) if env.decision is not None]
        assert kept == stored
        book.verify(every=True)
    assert b'"seat":"Ana\'s phone"' in out.read_bytes()
    assert out.read_bytes().count(b'"seat"') == 1  # no seat, no field: older bytes stay as they were


def test_a_seat_is_checked_as_a_name_and_nothing_is_recorded(tmp_path: Path) -> None:
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Tomb")
        camp = book.campaign("Tomb")
        head = book.head(camp)
        for bad in ("", "a\nb", "x" * 65, " phone"):
            with pytest.raises(InvalidNameError, match="seat name"):
                book.note("hello", "Tomb", seat=bad)
        with pytest.raises(InvalidNameError, match="seat name"):
            book.undo("Tomb", seat="x" * 65)
        assert book.head(camp) == head


def _forge_seat(seat: Any) -> Any:
    def edit(_header: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        roll = next(e for e in events if e["event"]["kind"] == "dice.rolled")
        roll["decision"]["seat"] = seat
        return events

    return edit


@pytest.mark.parametrize(
    ("seat", "problem"),
    [
        (7, "cannot be read"),
        (["Ana"], "cannot be read"),
        ("x" * 5000, "seat name"),
        ("phone\u202e", "seat name"),
        ("Cafe\u0301", "seat is not written as the ledger writes a name"),
    ],
    ids=["number", "list", "oversized", "invisible", "not NFC"],
)
def test_an_import_with_a_forged_seat_is_refused(
    seated: tuple[str, Path], tmp_path: Path, seat: Any, problem: str
) -> None:
    db, out = seated
    forged = forgery.forge_export(out, tmp_path / "forged.jsonl", _forge_seat(seat))
    before = hr.store_rows(db)
    result = hr.invoke(db, "import", str(forged), "--name", "Copy")
    line = hr.assert_one_line_error(result)
    assert "import refused" in line and problem in line, line
    assert hr.store_rows(db) == before
