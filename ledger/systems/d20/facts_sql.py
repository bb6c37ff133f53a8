"""The d20's warehouse facts as DuckDB statements (``System.facts_sql``).

Each statement mirrors one branch of :func:`ledger.projections.d20.state.facts`;
``tests/test_facts_sql_d20.py`` holds them equal on played campaigns.
A ``D20Roll`` is stored with ``omit_defaults`` (``mode``, ``modifier``,
``natural`` and ``manual`` may be absent), so its defaults are coalesced.
"""

from __future__ import annotations

from ledger.facts import DeathFact, FactQuery, RollFact, WoundFact, attributed_sql

ROLL_KINDS = ("d20.checked", "d20.attacked", "d20.stressed", "d20.healed", "d20.unjammed", "d20.therapy")
"""The events carrying one ``D20Roll`` (their first fact)."""

_IN_ROLL_KINDS = ", ".join(f"'{k}'" for k in ROLL_KINDS)


def _die(size: str, face: str, kept: str = "NULL::BOOLEAN") -> str:
    return f"{{'size': ({size})::INTEGER, 'face': ({face})::INTEGER, 'kept': {kept}, 'reroll_of': NULL::INTEGER}}"


_QUERIES: list[FactQuery] = [
    # _roll_fact: the d20 roll of a check, attack, stress check, heal, unjam or therapy.
    # One die (two with advantage or disadvantage); kept is the first die showing the kept face.
    FactQuery(
        RollFact,
        ROLL_KINDS,
        f"""WITH r AS (
               SELECT position, kind,
                      json_transform(event, '{{"roll": {{"faces": ["INTEGER"], "kept": "INTEGER",
                          "target": "INTEGER", "success": "BOOLEAN", "natural": "VARCHAR",
                          "p_success": "DOUBLE", "manual": "BOOLEAN"}},
                          "pushed": "BOOLEAN", "purpose": "VARCHAR", "instinct": "BOOLEAN",
                          "attribute": "VARCHAR", "mode": "VARCHAR", "difficulty": "INTEGER",
                          "method": "VARCHAR"}}') AS e
               FROM ev WHERE kind IN ({_IN_ROLL_KINDS}))
           SELECT position, 0 AS n,
                  CASE kind
                      WHEN 'd20.checked' THEN
                          CASE WHEN coalesce(e.instinct, false) THEN 'instinct ' || e.attribute
                               ELSE coalesce(e.purpose, 'check') END
                      WHEN 'd20.attacked' THEN 'attack ' || coalesce(e.mode, 'single')
                      WHEN 'd20.stressed' THEN 'stress ' || CAST(e.difficulty AS VARCHAR)
                      WHEN 'd20.healed' THEN e.method
                      WHEN 'd20.unjammed' THEN 'unjam'
                      ELSE 'therapy' END AS purpose,
                  list_transform(e.roll.faces, lambda f, i:
                      {_die("20", "f", "i = list_position(e.roll.faces, e.roll.kept)")}) AS dice,
                  coalesce(nullif(e.roll.natural, ''),
                           CASE WHEN e.roll.success THEN 'success' ELSE 'failure' END) AS outcome,
                  e.roll.target AS target,
                  e.roll.success AS success,
                  coalesce(e.pushed, false) AS pushed,
                  coalesce(e.roll.manual, false) AS manual,
                  e.roll.p_success AS p_success
           FROM r""",
    ),
    # _attacked_facts: the damage dice of a hit, after the attack roll ("2d10" -> d10s).
    FactQuery(
        RollFact,
        ("d20.attacked",),
        f"""WITH a AS (
               SELECT position,
                      json_transform(event, '{{"damage_dice": "VARCHAR", "damage_faces": ["INTEGER"],
                          "damage": "INTEGER", "roll": {{"manual": "BOOLEAN"}}}}') AS e
               FROM ev WHERE kind = 'd20.attacked')
           SELECT position, 1 AS n, 'damage' AS purpose,
                  list_transform(e.damage_faces, lambda f:
                      {_die("split_part(e.damage_dice, 'd', 2)", "f")}) AS dice,
                  CAST(coalesce(e.damage, 0) AS VARCHAR) AS outcome,
                  coalesce(e.roll.manual, false) AS manual
           FROM a WHERE len(coalesce(e.damage_faces, [])) > 0""",
    ),
    # _created_facts: the seven 3d6 of creation in roll order; the dropped roll's dice not kept.
    FactQuery(
        RollFact,
        ("d20.created",),
        f"""WITH c AS (
               SELECT position,
                      json_transform(event, '{{"rolls": [["INTEGER"]], "dropped": "INTEGER",
                          "manual": "BOOLEAN"}}') AS e
               FROM ev WHERE kind = 'd20.created')
           SELECT position, 0 AS n, 'attributes' AS purpose,
                  flatten(list_transform(e.rolls, lambda r, i:
                      list_transform(r, lambda f: {_die("6", "f", "i - 1 <> e.dropped")}))) AS dice,
                  'dropped ' || CAST(list_sum(e.rolls[e.dropped + 1]) AS VARCHAR) AS outcome,
                  coalesce(e.manual, false) AS manual
           FROM c""",
    ),
    # _usage_facts: a usage die; it holds on anything but a 1 or 2.
    FactQuery(
        RollFact,
        ("d20.usage",),
        f"""WITH u AS (
               SELECT position,
                      json_transform(event, '{{"resource": "VARCHAR", "sides": "INTEGER", "face": "INTEGER",
                          "after": "INTEGER", "manual": "BOOLEAN"}}') AS e
               FROM ev WHERE kind = 'd20.usage')
           SELECT position, 0 AS n, 'usage ' || e.resource AS purpose,
                  [{_die("e.sides", "e.face")}] AS dice,
                  CASE WHEN e.after = 0 THEN 'exhausted'
                       WHEN e.after < e.sides THEN 'step down' ELSE 'holds' END AS outcome,
                  e.after = e.sides AS success,
                  CAST(e.sides - 2 AS DOUBLE) / CAST(e.sides AS DOUBLE) AS p_success,
                  coalesce(e.manual, false) AS manual
           FROM u""",
    ),
    # _table_fact: initiative (d20, outcome the total), the panic roll and, on a high panic,
    # the trauma roll (outcome: the result's text before its first colon).
    FactQuery(
        RollFact,
        ("d20.initiative", "d20.panicked"),
        f"""WITH p AS (
               SELECT position, kind,
                      json_transform(event, '{{"sides": "INTEGER", "face": "INTEGER", "result": "VARCHAR",
                          "trauma_sides": "INTEGER", "trauma_face": "INTEGER", "trauma": "VARCHAR",
                          "total": "INTEGER", "manual": "BOOLEAN"}}') AS e
               FROM ev WHERE kind IN ('d20.initiative', 'd20.panicked'))
           SELECT position, 0 AS n, 'initiative' AS purpose, [{_die("20", "e.face")}] AS dice,
                  CAST(e.total AS VARCHAR) AS outcome, coalesce(e.manual, false) AS manual
           FROM p WHERE kind = 'd20.initiative'
           UNION ALL
           SELECT position, 0 AS n, 'panic' AS purpose, [{_die("e.sides", "e.face")}] AS dice,
                  split_part(e.result, ':', 1) AS outcome, coalesce(e.manual, false) AS manual
           FROM p WHERE kind = 'd20.panicked'
           UNION ALL
           SELECT position, 1 AS n, 'trauma' AS purpose,
                  [{_die("e.trauma_sides", "e.trauma_face")}] AS dice,
                  split_part(e.trauma, ':', 1) AS outcome, coalesce(e.manual, false) AS manual
           FROM p
           WHERE kind = 'd20.panicked' AND e.trauma_face IS NOT NULL AND e.trauma_sides IS NOT NULL
             AND coalesce(e.trauma, '') <> ''""",
    ),
    # _damaged_facts: the PV lost, then the calm point lost to the wound (when any).
    FactQuery(
        WoundFact,
        ("d20.damaged",),
        """WITH d AS (
               SELECT position,
                      json_transform(event, '{"amount": "INTEGER", "calm_lost": "INTEGER",
                          "cause": "VARCHAR"}') AS e
               FROM ev WHERE kind = 'd20.damaged')
           SELECT position, 0 AS n, 'hp' AS track, e.amount AS amount,
                  coalesce(e.cause, 'wound') AS cause
           FROM d
           UNION ALL
           SELECT position, 1 AS n, 'calm' AS track, e.calm_lost AS amount, 'wound' AS cause
           FROM d WHERE coalesce(e.calm_lost, 0) <> 0""",
    ),
    # _panicked_facts: 1d4 calm points back once the panic is over, after the panic
    # roll and the trauma roll (when there is one).
    FactQuery(
        WoundFact,
        ("d20.panicked",),
        """WITH p AS (
               SELECT position,
                      json_transform(event, '{"trauma_sides": "INTEGER", "trauma_face": "INTEGER",
                          "trauma": "VARCHAR", "recovered_face": "INTEGER"}') AS e
               FROM ev WHERE kind = 'd20.panicked')
           SELECT position,
                  CASE WHEN e.trauma_face IS NOT NULL AND e.trauma_sides IS NOT NULL
                            AND coalesce(e.trauma, '') <> '' THEN 2 ELSE 1 END AS n,
                  'calm' AS track, -e.recovered_face AS amount, 'panic over' AS cause
           FROM p""",
    ),
    # _damaged_facts: a death, after the PV wound and the calm wound (when any).
    FactQuery(
        DeathFact,
        ("d20.damaged",),
        """SELECT position,
                  CASE WHEN coalesce((event->>'calm_lost')::INTEGER, 0) <> 0 THEN 2 ELSE 1 END AS n,
                  coalesce(event->>'cause', 'wound') AS cause
           FROM ev
           WHERE kind = 'd20.damaged' AND coalesce((event->>'died')::BOOLEAN, false)""",
    ),
]

# _stressed_facts / _healed_facts: calm lost on a failed stress check, PV back on a heal.
# Named here, as the healing is the patient's, not the healer's.
STRESS_AND_HEALING = FactQuery(
    WoundFact,
    ("d20.stressed", "d20.healed"),
    """WITH s AS (
           SELECT position, kind,
                  json_transform(event, '{"difficulty": "INTEGER", "loss_face": "INTEGER",
                      "method": "VARCHAR", "face": "INTEGER", "who": "VARCHAR",
                      "target": "VARCHAR"}') AS e
           FROM ev WHERE kind IN ('d20.stressed', 'd20.healed'))
       SELECT position, 1 AS n, 'calm' AS track, e.loss_face AS amount,
              'stress ' || CAST(e.difficulty AS VARCHAR) AS cause, e.who AS character
       FROM s WHERE kind = 'd20.stressed' AND e.loss_face IS NOT NULL
       UNION ALL
       SELECT position, 1 AS n, 'hp' AS track, -e.face AS amount, e.method AS cause,
              e.target AS character
       FROM s WHERE kind = 'd20.healed' AND e.face IS NOT NULL""",
)

# Every event names the character it happened to (``who``): its facts are that character's.
FACTS_SQL: list[FactQuery] = [*(attributed_sql(q, "ev.event->>'who'") for q in _QUERIES), STRESS_AND_HEALING]
