"""A note's text and a roll's label are stored trimmed: an event whose decision was
dropped (as in an export from before decisions were kept) is still held to it."""

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


@pytest.fixture
def exported(tmp_path: Path) -> tuple[str, Path]:
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Tomb", seed=7)
        book.add_character("Ana", "Tomb")
        book.roll("2d6", "Tomb", label="door")
        book.note("we go in", "Tomb")
    out = tmp_path / "tomb.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Tomb")
    return db, out


@pytest.mark.parametrize(
    ("kind", "field", "value", "refusal"),
    [
        ("note", "text", "we go in ", "a note is one trimmed line"),
        ("note", "text", " we go in", "a note is one trimmed line"),
        ("dice.rolled", "label", "door ", "a roll's label is trimmed"),
        ("dice.rolled", "label", "  door", "a roll's label is trimmed"),
    ],
)
def test_an_untrimmed_text_without_its_decision_is_refused(
    exported: tuple[str, Path], tmp_path: Path, kind: str, field: str, value: str, refusal: str
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        event = next(e for e in events if e["event"]["kind"] == kind)
        event.pop("decision")
        event["event"][field] = value
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    before = hr.store_rows(db)
    result = hr.invoke(db, "import", str(forged), "--name", "Copy")
    line = hr.assert_one_line_error(result)
    assert refusal in line, line
    assert hr.store_rows(db) == before


def test_the_same_export_with_its_decisions_dropped_and_texts_trimmed_imports(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for event in events:
            event.pop("decision", None)
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    result = hr.invoke(db, "import", str(forged), "--name", "Copy")
    assert result.exit_code == 0, result.output
