"""Build the dicepool sample campaign: a street firefight over three combat turns.

Eddie and Rosa against Mark, a ganger, in an alley in broad daylight. Turn 1
is the rules' worked example (Eddie's Ares Predator against Mark, staged from
L to G); turn 2 has Mark shooting a pistol he has no skill for (defaulting to
Submachine Guns), a dodge, a mistaken attack that is undone and Rosa's scoped
shot; turn 3 a burst. The dice are physical (``faces``) where the story needs
them and seeded elsewhere.

Run from the repository root: ``python samples/dicepool/build_sample.py``.
It writes ``samples/dicepool/campaign.jsonl`` (a golden log the tests verify).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ledger.campaign import Ledger
from ledger.systems.dicepool.commands import Attack, Dodge, Initiative, Join, Resist, Test

NAME = "street-firefight"
OUT = Path(__file__).with_name("campaign.jsonl")

PARTY = {
    "Eddie": {
        "body": "4",
        "quickness": "5",
        "intelligence": "4",
        "willpower": "3",
        "strength": "3",
        "skill.pistols": "5",
        "skill.stealth": "3",
        "pool.combat": "6",
        "armor": "1",
        "weapon": "ares_predator",
    },
    "Mark": {
        "body": "3",
        "quickness": "4",
        "intelligence": "3",
        "willpower": "4",
        "strength": "4",
        "skill.submachine_guns": "4",
        "pool.combat": "6",
        "armor": "2",
        "weapon": "ingram_smartgun",
    },
    "Rosa": {
        "body": "4",
        "quickness": "6",
        "intelligence": "5",
        "willpower": "4",
        "strength": "3",
        "skill.rifles": "6",
        "pool.combat": "7",
        "armor": "3",
        "weapon": "ranger_arms_sm3",
    },
}


def build(book: Ledger) -> None:
    book.new_campaign("dicepool", NAME, seed=2077)
    for name, attrs in PARTY.items():
        book.execute(Join(name=name, attrs=attrs), NAME)
    run = book.execute
    book.note("An alley off Puyallup, broad daylight. Mark steps out of a doorway.", NAME)
    # Turn 1: the worked example of the rules.
    run(Initiative(), NAME, faces=[4, 2, 5])
    run(
        Attack(target="Mark", skill="pistols", pool=4, range="medium", mods=("smartlink_external",)),
        NAME,
        actor="Eddie",
        faces=[3, 5, 5, 6, 4, 5, 1, 6, 6],
    )
    run(Dodge(pool=3), NAME, actor="Mark", faces=[4, 2, 3])
    run(Resist(damage="9L", armor=2, pool=3), NAME, actor="Mark", faces=[2, 6, 1, 5, 6, 2, 6, 3, 5])
    # Turn 2: Mark, wounded, grabs a hold-out: no Pistols, so Submachine Guns at TN+2, half pool.
    run(Initiative(), NAME, faces=[3, 6, 4])
    run(
        Attack(target="Eddie", weapon="streetline_special", pool=3, range="short"),
        NAME,
        actor="Mark",
        faces=[6, 3, 2, 6, 4, 1, 5, 3, 2],
    )
    run(Dodge(pool=2), NAME, actor="Eddie", faces=[4, 1])
    run(Resist(pool=2), NAME, actor="Eddie")
    # Rosa fires without her scope, then thinks better of it: taken back.
    run(Attack(target="Mark", distance=400, pool=2), NAME, actor="Rosa")
    book.undo(NAME)
    # Rosa's sniper rifle at 400 m is long range; her level-2 scope makes it short.
    run(
        Attack(target="Mark", distance=400, scope=2, pool=3),
        NAME,
        actor="Rosa",
        faces=[5, 2, 6, 1, 1, 3, 2, 3, 2],
    )
    run(Resist(pool=3), NAME, actor="Mark", faces=[6, 6, 6, 6, 1, 2, 3, 4])
    # Turn 3: Mark is down. Eddie sneaks around the dumpster to check on him: a Stealth test.
    run(Initiative(), NAME)
    run(Test(skill="stealth", tn=4), NAME, actor="Eddie")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        book = Ledger(str(Path(tmp) / "sample.ledger"))
        try:
            build(book)
            with OUT.open("wb") as out:
                count = book.export(out, NAME)
        finally:
            book.close()
    print(f"wrote {count} events to {OUT}")


if __name__ == "__main__":
    main()
