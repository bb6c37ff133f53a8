"""A campaign imported and then played on verifies: what is recorded after the
import carries the id of the stream it is stored in, its imported events the id
they were sealed with."""

from __future__ import annotations

from pathlib import Path

from ledger import Ledger


def test_an_imported_campaign_played_on_still_verifies(tmp_path: Path) -> None:
    export = tmp_path / "a.jsonl"
    with Ledger(str(tmp_path / "a.ledger")) as home:
        home.new_campaign("freeform", "Tomb", commit=False)
        home.roll("1d6", "Tomb", faces=[4])
        with export.open("wb") as out:
            home.export(out, "Tomb")
    with Ledger(str(tmp_path / "b.ledger")) as away:
        with export.open("rb") as f:
            away.import_(f, "Tomb")
        away.roll("1d6", "Tomb", faces=[2])
        away.note("played on after the import", "Tomb")
        report = away.verify("Tomb")
        assert report.checked["Tomb"] == 4
