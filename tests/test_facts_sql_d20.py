"""The d20's SQL facts (``ledger.systems.d20.facts_sql``) equal its Python facts, row for row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ledger import Ledger
from ledger.systems.d20.commands import (
    Attack,
    Check,
    Create,
    Heal,
    Panic,
    RollInitiative,
    Stress,
    Supply,
    TakeDamage,
    Treat,
    Unjam,
    Use,
)
from tests.helpers_facts import assert_same_facts, python_facts
from tests.test_d20 import SEVEN, STRONG

ASH = {"fue": 8, "des": 9, "con": 18, "int": 15, "sab": 12, "car": 13}


def test_sql_facts_equal_python_facts_on_rare_events(tmp_path: Path) -> None:
    """Physical dice, equal faces with advantage, fumbles, traumas, therapy and deaths."""
    with Ledger(str(tmp_path / "l.ledger")) as book:
        book.new_campaign("d20", "Station")

        def run(command: Any, faces: list[int] | None = None, who: str = "Ripley") -> None:
            book.execute(command, "Station", faces=faces, actor=who)

        book.execute(Create(name="Ripley", cls="marine", assign=STRONG), "Station", faces=SEVEN)
        book.execute(Create(name="Ash", cls="scientist", assign=ASH), "Station", faces=SEVEN)
        book.execute(Create(name="Bishop", cls="synthetic"), "Station", faces=SEVEN)
        run(Check(attribute="des", dc="11", adv=True), faces=[7, 7])  # the first of equal faces is kept
        run(Check(attribute="sab", dc="11", instinct=True, dis=True), faces=[20, 1])  # fumble
        run(Check(attribute="fue", dc="14", skill="athletics"), faces=[20])  # critical
        run(Check(attribute="int", dc="11", push=True), faces=[4, 15])  # pushed: a calm point
        run(Attack(weapon="pulse rifle", defense=12, mode="long"), faces=[14, 5, 7, 8])
        run(Attack(weapon="combat knife", defense=30), faces=[20])  # critical: no damage dice
        run(Attack(weapon="pulse rifle", defense=5), faces=[1])  # jams
        run(Unjam(), faces=[11])
        run(Unjam(), faces=[12])
        run(RollInitiative(), faces=[12])
        run(Supply(resource="oxygen", die="d6"))
        for face in (2, 3, 1):  # steps down, holds, runs out
            run(Use(resource="oxygen"), faces=[face])
        run(Stress(difficulty=11), faces=[10])  # no calm lost
        run(Stress(difficulty=20), faces=[5, 10])
        run(Panic(), faces=[5, 3, 2])  # a trauma
        run(Treat(), faces=[16])
        run(Stress(difficulty=20), faces=[5, 10])
        run(Panic(), faces=[3, 4])  # no trauma
        run(TakeDamage(amount=5))
        run(Heal(target="Ripley"), faces=[2], who="Bishop")  # fails: no PV back
        run(Heal(target="Ripley", kit=True), faces=[13, 6], who="Bishop")
        run(TakeDamage(amount=4), who="Bishop")
        run(Heal(), faces=[16, 3], who="Bishop")  # a repair
        for _ in range(6):  # Ash's six calm points, one a wound
            run(TakeDamage(amount=1), who="Ash")
        run(TakeDamage(amount=40, cause="xenomorph"), who="Ash")  # dies with no calm left to lose
        run(TakeDamage(amount=40, cause="xenomorph"))  # dies losing a calm point

        deaths = python_facts(book, "d20")["deaths"]
        assert sorted(row[1] for row in deaths) == [1, 2]
        assert assert_same_facts(book, "d20") > 40
