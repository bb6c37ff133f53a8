"""The d20 autoplayer: whole crews playing shifts aboard a derelict, for ``ledger simulate``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from ledger.play.simulate import plan, simulate_campaign
from ledger.systems.d20.commands import Create, TakeDamage
from ledger.systems.d20.events import Attacked, Checked, Healed, Stressed, Therapy, Unjammed
from ledger.systems.d20.play import autoplay
from ledger.systems.d20.system import SYSTEM

ROLLED = (Attacked, Checked, Healed, Stressed, Therapy, Unjammed)


@pytest.fixture
def book(tmp_path: Path) -> Any:
    with Ledger(str(tmp_path / "d20.ledger")) as ledger:
        yield ledger


def _story(book: Ledger, name: str) -> list[tuple[str, str | None, int | None, str]]:
    """Everything recorded after the campaign's creation (which names the campaign)."""
    return [(e.kind, e.actor, e.day, e.summary) for e in book.log(name)[1:]]


def test_the_d20_system_offers_its_autoplayer() -> None:
    assert SYSTEM.play.autoplay is autoplay
    assert SYSTEM.read.facts is not None


def test_the_same_seed_plays_the_same_campaign(book: Ledger) -> None:
    simulate_campaign(book, "d20", "one", 4242, 30)
    simulate_campaign(book, "d20", "two", 4242, 30)
    simulate_campaign(book, "d20", "three", 4243, 30)
    assert _story(book, "one") == _story(book, "two")
    assert _story(book, "one") != _story(book, "three")


def test_a_simulated_campaign_is_a_real_game(book: Ledger) -> None:
    run = plan("d20", 12, 5)
    kinds: Counter[str] = Counter()
    for name, seed in zip(run.names, run.seeds, strict=True):
        simulate_campaign(book, "d20", name, seed, 30)  # a refused command would raise here
        kinds.update(e.kind for e in book.log(name))
        crew = book.state(name).game.heroes
        assert 2 <= len(crew) <= 3
        assert book.state(name).core.characters == tuple(crew)
    for kind in (
        "d20.created",
        "d20.checked",
        "d20.initiative",
        "d20.attacked",
        "d20.damaged",
        "d20.stressed",
        "d20.healed",
        "d20.rested",
        "d20.usage",
    ):
        assert kinds[kind] > 0, kind
    report = book.verify(every=True)
    assert set(run.names) <= set(report.checked)


def test_every_roll_of_the_crew_records_its_exact_chance(book: Ledger) -> None:
    simulate_campaign(book, "d20", "odds", 99, 30)
    rolls = [e.event.roll for e in book.log("odds") if isinstance(e.event, ROLLED)]
    assert len(rolls) >= 10
    for roll in rolls:
        assert 0 < roll.p_success < 1
        assert roll.success == (roll.kept == 20 or (roll.kept != 1 and roll.total >= roll.target))


def test_campaigns_stay_small_and_end_by_the_last_day(book: Ledger) -> None:
    run = plan("d20", 10, 8)
    for name, seed in zip(run.names, run.seeds, strict=True):
        simulate_campaign(book, "d20", name, seed, 5)
        kinds = [e.kind for e in book.log(name)]
        assert len(kinds) < 80
        assert kinds.count("d20.rested") <= 5  # at most one day of rest a shift


def test_a_dead_crew_plays_no_more(book: Ledger) -> None:
    book.new_campaign("d20", "lost", seed=1)
    book.execute(Create(name="Kane", cls="scientist"), "lost")
    book.execute(TakeDamage(amount=1000, cause="chestburster"), "lost", actor="Kane")
    before = len(book.log("lost"))
    with book.batch("lost") as batch:
        assert autoplay(batch, "lost", 30) == 0
    assert len(book.log("lost")) == before


def test_the_autoplayer_takes_over_an_existing_crew(book: Ledger) -> None:
    book.new_campaign("d20", "nostromo", seed=12)
    book.execute(Create(name="Ripley", cls="marine"), "nostromo")
    with book.batch("nostromo") as batch:
        played = autoplay(batch, "nostromo", 6)
    assert 1 <= played <= 6
    log = book.log("nostromo")
    assert {e.actor for e in log[3:]} == {"Ripley"}
    assert [e.kind for e in log].count("d20.created") == 1


def test_ledger_simulate_d20_through_the_cli(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "cli.ledger")
    result = runner.invoke(cli, ["--db", db, "simulate", "d20", "--campaigns", "3", "--seed", "9", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["system"] == "d20" and data["campaigns"] == 3 and data["events"] > 3 * 10
    assert runner.invoke(cli, ["--db", db, "verify", "--all"]).exit_code == 0
    sheet = runner.invoke(cli, ["--db", db, "-c", data["first"], "sheet", "--json"])
    assert sheet.exit_code == 0, sheet.output
