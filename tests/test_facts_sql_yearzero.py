"""The yearzero SQL facts (ledger.systems.yearzero.facts_sql) equal its Python facts."""

from __future__ import annotations

from pathlib import Path

from ledger import Ledger
from ledger.systems.yearzero import commands as yz
from tests.helpers_facts import assert_same_facts, play

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
