"""The yearzero autoplayer: whole simulated campaigns of mutants in the Zone."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from ledger.log.events import CharacterAdded
from ledger.play.simulate import plan, simulate_campaign
from ledger.projections.yearzero.characters import parse_attrs
from ledger.systems.yearzero import commands as yz
from ledger.systems.yearzero import events as ev
from ledger.systems.yearzero.play import ROLES, Autoplayer, autoplay, mutant
from ledger.systems.yearzero.system import SYSTEM


def _events(book: Ledger, name: str) -> list[Any]:
    return [env.event for env in book.effective(book.campaign(name))]


def _played(book: Ledger, name: str, seed: int, stretches: int = 30) -> Autoplayer:
    """Play a fresh campaign with the autoplayer kept at hand (to read what it was refused)."""
    book.new_campaign("yearzero", name, seed=seed)
    with book.batch(name) as batch:
        player = Autoplayer(batch, name, None)
        for role, who in zip(("stalker", "gearhead", "fixer"), ("Vesna", "Grit", "Mira"), strict=True):
            player.run(yz.CreateCharacter(name=who, attrs=mutant(player.rng(), role)))
        played = 0
        while played < stretches and player.stretch(played):
            played += 1
    return player


def test_the_system_offers_its_autoplayer_to_simulate() -> None:
    assert SYSTEM.play.autoplay is autoplay
    assert SYSTEM.read.facts is not None


@pytest.mark.parametrize("role", sorted(ROLES))
def test_every_role_makes_a_valid_mutant(role: str) -> None:
    import random

    attrs = mutant(random.Random(role), role)
    character, problems = parse_attrs("X", attrs)
    assert problems == []
    assert sum(character.max.values()) == 14
    assert character.max[ROLES[role]["key"]] == max(character.max.values())
    assert len(character.skills) == 3 and character.worn


def test_the_same_seed_plays_the_same_campaign(tmp_path: Path) -> None:
    runs = []
    for path in ("a.ledger", "b.ledger"):
        with Ledger(str(tmp_path / path)) as book:
            simulate_campaign(book, "yearzero", "zone", 4242, 30)
            runs.append(_events(book, "zone"))
    assert runs[0] == runs[1]
    with Ledger(str(tmp_path / "c.ledger")) as book:
        simulate_campaign(book, "yearzero", "zone", 4243, 30)
        assert _events(book, "zone") != runs[0]


def test_a_simulated_campaign_is_a_whole_expedition(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "sim.ledger")) as book:
        simulate_campaign(book, "yearzero", "zone", 7, 30)
        events = _events(book, "zone")
        game = book.state("zone").game
        actions = len({env.action for env in book.effective(book.campaign("zone"))})
    kinds = Counter(type(e).__name__ for e in events)
    assert sum(isinstance(e, CharacterAdded) for e in events) == 3
    for kind in ("Rolled", "Consumed", "SectorEntered", "SectorExplored", "Rested", "DayEnded", "TimePassed"):
        assert kinds[kind] > 0, kind
    assert len(kinds) >= 12
    # Thirty stretches are ten days in the Zone (or fewer, if the Zone wins).
    days = [e.day for e in events if isinstance(e, ev.DayEnded)]
    assert days == list(range(len(days))) and 1 <= len(days) <= 10
    assert len(game.sectors) > 2
    assert 40 <= actions <= 160  # a few dozen commands: simulating stays fast


def test_every_roll_records_its_exact_odds(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "sim.ledger")) as book:
        run = plan("yearzero", 5, 1)
        for name, seed in zip(run.names, run.seeds, strict=True):
            simulate_campaign(book, "yearzero", name, seed, 30)
        rolls = [e for name in run.names for e in _events(book, name) if isinstance(e, ev.Rolled | ev.Pushed)]
    assert len(rolls) >= 25
    assert any(isinstance(e, ev.Pushed) for e in rolls)
    for e in rolls:
        assert 0.0 <= e.p_success <= 1.0
        if isinstance(e, ev.Rolled) and not e.dice.negative and e.dice.base:
            assert e.p_success > 0


@pytest.mark.parametrize("seed", range(8))
def test_the_policy_is_never_refused(tmp_path: Path, seed: int) -> None:
    with Ledger(str(tmp_path / "sim.ledger")) as book:
        player = _played(book, "zone", seed, stretches=45)
    assert player.refused == []


def test_simulated_campaigns_verify_and_replay(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "sim.ledger")) as book:
        simulate_campaign(book, "yearzero", "zone", 99, 30)
        built = book.state("zone")
    with Ledger(str(tmp_path / "sim.ledger")) as book:
        report = book.verify("zone")
        camp = book.campaign("zone")
        replayed = book.state_at(camp, book.head(camp), book.system(camp), use_snapshots=False)
    assert report is not None
    assert replayed.game == built.game


def test_the_days_count_stretches_three_to_a_day(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "sim.ledger")) as book:
        book.new_campaign("yearzero", "zone", seed=3)
        with book.batch("zone") as batch:
            assert autoplay(batch, "zone", 3) == 3
        game = book.state("zone").game
        ended = [e for e in _events(book, "zone") if isinstance(e, ev.DayEnded)]
    assert [e.day for e in ended] == [0]
    assert game.day == 1 and (game.minute % (24 * 60)) // 60 == 8  # the next morning at 08:00


def test_a_dead_party_plays_nothing(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "sim.ledger")) as book:
        book.new_campaign("yearzero", "zone", seed=3)
        book.add_character("Hank", "zone", {"strength": "3", "agility": "3", "wits": "4", "empathy": "4"})
        # Strength to 0, then 12 on the critical injury table: a crushed skull.
        book.execute(yz.Damage(kind="damage", amount=3, armor=False), "zone", faces=[6, 6], actor="Hank")
        before = book.head(book.campaign("zone"))
        with book.batch("zone") as batch:
            assert autoplay(batch, "zone", 30) == 0
        assert book.head(book.campaign("zone")) == before


def test_ledger_simulate_plays_yearzero(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "t.ledger")
    result = runner.invoke(cli, ["--db", db, "simulate", "yearzero", "--campaigns", "3", "--seed", "5"])
    assert result.exit_code == 0, result.output
    stats = runner.invoke(cli, ["--db", db, "stats", "--simulated", "--json"])
    assert stats.exit_code == 0, stats.output
    data = json.loads(stats.output)
    assert data["overview"]["campaigns"] == 3
    assert data["luck"]["overall"]["judged"] >= 10
    assert runner.invoke(cli, ["--db", db, "verify", "--all"]).exit_code == 0
