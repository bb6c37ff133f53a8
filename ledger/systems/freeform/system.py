"""``freeform``: any game. Generic rolls, characters and journal notes only."""

from __future__ import annotations

from typing import Any, NoReturn

from ledger.deciding.decider import Decider
from ledger.errors import Other, RuleError
from ledger.i18n import N_, _
from ledger.projections.freeform import state as proj
from ledger.systems import Play, ReadModel, Rules, System
from ledger.systems.freeform.play import simulate


def advice() -> Other:
    """What a freeform campaign takes instead: the commands every campaign takes (in the
    language of the moment; :data:`ADVICE` is it in English)."""
    return Other(text=_("roll dice, write a note or add a character: a freeform campaign takes only those"))


ADVICE = Other(text="roll dice, write a note or add a character: a freeform campaign takes only those")
"""What a freeform campaign takes instead, in English."""


class CoreOnly(Decider):
    """A decider with no command of its own: every command it is given is refused, with
    the commands every campaign takes as the fix."""

    def refuse(self, command: Any) -> NoReturn:
        raise RuleError(
            _(
                "the {system} system has no command {command}",
                system=self.system,
                command=type(command).__name__,
            ),
            fix=advice(),
        )


decider = CoreOnly("freeform", proj.evolve)

SYSTEM = System(
    name="freeform",
    description=N_("any game: generic dice rolls, characters and notes"),
    rules=Rules(
        initial=proj.initial,
        evolve=proj.evolve,
        events=(),
        decide=decider,
        commands=decider.commands,
    ),
    read=ReadModel(
        sheet=proj.sheet,
        sheet_layout=proj.SHEET,
    ),
    play=Play(
        simulate=simulate,
    ),
)
