"""``dicepool``'s warehouse facts: the Python ``facts`` (``ReadModel.facts``) and, after it, the
same rows as DuckDB SQL, one statement per kind of roll or fact table (``ReadModel.facts_sql``).

Each :class:`~ledger.facts.FactQuery` reads the relation ``ev`` (one row per
stored event) and returns, per fact, the event's ``position``, the fact's index
``n`` in the list the Python ``facts`` returns for that event, and the fact's
fields. ``tests/test_facts_sql.py`` holds the two equal, fact for fact.

The events are read with one ``json_transform`` per row; a field left at its
Struct default is coalesced to that default in case it was omitted.
"""

from __future__ import annotations

from typing import Any

from ledger.facts import (
    DIE_SQL,
    DeathFact,
    DieFace,
    Fact,
    FactQuery,
    RollFact,
    WoundFact,
    attributed,
    attributed_sql,
)
from ledger.log.events import Envelope
from ledger.systems.dicepool.events import Attacked, Dodged, Healed, InitiativeRolled, Resisted, Roll, Tested


def _faces(roll: Roll) -> tuple[DieFace, ...]:
    faces: list[DieFace] = []
    for die in roll.dice:
        for i, face in enumerate(die.faces):
            faces.append(DieFace(size=6, face=face, reroll_of=len(faces) - 1 if i else None))
    return tuple(faces)


def _roll_fact(
    purpose: str, roll: Roll, manual: bool, outcome: str | None = None, character: str | None = None
) -> RollFact:
    success = roll.successes >= roll.needed
    return RollFact(
        character=character,
        purpose=purpose,
        dice=_faces(roll),
        outcome=outcome or ("success" if success else "failure"),
        target=roll.tn,
        successes=roll.successes,
        success=success,
        manual=manual,
        p_success=roll.p_success,
    )


def _resisted_facts(ev: Resisted) -> list[Fact]:
    facts: list[Fact] = [_roll_fact("resist", ev.roll, ev.manual, f"{ev.level or 'no'} wound")]
    if ev.boxes:
        facts.append(WoundFact(track=ev.track, amount=ev.boxes, cause=f"{ev.damage} staged to {ev.level}"))
    if ev.overflow > ev.body:
        facts.append(DeathFact(cause=f"{ev.damage} wound, overflow {ev.overflow}"))
    return facts


def _facts(env: Envelope[Any]) -> list[Fact]:
    ev = env.event
    if isinstance(ev, Attacked):
        return [_roll_fact("attack", ev.roll, ev.manual, "hit" if ev.hit else "miss", ev.attacker)]
    if isinstance(ev, Tested):
        return [_roll_fact(f"test:{ev.defaulting.wanted}", ev.roll, ev.manual)]
    if isinstance(ev, Dodged):
        return [_roll_fact("dodge", ev.roll, ev.manual, "dodged" if ev.remaining <= 0 else "hit")]
    if isinstance(ev, Resisted):
        return _resisted_facts(ev)
    if isinstance(ev, InitiativeRolled):
        return [
            RollFact(
                purpose="initiative",
                dice=tuple(DieFace(size=6, face=f) for f in e.faces),
                outcome=str(e.score),
                character=e.character,
                manual=ev.manual,
            )
            for e in ev.entries
        ]
    if isinstance(ev, Healed):
        return [WoundFact(track=ev.track, amount=-ev.boxes, cause=ev.reason or "healing")]
    return []


facts = attributed(_facts, "character")
"""Warehouse rows: every test with its exact odds, every wound and healing, each about the
character its event names (the attacker for an attack, each entry's for initiative)."""


# --- the same facts in SQL ------------------------------------------------------------

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
