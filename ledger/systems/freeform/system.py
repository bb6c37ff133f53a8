"""``freeform``: any game. Generic rolls, characters and journal notes only."""

from __future__ import annotations

from typing import Any

from ledger.dice import Dice
from ledger.errors import RuleError
from ledger.events import Event
from ledger.projections.freeform import state as proj
from ledger.systems import System
from ledger.systems.freeform.demo import demo
from ledger.systems.freeform.play import simulate


def decide(state: Any, command: Any, dice: Dice) -> list[Event]:
    raise RuleError(
        f"the freeform system has no command {type(command).__name__}; "
        "use `ledger roll`, `ledger note` or `ledger character add`"
    )


SYSTEM = System(
    name="freeform",
    description="any game: generic dice rolls, characters and notes",
    initial=proj.initial,
    evolve=proj.evolve,
    events=(),
    decide=decide,
    sheet=proj.sheet,
    simulate=simulate,
    demo=demo,
    first_steps=(),  # roll, note or add characters as you like
)
