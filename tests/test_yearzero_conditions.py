"""Conditions, cold, healing and the smaller yearzero commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.errors import RuleError
from ledger.projections.yearzero.game import Character
from ledger.systems.yearzero import commands as yz
from ledger.systems.yearzero import events as ev

ANA = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3", "skill.heal": "1", "skill.endure": "1"}


@pytest.fixture
def book(tmp_path: Path) -> Ledger:
    ledger = Ledger(str(tmp_path / "yz.ledger"))
    ledger.new_campaign("yearzero", "zone")
    ledger.add_character("Ana", "zone", ANA)
    return ledger


def run(book: Ledger, command: Any, faces: list[int] | None = None, actor: str | None = None) -> list[Any]:
    """Decide with physical dice only: a command that rolls needs its faces (none by default)."""
    return book.execute(command, "zone", faces=faces or [], actor=actor).events


def char(book: Ledger, name: str = "Ana") -> Character:
    return book.state("zone").game.characters[name]


def test_thirst_and_no_sleep_at_midnight(book: Ledger) -> None:
    run(book, yz.Eat())
    events = run(book, yz.Tick(minutes=16 * 60))
    conditions = [e.condition for e in events if isinstance(e, ev.ConditionChanged)]
    assert conditions == ["thirsty", "sleepless"]
    c = char(book)
    assert (c.current["strength"], c.current["agility"], c.current["wits"]) == (2, 2, 2)
    run(book, yz.Sleep(hours=4))
    assert not char(book).has("sleepless") and char(book).has("thirsty")
    run(book, yz.Drink())
    assert not char(book).has("thirsty")


def test_thirsty_blocks_all_recovery(book: Ledger) -> None:
    run(book, yz.Eat())
    run(book, yz.Tick(minutes=16 * 60))  # thirsty and sleepless at midnight
    run(book, yz.Eat())  # the day's ration
    run(book, yz.Eat())  # a ration for recovery
    run(book, yz.Rest(hours=4))
    assert char(book).current["strength"] == 2  # thirst blocks it
    run(book, yz.Drink())
    run(book, yz.Rest(hours=4))
    assert char(book).current["strength"] == 3


def test_hungry_cannot_use_a_kept_ration(book: Ledger) -> None:
    run(book, yz.Eat())
    run(book, yz.Drink())
    run(book, yz.Sleep(hours=8))
    run(book, yz.Eat())  # a second ration, kept for recovery
    run(book, yz.Tick(minutes=8 * 60))  # midnight: every need met
    run(book, yz.Drink())
    run(book, yz.Sleep(hours=8))
    run(book, yz.Tick(minutes=16 * 60))  # midnight without grub
    c = char(book)
    assert c.has("hungry") and c.current["strength"] == 2 and "grub" in c.bank
    events = run(book, yz.Rest(hours=4))
    assert not any(isinstance(e, ev.Recovered) for e in events)
    assert char(book).current["strength"] == 2


def test_broken_by_damage_and_hungry_dies_at_midnight(book: Ledger) -> None:
    run(book, yz.Drink())
    run(book, yz.Sleep(hours=8))
    run(book, yz.Tick(minutes=8 * 60))  # midnight: hungry, Strength 2
    run(book, yz.Drink())
    run(book, yz.Sleep(hours=8))
    run(book, yz.Damage(kind="damage", amount=2), [3, 4, 6])  # 2d6 = 7 (winded), up in 6 hours
    run(book, yz.Tick(minutes=7 * 60))
    assert char(book).broken  # hunger keeps her down
    events = run(book, yz.Tick(minutes=60 * 9))
    deaths = [e for e in events if isinstance(e, ev.Died)]
    assert deaths and deaths[0].cause == "broken by damage while hungry"


def test_eating_lets_a_broken_hungry_character_get_up(book: Ledger) -> None:
    run(book, yz.Drink())
    run(book, yz.Sleep(hours=8))
    run(book, yz.Tick(minutes=8 * 60))  # hungry
    run(book, yz.Damage(kind="damage", amount=2), [3, 4, 1])  # up in 1 hour at best
    run(book, yz.Tick(minutes=120))
    assert char(book).broken
    events = run(book, yz.Eat())
    assert [e.kind for e in events] == ["yz.consumed", "yz.recovered", "yz.injury_healed"]
    assert events[1].cause == "got up" and events[2].name == "winded"  # no healing time: gone
    assert char(book).current["strength"] == 1 and not char(book).broken


def test_cold_failure_is_final_unless_pushed(book: Ledger) -> None:
    run(book, yz.Cold(), [2, 3, 4, 5])
    assert not char(book).has("hypothermic")  # it can still be pushed
    events = run(book, yz.Push(), [2, 3, 4, 5])
    assert [e.kind for e in events][-4:] == ["yz.settled", "yz.cold", "yz.trauma", "yz.trauma"]
    c = char(book)
    assert c.has("hypothermic") and c.current["strength"] == 2 and c.current["wits"] == 2
    run(book, yz.Cold(), [6, 3, 4])  # Strength 2 now: two base dice, one skill die
    assert char(book).has("hypothermic")
    run(book, yz.Warm())
    assert not char(book).has("hypothermic")


def test_unpushed_cold_failure_settles_at_the_next_command(book: Ledger) -> None:
    run(book, yz.Cold(), [2, 3, 4, 5])
    events = run(book, yz.Initiative(), [5])
    assert [e.kind for e in events][:2] == ["yz.settled", "yz.cold"]


def test_heal_halves_healing_time_and_gets_the_broken_up(book: Ledger) -> None:
    book.add_character("Bo", "zone", ANA)
    run(book, yz.Damage(kind="damage", amount=3), [3, 3, 5], actor="Bo")  # 6: sprained ankle, 3 days
    bo = char(book, "Bo")
    assert bo.injuries[0].heals_at == 8 * 60 + 3 * 24 * 60
    events = run(book, yz.Heal(target="Bo"), [6, 6, 2, 2], actor="Ana")
    healed = events[-1]
    assert healed.restored == 2 and healed.halved == ("sprained ankle",)
    bo = char(book, "Bo")
    assert bo.current["strength"] == 2 and not bo.broken
    assert bo.injuries[0].heals_at == 8 * 60 + 36 * 60
    run(book, yz.Eat(everyone=True))
    run(book, yz.Drink(everyone=True))
    run(book, yz.Sleep(hours=8))
    run(book, yz.Tick(minutes=8 * 60))  # a quiet midnight: every need met
    events = run(book, yz.Tick(minutes=20 * 60))
    assert any(isinstance(e, ev.InjuryHealed) and e.name == "sprained ankle" for e in events)
    assert "sprained ankle" not in [i.name for i in char(book, "Bo").injuries]


def test_self_heal_from_a_lethal_injury_is_at_minus_two(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "h.ledger"))
    book.new_campaign("yearzero", "zone")
    book.add_character("Ana", "zone", {**ANA, "skill.heal": "3"})
    run(book, yz.Damage(kind="damage", amount=3), [5, 5, 1])  # 10: internal bleeding, 6 hours
    run(book, yz.Booze(), [6])  # back on her feet for a while
    [rolled, *_] = run(book, yz.Heal(target="Ana"), [6, 2, 2, 2])
    assert rolled.modifier == -2 and len(rolled.dice.skill) == 1


def test_initiative_critical_and_armor_commands(book: Ledger) -> None:
    [init] = run(book, yz.Initiative(ambush=True), [4])
    assert init.total == 4 + 3 + 3
    crit, died = run(book, yz.Critical(), [6, 6])
    assert crit.name == "crushed skull" and crit.instant and died.cause == "critical injury: crushed skull"
    assert char(book).dead


def test_wear_and_take_off(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "w.ledger"))
    book.new_campaign("yearzero", "zone")
    book.add_character("Ana", "zone", {**ANA, "armor.old": "1", "armor.new": "3"})
    assert char(book).worn == {"armor": "old"}
    run(book, yz.Wear(item="new"))
    assert char(book).worn == {"armor": "new"}
    run(book, yz.Wear(off="armor"))
    assert char(book).worn == {}
    with pytest.raises(RuleError, match="no armor"):
        run(book, yz.Wear(item="rifle"))


def test_broken_by_damage_while_hypothermic_dies_at_the_next_cold_roll(book: Ledger) -> None:
    run(book, yz.Cold(), [1, 2, 3, 4])
    run(book, yz.Push(), [2, 3, 4])  # a base 1: trauma, then hypothermic: Strength 1
    run(book, yz.Damage(kind="damage", amount=2), [3, 4, 2])  # broken, winded
    [died] = run(book, yz.Cold())
    assert isinstance(died, ev.Died) and died.cause == "broken by damage while hypothermic"
