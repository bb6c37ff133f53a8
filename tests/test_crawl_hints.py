"""The crawl's `next:` hints follow the situation, and refusals name the step that comes first."""

from __future__ import annotations

import json

from ledger.systems.crawl.tables import load_tables, sources
from tests.conftest import Session


def expected(out: str) -> list[str]:
    return json.loads(out)["expected"]


def test_new_crawl_says_what_to_do_first(ledger_cli: Session) -> None:
    out = ledger_cli("new", "crawl", "C").output.splitlines()
    assert out[1].startswith("next: crawl move DIR")
    assert "next: character create NAME" in ledger_cli("new", "yearzero", "Y").output


def test_eat_offers_only_the_food_in_the_pack(ledger_cli: Session) -> None:
    run = ledger_cli
    run("new", "crawl", "C")
    run("crawl", "move", "n")
    run("crawl", "terrain", "--faces", "1")  # prairie
    after = expected(run("crawl", "event", "--faces", "4,6", "--json").output)  # 10: a map scrap, no food
    assert after == ["crawl eat bar", "crawl sleep wild"]  # three bars, no fruit, no town
    for _ in range(3):
        run("crawl", "eat", "bar")
    sheet = json.loads(run("sheet", "--json").output)
    assert sheet["expected"] == ["crawl sleep wild"]


def test_no_bars_and_no_fruit_offers_no_meal(ledger_cli: Session) -> None:
    run = ledger_cli
    run("new", "crawl", "C")
    run("crawl", "move", "n")
    run("crawl", "terrain", "--faces", "1")
    run("crawl", "event", "--faces", "4,6")
    for _ in range(3):
        run("crawl", "eat", "bar")
    run("crawl", "sleep", "wild")
    run("crawl", "move", "se")
    run("crawl", "terrain", "--faces", "1")
    out = run("crawl", "event", "--faces", "4,6").output
    assert "bars 0 fruit 0" in out and out.splitlines()[-1] == "next: crawl sleep wild", out


def test_an_unknown_technique_says_where_to_learn_it(ledger_cli: Session) -> None:
    run = ledger_cli
    run("new", "crawl", "C")
    run("crawl", "move", "n")
    run("crawl", "terrain", "--faces", "1")
    run("crawl", "event", "--faces", "1,1")  # 2 on the prairie: a sentinel
    fighting = run("crawl", "fight", "--faces", "1").output
    assert fighting.splitlines()[-1] == "next: crawl attack | crawl escape"  # no technique known yet
    out = run("crawl", "technique", "3", ok=False)
    tables, _ = load_tables(None)
    table, _, face = sources(tables, "technique", 3)[0].partition(" ")
    assert out.exit_code != 0
    assert f"learn it first: it comes from {table} on a {face}; see `ledger tables {table}`" in out.stderr
