"""The crawl's SQL facts give exactly the rows of its Python facts."""

from __future__ import annotations

from pathlib import Path

from ledger import Ledger
from tests.helpers_facts import assert_same_facts, play


def test_sql_facts_equal_python_facts(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "crawl.ledger")) as book:
        play(book, "crawl", campaigns=12, days=40)
        assert assert_same_facts(book, "crawl") > 2000
