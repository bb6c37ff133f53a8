"""What the ledger exports, it and every other ledger import, whatever was played after
an import; a copy (an import into a ledger that holds the campaign) gets a branch and dice
of its own; an imported campaign plays at once."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.systems.crawl.play import autoplay
from ledger.trust.integrity import verify_dice, verify_dice_file
from tests import helpers_reliability as hr
from tests.helpers_forgery import forge_export


def exported(book: Ledger, name: str) -> bytes:
    out = io.BytesIO()
    book.export(out, name)
    return out.getvalue()


def played_after_import(tmp_path: Path, commit: bool = True) -> bytes:
    """A campaign started in one ledger (with provable dice, or with ``commit`` False
    none), imported into another, played there (virtual and physical dice, a note), and
    exported from it."""
    with Ledger(str(tmp_path / "home.ledger")) as home:
        home.new_campaign("freeform", "Tomb", commit=commit)
        home.roll("1d20", "Tomb")
        first = exported(home, "Tomb")
    with Ledger(str(tmp_path / "away.ledger")) as away:
        away.import_(io.BytesIO(first))
        away.note("we went on without the home ledger", "Tomb")
        away.roll("2d6", "Tomb")
        away.roll("1d6", "Tomb", faces=[3])
        return exported(away, "Tomb")


@pytest.mark.parametrize("commit", [True, False])
def test_an_export_of_an_imported_then_played_campaign_imports_into_a_fresh_ledger(
    tmp_path: Path, commit: bool
) -> None:
    backup = played_after_import(tmp_path, commit)
    with Ledger(str(tmp_path / "fresh.ledger")) as fresh:
        restored = fresh.import_(io.BytesIO(backup))
        assert fresh.verify("Tomb").checked["Tomb"] == fresh.head(restored)
        fresh.roll("1d8", "Tomb")
        fresh.verify(every=True)
        report = verify_dice(fresh, every=True)["Tomb"]
        assert report.physical == 1
        assert (report.pending, report.unproven) == ((4, 0) if commit else (0, 4))


def test_the_backup_imports_back_into_the_ledger_it_came_from(tmp_path: Path) -> None:
    backup = played_after_import(tmp_path)
    with Ledger(str(tmp_path / "home.ledger")) as home:
        home.import_(io.BytesIO(backup), "Tomb-back")
        home.roll("1d4", "Tomb-back")
        home.verify(every=True)
        verify_dice(home, every=True)


@pytest.mark.parametrize("commit", [True, False])
def test_verify_file_calls_the_backup_whole(tmp_path: Path, commit: bool) -> None:
    path = tmp_path / "backup.jsonl"
    path.write_bytes(played_after_import(tmp_path, commit))
    process = hr.run_ledger(str(tmp_path / "checker.ledger"), "verify", str(path), "--dice")
    assert process.returncode == 0, process.stderr
    assert "Tomb" in process.stdout
    with path.open("rb") as data:
        _, report = verify_dice_file(data)
    assert report.physical == 1
    assert (report.pending, report.unproven) == ((3, 0) if commit else (0, 3))


def test_a_copy_gets_its_own_branch_and_dice(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "home.ledger")) as home:
        original = home.new_campaign("freeform", "Tomb")
        home.roll("1d20", "Tomb")
        copy = home.import_(io.BytesIO(exported(home, "Tomb")), "Tomb-copy")
        assert copy.id != original.id
        mine, theirs = home.dice_status("Tomb-copy"), home.dice_status("Tomb")
        assert mine["commitment"] != theirs["commitment"] and mine["provable"]
        rolled = home.roll("1d20", "Tomb-copy")
        assert rolled.envelopes[0].campaign == copy.id
        assert rolled.envelopes[0].decision.commitment == mine["commitment"]
        assert home.dice_status("Tomb")["drawn"] == 1  # the original's numbers are untouched
        home.roll("1d20", "Tomb")
        home.verify(every=True)
        reports = verify_dice(home, every=True)
        assert reports["Tomb-copy"].pending == 2 and reports["Tomb"].pending == 2
        # the copy's reveal publishes its own seed: the original's next roll stays unknown
        home.reveal_dice("Tomb-copy")
        assert verify_dice(home, "Tomb-copy")["Tomb-copy"].proven == 1
        assert home.dice_status("Tomb")["commitment"] == theirs["commitment"]


def test_a_copy_exports_and_imports_elsewhere(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "home.ledger")) as home:
        home.new_campaign("freeform", "Tomb")
        home.roll("1d20", "Tomb")
        home.import_(io.BytesIO(exported(home, "Tomb")), "Tomb-copy")
        home.roll("1d20", "Tomb-copy")
        copy = exported(home, "Tomb-copy")
    with Ledger(str(tmp_path / "fresh.ledger")) as fresh:
        fresh.import_(io.BytesIO(copy))
        fresh.roll("1d20", "Tomb-copy")
        fresh.verify(every=True)
        verify_dice(fresh, every=True)


@pytest.mark.parametrize("system", ["freeform", "crawl"])
def test_an_imported_campaign_plays_at_once(tmp_path: Path, system: str) -> None:
    with Ledger(str(tmp_path / "home.ledger")) as home:
        home.new_campaign(system, "Tomb")
        if system == "freeform":
            home.add_character("Ines", "Tomb")
        data = exported(home, "Tomb")
    with Ledger(str(tmp_path / "away.ledger")) as away:
        away.import_(io.BytesIO(data))
        status = away.dice_status("Tomb")
        assert status["provable"] and status["drawn"] == 0
        away.note("no dice commit needed", "Tomb")
        if system == "crawl":
            from ledger.systems.crawl.order import Move

            away.execute(Move(direction="n"), "Tomb")
            autoplay(away, "Tomb", 1)
        else:
            away.roll("1d20", "Tomb")
        assert away.dice_status("Tomb")["drawn"] > 0
        away.verify(every=True)
        verify_dice(away, every=True)


def test_an_older_ledgers_export_of_an_imported_then_played_campaign_imports(tmp_path: Path) -> None:
    """An older ledger stored an import under a stream id of its own and sealed what was
    played after it with that id, with no event saying so: its export, which names that
    id in its header, changes id once (at v3 here) and imports into a fresh ledger."""
    with Ledger(str(tmp_path / "home.ledger")) as home:
        home.new_campaign("freeform", "Tomb", commit=False)
        home.note("before the export", "Tomb")
        home.note("played on in the other ledger", "Tomb")
        home.roll("1d6", "Tomb", faces=[5])
        genuine = tmp_path / "played.jsonl"
        genuine.write_bytes(exported(home, "Tomb"))
    stream = "0b5e3f4c-9a1d-4e2b-8c7f-6d5a4b3c2e1f"

    def stored_by_an_older_ledger(
        _head: dict[str, Any], events: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        for event in events[2:]:
            event["campaign"] = stream
        return events

    older = forge_export(
        genuine,
        tmp_path / "older.jsonl",
        stored_by_an_older_ledger,
        header=lambda h: dict(h, campaign_id=stream),
    )
    with Ledger(str(tmp_path / "fresh.ledger")) as fresh:
        with older.open("rb") as data:
            restored = fresh.import_(data)
        assert restored.id == stream
        fresh.roll("1d6", "Tomb", faces=[2])
        fresh.verify(every=True)
        again = exported(fresh, "Tomb")
    with Ledger(str(tmp_path / "third.ledger")) as third:
        third.import_(io.BytesIO(again))
        third.verify(every=True)
        assert third.head(third.campaign("Tomb")) == 5


def test_the_ledger_holding_an_older_exports_stream_refuses_it_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "home.ledger"
    with Ledger(str(db)) as home:
        home.new_campaign("freeform", "Tomb", commit=False)
        home.note("one", "Tomb")
        home.note("two", "Tomb")
        kept = home.new_campaign("freeform", "Kept", commit=False)
        genuine = tmp_path / "tomb.jsonl"
        genuine.write_bytes(exported(home, "Tomb"))

    def stored_here(_head: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for event in events[2:]:
            event["campaign"] = kept.id
        return events

    older = forge_export(
        genuine, tmp_path / "older.jsonl", stored_here, header=lambda h: dict(h, campaign_id=kept.id)
    )
    refused = hr.run_ledger(str(db), "import", str(older), "--name", "Again")
    assert refused.returncode == 1
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: this ledger holds the campaign the file continues from version 3")
    with Ledger(str(db)) as home:
        assert sorted(c.name for c in home.campaigns()) == ["Kept", "Tomb"]
