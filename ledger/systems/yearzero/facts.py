"""The yearzero warehouse facts: the fact classes of its own, each event's Python function
(``ReadModel.facts``) and, beside them, the same rows as DuckDB SQL (``ReadModel.facts_sql``),
one :class:`~ledger.facts.FactQuery` per kind of fact, each naming the functions it mirrors.

A push and its cost (``pushes``) and a change of Rot (``rot``) are Year Zero's alone, so
their classes live here and the system declares them in ``ReadModel.fact_types``: the
warehouse makes their tables because the system is installed.

Every field of an event with a default is coalesced to that default in SQL, so an
event stored without it reads the same as the Python decoder sees it. Each
die is a d6 with its face, kept, not a re-roll. ``tests/test_facts_sql.py`` holds the two
forms equal on the golden logs and played campaigns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from ledger.facts import (
    DIE_SQL,
    ConditionFact,
    DayFact,
    DeathFact,
    DieFace,
    Fact,
    FactQuery,
    MealFact,
    NightFact,
    RollFact,
    WoundFact,
    attributed,
    attributed_sql,
)
from ledger.log.events import Envelope, Event
from ledger.systems.yearzero import events as ev


class PushFact(Fact, frozen=True):
    """One pushed roll and what it cost: trauma, gear damage, mutation points."""

    table: ClassVar[str] = "pushes"
    attribute: str
    trauma: int
    gear_damage: int
    mutation_points: int = 0


class RotFact(Fact, frozen=True):
    """A change of a character's Rot: gained (``change`` 1) or lost, with the totals after it."""

    table: ClassVar[str] = "rot"
    change: int
    total: int
    permanent: int
    source: str


FACT_TYPES: tuple[type[Fact], ...] = (PushFact, RotFact)
"""The system's own fact classes (``ReadModel.fact_types``)."""


def _faces(dice: ev.Pool) -> tuple[DieFace, ...]:
    return tuple(DieFace(6, x) for x in (*dice.base, *dice.skill, *dice.gear, *dice.negative))


def _d6(faces: str) -> str:
    """SQL for a list of d6 faces (INTEGER[]) as a roll's dice, in order."""
    return (
        f"CAST(list_transform(coalesce({faces}, []), lambda x: "
        f"{{'size': 6, 'face': x, 'kept': true, 'reroll_of': NULL}}) AS {DIE_SQL}[])"
    )


# A Year Zero pool: base, skill, gear then negative dice (ev.Pool, every colour defaults to ()).
_POOL = '{"base": ["INTEGER"], "skill": ["INTEGER"], "gear": ["INTEGER"], "negative": ["INTEGER"]}'


_POOL_FACES = (
    "list_concat(list_concat(coalesce(e.dice.base, []), coalesce(e.dice.skill, [])), "
    "list_concat(coalesce(e.dice.gear, []), coalesce(e.dice.negative, [])))"
)


def _rolled(e: ev.Rolled) -> list[Fact]:
    return [
        RollFact(
            purpose=e.skill or e.attribute,
            dice=_faces(e.dice),
            outcome="success" if e.success else "failure",
            successes=e.successes,
            success=e.success,
            manual=e.manual,
            p_success=e.p_success,
        )
    ]


def _pushed(e: ev.Pushed) -> list[Fact]:
    return [
        RollFact(
            purpose=f"push {e.skill or e.attribute}",
            dice=_faces(e.dice),
            outcome="success" if e.success else "failure",
            successes=e.successes,
            success=e.success,
            pushed=True,
            manual=e.manual,
            p_success=e.p_success,
        ),
        PushFact(
            attribute=e.attribute,
            trauma=e.trauma,
            gear_damage=e.gear_damage,
            mutation_points=e.mutation_points,
        ),
    ]


# _rolled and _pushed: the roll of a skill or attribute, and its single push (then a PushFact).
ROLLS_TESTS = f"""
WITH t AS (
    SELECT position, kind, json_transform(event, '{{
        "skill": "VARCHAR", "attribute": "VARCHAR", "dice": {_POOL},
        "successes": "INTEGER", "p_success": "DOUBLE", "manual": "BOOLEAN"
    }}') AS e
    FROM ev
    WHERE kind IN ('yz.rolled', 'yz.pushed')
)
SELECT
    position,
    0 AS n,
    CASE WHEN kind = 'yz.pushed' THEN 'push ' || coalesce(nullif(e.skill, ''), e.attribute)
         ELSE coalesce(nullif(e.skill, ''), e.attribute) END AS purpose,
    {_d6(_POOL_FACES)} AS dice,
    CASE WHEN coalesce(e.successes, 0) >= 1 THEN 'success' ELSE 'failure' END AS outcome,
    coalesce(e.successes, 0) AS successes,
    coalesce(e.successes, 0) >= 1 AS success,
    kind = 'yz.pushed' AS pushed,
    coalesce(e.manual, false) AS manual,
    coalesce(e.p_success, 0.0) AS p_success
FROM t
"""


# _pushed: the push's cost, after its roll.
PUSHES = """
WITH t AS (
    SELECT position, json_transform(event, '{
        "attribute": "VARCHAR", "trauma": "INTEGER", "gear_damage": "INTEGER", "mutation_points": "INTEGER"
    }') AS e
    FROM ev
    WHERE kind = 'yz.pushed'
)
SELECT
    position,
    1 AS n,
    e.attribute AS attribute,
    e.trauma AS trauma,
    coalesce(e.gear_damage, 0) AS gear_damage,
    e.mutation_points AS mutation_points
FROM t
"""


def _trauma(e: ev.Trauma) -> list[Fact]:
    return [WoundFact(track=e.attribute, amount=e.amount, cause=f"{e.trauma}: {e.cause}")]


def _recovered(e: ev.Recovered) -> list[Fact]:
    return [WoundFact(track=e.attribute, amount=-e.amount, cause=e.cause)]


def _booze(e: ev.Boozed) -> list[Fact]:
    return [
        WoundFact(track="strength", amount=-e.damage, cause="booze"),
        WoundFact(track="empathy", amount=-e.doubt, cause="booze"),
    ]


# _trauma (damage positive), _recovered (healing negative), _booze (strength then empathy healed).
WOUNDS = """
WITH t AS (
    SELECT position, kind, json_transform(event, '{
        "trauma": "VARCHAR", "attribute": "VARCHAR", "amount": "INTEGER", "cause": "VARCHAR",
        "damage": "INTEGER", "doubt": "INTEGER"
    }') AS e
    FROM ev
    WHERE kind IN ('yz.trauma', 'yz.recovered', 'yz.boozed')
)
SELECT position, 0 AS n, e.attribute AS track, e.amount AS amount, e.trauma || ': ' || e.cause AS cause
FROM t WHERE kind = 'yz.trauma'
UNION ALL
SELECT position, 0 AS n, e.attribute AS track, -e.amount AS amount, e.cause AS cause
FROM t WHERE kind = 'yz.recovered'
UNION ALL
SELECT position, 0 AS n, 'strength' AS track, -e.damage AS amount, 'booze' AS cause
FROM t WHERE kind = 'yz.boozed'
UNION ALL
SELECT position, 1 AS n, 'empathy' AS track, -e.doubt AS amount, 'booze' AS cause
FROM t WHERE kind = 'yz.boozed'
"""


def _condition(e: ev.ConditionChanged) -> list[Fact]:
    return [ConditionFact(condition=e.condition, active=e.active)]


def _cold(e: ev.Hypothermia) -> list[Fact]:
    return [ConditionFact(condition="hypothermic", active=not e.warm)]


# _condition and _cold (hypothermic while not warm again).
CONDITIONS = """
SELECT
    position,
    0 AS n,
    CASE WHEN kind = 'yz.cold' THEN 'hypothermic' ELSE event->>'condition' END AS condition,
    CASE WHEN kind = 'yz.cold' THEN NOT coalesce(CAST(event->>'warm' AS BOOLEAN), false)
         ELSE CAST(event->>'active' AS BOOLEAN) END AS active
FROM ev
WHERE kind IN ('yz.condition', 'yz.cold')
"""


def _rot(e: ev.RotGained) -> list[Fact]:
    facts: list[Fact] = []
    if e.suit_faces:
        facts.append(
            RollFact(
                purpose="rot suit",
                dice=tuple(DieFace(6, x) for x in e.suit_faces),
                outcome="absorbed" if e.absorbed else "failed",
                success=e.absorbed,
            )
        )
    if not e.absorbed:
        facts.append(
            RollFact(
                purpose="rot", dice=tuple(DieFace(6, x) for x in e.rot_faces), outcome=f"{e.damage} damage"
            )
        )
        facts.append(RotFact(change=1, total=e.total, permanent=e.permanent, source=e.source))
    return facts


# _rot: the rot suit roll (when the suit was rolled), then, unless the suit absorbed
# the point, the rot roll (n shifts by one when there was a suit roll) and the RotFact.
ROT_TRANSFORM = """
    SELECT position, json_transform(event, '{
        "suit_faces": ["INTEGER"], "absorbed": "BOOLEAN", "rot_faces": ["INTEGER"],
        "damage": "INTEGER", "total": "INTEGER", "permanent": "INTEGER", "source": "VARCHAR"
    }') AS e
    FROM ev
    WHERE kind = 'yz.rot'
"""


ROLLS_ROT = f"""
WITH t AS ({ROT_TRANSFORM}),
r AS (
    SELECT
        position,
        coalesce(e.suit_faces, []) AS suit_faces,
        coalesce(e.absorbed, false) AS absorbed,
        e.rot_faces AS rot_faces,
        coalesce(e.damage, 0) AS damage
    FROM t
)
SELECT position, 0 AS n, 'rot suit' AS purpose, {_d6("suit_faces")} AS dice,
    CASE WHEN absorbed THEN 'absorbed' ELSE 'failed' END AS outcome, absorbed AS success
FROM r
WHERE len(suit_faces) > 0
UNION ALL
SELECT position, CASE WHEN len(suit_faces) > 0 THEN 1 ELSE 0 END AS n, 'rot' AS purpose,
    {_d6("rot_faces")} AS dice, damage || ' damage' AS outcome, NULL::BOOLEAN AS success
FROM r
WHERE NOT absorbed
"""


# _rot: a Rot point not absorbed by the suit (after its roll or rolls).
ROT_GAINED = f"""
WITH t AS ({ROT_TRANSFORM})
SELECT
    position,
    CASE WHEN len(coalesce(e.suit_faces, [])) > 0 THEN 2 ELSE 1 END AS n,
    1 AS change,
    coalesce(e.total, 0) AS total,
    coalesce(e.permanent, 0) AS permanent,
    e.source AS source
FROM t
WHERE NOT coalesce(e.absorbed, false)
"""


def _rot_lost(e: ev.RotLost) -> list[Fact]:
    return [RotFact(change=-e.lost, total=e.total, permanent=e.permanent, source=e.cause)]


# _rot_lost: Rot points washed off.
ROT_LOST = """
WITH t AS (
    SELECT position, json_transform(event, '{
        "lost": "INTEGER", "total": "INTEGER", "permanent": "INTEGER", "cause": "VARCHAR"
    }') AS e
    FROM ev
    WHERE kind = 'yz.rot_lost'
)
SELECT position, 0 AS n, -e.lost AS change, e.total AS total, e.permanent AS permanent, e.cause AS source
FROM t
"""


def _died(e: ev.Died) -> list[Fact]:
    return [DeathFact(cause=e.cause)]


# _died.
DEATHS = """
SELECT position, 0 AS n, event->>'cause' AS cause
FROM ev
WHERE kind = 'yz.died'
"""


def _consumed(e: ev.Consumed) -> list[Fact]:
    return [MealFact(food=e.resource, contaminated=e.contaminated)]


# _consumed: a ration of grub or water.
MEALS = """
SELECT
    position,
    0 AS n,
    event->>'resource' AS food,
    coalesce(CAST(event->>'contaminated' AS BOOLEAN), false) AS contaminated
FROM ev
WHERE kind = 'yz.consumed'
"""


def _rested(e: ev.Rested) -> list[Fact]:
    return [NightFact(kind="sleep" if e.sleep else "rest", hours=e.hours)]


# _rested: a sleep or a rest of the party.
NIGHTS = """
SELECT
    position,
    0 AS n,
    CASE WHEN CAST(event->>'sleep' AS BOOLEAN) THEN 'sleep' ELSE 'rest' END AS kind,
    CAST(event->>'hours' AS INTEGER) AS hours
FROM ev
WHERE ev.kind = 'yz.rested'
"""


def _day(e: ev.DayEnded) -> list[Fact]:
    return [DayFact(day=e.day)]


# _day: the day the event ends (its own field, not the envelope's day).
DAYS = """
SELECT position, 0 AS n, CAST(event->>'day' AS INTEGER) AS day
FROM ev
WHERE kind = 'yz.day_ended'
"""


def _critical(e: ev.CriticalInjury) -> list[Fact]:
    return [RollFact(purpose="critical injury", dice=tuple(DieFace(6, x) for x in e.faces), outcome=e.name)]


def _initiative(e: ev.Initiative) -> list[Fact]:
    return [RollFact(purpose="initiative", dice=(DieFace(6, e.face),), outcome=str(e.total))]


def _armor(e: ev.ArmorRolled) -> list[Fact]:
    return [
        RollFact(
            purpose=e.slot,
            dice=tuple(DieFace(6, x) for x in e.faces),
            outcome=f"stops {e.stopped}",
            successes=e.stopped,
        )
    ]


# _critical, _initiative, _armor: single-purpose rolls.
ROLLS_OTHER = f"""
WITH t AS (
    SELECT position, kind, json_transform(event, '{{
        "faces": ["INTEGER"], "name": "VARCHAR", "face": "INTEGER", "total": "INTEGER",
        "slot": "VARCHAR", "stopped": "INTEGER"
    }}') AS e
    FROM ev
    WHERE kind IN ('yz.critical', 'yz.initiative', 'yz.armor_rolled')
)
SELECT
    position,
    0 AS n,
    CASE kind WHEN 'yz.critical' THEN 'critical injury'
              WHEN 'yz.initiative' THEN 'initiative'
              ELSE e.slot END AS purpose,
    {_d6("CASE WHEN kind = 'yz.initiative' THEN [e.face] ELSE e.faces END")} AS dice,
    CASE kind WHEN 'yz.critical' THEN e.name
              WHEN 'yz.initiative' THEN CAST(coalesce(e.total, 0) AS VARCHAR)
              ELSE 'stops ' || e.stopped END AS outcome,
    CASE WHEN kind = 'yz.armor_rolled' THEN e.stopped END AS successes
FROM t
"""


FACTS: dict[type[Event], Callable[[Any], list[Fact]]] = {
    ev.Rolled: _rolled,
    ev.Pushed: _pushed,
    ev.Trauma: _trauma,
    ev.Recovered: _recovered,
    ev.Boozed: _booze,
    ev.ConditionChanged: _condition,
    ev.Hypothermia: _cold,
    ev.RotGained: _rot,
    ev.RotLost: _rot_lost,
    ev.Died: _died,
    ev.Consumed: _consumed,
    ev.Rested: _rested,
    ev.DayEnded: _day,
    ev.CriticalInjury: _critical,
    ev.Initiative: _initiative,
    ev.ArmorRolled: _armor,
}


def _facts(envelope: Envelope[Any]) -> list[Fact]:
    """Warehouse rows for one yearzero event (none for the others)."""
    make = FACTS.get(type(envelope.event))
    return make(envelope.event) if make is not None else []


facts = attributed(_facts, "character")
"""``ReadModel.facts``: every row about the character its event names."""


_QUERIES: list[FactQuery] = [
    FactQuery(RollFact, ("yz.rolled", "yz.pushed"), ROLLS_TESTS),
    FactQuery(RollFact, ("yz.rot",), ROLLS_ROT),
    FactQuery(RollFact, ("yz.critical", "yz.initiative", "yz.armor_rolled"), ROLLS_OTHER),
    FactQuery(PushFact, ("yz.pushed",), PUSHES),
    FactQuery(RotFact, ("yz.rot",), ROT_GAINED),
    FactQuery(RotFact, ("yz.rot_lost",), ROT_LOST),
    FactQuery(WoundFact, ("yz.trauma", "yz.recovered", "yz.boozed"), WOUNDS),
    FactQuery(ConditionFact, ("yz.condition", "yz.cold"), CONDITIONS),
    FactQuery(DeathFact, ("yz.died",), DEATHS),
    FactQuery(MealFact, ("yz.consumed",), MEALS),
    FactQuery(NightFact, ("yz.rested",), NIGHTS),
    FactQuery(DayFact, ("yz.day_ended",), DAYS),
]


# Every event names the character it concerns: its facts are that character's.
FACTS_SQL: list[FactQuery] = [attributed_sql(q, "ev.event->>'character'") for q in _QUERIES]
