"""Recorded times: an import takes only a time the ledger's clock could have written, and
one bad time already in a ledger never stops its statistics.

The ledger writes ``datetime.now(UTC)`` to the millisecond, so every recorded time is a
real UTC instant; a re-sealed export with a time that names no instant (month 99, the
30th of February, hour 24, second 60) was never recorded by it.
"""

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

Events = list[dict[str, Any]]
IMPOSSIBLE = [
    "2026-99-99T99:99:99.999Z",
    "2026-02-30T12:00:00.000Z",
    "2026-12-01T24:00:00.000Z",
    "2026-12-01T23:59:60.000Z",
    "0000-01-01T00:00:00.000Z",
]


def build(db: str) -> str:
    """A freeform campaign: a character, a roll of 2d6 on [5, 4] and a note."""
    with Ledger(db) as book:
        camp = book.new_campaign("freeform", "Tomb", seed=7)
        book.add_character("Ana", "Tomb")
        book.roll("2d6", "Tomb", label="door", faces=[5, 4])
        book.note("the door is trapped", "Tomb")
        return camp.id


@pytest.fixture
def exported(tmp_path: Path) -> tuple[str, Path]:
    db = str(tmp_path / "t.ledger")
    build(db)
    out = tmp_path / "tomb.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Tomb")
    return db, out


@pytest.mark.parametrize("at", IMPOSSIBLE)
def test_an_import_refuses_a_time_that_names_no_instant(
    exported: tuple[str, Path], tmp_path: Path, at: str
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        events[2]["at"] = at  # the roll
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    before = hr.store_rows(db)
    result = hr.invoke(db, "import", str(forged), "--name", "Copy")
    line = hr.assert_one_line_error(result)
    assert "campaign 'Copy' fails verification at version 3: import refused:" in line, line
    assert f"its time {at!r} is not a time the ledger writes" in line, line
    assert hr.store_rows(db) == before, "a refused import recorded something"
    assert "Copy" not in hr.invoke(db, "campaigns").output


def test_an_import_takes_a_clock_that_went_backwards_but_not_one_past_the_last_day_of_february(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    """A wall clock set back is what the ledger records as it is; a day a month lacks is not."""
    db, path = exported

    def backwards(_h: dict[str, Any], events: Events) -> Events:
        events[2]["at"] = "2024-02-29T23:59:59.999Z"  # a leap day, years before the start
        return events

    def no_such_day(_h: dict[str, Any], events: Events) -> Events:
        events[2]["at"] = "2023-02-29T23:59:59.999Z"
        return events

    fine = forgery.forge_export(path, tmp_path / "back.jsonl", backwards)
    result = hr.invoke(db, "import", str(fine), "--name", "Back")
    assert result.exit_code == 0, result.stderr
    forged = forgery.forge_export(path, tmp_path / "feb.jsonl", no_such_day)
    line = hr.assert_one_line_error(hr.invoke(db, "import", str(forged), "--name", "Feb"))
    assert "its time '2023-02-29T23:59:59.999Z' is not a time the ledger writes" in line, line


def test_one_stored_event_with_an_impossible_time_does_not_stop_stats_rebuild_or_parquet(
    tmp_path: Path,
) -> None:
    """A ledger that holds such an event (imported before the import checked times) keeps
    its statistics: the event counts, its time is unknown."""
    db = str(tmp_path / "t.ledger")
    cid = build(db)

    def edit(events: Events) -> None:
        events[2]["at"] = IMPOSSIBLE[0]  # the roll

    forgery.forge_store(db, cid, edit)
    stats = hr.invoke(db, "stats")
    assert stats.exit_code == 0, stats.stderr
    assert "(1 campaign, 4 events, 1 roll)" in stats.output, stats.output
    rebuilt = hr.invoke(db, "warehouse", "rebuild")
    assert rebuilt.exit_code == 0, rebuilt.stderr
    query = hr.invoke(db, "query", "SELECT count(*) AS n, count(recorded_at) AS timed FROM rolls")
    assert query.exit_code == 0, query.stderr
    assert query.output.splitlines()[2].split() == ["1", "0"], query.output  # one roll, no time
    out = tmp_path / "parquet"
    exported = hr.invoke(db, "export", "parquet", str(out))
    assert exported.exit_code == 0, exported.stderr
    assert list((out / "rolls").rglob("*.parquet")), sorted(p.name for p in out.iterdir())
