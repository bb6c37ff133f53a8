"""The crawl's warehouse facts as DuckDB statements (``System.facts_sql``).

Each statement mirrors one branch of :func:`ledger.systems.crawl.play.facts`;
``tests/test_facts_sql.py`` holds them equal on played campaigns and
``tests/test_crawl_facts_sql.py`` on the days hunger kills. A hunger wound is
the ``loss`` of ``crawl.starved``: the Health actually lost (docs/rulings/crawl.md, 6).
The crawl rolls d6s only, so every die is ``{size: 6, face: f}``. A roll's ``manual`` is
absent (false) in events recorded before physical dice were marked. An enemy's attack is the
enemy's roll (ruling 20), and its wound the Health the blow took (``lost``; older events:
``damage``).
"""

from __future__ import annotations

from ledger.facts import (
    DayFact,
    DeathFact,
    FactQuery,
    MealFact,
    NightFact,
    RollFact,
    WoundFact,
)

D6 = "list_transform(CAST(event->'dice' AS INTEGER[]), lambda f: {'size': 6, 'face': f, 'kept': NULL::BOOLEAN, 'reroll_of': NULL::INTEGER})"
MANUAL = "coalesce((event->>'manual')::BOOLEAN, false) AS manual"
ONE_D6 = "[{'size': 6, 'face': (event->>'face')::INTEGER, 'kept': NULL::BOOLEAN, 'reroll_of': NULL::INTEGER}]"

FACTS_SQL: list[FactQuery] = [
    # A table roll (ruins, rewards, quests, chapters...): its purpose is the table's name.
    FactQuery(
        RollFact,
        ("crawl.table_rolled",),
        f"""SELECT position, 0 AS n, event->>'table' AS purpose, {D6} AS dice,
                   event->>'text' AS outcome, {MANUAL}
            FROM ev WHERE kind = 'crawl.table_rolled'""",
    ),
    FactQuery(
        RollFact,
        ("crawl.terrain_rolled",),
        f"""SELECT position, 0 AS n, 'terrain' AS purpose, {D6} AS dice,
                   event->>'terrain' AS outcome, {MANUAL}
            FROM ev WHERE kind = 'crawl.terrain_rolled'""",
    ),
    # The enemy's attack is the enemy's roll: its success is the hit, and it names the foe.
    FactQuery(
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
    ),
    FactQuery(
        WoundFact,
        ("crawl.enemy_struck",),
        """SELECT position, 1 AS n, 'health' AS track,
                  coalesce((event->>'lost')::INTEGER, (event->>'damage')::INTEGER) AS amount,
                  event->>'foe' AS cause
           FROM ev
           WHERE kind = 'crawl.enemy_struck' AND NOT coalesce((event->>'stunned')::BOOLEAN, false)
             AND (event->>'face') IS NOT NULL""",
    ),
    FactQuery(
        RollFact,
        ("crawl.technique_rolled",),
        f"""SELECT position, 0 AS n, 'technique ' || (event->>'number') AS purpose, {D6} AS dice,
                   CASE WHEN (event->>'success')::BOOLEAN THEN 'success' ELSE 'failure' END AS outcome,
                   (event->>'needed')::INTEGER AS target,
                   (event->>'success')::BOOLEAN AS success, {MANUAL},
                   (event->>'p_success')::DOUBLE AS p_success
            FROM ev WHERE kind = 'crawl.technique_rolled' AND json_array_length(event->'dice') > 0""",
    ),
    FactQuery(
        RollFact,
        ("crawl.escape_rolled",),
        f"""SELECT position, 0 AS n, 'escape' AS purpose, {ONE_D6} AS dice,
                   CASE WHEN (event->>'success')::BOOLEAN THEN 'success' ELSE 'failure' END AS outcome,
                   (event->>'esc')::INTEGER AS target,
                   (event->>'success')::BOOLEAN AS success, {MANUAL},
                   (event->>'p_success')::DOUBLE AS p_success
            FROM ev WHERE kind = 'crawl.escape_rolled'""",
    ),
    # A change of Health or Energy: damage is positive, healing negative; Health first.
    FactQuery(
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
    ),
    FactQuery(
        MealFact,
        ("crawl.ate",),
        """SELECT position, 0 AS n, event->>'food' AS food, (event->>'health_gain')::INTEGER AS health,
                  (event->>'energy_gain')::INTEGER AS energy
           FROM ev WHERE kind = 'crawl.ate'""",
    ),
    FactQuery(
        NightFact,
        ("crawl.slept",),
        """SELECT position, 0 AS n, event->>'where' AS kind, (event->>'health_gain')::INTEGER AS health,
                  (event->>'energy_gain')::INTEGER AS energy
           FROM ev WHERE kind = 'crawl.slept'""",
    ),
    # Health regained by a meal or a night, after the meal or night itself.
    FactQuery(
        WoundFact,
        ("crawl.ate", "crawl.slept"),
        """SELECT position, 1 AS n, 'health' AS track, -(event->>'health_gain')::INTEGER AS amount,
                  CASE kind WHEN 'crawl.ate' THEN event->>'food'
                            ELSE 'night (' || (event->>'where') || ')' END AS cause
           FROM ev
           WHERE kind IN ('crawl.ate', 'crawl.slept') AND (event->>'health_gain')::INTEGER <> 0""",
    ),
    FactQuery(
        WoundFact,
        ("crawl.starved",),
        """SELECT position, 0 AS n, 'health' AS track, (event->>'loss')::INTEGER AS amount,
                  'hunger' AS cause
           FROM ev WHERE kind = 'crawl.starved'""",
    ),
    FactQuery(
        DayFact,
        ("crawl.day_ended",),
        """SELECT position, 0 AS n, (event->>'day')::INTEGER AS day, (event->>'ate')::BOOLEAN AS ate,
                  (event->>'streak')::INTEGER AS hunger_streak
           FROM ev WHERE kind = 'crawl.day_ended'""",
    ),
    FactQuery(
        DeathFact,
        ("crawl.died",),
        "SELECT position, 0 AS n, event->>'cause' AS cause FROM ev WHERE kind = 'crawl.died'",
    ),
]
