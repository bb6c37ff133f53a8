"""dicepool: the SQL facts (``extra["facts_sql"]``) equal the Python ``facts``, row for row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ledger import Ledger
from ledger.systems.dicepool.commands import Attack, Dodge, Heal, Initiative, Join, Resist
from ledger.systems.dicepool.commands import Test as SkillTest
from tests.helpers_facts import assert_same_facts, python_facts
from tests.test_dicepool import EDDIE, MARK


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
    run(Attack(target="Mark", range="short"), "Eddie", [4, 1, 1, 1, 1])
    run(Dodge(pool=2), "Mark", [5, 2])  # dodged clear: a miss
    run(Resist(damage="4S", armor=0, against=1, pool=0), "Mark", [5, 6, 4])  # staged below S: no wound
    run(Resist(damage="12M", against=4, stun=True), "Mark", [1, 1, 1])  # stun track
    run(Heal(boxes=3, track="stun"), "Mark")  # no reason: "healing"
    run(Resist(damage="12M", against=4), "Mark", [1, 1, 1])
    run(Heal(boxes=2, reason="first aid"), "Mark")
    for _ in range(4):  # physical overflow past Body kills
        run(Resist(damage="12M", against=4), "Mark", [1, 1, 1])
        state = book.state(name)
        if book.system(book.campaign(name)).sheet(state, "Mark")["status"] == "dead":
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
