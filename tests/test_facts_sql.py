"""Every system's SQL facts (``extra["facts_sql"]``) give the rows of its Python facts.

Each system's samples and a few dozen autoplayed campaigns, compared fact for
fact; the events autoplay never reaches are recorded by hand in
``test_facts_sql_<system>.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger import Ledger
from tests.helpers_facts import assert_same_facts, play


@pytest.mark.parametrize(
    ("system", "campaigns", "at_least"),
    [
        ("crawl", 12, 2000),
        ("dicepool", 40, 1000),
        ("yearzero", 30, 1000),
        ("d100", 60, 3000),
        ("d20", 30, 3000),
    ],
)
def test_sql_facts_equal_python_facts(tmp_path: Path, system: str, campaigns: int, at_least: int) -> None:
    with Ledger(str(tmp_path / f"{system}.ledger")) as book:
        play(book, system, campaigns=campaigns, days=40)
        assert assert_same_facts(book, system) > at_least
