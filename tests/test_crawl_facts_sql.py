"""The crawl's SQL facts (``FACTS_SQL`` in ``ledger.systems.crawl.facts``) equal its Python facts on
the days hunger kills, and both count the Health hunger actually took."""

from __future__ import annotations

from pathlib import Path

from ledger import Ledger
from ledger.facts import WoundFact
from ledger.systems.crawl.order import Attack, Escape, Explore, Fight, Move, Sleep, Terrain
from tests.helpers_facts import assert_same_facts, python_facts, sql_facts
from tests.test_crawl import walk, write_tables

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "crawl" / "campaign.jsonl"


def hunger_wounds(rows: dict[str, list[tuple[object, ...]]]) -> list[object]:
    """The amounts of the hunger wounds, in recording order (a row: position, n, kind, fields)."""
    fields = WoundFact.__struct_fields__
    amount, cause = 3 + fields.index("amount"), 3 + fields.index("cause")
    return [row[amount] for row in rows["wounds"] if row[cause] == "hunger"]


def test_hunger_that_kills_gives_the_same_applied_wounds_in_sql_and_python(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "h.ledger")) as book:
        with SAMPLE.open("rb") as f:
            book.import_(f, "sample")  # every other kind of crawl fact
        tables = write_tables(tmp_path / "t.toml")
        book.new_campaign("crawl", "run", tables=tables)
        for day in range(1, 7):  # 2 + 3 + 4 + 5 + 6, then 7 asked of Health 5
            walk(book, "n" if day % 2 else "s")
            book.execute(Sleep(where="wild"), "run")
        book.new_campaign("crawl", "flee", tables=tables)
        for command, faces in (
            (Move(direction="n"), None),
            (Terrain(), [1]),
            (Explore(), [1, 2]),  # a rat
            (Fight(), [6]),  # Health 5
            (Attack(), [5]),  # Health 1
            (Escape(), [3]),  # the escape's 2 asked of Health 1
        ):
            book.execute(command, "flee", faces=faces)
        assert not book.state("run").game.alive and not book.state("flee").game.alive
        assert assert_same_facts(book, "crawl") > 400
        assert assert_same_facts(book, "crawl", defaults_left_out=True) > 400
        sample_only = sum(
            e.event.loss for e in book.effective(book.campaign("sample")) if e.event.kind == "crawl.starved"
        )
        python, sql = hunger_wounds(python_facts(book, "crawl")), hunger_wounds(sql_facts(book, "crawl"))
        assert python == sql
        assert sum(python) == sample_only + (2 + 3 + 4 + 5 + 6 + 5) + 1  # type: ignore[arg-type]
