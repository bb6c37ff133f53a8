"""Realistic campaigns for the benchmark, built through the bulk path."""

from __future__ import annotations

import random

from ledger import Ledger
from ledger.deciding.commands import AddCharacter, Note, Roll

NOTATIONS = ["1d20+5", "2d6", "4d6kh3", "3d6!", "8d6>=5", "2d20kl1", "1d8+3", "d%", "6d10>=8", "1d4"]
NOTES = ["The door is barred.", "A patrol passes.", "We rest by the fire.", "The map was wrong."]


def build_campaign(book: Ledger, events: int, *, seed: int = 11) -> str:
    """A freeform table of four players: rolls of every shape, notes, and the
    occasional undo, ``events`` events in all. Returns the campaign's name."""
    name = f"bench-{events}"
    book.new_campaign("freeform", name, seed=seed)
    rng = random.Random(seed)
    players = ["Ana", "Bo", "Cyr", "Dee"]
    with book.batch(name) as batch:
        for p in players:
            batch.execute(AddCharacter(name=p))
        while batch.tip.version < events - 2:
            who = rng.choice(players)
            if rng.random() < 0.12:
                batch.execute(Note(text=rng.choice(NOTES)), actor=who)
            else:
                batch.execute(Roll(notation=rng.choice(NOTATIONS), label="check"), actor=who)
    while book.head(book.campaign(name)) < events:
        book.roll("1d20", name)
    return name
