"""The given/when of the rules tests: a campaign state folded from events as the ledger
folds them, and the events a system decides on exactly the physical faces given."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ledger.dice.sources import Faces
from ledger.log.events import CampaignStarted, Envelope, Event
from ledger.log.state import CampaignState, evolve
from ledger.systems import System


def no_actor(_event: Event) -> str | None:
    return None


def folded(
    system: System,
    started: CampaignStarted,
    events: Iterable[Event],
    actor: Callable[[Event], str | None] = no_actor,
    at: str = "",
) -> CampaignState:
    """The state ``started`` and then ``events`` lead to, each event its own action (recorded
    under ``actor(event)``), folded by the core fold and the system's."""
    state = CampaignState()
    for v, event in enumerate((started, *events), start=1):
        env: Envelope[Any] = Envelope(
            v=v, campaign="c1", action=f"a{v}", at=at, actor=actor(event), prev="", event=event
        )
        state = evolve(state, env, system)
    return state


def decided(system: System, state: CampaignState, command: Any, faces: Iterable[int] = ()) -> list[Event]:
    """The events ``command`` decides on the physical dice ``faces``, every one of them used."""
    dice = Faces(list(faces))
    events = system.rules.decide(state, command, dice)
    assert dice.used == len(dice.faces), f"{len(dice.faces) - dice.used} faces left over"
    return events
