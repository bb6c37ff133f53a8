"""The freeform simulator (``Play.simulate``, used by ``ledger simulate``)."""

from __future__ import annotations

import random
from typing import Any

from ledger.deciding.commands import AddCharacter, Note, Roll

CHARACTER_NAMES = ("Ada", "Bram", "Cora", "Dov", "Esme", "Finn", "Gala", "Hugo")


def simulate(ledger: Any, name: str, seed: int, days: int) -> None:
    """One freeform campaign of realistic rolls, through the ledger's bulk path.

    A party of one to four characters makes skill checks (``1d20>=T``), pool
    rolls (``Nd6>=5``), damage and stat rolls, with notes; now and then a player
    takes a failed roll back (an undo) and plays on. Dice come from the
    campaign's seed exactly as ``ledger roll`` would draw them; the actions
    between two undos are appended in one transaction. A freeform campaign has no
    days: ``days`` is not used."""
    rng = random.Random(seed)
    ledger.new_campaign("freeform", name, seed=seed)
    party = rng.sample(CHARACTER_NAMES, rng.randint(1, 4))
    batch = ledger.batch(name)
    for who in party:
        batch.execute(AddCharacter(name=who), name)
    for __ in range(rng.randint(30, 120)):
        who = rng.choice(party)
        if rng.random() < 0.08:
            batch.execute(Note(text=rng.choice(NOTES)), name, actor=who)
            continue
        rec = batch.execute(Roll(notation=_pick_roll(rng)), name, actor=who)
        if rec.events[0].result.successes == 0 and rng.random() < 0.1:
            batch.commit()
            ledger.undo(name)
            batch = ledger.batch(name)
    batch.commit()


NOTES = ("camp for the night", "a stranger at the inn", "the map is wrong", "rain all day")


def _pick_roll(rng: Any) -> str:
    r = rng.random()
    if r < 0.45:
        return f"1d20>={rng.randint(8, 18)}"
    if r < 0.75:
        return f"{rng.randint(1, 6)}d6>={rng.choice((5, 5, 6))}"
    if r < 0.95:
        return rng.choice(("2d6+1", "1d8+2", "1d6", "2d4", "1d10+1"))
    return "4d6kh3"
