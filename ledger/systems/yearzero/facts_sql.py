"""``yearzero`` warehouse facts as DuckDB SQL: the same rows as
:func:`ledger.systems.yearzero.system.facts`, one :class:`~ledger.facts.FactQuery` per
kind of fact (see the contract in :mod:`ledger.facts`).

Every field of an event with a default is coalesced to that default, so an
event stored without it reads the same as the Python decoder sees it. Each
die is a d6 with its face, kept, not a re-roll.
"""

from __future__ import annotations

from ledger.facts import DIE_SQL, FactQuery, attributed_sql
from ledger.systems.yearzero import facts as f


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

# _died.
DEATHS = """
SELECT position, 0 AS n, event->>'cause' AS cause
FROM ev
WHERE kind = 'yz.died'
"""

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

# _day: the day the event ends (its own field, not the envelope's day).
DAYS = """
SELECT position, 0 AS n, CAST(event->>'day' AS INTEGER) AS day
FROM ev
WHERE kind = 'yz.day_ended'
"""

_QUERIES: list[FactQuery] = [
    FactQuery(f.RollFact, ("yz.rolled", "yz.pushed"), ROLLS_TESTS),
    FactQuery(f.RollFact, ("yz.rot",), ROLLS_ROT),
    FactQuery(f.RollFact, ("yz.critical", "yz.initiative", "yz.armor_rolled"), ROLLS_OTHER),
    FactQuery(f.PushFact, ("yz.pushed",), PUSHES),
    FactQuery(f.RotFact, ("yz.rot",), ROT_GAINED),
    FactQuery(f.RotFact, ("yz.rot_lost",), ROT_LOST),
    FactQuery(f.WoundFact, ("yz.trauma", "yz.recovered", "yz.boozed"), WOUNDS),
    FactQuery(f.ConditionFact, ("yz.condition", "yz.cold"), CONDITIONS),
    FactQuery(f.DeathFact, ("yz.died",), DEATHS),
    FactQuery(f.MealFact, ("yz.consumed",), MEALS),
    FactQuery(f.NightFact, ("yz.rested",), NIGHTS),
    FactQuery(f.DayFact, ("yz.day_ended",), DAYS),
]

# Every event names the character it concerns: its facts are that character's.
FACTS_SQL: list[FactQuery] = [attributed_sql(q, "ev.event->>'character'") for q in _QUERIES]
