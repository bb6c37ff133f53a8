"""Each recorded action's events are folded once: the rules' draft folds each event under
the envelope it is recorded with, and recording keeps the game states the draft folded.

The golden logs prove it the same: every decided action in them, decided again under its
stored envelope's fields, folds to the states its stored events replay to.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import msgspec
import pytest

from ledger import Ledger
from ledger.deciding.action import actor_in, decide_folded, recorded_rules
from ledger.deciding.decider import PENDING, Decider, Draft, Stamp
from ledger.dice.sources import Dice, RandomDice, seeded
from ledger.log.events import RESETS, BranchForked, CampaignStarted, CharacterAdded, envelope_decoder
from ledger.systems import System, get_system, system_names
from ledger.systems.yearzero import commands as yz
from ledger.trust.admission import Replayed, command_class
from tests.test_decider import Step, Stepped, _step, decider, evolve, seen, state

ANA = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3", "skill.shoot": "2", "gear.rifle": "2"}
SAMPLES = Path(__file__).parents[1] / "samples"
LOGS = sorted(SAMPLES.glob("*/campaign*.jsonl"))


def test_a_stamped_draft_folds_each_event_under_its_recorded_envelope() -> None:
    seen.clear()
    stamp = Stamp(campaign="c1", action="a1", at="2026-12-01T00:00:00.000Z", head=7, actor="Bo", last_reset=3)
    got = decider.decide(state(0), Step(by=2), RandomDice(random.Random(1)), stamp)
    assert got.events == [Stepped(by=2), Stepped(by=2)] and got.games == [2, 4]
    assert [(e.v, e.campaign, e.action, e.at, e.actor, e.last_reset, e.day) for e in seen] == [
        (8, "c1", "a1", "2026-12-01T00:00:00.000Z", "Bo", 3, None),
        (9, "c1", "a1", "2026-12-01T00:00:00.000Z", "Bo", 3, None),
    ]


def test_an_unstamped_draft_folds_under_the_provisional_envelope() -> None:
    seen.clear()
    draft: Draft[int] = Draft(state(0), Step(), RandomDice(random.Random(1)), evolve)
    draft.emit(Stepped(by=1))
    assert (seen[0].action, seen[0].at, draft.games) == (PENDING, "", [1])


def test_events_rewritten_after_the_handler_are_folded_again() -> None:
    rewriting = Decider("counter", evolve, after=lambda d, events: [Stepped(by=e.by * 10) for e in events])
    rewriting.on(Step)(_step)
    got = rewriting.decide(state(5), Step(by=1), RandomDice(random.Random(1)))
    assert got.events == [Stepped(by=10)] and got.games is None


def _folds(system: str) -> list[int]:
    """Count the calls of ``system``'s game fold while the returned list is watched."""
    code = get_system(system).rules.evolve.__code__
    calls: list[int] = [0]

    def watch(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            calls[0] += 1

    sys.setprofile(watch)
    return calls


def test_recording_a_roll_folds_its_event_once(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("yearzero", "zone")
        book.add_character("Ana", "zone", ANA)
        book.state("zone")
        calls = _folds("yearzero")
        try:
            recorded = book.execute(yz.Roll(what="shoot", item="rifle"), "zone", faces=[6, 1, 3, 1, 4, 1, 2])
        finally:
            sys.setprofile(None)
        assert len(recorded.events) == 1
        assert calls == [1]
        assert recorded.state == book.state("zone")


def _dice(how: Any, seed: int | None, v: int) -> Dice:
    if not how.manual and seed is not None:
        return seeded(seed, v - 1)
    return Replayed(how.faces, how.manual, how.sides)


def _deciding(system: System, rules: str) -> tuple[System, int]:
    core, version = recorded_rules(rules, system)
    if version == system.rules.rules_version:
        return system, core
    older = msgspec.structs.replace(system.rules, decide=system.rules.older_rules[version])
    return msgspec.structs.replace(system, rules=older), core


@pytest.mark.parametrize("path", LOGS, ids=[f"{p.parent.name}/{p.name}" for p in LOGS])
def test_every_golden_action_folds_once_to_the_states_its_events_replay_to(
    path: Path, tmp_path: Path
) -> None:
    if path.parent.name not in system_names():
        pytest.skip(f"system {path.parent.name} is not installed")
    lines = path.read_bytes().splitlines()
    header = json.loads(lines[0])
    system = get_system(header["system"])
    decode = envelope_decoder(system.name)
    envs = [decode.decode(line) for line in lines[1:]]
    actions: dict[str, list[Any]] = {}
    for env in envs:
        actions.setdefault(env.action, []).append(env)
    checked = systems = 0
    with Ledger(str(tmp_path / "golden.ledger")) as book, path.open("rb") as data:
        c = book.import_(data)
        for group in actions.values():
            first = group[0]
            how = first.decision
            if how is None or isinstance(first.event, (*RESETS, CampaignStarted, BranchForked)):
                continue
            before = book.state(c, at=first.v - 1)
            deciding, core_rules = _deciding(system, how.rules)
            kind = command_class(how.command, system)
            assert kind is not None
            command = msgspec.convert(how.args, kind)
            who = command.introduces() or actor_in(before, command.actor)
            stamp = Stamp(
                campaign=first.campaign,
                action=first.action,
                at=first.at,
                head=first.v - 1,
                actor=who,
                last_reset=first.last_reset,
            )
            dice = _dice(how, before.core.seed, first.v)
            decided = decide_folded(deciding, before, command, dice, core_rules, stamp=stamp)
            assert decided.events == [e.event for e in group]
            systems += how.command.startswith(f"{system.name}.")
            if decided.games is None:
                continue
            for env, game in zip(group, decided.games, strict=True):
                assert env.actor == (env.event.name if isinstance(env.event, CharacterAdded) else who)
                assert game == book.state(c, at=env.v).game, (path.name, env.v)
                checked += 1
    assert (checked > 0) == (systems > 0)  # every command of the system's own was folded by its draft
