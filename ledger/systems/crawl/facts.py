"""The crawl's warehouse facts, each event kind's Python function beside its DuckDB statement.

:func:`facts` is ``ReadModel.facts`` and :data:`FACTS_SQL` is ``ReadModel.facts_sql``;
``tests/test_facts_sql.py`` holds the two equal on the golden logs and played campaigns, and
``tests/test_crawl_facts_sql.py`` on the days hunger kills. A hunger wound is
the ``loss`` of ``crawl.starved``: the Health actually lost (docs/rulings/crawl.md, 6).
The crawl rolls d6s only, so every die is ``{size: 6, face: f}``. A roll's ``manual`` is
absent (false) in events recorded before physical dice were marked. An enemy's attack is the
enemy's roll (ruling 20), and its wound the Health the blow took (``lost``; older events:
``damage``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.facts import (
    DayFact,
    DeathFact,
    DieFace,
    Fact,
    FactQuery,
    MealFact,
    NightFact,
    RollFact,
    WoundFact,
)
from ledger.log.events import Envelope
from ledger.systems.crawl import events as ev

D6 = "list_transform(CAST(event->'dice' AS INTEGER[]), lambda f: {'size': 6, 'face': f, 'kept': NULL::BOOLEAN, 'reroll_of': NULL::INTEGER})"
MANUAL = "coalesce((event->>'manual')::BOOLEAN, false) AS manual"
ONE_D6 = "[{'size': 6, 'face': (event->>'face')::INTEGER, 'kept': NULL::BOOLEAN, 'reroll_of': NULL::INTEGER}]"


def _dice(faces: tuple[int, ...]) -> tuple[DieFace, ...]:
    return tuple(DieFace(6, f) for f in faces)


def _fact_table(e: ev.TableRolled) -> list[Fact]:
    return [RollFact(purpose=e.table, dice=_dice(e.dice), outcome=e.text, manual=e.manual)]


# A table roll (ruins, rewards, quests, chapters...): its purpose is the table's name.
TABLE_SQL = FactQuery(
    RollFact,
    ("crawl.table_rolled",),
    f"""SELECT position, 0 AS n, event->>'table' AS purpose, {D6} AS dice,
                   event->>'text' AS outcome, {MANUAL}
            FROM ev WHERE kind = 'crawl.table_rolled'""",
)


def _fact_terrain(e: ev.TerrainRolled) -> list[Fact]:
    return [RollFact(purpose="terrain", dice=_dice(e.dice), outcome=e.terrain, manual=e.manual)]


TERRAIN_SQL = FactQuery(
    RollFact,
    ("crawl.terrain_rolled",),
    f"""SELECT position, 0 AS n, 'terrain' AS purpose, {D6} AS dice,
                   event->>'terrain' AS outcome, {MANUAL}
            FROM ev WHERE kind = 'crawl.terrain_rolled'""",
)


def _fact_enemy(e: ev.EnemyStruck) -> list[Fact]:
    if e.stunned or e.face is None:
        return []
    hit = e.damage > 0
    # The enemy's roll is the enemy's luck (docs/rulings/crawl.md, 20): its success is the
    # hit, it names the foe, and it counts in no character's luck index.
    return [
        RollFact(
            character=e.foe,
            purpose="enemy attack",
            dice=_dice((e.face,)),
            outcome="hit" if hit else "miss",
            target=e.defense,
            success=hit,
            manual=e.manual,
            p_success=e.p_success,
            opponent=True,
        ),
        WoundFact(track="health", amount=e.damage if e.lost is None else e.lost, cause=e.foe),
    ]


# The enemy's attack is the enemy's roll: its success is the hit, and it names the foe.
ENEMY_ROLL_SQL = FactQuery(
    RollFact,
    ("crawl.enemy_struck",),
    f"""SELECT position, 0 AS n, event->>'foe' AS character, 'enemy attack' AS purpose,
                   {ONE_D6} AS dice,
                   CASE WHEN (event->>'damage')::INTEGER > 0 THEN 'hit' ELSE 'miss' END AS outcome,
                   (event->>'defense')::INTEGER AS target,
                   (event->>'damage')::INTEGER > 0 AS success, {MANUAL},
                   (event->>'p_success')::DOUBLE AS p_success, true AS opponent
            FROM ev
            WHERE kind = 'crawl.enemy_struck' AND NOT coalesce((event->>'stunned')::BOOLEAN, false)
              AND (event->>'face') IS NOT NULL""",
)

ENEMY_WOUND_SQL = FactQuery(
    WoundFact,
    ("crawl.enemy_struck",),
    """SELECT position, 1 AS n, 'health' AS track,
                  coalesce((event->>'lost')::INTEGER, (event->>'damage')::INTEGER) AS amount,
                  event->>'foe' AS cause
           FROM ev
           WHERE kind = 'crawl.enemy_struck' AND NOT coalesce((event->>'stunned')::BOOLEAN, false)
             AND (event->>'face') IS NOT NULL""",
)


def _fact_technique(e: ev.TechniqueRolled) -> list[Fact]:
    if not e.dice:
        return []
    return [
        RollFact(
            purpose=f"technique {e.number}",
            dice=_dice(e.dice),
            outcome="success" if e.success else "failure",
            target=e.needed,
            success=e.success,
            manual=e.manual,
            p_success=e.p_success,
        )
    ]


TECHNIQUE_SQL = FactQuery(
    RollFact,
    ("crawl.technique_rolled",),
    f"""SELECT position, 0 AS n, 'technique ' || (event->>'number') AS purpose, {D6} AS dice,
                   CASE WHEN (event->>'success')::BOOLEAN THEN 'success' ELSE 'failure' END AS outcome,
                   (event->>'needed')::INTEGER AS target,
                   (event->>'success')::BOOLEAN AS success, {MANUAL},
                   (event->>'p_success')::DOUBLE AS p_success
            FROM ev WHERE kind = 'crawl.technique_rolled' AND json_array_length(event->'dice') > 0""",
)


def _fact_escape(e: ev.EscapeRolled) -> list[Fact]:
    return [
        RollFact(
            purpose="escape",
            dice=_dice((e.face,)),
            outcome="success" if e.success else "failure",
            target=e.esc,
            success=e.success,
            manual=e.manual,
            p_success=e.p_success,
        )
    ]


ESCAPE_SQL = FactQuery(
    RollFact,
    ("crawl.escape_rolled",),
    f"""SELECT position, 0 AS n, 'escape' AS purpose, {ONE_D6} AS dice,
                   CASE WHEN (event->>'success')::BOOLEAN THEN 'success' ELSE 'failure' END AS outcome,
                   (event->>'esc')::INTEGER AS target,
                   (event->>'success')::BOOLEAN AS success, {MANUAL},
                   (event->>'p_success')::DOUBLE AS p_success
            FROM ev WHERE kind = 'crawl.escape_rolled'""",
)


def _fact_changed(e: ev.Changed) -> list[Fact]:
    out: list[Fact] = []
    for track, amount in (("health", e.health), ("energy", e.energy)):
        if amount:
            out.append(WoundFact(track=track, amount=-amount, cause=e.cause))
    return out


# A change of Health or Energy: damage is positive, healing negative; Health first.
CHANGED_SQL = FactQuery(
    WoundFact,
    ("crawl.changed",),
    """WITH c AS (
               SELECT position, event->>'cause' AS cause,
                      coalesce((event->>'health')::INTEGER, 0) AS health,
                      coalesce((event->>'energy')::INTEGER, 0) AS energy
               FROM ev WHERE kind = 'crawl.changed')
           SELECT position, 0 AS n, 'health' AS track, -health AS amount, cause FROM c WHERE health <> 0
           UNION ALL
           SELECT position, CASE WHEN health <> 0 THEN 1 ELSE 0 END AS n, 'energy' AS track,
                  -energy AS amount, cause
           FROM c WHERE energy <> 0""",
)


def _healed(cause: str, health: int) -> list[Fact]:
    return [WoundFact(track="health", amount=-health, cause=cause)] if health else []


# Health regained by a meal or a night, after the meal or night itself.
HEALED_SQL = FactQuery(
    WoundFact,
    ("crawl.ate", "crawl.slept"),
    """SELECT position, 1 AS n, 'health' AS track, -(event->>'health_gain')::INTEGER AS amount,
                  CASE kind WHEN 'crawl.ate' THEN event->>'food'
                            ELSE 'night (' || (event->>'where') || ')' END AS cause
           FROM ev
           WHERE kind IN ('crawl.ate', 'crawl.slept') AND (event->>'health_gain')::INTEGER <> 0""",
)


def _fact_ate(e: ev.Ate) -> list[Fact]:
    return [
        MealFact(food=e.food, health=e.health_gain, energy=e.energy_gain),
        *_healed(e.food, e.health_gain),
    ]


MEAL_SQL = FactQuery(
    MealFact,
    ("crawl.ate",),
    """SELECT position, 0 AS n, event->>'food' AS food, (event->>'health_gain')::INTEGER AS health,
                  (event->>'energy_gain')::INTEGER AS energy
           FROM ev WHERE kind = 'crawl.ate'""",
)


def _fact_slept(e: ev.Slept) -> list[Fact]:
    return [
        NightFact(kind=e.where, health=e.health_gain, energy=e.energy_gain),
        *_healed(f"night ({e.where})", e.health_gain),
    ]


NIGHT_SQL = FactQuery(
    NightFact,
    ("crawl.slept",),
    """SELECT position, 0 AS n, event->>'where' AS kind, (event->>'health_gain')::INTEGER AS health,
                  (event->>'energy_gain')::INTEGER AS energy
           FROM ev WHERE kind = 'crawl.slept'""",
)


def _fact_starved(e: ev.Starved) -> list[Fact]:
    return [WoundFact(track="health", amount=e.loss, cause="hunger")]


STARVED_SQL = FactQuery(
    WoundFact,
    ("crawl.starved",),
    """SELECT position, 0 AS n, 'health' AS track, (event->>'loss')::INTEGER AS amount,
                  'hunger' AS cause
           FROM ev WHERE kind = 'crawl.starved'""",
)


def _fact_day(e: ev.DayEnded) -> list[Fact]:
    return [DayFact(day=e.day, ate=e.ate, hunger_streak=e.streak)]


DAY_SQL = FactQuery(
    DayFact,
    ("crawl.day_ended",),
    """SELECT position, 0 AS n, (event->>'day')::INTEGER AS day, (event->>'ate')::BOOLEAN AS ate,
                  (event->>'streak')::INTEGER AS hunger_streak
           FROM ev WHERE kind = 'crawl.day_ended'""",
)


def _fact_died(e: ev.Died) -> list[Fact]:
    return [DeathFact(cause=e.cause)]


DIED_SQL = FactQuery(
    DeathFact,
    ("crawl.died",),
    "SELECT position, 0 AS n, event->>'cause' AS cause FROM ev WHERE kind = 'crawl.died'",
)


FACTS: dict[type, Callable[[Any], list[Fact]]] = {
    ev.TableRolled: _fact_table,
    ev.TerrainRolled: _fact_terrain,
    ev.EnemyStruck: _fact_enemy,
    ev.TechniqueRolled: _fact_technique,
    ev.EscapeRolled: _fact_escape,
    ev.Changed: _fact_changed,
    ev.Ate: _fact_ate,
    ev.Slept: _fact_slept,
    ev.Starved: _fact_starved,
    ev.DayEnded: _fact_day,
    ev.Died: _fact_died,
}


def facts(env: Envelope[Any]) -> list[Fact]:
    """The warehouse rows of one stored crawl event."""
    make = FACTS.get(type(env.event))
    return make(env.event) if make else []


FACTS_SQL: list[FactQuery] = [
    TABLE_SQL,
    TERRAIN_SQL,
    ENEMY_ROLL_SQL,
    ENEMY_WOUND_SQL,
    TECHNIQUE_SQL,
    ESCAPE_SQL,
    CHANGED_SQL,
    MEAL_SQL,
    NIGHT_SQL,
    HEALED_SQL,
    STARVED_SQL,
    DAY_SQL,
    DIED_SQL,
]
"""Every statement, in the order the warehouse runs them."""
