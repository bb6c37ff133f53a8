"""Two processes appending to one campaign lose and duplicate nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ledger import Ledger

WRITER = str(Path(__file__).with_name("writer_proc.py"))
ROOT = str(Path(__file__).parents[1])


def test_two_writers_500_actions_each(target: str) -> None:
    with Ledger(target) as book:
        book.new_campaign("freeform", "Race")
    procs = [
        subprocess.Popen([sys.executable, WRITER, target, "Race", "500", tag], cwd=ROOT) for tag in ("a", "b")
    ]
    for p in procs:
        assert p.wait(timeout=600) == 0
    with Ledger(target) as book:
        entries = book.log("Race", show_all=True)
        labels = [e.event.label for e in entries if e.kind == "dice.rolled"]
        assert len(labels) == 1000
        assert sorted(labels) == sorted([f"a-{i}" for i in range(500)] + [f"b-{i}" for i in range(500)])
        # each writer's own rolls stay in its order
        for tag in ("a", "b"):
            mine = [int(x.split("-")[1]) for x in labels if x.startswith(tag)]
            assert mine == list(range(500))
        assert [e.version for e in entries] == list(range(1, 1002))
        book.verify("Race")
