"""`ledger tables` shows a system's tables with their dice; `ledger roll-table` rolls on one."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from ledger.errors import LedgerError
from ledger.systems import get_system
from ledger.tables import browse
from tests.conftest import Session

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "crawl" / "tables.toml"


def test_tables_lists_the_campaigns_tables_with_their_dice(ledger_cli: Session) -> None:
    ledger_cli("new", "crawl", "C")
    out = ledger_cli("tables").output
    lines = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:-1]}
    assert lines["terrain"] == "1d6" and lines["events.forest"] == "2d6" and lines["shop"] == "list"
    assert {"enemies", "items", "techniques", "quests", "rewards"} <= set(lines)


def test_a_table_shows_the_campaigns_own_rows(ledger_cli: Session, tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text(SAMPLE.read_text().replace("prairie", "steppe").replace("price = 2", "price = 7"))
    ledger_cli("new", "crawl", "Own", "--tables", str(own))
    terrain = ledger_cli("tables", "terrain").output.splitlines()
    assert terrain[0] == "terrain (1d6): Terrain of a blank hex"
    assert terrain[1].split() == ["1", "steppe"]
    shop = json.loads(ledger_cli("tables", "shop", "--json").output)
    prices = {row["key"]: row["price"] for row in shop["rows"]}
    stock = tomllib.loads(own.read_text())["shop"]
    assert prices == {name: item["price"] for name, item in stock.items()} and 7 in prices.values()
    assert "7 bits" in ledger_cli("tables", "shop").output


def test_system_without_a_campaign_creates_no_ledger(ledger_cli: Session) -> None:
    out = ledger_cli("tables", "--system", "d20", "panic")
    assert out.output.startswith("panic (1d6): Panic")
    assert len(out.output.splitlines()) == 7
    assert not Path(ledger_cli.db).exists()
    refused = ledger_cli("tables", ok=False)
    assert refused.exit_code != 0 and "--system" in refused.stderr and not Path(ledger_cli.db).exists()


def test_unknown_table_and_tableless_system_are_one_line(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "F")
    out = ledger_cli("tables", ok=False)
    assert out.exit_code != 0 and "no tables" in out.stderr and out.stderr.count("\n") == 1
    out = ledger_cli("tables", "--system", "crawl", "nope", ok=False)
    assert "no table 'nope' in crawl" in out.stderr and "terrain" in out.stderr


@pytest.mark.parametrize("system", ["crawl", "yearzero", "dicepool", "d100", "d20"])
def test_every_rolled_table_has_one_row_for_every_total(system: str) -> None:
    data, _ = get_system(system).rules.load_tables(None)
    listed = browse.listing(system, data)
    assert listed and all(t.rows for t in listed)
    for table in listed:
        if table.dice is None:
            continue
        count, _, sides = table.dice.partition("d")
        for total in range(int(count), int(count) * int(sides) + 1):
            assert table.row_for(total).text, (table.name, total)


def test_roll_table_records_the_roll_and_prints_the_row(ledger_cli: Session) -> None:
    ledger_cli("new", "crawl", "C", "--seed", "4")
    out = ledger_cli("roll-table", "encounters.forest", "--faces", "4").output
    assert out.strip() == "encounters.forest: 1d6 = 4  [4] -> wild dog"
    data = json.loads(ledger_cli("roll-table", "events.forest", "--json").output)
    total = data["events"][0]["result"]["total"]
    assert data["row"]["key"] == str(total) and data["events"][0]["manual"] is False
    log = json.loads(ledger_cli("log", "--json").output)
    rolls = [e for e in log if e["kind"] == "dice.rolled"]
    assert [r["summary"].split(":")[0] for r in rolls] == [
        "rolled table encounters.forest",
        "rolled table events.forest",
    ]
    physical = rolls[0]["summary"]
    assert "physical" in physical and "physical" not in rolls[1]["summary"]


def test_roll_table_refuses_a_list_and_records_nothing(ledger_cli: Session) -> None:
    ledger_cli("new", "crawl", "C")
    before = ledger_cli("log").output
    out = ledger_cli("roll-table", "shop", ok=False)
    assert out.exit_code != 0 and "ledger tables shop" in out.stderr
    bad = ledger_cli("roll-table", "terrain", "--faces", "7", ok=False)
    assert bad.exit_code != 0
    assert ledger_cli("log").output == before


def test_tables_without_the_expected_sections_are_one_line_not_a_traceback() -> None:
    with pytest.raises(LedgerError, match="cannot be listed"):
        browse.listing("crawl", {"terrain": {}})


def test_the_arrow_techniques_need_the_reinforced_bow_and_the_solar_taser_as_the_rules_say(
    ledger_cli: Session,
) -> None:
    """*"REQUIERE ARCO REFORZADO Y TASER SOLAR"*: the table says both, as the refusal does."""
    ledger_cli("new", "crawl", "C")
    rows = ledger_cli("tables", "techniques").output.splitlines()
    for row, bonus in ((rows[6], 2), (rows[7], 3)):
        assert row.endswith(f"+{bonus} Attack with every arrow, needs reinforced bow and solar taser"), row
        assert " or " not in row
