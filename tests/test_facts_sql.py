"""The facts contract: every installed system's SQL facts (``ReadModel.facts_sql``) give the
rows of its Python facts (``ReadModel.facts``), both written side by side in the system's
``ledger/systems/<system>/facts.py``.

Each system's golden logs (``samples/<system>``) and a few dozen autoplayed campaigns,
compared fact for fact; then, system by system, the events autoplay rarely or never
records, recorded by hand."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import msgspec
import pytest

from ledger import Ledger
from ledger.systems import get_system, system_names
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
from ledger.systems.d100 import commands as c
from ledger.systems.d100 import events as ev
from ledger.systems.d100.facts import FACTS_SQL, facts
from ledger.systems.dicepool.commands import Attack as PoolAttack
from ledger.systems.dicepool.commands import Dodge, Initiative, Join, Resist
from ledger.systems.dicepool.commands import Heal as PoolHeal
from ledger.systems.dicepool.commands import Test as SkillTest
from ledger.systems.yearzero import commands as yz
from tests.helpers_facts import (
    _fields,
    _norm,
    assert_same_facts,
    play,
    python_facts,
    sql_rows,
    without_defaults,
)
from tests.test_d20 import SEVEN, STRONG
from tests.test_dicepool import EDDIE, MARK

PLAYED: dict[str, tuple[int, int]] = {
    "crawl": (12, 2000),
    "dicepool": (40, 1000),
    "yearzero": (30, 1000),
    "d100": (60, 3000),
    "d20": (30, 3000),
}
"""Per system: how many campaigns to autoplay beside its golden logs, and more facts than
how many they must give. An installed system not named here plays 20 and must give some."""

WITH_SQL = [name for name in system_names() if get_system(name).read.facts_sql]
"""Every installed system that declares SQL facts."""


@pytest.mark.parametrize("system", WITH_SQL)
def test_sql_facts_equal_python_facts(tmp_path: Path, system: str) -> None:
    campaigns, at_least = PLAYED.get(system, (20, 0))
    with Ledger(str(tmp_path / f"{system}.ledger")) as book:
        play(book, system, campaigns=campaigns, days=40)
        assert assert_same_facts(book, system) > at_least


# --- d100 ------------------------------------------------------------------------------------

CHARS = {"TAM": 12, "CON": 11, "FUE": 10, "INT": 14, "EDU": 15, "DES": 9, "CAR": 12, "POD": 13}
SKILLS = {"Trepar": 40, "Primeros auxilios": 50, "Medicina": 60, "Psicoterapia": 50}


def test_rare_events_by_hand(tmp_path: Path) -> None:
    """Every branch of the Python facts: states, death, panic, exhaustion, healing, rests."""
    with Ledger(str(tmp_path / "l.ledger")) as book:
        book.new_campaign("d100", "t")
        for name in ("Ana", "Bruno", "Carla"):
            book.execute(c.CreateCharacter(name=name, characteristics=CHARS, skills=SKILLS), "t")

        def run(command: c.Command, faces: list[int] | None = None, who: str = "Ana") -> None:
            book.execute(command, "t", faces=faces, actor=who)

        run(c.Test(skill="Trepar"), [5])  # critical, manual
        run(c.Test(skill="Trepar"), [99])  # fumble
        run(c.Test(skill="Trepar", target=30))
        run(c.DeclareRound(actions=("Trepar",)))  # one fatigue point
        run(c.EndCombat())
        run(c.Damage(amount=4, cause="cuchillo"))  # ok
        run(c.Heal(method="firstaid", patient="Ana"), [30, 3], who="Bruno")  # d3 heal
        run(c.Damage(amount=3, cause="bala"))
        run(c.Heal(method="firstaid", patient="Ana"), [90], who="Bruno")  # fails: no facts
        run(c.Heal(method="medicine", patient="Ana"), [20, 2], who="Bruno")  # d6 heal
        run(c.Damage(amount=3))  # unconscious_risk
        run(c.Damage(amount=2), who="Bruno")
        run(c.Horror(amount=200, cause="el abismo"), who="Bruno")  # panic
        run(c.Therapy(patient="Bruno"), [95])  # fails: no facts
        run(c.Rest(minutes=1440, everyone=True))
        run(c.Therapy(patient="Bruno"), [10, 5])  # d6 heal of valor
        run(c.Horror(amount=3), who="Carla")  # no panic
        run(c.Fatigue(amount=5, cause="correr"), who="Carla")  # not exhausted
        run(c.Fatigue(amount=50), who="Carla")  # exhausted
        run(c.Rest(minutes=7 * 1440, everyone=True), [2, 1])
        run(c.Damage(amount=9), who="Carla")  # unconscious
        run(c.Damage(amount=2), who="Carla")  # dying
        run(c.Damage(amount=1), who="Carla")  # still dying
        run(c.Damage(amount=30, cause="desangrado"), who="Carla")  # dies
        assert assert_same_facts(book, "d100") >= 25


LEVELS = {"special_at": 20, "critical_at": 8, "fumble_at": 98, "p_success": 0.37}


def test_fields_left_at_their_default_may_be_absent() -> None:
    events = [
        ev.Tested(who="A", skill="Trepar", skill_value=40, target=40, face=12, level="success", **LEVELS),
        ev.Wounded(who="A", wound=1, amount=3, cause="x", hp_after=9, state="unconscious"),
        ev.Treated(healer="A", patient="B", method="firstaid", success=False),
        ev.Treated(healer="A", patient="B", method="medicine", success=True),
        ev.TherapyGiven(healer="A", patient="B", success=True, day=1),
        ev.Rested(minutes=10, clock_after=10),
        ev.Rested(minutes=10, clock_after=10, recoveries=(ev.Recovery(who="A"), ev.Recovery(who="B", hp=2))),
    ]
    rows = [
        {"position": i + 1, "kind": e.kind, "event": msgspec.json.encode(without_defaults(e)).decode()}
        for i, e in enumerate(events)
    ]
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE ev (position BIGINT, stream VARCHAR, version INTEGER, day INTEGER, "
        "actor VARCHAR, kind VARCHAR, event JSON)"
    )
    con.executemany("INSERT INTO ev (position, kind, event) VALUES ($position, $kind, $event)", rows)
    want: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for i, e in enumerate(events):
        for n, fact in enumerate(facts(_Env(e))):
            want[fact.table].append(
                (i + 1, n, e.kind, *(_norm(getattr(fact, f)) for f in _fields(type(fact))))
            )
    assert sql_rows(con, FACTS_SQL) == {table: sorted(rows) for table, rows in want.items()}


class _Env:
    def __init__(self, event: ev.Event) -> None:
        self.event = event


# --- d20 ---------------------------------------------------------------------------------------

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


# --- dicepool ----------------------------------------------------------------------------------


def record_by_hand(book: Ledger, name: str = "by-hand") -> None:
    """The events autoplay rarely or never records: healing, stun, a death, re-rolled sixes."""
    book.new_campaign("dicepool", name)
    book.execute(Join(name="Eddie", attrs=EDDIE), name)
    book.execute(Join(name="Mark", attrs=MARK), name)

    def run(command: Any, actor: str, faces: list[int] | None = None) -> None:
        book.execute(command, name, actor=actor, faces=faces)

    run(Initiative(), "Eddie")
    run(SkillTest(skill="pistols", tn=13, dice=2), "Eddie", [6, 6, 2, 6, 3])  # sixes re-rolled, chained
    run(SkillTest(skill="rifles", tn=4), "Eddie")  # defaulting to a related skill
    run(PoolAttack(target="Mark", range="short"), "Eddie", [4, 1, 1, 1, 1])
    run(Dodge(pool=2), "Mark", [5, 2])  # dodged clear: a miss
    run(Resist(damage="4S", armor=0, against=1, pool=0), "Mark", [5, 6, 4])  # staged below S: no wound
    run(Resist(damage="12M", against=4, stun=True), "Mark", [1, 1, 1])  # stun track
    run(PoolHeal(boxes=3, track="stun"), "Mark")  # no reason: "healing"
    run(Resist(damage="12M", against=4), "Mark", [1, 1, 1])
    run(PoolHeal(boxes=2, reason="first aid"), "Mark")
    for _ in range(4):  # physical overflow past Body kills
        run(Resist(damage="12M", against=4), "Mark", [1, 1, 1])
        state = book.state(name)
        if book.system(book.campaign(name)).read.sheet(state, "Mark")["status"] == "dead":
            break


def test_hand_recorded_rare_events_match(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "h.ledger")) as book:
        record_by_hand(book)
        want = python_facts(book, "dicepool")
        assert len(want["deaths"]) == 1
        # rows are (position, n, kind, *fields in the fact's field order)
        assert {row[5] for row in want["wounds"]} >= {"healing", "first aid"}
        assert any(die[3] is not None for row in want["rolls"] for die in row[4])  # a re-rolled six
        assert assert_same_facts(book, "dicepool") == sum(len(r) for r in want.values())


# --- yearzero ----------------------------------------------------------------------------------

ANA = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3", "skill.shoot": "2", "gear.rifle": "2"}


def test_rare_rolls_and_events_without_their_defaults(tmp_path: Path) -> None:
    """Negative dice, an attribute roll and its push by hand; then every event stored without defaults."""
    with Ledger(str(tmp_path / "l.ledger")) as book:
        play(book, "yearzero", campaigns=3, days=20)
        book.new_campaign("yearzero", "zone")
        book.add_character("Ana", "zone", ANA)
        for command, faces in [
            (yz.Roll(what="shoot", modifier=-4), [6, 2, 2, 6, 3]),  # negative dice cancel the base 6
            (yz.Push(), [1, 2]),
            (yz.Roll(what="force"), [1, 2, 3]),  # an attribute roll: no skill
            (yz.Push(), [6, 4]),
        ]:
            book.execute(command, "zone", faces=faces)
        assert assert_same_facts(book, "yearzero") > 100
        assert assert_same_facts(book, "yearzero", defaults_left_out=True) > 100
