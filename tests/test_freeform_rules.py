"""freeform takes the commands every campaign takes and none of its own."""

from __future__ import annotations

import random

import pytest

from ledger.dice.sources import RandomDice
from ledger.errors import RuleError
from ledger.log.events import CampaignStarted, Envelope
from ledger.log.state import CampaignState, evolve
from ledger.systems.dicepool.commands import Heal
from ledger.systems.freeform.system import ADVICE, SYSTEM


def test_a_command_of_another_system_is_refused_with_the_core_commands_as_the_fix() -> None:
    start = CampaignStarted(name="any", system="freeform")
    state = evolve(
        CampaignState(), Envelope(v=1, campaign="c1", action="a1", at="", prev="", event=start), SYSTEM
    )
    with pytest.raises(RuleError) as refused:
        SYSTEM.rules.decide(state, Heal(boxes=1), RandomDice(random.Random(1)))
    assert refused.value.message == "the freeform system has no command Heal"
    assert refused.value.fix == ADVICE
    assert "`" not in str(refused.value)
    assert SYSTEM.rules.commands == ()
