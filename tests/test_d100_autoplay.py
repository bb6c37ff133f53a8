"""The d100 autoplayer: whole simulated campaigns played by the rules."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from ledger.systems.d100 import commands as c
from ledger.systems.d100 import events as ev
from ledger.systems.d100 import roll
from ledger.systems.d100.play import Autoplayer, autoplay
from ledger.systems.d100.system import SYSTEM

ANA = {"TAM": 11, "CON": 12, "FUE": 10, "INT": 15, "EDU": 16, "DES": 12, "CAR": 13, "POD": 12}


def _play(book: Ledger, name: str, seed: int, days: int = 30) -> Autoplayer:
    book.new_campaign("d100", name, seed=seed)
    with book.batch(name) as batch:
        player = Autoplayer(batch, name, None)
        player.play(days)
    return player


def test_the_simulator_knows_the_d100_autoplayer() -> None:
    assert SYSTEM.play.autoplay is autoplay
    assert SYSTEM.read.facts is not None


def test_the_same_seed_plays_the_same_campaign(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "same.ledger")) as book:
        for name in ("one", "two", "other"):
            _play(book, name, 41 if name != "other" else 42)
        one, two, other = (
            [(e.kind, e.actor, e.summary) for e in book.log(n)][1:] for n in ("one", "two", "other")
        )
    assert one == two
    assert one != other
    assert len(one) > 20


def test_campaigns_are_played_by_the_rules_with_many_kinds_of_events(tmp_path: Path) -> None:
    kinds: Counter[str] = Counter()
    with Ledger(str(tmp_path / "many.ledger")) as book:
        for seed in range(12):
            player = _play(book, f"c{seed}", seed)
            assert player.refusals == [], [str(e) for e in player.refusals]
            log = book.log(f"c{seed}")
            kinds.update(e.kind for e in log)
            assert 15 <= len(log) <= 250  # small campaigns: the simulator plays hundreds of them
            game = book.state(f"c{seed}").game
            assert 2 <= len(game.characters) <= 3
            dead = all(inv.dead for inv in game.characters.values())
            assert dead or game.clock // (24 * 60) >= 30
        report = book.verify(every=True)
    assert {f"c{seed}" for seed in range(12)} <= set(report.checked)
    for kind in (
        "d100.tested",
        "d100.round_declared",
        "d100.wounded",
        "d100.treated",
        "d100.horrified",
        "d100.rested",
        "d100.combat_ended",
        "d100.dodge_resolved",
        "d100.luck_spent",
        "dice.rolled",
    ):
        assert kinds[kind] > 0, kind


def test_every_investigator_roll_records_its_exact_chance(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "p.ledger")) as book:
        _play(book, "p", 7)
        tests = [e.event for e in book.log("p") if isinstance(e.event, ev.Tested)]
    assert len(tests) > 5
    purposes = {t.purpose for t in tests}
    assert {"test", "attack"} <= purposes
    for t in tests:
        assert t.p_success == roll.p_success(t.target, t.skill_value)
        assert t.level == roll.level(t.face, t.target, t.skill_value)


def test_the_creature_is_the_directors_roll_without_a_chance_of_success(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "dir.ledger")) as book:
        for seed in range(4):
            _play(book, f"d{seed}", seed)
        rolled = [e.event for seed in range(4) for e in book.log(f"d{seed}") if e.kind == "dice.rolled"]
    attacks = [r for r in rolled if " ataca (" in r.label]
    assert attacks and all(r.result.notation == "1d100" and r.p_success is None for r in attacks)


def test_a_party_already_dead_plays_nothing(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "dead.ledger")) as book:
        book.new_campaign("d100", "dead", seed=3)
        book.execute(c.CreateCharacter(name="Ana", characteristics=ANA), "dead")
        book.execute(c.Damage(amount=20), "dead", actor="Ana")  # dying at 0 hp
        book.execute(c.Damage(amount=1), "dead", actor="Ana")  # any further damage kills
        before = book.state("dead").core.version
        assert autoplay(book, "dead", 30) == 0
        assert book.state("dead").core.version == before


def test_autoplay_continues_an_existing_party_for_the_days_asked(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "on.ledger")) as book:
        book.new_campaign("d100", "on", seed=5)
        book.execute(c.CreateCharacter(name="Ana", characteristics=ANA, skills={"Pelea": 60}), "on")
        played = autoplay(book, "on", 6)
        game = book.state("on").game
    assert list(game.characters) == ["Ana"]  # no party is made up around her
    assert played >= 6 or game.characters["Ana"].dead
    assert game.clock // (24 * 60) == played


def test_simulate_d100_from_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    db = ["--db", str(tmp_path / "cli.ledger")]
    result = runner.invoke(cli, [*db, "simulate", "d100", "--campaigns", "3", "--seed", "4"])
    assert result.exit_code == 0, result.output
    assert "simulated 3 d100 campaigns (seed 4)" in result.output
    assert runner.invoke(cli, [*db, "verify", "--all"]).exit_code == 0
    stats = json.loads(runner.invoke(cli, [*db, "stats", "--simulated", "--json"]).output)
    purposes = {row["purpose"] for row in stats["rolls"] if row["system"] == "d100"}
    assert {"attack", "dodge", "firstaid"} <= purposes
    assert stats["luck"]["overall"]["judged"] > 20
