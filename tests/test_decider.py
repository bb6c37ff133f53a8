"""The one decider every system uses: handlers by command class, a draft that folds."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from ledger.deciding.commands import Command
from ledger.deciding.decider import PENDING, Decider, Draft
from ledger.dice.sources import RandomDice
from ledger.errors import RuleError
from ledger.log.events import Envelope, Event
from ledger.log.state import CampaignState, CoreState


class Step(Command, frozen=True, kw_only=True):
    by: int = 1


class Jump(Command, frozen=True, kw_only=True):
    pass


class Stepped(Event, frozen=True, tag="test.stepped"):
    by: int


seen: list[Envelope[Any]] = []


def evolve(game: int, event: Event, env: Envelope[Any]) -> int:
    seen.append(env)
    return game + event.by if isinstance(event, Stepped) else game


decider = Decider("counter", evolve)


@decider.on(Step)
def _step(draft: Draft[int], command: Step) -> None:
    draft.emit(Stepped(by=command.by))
    if draft.game < 3:  # the next rule sees the state the first event led to
        draft.emit(Stepped(by=command.by))


def state(game: int) -> CampaignState:
    return CampaignState(CoreState(campaign_id="c1", version=7, last_actor="Ada"), game)


def test_a_handler_sees_the_state_its_earlier_events_lead_to() -> None:
    seen.clear()
    assert decider(state(0), Step(by=2), RandomDice(random.Random(1))) == [Stepped(by=2), Stepped(by=2)]
    assert decider(state(2), Step(by=2), RandomDice(random.Random(1))) == [Stepped(by=2)]
    first = seen[0]
    assert (first.v, first.campaign, first.action, first.actor) == (8, "c1", PENDING, "Ada")


def test_a_command_the_system_does_not_take_is_refused_with_its_fix() -> None:
    with pytest.raises(RuleError) as refused:
        decider(state(0), Jump(), RandomDice(random.Random(1)))
    assert refused.value.message == "the counter system has no command Jump"
    assert refused.value.fix is not None and refused.value.fix.action == "system_commands"
    assert decider.commands == (Step,)


def test_a_command_cannot_be_registered_twice() -> None:
    with pytest.raises(ValueError, match="decides Step twice"):
        decider.on(Step)(lambda draft, command: None)


def test_the_draft_folds_nothing_it_does_not_emit() -> None:
    draft: Draft[int] = Draft(state(5), Step(), RandomDice(random.Random(1)), evolve)
    assert (draft.game, draft.events, draft.tables) == (5, [], {})
    assert msgspec.structs.asdict(Step())["by"] == 1
