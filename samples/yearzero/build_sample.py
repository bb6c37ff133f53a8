"""Build the yearzero sample campaign: a party of three, one week in the Zone.

Run from the project root: ``python samples/yearzero/build_sample.py``. It
writes ``campaign.jsonl`` (the main branch) and ``campaign-fork.jsonl`` (a
fork taken on day 2, where the party turns back) beside this file. The
campaign is seeded, so rebuilding gives the same log; Vesna's two pushes use
physical dice.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ledger import Ledger
from ledger.systems.yearzero import commands as yz

HERE = Path(__file__).resolve().parent
NAME = "zone-week"

PARTY = {
    "Vesna": {
        "strength": "3",
        "agility": "4",
        "wits": "4",
        "empathy": "2",
        "skill.find_the_path": "2",
        "skill.scout": "2",
        "skill.shoot": "1",
        "gear.bow": "2",
        "suit.rot_suit": "3",
    },
    "Grit": {
        "strength": "4",
        "agility": "3",
        "wits": "4",
        "empathy": "2",
        "skill.jury_rig": "2",
        "skill.comprehend": "1",
        "skill.fight": "1",
        "gear.wrench": "1",
        "armor.scrap_armor": "2",
    },
    "Mira": {
        "strength": "4",
        "agility": "3",
        "wits": "2",
        "empathy": "4",
        "skill.heal": "2",
        "skill.manipulate": "1",
        "skill.fight": "2",
        "gear.club": "1",
        "shield.car_door": "3",
    },
}


def day_of_travel(book: Ledger, sectors: list[tuple[str, int | None]]) -> None:
    """Breakfast, then enter and explore each sector (4 hours each)."""
    book.execute(yz.Eat(everyone=True), NAME)
    book.execute(yz.Drink(everyone=True), NAME)
    for sector, level in sectors:
        book.execute(yz.Enter(sector=sector, rot_level=level), NAME)
        if not book.state(NAME).game.sectors[sector].explored:
            book.execute(yz.Explore(), NAME)


def night(book: Ledger) -> None:
    night_in(book, NAME)


def night_in(book: Ledger, campaign: str) -> None:
    """Camp until 22:00, sleep eight hours, up at 08:00."""
    minute = book.state(campaign).game.minute % (24 * 60)
    if minute < 22 * 60:
        book.execute(yz.Tick(minutes=22 * 60 - minute), campaign)
    book.execute(yz.Sleep(hours=8), campaign)
    book.execute(yz.Tick(minutes=120), campaign)


def build(book: Ledger) -> None:
    book.new_campaign("yearzero", NAME, seed=1977)
    for name, attrs in PARTY.items():
        book.add_character(name, NAME, attrs)
    book.note("The Elder sends three of us out to find the source of the poisoned water.", NAME)
    # Day 0: into the weak-Rot ruins north-east of the Ark.
    day_of_travel(book, [("G7", 1), ("H7", 1)])
    book.execute(yz.Roll(what="scout"), NAME, actor="Vesna", faces=[2, 3, 5, 1, 4, 2])
    book.execute(yz.Push(), NAME, actor="Vesna", faces=[6, 2, 4, 5, 3])
    book.execute(yz.Initiative(), NAME, actor="Mira", faces=[4])
    book.execute(yz.Damage(kind="damage", amount=2), NAME, actor="Mira", faces=[6, 2, 5])
    night(book)
    # Day 1: a patch of heavy Rot, crossed in a hurry; Vesna's suit earns its keep.
    book.execute(yz.Eat(everyone=True), NAME)
    book.execute(yz.Drink(everyone=True), NAME)
    book.execute(yz.Enter(sector="I6", rot_level=2), NAME)
    book.execute(yz.Explore(hurry=True), NAME)
    book.execute(yz.Roll(what="shoot", item="bow"), NAME, actor="Vesna", faces=[1, 3, 2, 2, 4, 1, 5])
    book.execute(yz.Push(), NAME, actor="Vesna", faces=[1, 6, 2, 2, 3])
    book.execute(yz.Enter(sector="I5", rot_level=1), NAME)
    book.execute(yz.Explore(), NAME)
    book.execute(yz.Repair(item="bow"), NAME, actor="Grit")
    night(book)
    # Day 2: the Gearhead breaks.
    day_of_travel(book, [("J4", 1)])
    book.execute(yz.Roll(what="force"), NAME, actor="Grit")
    book.execute(yz.Push(), NAME, actor="Grit")
    strength = book.state(NAME).game.characters["Grit"].current["strength"]
    if strength:  # the falling wall does the rest
        book.execute(yz.Damage(kind="damage", amount=strength, armor=False), NAME, actor="Grit")
    book.execute(yz.Heal(target="Grit"), NAME, actor="Mira")
    book.execute(yz.Booze(), NAME, actor="Grit")
    night(book)
    # Day 3: no grub left. The fork asks: what if they had turned back?
    book.execute(yz.Drink(everyone=True), NAME)
    book.execute(yz.Enter(sector="K4", rot_level=1), NAME)
    book.execute(yz.Explore(), NAME)
    book.execute(yz.Drink(contaminated=True), NAME, actor="Mira")
    night(book)
    # Day 4: hungry, they find a cache of tins.
    book.execute(yz.Eat(everyone=True), NAME)
    book.execute(yz.Drink(everyone=True), NAME)
    book.execute(yz.Enter(sector="J5", rot_level=0), NAME)
    book.execute(yz.Explore(), NAME)
    book.execute(yz.Eat(everyone=True), NAME)
    book.execute(yz.Rest(hours=4, intimacy=("Vesna", "Mira")), NAME)
    night(book)
    # Days 5-6: the long way home through explored sectors.
    day_of_travel(book, [("I5", None), ("H6", 1), ("G7", None), ("F8", None)])
    for name, c in book.state(NAME).game.characters.items():
        if not c.dead and c.rot > c.permanent_rot:
            book.execute(yz.Wash(), NAME, actor=name)
    night(book)
    book.execute(yz.Eat(everyone=True), NAME)
    book.execute(yz.Drink(everyone=True), NAME)
    book.execute(yz.Rest(hours=6), NAME)
    night(book)
    book.note("Back in the Ark. The water is still poisoned, but we know where the pipes lead.", NAME)


def fork(book: Ledger) -> str:
    """After Grit's booze on day 2 the party turns back instead of pushing on."""
    name = f"{NAME}-turn-back"
    entries = book.log(NAME)
    booze = next(e.action for e in entries if e.kind == "yz.boozed")
    at = max(e.version for e in entries if e.action == booze)
    book.fork(NAME, name, at=at)
    book.execute(yz.Enter(sector="I5"), name)
    book.execute(yz.Enter(sector="H6", rot_level=1), name)
    book.execute(yz.Explore(hurry=True), name)
    night_in(book, name)
    return name


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        book = Ledger(str(Path(tmp) / "sample.ledger"))
        build(book)
        alt = fork(book)
        book.verify(every=True)
        with (HERE / "campaign.jsonl").open("wb") as out:
            n = book.export(out, NAME)
        with (HERE / "campaign-fork.jsonl").open("wb") as out:
            m = book.export(out, alt)
        book.close()
    print(f"wrote {n} events to campaign.jsonl and {m} to campaign-fork.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
