"""Golden logs: every sample campaign in samples/ still decodes, verifies and folds.

These files were written by earlier versions of the ledger. If a change to an
event class breaks one of them, the change broke the schema-evolution policy
(docs/schema.md), not the sample.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger import Ledger
from ledger.systems import system_names

SAMPLES = Path(__file__).parents[1] / "samples"
LOGS = sorted(SAMPLES.glob("*/*.jsonl"))


def test_there_are_golden_logs() -> None:
    assert (SAMPLES / "freeform" / "campaign.jsonl") in LOGS


@pytest.mark.parametrize("path", LOGS, ids=[f"{p.parent.name}/{p.name}" for p in LOGS])
def test_golden_log_imports_verifies_and_folds(path: Path, tmp_path: Path) -> None:
    if path.parent.name not in system_names():
        pytest.skip(f"system {path.parent.name} is not installed")
    with Ledger(str(tmp_path / "golden.ledger")) as book, path.open("rb") as data:
        campaign = book.import_(data)
        book.verify(campaign.name)
        state = book.state(campaign.name)
        sheet = book.system(campaign).read.sheet(state, None)
        assert sheet
        assert len(book.log(campaign.name, show_all=True)) == book.head(campaign)


def test_freeform_golden_log_reads_as_it_was_played(tmp_path: Path) -> None:
    with (
        Ledger(str(tmp_path / "g.ledger")) as book,
        (SAMPLES / "freeform" / "campaign.jsonl").open("rb") as f,
    ):
        c = book.import_(f)
        summaries = [e.summary for e in book.log(c.name, show_all=True)]
        assert summaries[9] == "rolled attack: 1d20+2 = 3 [1] (physical dice)"
        assert [e.undone for e in book.log(c.name, show_all=True)][9] is True
        sheet = book.system(c).read.sheet(book.state(c.name), None)
        assert sheet["rolls"] == 6 and sheet["characters"]["Ines"]["rolls"] == 4
