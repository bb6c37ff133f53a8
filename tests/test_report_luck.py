"""The report's luck index is the dice's luck, as ``ledger stats`` and the sheet count it:
every die thrown, undone ones included; the kept luck (the chart's rolls) is beside it."""

from __future__ import annotations

import json
from pathlib import Path

from ledger import Ledger
from ledger.projections import report
from tests.conftest import Session


def test_the_report_counts_every_die_and_shows_the_kept_luck_beside_it(
    ledger_cli: Session, tmp_path: Path
) -> None:
    ledger_cli("new", "freeform", "c")
    ledger_cli("character", "add", "Ana")
    for _ in range(4):
        ledger_cli("roll", "1d20>=11", "--faces", "3")
        ledger_cli("undo")
        ledger_cli("roll", "1d20>=11", "--faces", "16")
    sheet = json.loads(ledger_cli("--json", "sheet").output)
    with Ledger(ledger_cli.db) as book:
        data = report.build(book, "c")
    every, kept = data["rolls"]["every"], data["rolls"]
    assert every == {"rolls": 8, "undone": 4, "successes": 4, "expected": 4.0, "luck": 0.0}
    assert every["luck"] == sheet["luck_index"]["luck"], "the report and the sheet agree"
    assert (len(kept["points"]), kept["successes"], kept["luck"]) == (4, 4, 2.0)
