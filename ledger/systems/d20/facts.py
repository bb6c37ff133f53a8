"""The d20's warehouse facts: each event's Python function (``ReadModel.facts``) beside the
DuckDB statement that gives the same rows (``ReadModel.facts_sql``), each statement naming
the function it mirrors; ``tests/test_facts_sql.py`` holds them equal on the golden logs,
played campaigns and the rare events recorded by hand.
A ``D20Roll`` is stored with ``omit_defaults`` (``mode``, ``modifier``,
``natural`` and ``manual`` may be absent), so its defaults are coalesced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.facts import DeathFact, DieFace, Fact, FactQuery, RollFact, WoundFact, attributed, attributed_sql
from ledger.log.events import Envelope, Event
from ledger.systems.d20.events import (
    Attacked,
    Checked,
    Created,
    D20Roll,
    Damaged,
    Healed,
    Initiative,
    Panicked,
    Stressed,
    Therapy,
    Unjammed,
    UsageRolled,
)

ROLL_KINDS = ("d20.checked", "d20.attacked", "d20.stressed", "d20.healed", "d20.unjammed", "d20.therapy")
"""The events carrying one ``D20Roll`` (their first fact)."""


_IN_ROLL_KINDS = ", ".join(f"'{k}'" for k in ROLL_KINDS)


def _die(size: str, face: str, kept: str = "NULL::BOOLEAN") -> str:
    return f"{{'size': ({size})::INTEGER, 'face': ({face})::INTEGER, 'kept': {kept}, 'reroll_of': NULL::INTEGER}}"


def _roll_fact(purpose: str, roll: D20Roll, pushed: bool = False) -> RollFact:
    dice = tuple(DieFace(20, f, kept=(i == _kept_index(roll))) for i, f in enumerate(roll.faces))
    outcome = roll.natural or ("success" if roll.success else "failure")
    return RollFact(
        purpose=purpose,
        dice=dice,
        outcome=outcome,
        target=roll.target,
        success=roll.success,
        pushed=pushed,
        manual=roll.manual,
        p_success=roll.p_success,
    )


def _kept_index(roll: D20Roll) -> int:
    return roll.faces.index(roll.kept)


# _roll_fact: the d20 roll of a check, attack, stress check, heal, unjam or therapy.
# One die (two with advantage or disadvantage); kept is the first die showing the kept face.
ROLL_SQL = FactQuery(
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
)


def _table_fact(purpose: str, sides: int, face: int, outcome: str, manual: bool) -> RollFact:
    return RollFact(purpose=purpose, dice=(DieFace(sides, face),), outcome=outcome, manual=manual)


# _table_fact: initiative (d20, outcome the total), the panic roll and, on a high panic,
# the trauma roll (outcome: the result's text before its first colon).
TABLE_SQL = FactQuery(
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
)


def _created_facts(ev: Created) -> list[Fact]:
    dice = tuple(DieFace(6, f, kept=(i != ev.dropped)) for i, r in enumerate(ev.rolls) for f in r)
    outcome = f"dropped {sum(ev.rolls[ev.dropped])}"
    return [RollFact(purpose="attributes", dice=dice, outcome=outcome, manual=ev.manual)]


# _created_facts: the seven 3d6 of creation in roll order; the dropped roll's dice not kept.
CREATED_SQL = FactQuery(
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
)


def _checked_facts(ev: Checked) -> list[Fact]:
    return [
        _roll_fact(ev.purpose if not ev.instinct else f"instinct {ev.attribute}", ev.roll, pushed=ev.pushed)
    ]


def _attacked_facts(ev: Attacked) -> list[Fact]:
    out: list[Fact] = [_roll_fact(f"attack {ev.mode}", ev.roll, pushed=ev.pushed)]
    if ev.damage_faces:
        sides = int(ev.damage_dice.split("d")[1])
        out.append(
            RollFact(
                purpose="damage",
                dice=tuple(DieFace(sides, f) for f in ev.damage_faces),
                outcome=str(ev.damage),
                manual=ev.roll.manual,
            )
        )
    return out


# _attacked_facts: the damage dice of a hit, after the attack roll ("2d10" -> d10s).
DAMAGE_ROLL_SQL = FactQuery(
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
)


def _damaged_facts(ev: Damaged) -> list[Fact]:
    out: list[Fact] = [WoundFact(track="hp", amount=ev.amount, cause=ev.cause)]
    if ev.calm_lost:
        out.append(WoundFact(track="calm", amount=ev.calm_lost, cause="wound"))
    if ev.died:
        out.append(DeathFact(cause=ev.cause))
    return out


# _damaged_facts: the PV lost, then the calm point lost to the wound (when any).
DAMAGED_SQL = FactQuery(
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
)


# _damaged_facts: a death, after the PV wound and the calm wound (when any).
DEATH_SQL = FactQuery(
    DeathFact,
    ("d20.damaged",),
    """SELECT position,
                  CASE WHEN coalesce((event->>'calm_lost')::INTEGER, 0) <> 0 THEN 2 ELSE 1 END AS n,
                  coalesce(event->>'cause', 'wound') AS cause
           FROM ev
           WHERE kind = 'd20.damaged' AND coalesce((event->>'died')::BOOLEAN, false)""",
)


def _stressed_facts(ev: Stressed) -> list[Fact]:
    out: list[Fact] = [_roll_fact(f"stress {ev.difficulty}", ev.roll, pushed=ev.pushed)]
    if ev.loss_face is not None:
        out.append(WoundFact(track="calm", amount=ev.loss_face, cause=f"stress {ev.difficulty}"))
    return out


def _healed_facts(ev: Healed) -> list[Fact]:
    out: list[Fact] = [_roll_fact(ev.method, ev.roll, pushed=ev.pushed)]
    if ev.face is not None:
        out.append(WoundFact(character=ev.target, track="hp", amount=-ev.face, cause=ev.method))
    return out


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


def _panicked_facts(ev: Panicked) -> list[Fact]:
    out: list[Fact] = [_table_fact("panic", ev.sides, ev.face, ev.result.split(":")[0], ev.manual)]
    if ev.trauma_face is not None and ev.trauma_sides is not None and ev.trauma:
        out.append(_table_fact("trauma", ev.trauma_sides, ev.trauma_face, ev.trauma.split(":")[0], ev.manual))
    out.append(WoundFact(track="calm", amount=-ev.recovered_face, cause="panic over"))
    return out


# _panicked_facts: 1d4 calm points back once the panic is over, after the panic
# roll and the trauma roll (when there is one).
PANIC_OVER_SQL = FactQuery(
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
)


def _usage_facts(ev: UsageRolled) -> list[Fact]:
    outcome = "exhausted" if not ev.after else ("step down" if ev.after < ev.sides else "holds")
    return [
        RollFact(
            purpose=f"usage {ev.resource}",
            dice=(DieFace(ev.sides, ev.face),),
            outcome=outcome,
            success=ev.after == ev.sides,
            p_success=(ev.sides - 2) / ev.sides,
            manual=ev.manual,
        )
    ]


# _usage_facts: a usage die; it holds on anything but a 1 or 2.
USAGE_SQL = FactQuery(
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
)


_FACTS: dict[type[Event], Callable[[Any], list[Fact]]] = {
    Created: _created_facts,
    Checked: _checked_facts,
    Attacked: _attacked_facts,
    Damaged: _damaged_facts,
    Stressed: _stressed_facts,
    Panicked: _panicked_facts,
    Healed: _healed_facts,
    UsageRolled: _usage_facts,
    Unjammed: lambda ev: [_roll_fact("unjam", ev.roll, pushed=ev.pushed)],
    Therapy: lambda ev: [_roll_fact("therapy", ev.roll, pushed=ev.pushed)],
    Initiative: lambda ev: [_table_fact("initiative", 20, ev.face, str(ev.total), ev.manual)],
}


def _facts(env: Envelope[Any]) -> list[Fact]:
    ev = env.event
    maker = _FACTS.get(type(ev))
    return [] if maker is None else maker(ev)


facts = attributed(_facts, "who")
"""Warehouse rows of one event, each about the character the event names (``who``), but
for a healing, which is the patient's."""


_QUERIES: list[FactQuery] = [
    ROLL_SQL,
    DAMAGE_ROLL_SQL,
    CREATED_SQL,
    USAGE_SQL,
    TABLE_SQL,
    DAMAGED_SQL,
    PANIC_OVER_SQL,
    DEATH_SQL,
]
"""The statements of the facts about the character the event names (``who``), in the order
the warehouse runs them."""


# Every event names the character it happened to (``who``): its facts are that character's.
FACTS_SQL: list[FactQuery] = [*(attributed_sql(q, "ev.event->>'who'") for q in _QUERIES), STRESS_AND_HEALING]
