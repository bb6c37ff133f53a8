"""The d100 SQL facts (``extra["facts_sql"]``) equal the Python facts, fact for fact."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import msgspec

from ledger import Ledger
from ledger.systems.d100 import commands as c
from ledger.systems.d100 import events as ev
from ledger.systems.d100.facts import facts
from ledger.systems.d100.facts_sql import FACTS_SQL
from tests.helpers_facts import _fields, _norm, assert_same_facts, sql_rows, without_defaults

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
