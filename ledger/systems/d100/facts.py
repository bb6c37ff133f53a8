"""The d100 warehouse facts: each event's Python handler (``ReadModel.facts``) and, after
them, the same rows as DuckDB SQL, one statement per fact table (``ReadModel.facts_sql``).

Each statement's branches name the handler they mirror and must give exactly the same
rows (``tests/test_facts_sql.py`` holds them equal on the golden logs, played campaigns
and every branch recorded by hand). The columns ``n`` reproduce the index of the fact in
the list the Python function returns for the event. Every field with a default in the
event Struct is coalesced to that default, in case the stored JSON leaves it out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.facts import (
    DIE_SQL,
    ConditionFact,
    DeathFact,
    DieFace,
    Fact,
    FactQuery,
    RollFact,
    WoundFact,
    attributed,
    attributed_sql,
)
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


# --- the same facts in SQL ------------------------------------------------------------

DICE = f"{DIE_SQL}[]"

# --- rolls --------------------------------------------------------------------------

ROLLS_SQL = f"""
-- _tested: the d100 test itself (n = 0)
SELECT
    position,
    0 AS n,
    CASE WHEN coalesce(e.purpose, 'test') <> 'test' THEN e.purpose ELSE e.skill END AS purpose,
    [{{'size': 100, 'face': e.face, 'kept': NULL, 'reroll_of': NULL}}]::{DICE} AS dice,
    e.level AS outcome,
    e.target AS target,
    e.level IN ('success', 'special', 'critical') AS success,
    coalesce(e.manual, false) AS manual,
    e.p_success AS p_success
FROM (
    SELECT position, json_transform(event, '{{
        "skill": "VARCHAR", "target": "INTEGER", "face": "INTEGER", "level": "VARCHAR",
        "p_success": "DOUBLE", "purpose": "VARCHAR", "manual": "BOOLEAN"}}') AS e
    FROM ev
    WHERE kind = 'd100.tested'
)

UNION ALL

-- _treated / _therapy: the healing dice of a successful first aid (d3), medicine (d6)
-- or psychotherapy (d6), n = 0
SELECT
    position,
    0 AS n,
    heal || ' heal' AS purpose,
    list_transform(
        coalesce(e.faces, []),
        lambda f: {{'size': sides, 'face': f, 'kept': NULL, 'reroll_of': NULL}}
    )::{DICE} AS dice,
    CAST(coalesce(e.amount, 0) AS VARCHAR) AS outcome,
    NULL::INTEGER AS target,
    NULL::BOOLEAN AS success,
    coalesce(e.manual, false) AS manual,
    NULL::DOUBLE AS p_success
FROM (
    SELECT
        position,
        e,
        CASE WHEN kind = 'd100.therapy' THEN 'therapy' ELSE e.method END AS heal,
        CASE WHEN kind = 'd100.treated' AND e.method = 'firstaid' THEN 3 ELSE 6 END AS sides
    FROM (
        SELECT position, kind, json_transform(event, '{{
            "method": "VARCHAR", "success": "BOOLEAN", "faces": ["INTEGER"],
            "amount": "INTEGER", "manual": "BOOLEAN"}}') AS e
        FROM ev
        WHERE kind IN ('d100.treated', 'd100.therapy')
    )
)
WHERE e.success
"""

# --- wounds (damage positive, healing negative) --------------------------------------

WOUNDS_SQL = """
WITH w AS (
    SELECT position, kind, json_transform(event, '{
        "amount": "INTEGER", "cause": "VARCHAR", "method": "VARCHAR", "success": "BOOLEAN",
        "who": "VARCHAR", "patient": "VARCHAR"}') AS e
    FROM ev
    WHERE kind IN ('d100.wounded', 'd100.horrified', 'd100.fatigued',
                   'd100.treated', 'd100.therapy', 'd100.round_declared')
)
-- _wounded, _horrified, _fatigued: the loss itself comes first (n = 0)
SELECT
    position,
    0 AS n,
    CASE kind WHEN 'd100.wounded' THEN 'hp' WHEN 'd100.horrified' THEN 'valor' ELSE 'fatigue' END AS track,
    e.amount AS amount,
    e.cause AS cause,
    e.who AS character
FROM w
WHERE kind IN ('d100.wounded', 'd100.horrified', 'd100.fatigued')

UNION ALL

-- _declared: every declared combat round costs one fatigue point (n = 0)
SELECT position, 0 AS n, 'fatigue' AS track, 1 AS amount, 'combat round' AS cause, e.who AS character
FROM w
WHERE kind = 'd100.round_declared'

UNION ALL

-- _treated / _therapy: the healing after its roll (n = 1), only when successful
SELECT
    position,
    1 AS n,
    CASE kind WHEN 'd100.treated' THEN 'hp' ELSE 'valor' END AS track,
    -coalesce(e.amount, 0) AS amount,
    CASE kind WHEN 'd100.treated' THEN e.method ELSE 'psychotherapy' END AS cause,
    e.patient AS character
FROM w
WHERE kind IN ('d100.treated', 'd100.therapy') AND e.success

UNION ALL

-- _rested: per recovery, in order, fatigue then valor then hp, each only when not 0;
-- n counts the kept ones across the whole event
SELECT position, r.n, r.track, -r.amount AS amount, 'rest (' || r.who || ')' AS cause, r.who AS character
FROM (
    SELECT
        position,
        unnest(list_transform(
            list_filter(
                flatten(list_transform(
                    coalesce(json_transform(event -> 'recoveries',
                        '[{"who": "VARCHAR", "fatigue": "INTEGER", "valor": "INTEGER", "hp": "INTEGER"}]'),
                        []),
                    lambda rec: [
                        {'who': rec.who, 'track': 'fatigue', 'amount': coalesce(rec.fatigue, 0)},
                        {'who': rec.who, 'track': 'valor', 'amount': coalesce(rec.valor, 0)},
                        {'who': rec.who, 'track': 'hp', 'amount': coalesce(rec.hp, 0)}
                    ]
                )),
                lambda g: g.amount <> 0
            ),
            lambda g, i: {'n': i - 1, 'who': g.who, 'track': g.track, 'amount': g.amount}
        )) AS r
    FROM ev
    WHERE kind = 'd100.rested'
)
"""

# --- conditions -------------------------------------------------------------------------

CONDITIONS_SQL = """
-- _wounded: the new state (unconscious, dying...) unless ok or dead;
-- _horrified: panic; _fatigued: exhausted at 0 fatigue. Always after the loss (n = 1)
SELECT
    position,
    1 AS n,
    CASE kind
        WHEN 'd100.wounded' THEN e.state
        WHEN 'd100.horrified' THEN 'panic'
        ELSE 'exhausted'
    END AS condition,
    true AS active
FROM (
    SELECT position, kind, json_transform(event, '{
        "state": "VARCHAR", "died": "BOOLEAN", "panic": "BOOLEAN", "fatigue_after": "INTEGER"}') AS e
    FROM ev
    WHERE kind IN ('d100.wounded', 'd100.horrified', 'd100.fatigued')
)
WHERE CASE kind
    WHEN 'd100.wounded' THEN e.state <> 'ok' AND NOT coalesce(e.died, false)
    WHEN 'd100.horrified' THEN e.panic
    ELSE e.fatigue_after = 0
END
"""

# --- deaths -------------------------------------------------------------------------------

DEATHS_SQL = """
-- _wounded: a wound that kills, after the wound itself (n = 1)
SELECT position, 1 AS n, event ->> 'cause' AS cause
FROM ev
WHERE kind = 'd100.wounded' AND coalesce(CAST(event -> 'died' AS BOOLEAN), false)
"""

# Whom each row is about: the tester, the healer who rolls, the character wounded,
# horrified or tired (by a combat round too), the patient healed, each resting character
# (as the Python facts).
WHO = "ev.event->>'who'"

FACTS_SQL: list[FactQuery] = [
    attributed_sql(
        FactQuery(fact=RollFact, kinds=("d100.tested", "d100.treated", "d100.therapy"), sql=ROLLS_SQL),
        f"coalesce({WHO}, ev.event->>'healer')",
    ),
    FactQuery(
        fact=WoundFact,
        kinds=(
            "d100.wounded",
            "d100.horrified",
            "d100.fatigued",
            "d100.round_declared",
            "d100.treated",
            "d100.therapy",
            "d100.rested",
        ),
        sql=WOUNDS_SQL,
    ),
    attributed_sql(
        FactQuery(
            fact=ConditionFact, kinds=("d100.wounded", "d100.horrified", "d100.fatigued"), sql=CONDITIONS_SQL
        ),
        WHO,
    ),
    attributed_sql(FactQuery(fact=DeathFact, kinds=("d100.wounded",), sql=DEATHS_SQL), WHO),
]
