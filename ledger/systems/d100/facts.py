"""Warehouse rows for the d100 events (``System.facts``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.facts import ConditionFact, DeathFact, DieFace, Fact, RollFact, WoundFact, attributed
from ledger.systems.d100 import events as ev
from ledger.systems.d100.roll import is_success


def _tested(e: ev.Tested) -> list[Fact]:
    return [
        RollFact(
            purpose=e.purpose if e.purpose != "test" else e.skill,
            dice=(DieFace(100, e.face),),
            outcome=e.level,
            target=e.target,
            success=is_success(e.level),
            manual=e.manual,
            p_success=e.p_success,
        )
    ]


def _wounded(e: ev.Wounded) -> list[Fact]:
    out: list[Fact] = [WoundFact(track="hp", amount=e.amount, cause=e.cause)]
    if e.state != "ok" and not e.died:
        out.append(ConditionFact(condition=e.state, active=True))
    if e.died:
        out.append(DeathFact(cause=e.cause))
    return out


def _treated(e: ev.Treated) -> list[Fact]:
    if not e.success:
        return []
    sides = 3 if e.method == "firstaid" else 6
    return [
        RollFact(
            character=e.healer,
            purpose=f"{e.method} heal",
            dice=tuple(DieFace(sides, f) for f in e.faces),
            outcome=str(e.amount),
            manual=e.manual,
        ),
        WoundFact(character=e.patient, track="hp", amount=-e.amount, cause=e.method),
    ]


def _horrified(e: ev.Horrified) -> list[Fact]:
    out: list[Fact] = [WoundFact(track="valor", amount=e.amount, cause=e.cause)]
    if e.panic:
        out.append(ConditionFact(condition="panic", active=True))
    return out


def _therapy(e: ev.TherapyGiven) -> list[Fact]:
    if not e.success:
        return []
    return [
        RollFact(
            character=e.healer,
            purpose="therapy heal",
            dice=tuple(DieFace(6, f) for f in e.faces),
            outcome=str(e.amount),
            manual=e.manual,
        ),
        WoundFact(character=e.patient, track="valor", amount=-e.amount, cause="psychotherapy"),
    ]


def _fatigued(e: ev.Fatigued) -> list[Fact]:
    out: list[Fact] = [WoundFact(track="fatigue", amount=e.amount, cause=e.cause)]
    if e.fatigue_after == 0:
        out.append(ConditionFact(condition="exhausted", active=True))
    return out


def _rested(e: ev.Rested) -> list[Fact]:
    out: list[Fact] = []
    for r in e.recoveries:
        for track, amount in (("fatigue", r.fatigue), ("valor", r.valor), ("hp", r.hp)):
            if amount:
                out.append(WoundFact(character=r.who, track=track, amount=-amount, cause=f"rest ({r.who})"))
    return out


def _declared(e: ev.RoundDeclared) -> list[Fact]:
    return [WoundFact(track="fatigue", amount=1, cause="combat round")]


FACTS: dict[type, Callable[[Any], list[Fact]]] = {
    ev.Tested: _tested,
    ev.Wounded: _wounded,
    ev.Treated: _treated,
    ev.Horrified: _horrified,
    ev.TherapyGiven: _therapy,
    ev.Fatigued: _fatigued,
    ev.Rested: _rested,
    ev.RoundDeclared: _declared,
}


def _facts(env: Any) -> list[Fact]:
    handler = FACTS.get(type(env.event))
    return handler(env.event) if handler is not None else []


facts = attributed(_facts, "who")
"""Warehouse rows of one event, each about the character it names (``who``); a healing's
roll is the healer's and its healing the patient's, a rest's recoveries each resting
character's (the handlers name them)."""
