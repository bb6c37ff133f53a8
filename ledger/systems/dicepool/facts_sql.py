"""``dicepool``'s warehouse facts as DuckDB SQL: the twin of ``facts`` in ``dicepool.py``.

Each :class:`~ledger.facts.FactQuery` reads the relation ``ev`` (one row per
stored event) and returns, per fact, the event's ``position``, the fact's index
``n`` in the list the Python ``facts`` returns for that event, and the fact's
fields. ``tests/test_facts_sql_dicepool.py`` holds the two equal, fact for fact.

The events are read with one ``json_transform`` per row; a field left at its
Struct default is coalesced to that default in case it was omitted.
"""

from __future__ import annotations

from ledger.facts import DIE_SQL, DeathFact, FactQuery, RollFact, WoundFact, attributed_sql

_ROLL_JSON = (
    '{"tn": "INTEGER", "dice": [{"faces": ["INTEGER"]}], "successes": "INTEGER", '
    '"p_success": "DOUBLE", "needed": "INTEGER"}'
)
"""The part of a ``Roll`` the facts read."""

_POOL_DICE = f"""CAST(
            list_transform(
                flatten(list_transform(e.roll.dice,
                    lambda d: list_transform(d.faces, lambda f, i: {{'face': f, 'first': i = 1}}))),
                lambda x, j: {{'size': 6, 'face': x.face, 'kept': true,
                              'reroll_of': CASE WHEN x.first THEN NULL ELSE j - 2 END}})
            AS {DIE_SQL}[])"""
"""``_faces``: every face of every pool die in roll order; a re-roll of a 6 points
at the face just before it (0-based ``j - 1``, so ``j - 2``)."""

# _roll_fact for tests, attacks, dodges and resistance tests: one roll each, always n = 0.
_POOL_ROLLS = f"""
WITH e AS (
    SELECT position, kind, json_transform(event, '{{
        "roll": {_ROLL_JSON},
        "manual": "BOOLEAN",
        "defaulting": {{"wanted": "VARCHAR"}},
        "hit": "BOOLEAN",
        "remaining": "INTEGER",
        "level": "VARCHAR"
    }}') AS e
    FROM ev
    WHERE kind IN ('dicepool.tested', 'dicepool.attacked', 'dicepool.dodged', 'dicepool.resisted')
), r AS (
    SELECT position, kind, e, e.roll.successes >= coalesce(e.roll.needed, 1) AS success
    FROM e
)
SELECT
    position,
    0 AS n,
    CASE kind
        WHEN 'dicepool.tested' THEN 'test:' || e.defaulting.wanted
        WHEN 'dicepool.attacked' THEN 'attack'
        WHEN 'dicepool.dodged' THEN 'dodge'
        ELSE 'resist'
    END AS purpose,
    {_POOL_DICE} AS dice,
    CASE kind
        WHEN 'dicepool.tested' THEN CASE WHEN success THEN 'success' ELSE 'failure' END
        WHEN 'dicepool.attacked' THEN CASE WHEN coalesce(e.hit, false) THEN 'hit' ELSE 'miss' END
        WHEN 'dicepool.dodged' THEN CASE WHEN e.remaining <= 0 THEN 'dodged' ELSE 'hit' END
        ELSE coalesce(nullif(e.level, ''), 'no') || ' wound'
    END AS outcome,
    e.roll.tn AS target,
    e.roll.successes AS successes,
    success,
    coalesce(e.manual, false) AS manual,
    e.roll.p_success AS p_success
FROM r
"""

# InitiativeRolled: one roll per entry, in entry order (n = the entry's index), each the
# character's own (whoever typed the command); no rule of six.
_INITIATIVE_ROLLS = f"""
WITH e AS (
    SELECT position, json_transform(event, '{{
        "entries": [{{"character": "VARCHAR", "faces": ["INTEGER"], "score": "INTEGER"}}],
        "manual": "BOOLEAN"
    }}') AS e
    FROM ev
    WHERE kind = 'dicepool.initiative'
)
SELECT
    position,
    CAST(u.i - 1 AS INTEGER) AS n,
    'initiative' AS purpose,
    CAST(list_transform(u.entry.faces, lambda f: {{'size': 6, 'face': f, 'kept': true, 'reroll_of': NULL}})
        AS {DIE_SQL}[]) AS dice,
    CAST(u.entry.score AS VARCHAR) AS outcome,
    u.entry.character AS character,
    coalesce(e.manual, false) AS manual
FROM e, unnest(e.entries) WITH ORDINALITY AS u(entry, i)
"""

# _resisted_facts: the wound after the roll (n = 1) when boxes were marked;
# Healed: healing as a negative wound, its only fact (n = 0).
_WOUNDS = """
WITH e AS (
    SELECT position, kind, json_transform(event, '{
        "damage": "VARCHAR",
        "level": "VARCHAR",
        "track": "VARCHAR",
        "boxes": "INTEGER",
        "reason": "VARCHAR"
    }') AS e
    FROM ev
    WHERE kind IN ('dicepool.resisted', 'dicepool.healed')
)
SELECT
    position,
    CASE kind WHEN 'dicepool.resisted' THEN 1 ELSE 0 END AS n,
    e.track AS track,
    CASE kind WHEN 'dicepool.resisted' THEN e.boxes ELSE -e.boxes END AS amount,
    CASE kind
        WHEN 'dicepool.resisted' THEN e.damage || ' staged to ' || coalesce(e.level, 'None')
        ELSE coalesce(nullif(e.reason, ''), 'healing')
    END AS cause
FROM e
WHERE kind = 'dicepool.healed' OR e.boxes <> 0
"""

# _resisted_facts: death when the overflow passes Body; after the roll and the wound, if any.
_DEATHS = """
WITH e AS (
    SELECT position, json_transform(event, '{
        "damage": "VARCHAR",
        "boxes": "INTEGER",
        "body": "INTEGER",
        "overflow": "INTEGER"
    }') AS e
    FROM ev
    WHERE kind = 'dicepool.resisted'
)
SELECT
    position,
    CASE WHEN e.boxes <> 0 THEN 2 ELSE 1 END AS n,
    e.damage || ' wound, overflow ' || CAST(coalesce(e.overflow, 0) AS VARCHAR) AS cause
FROM e
WHERE coalesce(e.overflow, 0) > e.body
"""

# Whom a row is about: the character the event names (the attacker for an attack);
# initiative names each entry's character itself.
_WHO = "coalesce(ev.event->>'character', ev.event->>'attacker')"

FACTS_SQL: list[FactQuery] = [
    attributed_sql(
        FactQuery(
            fact=RollFact,
            kinds=("dicepool.tested", "dicepool.attacked", "dicepool.dodged", "dicepool.resisted"),
            sql=_POOL_ROLLS,
        ),
        _WHO,
    ),
    FactQuery(fact=RollFact, kinds=("dicepool.initiative",), sql=_INITIATIVE_ROLLS),
    attributed_sql(
        FactQuery(fact=WoundFact, kinds=("dicepool.resisted", "dicepool.healed"), sql=_WOUNDS), _WHO
    ),
    attributed_sql(FactQuery(fact=DeathFact, kinds=("dicepool.resisted",), sql=_DEATHS), _WHO),
]
