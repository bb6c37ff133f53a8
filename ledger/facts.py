"""Facts: the rows a system's events contribute to the statistics warehouse.

A system exposes ``ReadModel.facts``: a function from one stored
envelope to a list of these Structs. The warehouse adds the columns every row
shares (campaign, branch, version, action, day, actor, wall time, undone) and
writes each fact to the table named by its class's ``table``. The facts keep
the warehouse free of any knowledge of event classes.

The classes here are the shared ones (:data:`FACT_TYPES`, tables every warehouse
has); a system may add classes of its own in ``ReadModel.fact_types``, and the
warehouse makes a table for each.

A system may also declare ``ReadModel.facts_sql``: the same facts as
:class:`FactQuery` statements DuckDB runs over a whole batch of stored events
at once, which is how the warehouse builds at the speed of DuckDB rather than
of a Python loop. The Python function stays the definition (the character
sheet's luck index and any system without queries use it); a test holds the
two equal, fact for fact, on every sample and on simulated campaigns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import msgspec
from msgspec.structs import replace

from ledger.log.events import CORE_EVENTS, ActionRevealed, Rolled
from ledger.log.sealing import revealed_rolls


class Fact(msgspec.Struct, frozen=True, kw_only=True):
    table: ClassVar[str] = ""
    character: str | None = None
    """Whom the fact is about, when not the envelope's actor (a party-wide
    midnight check records one fact per character)."""


class DieFace(msgspec.Struct, frozen=True):
    size: int
    face: int
    kept: bool = True
    reroll_of: int | None = None
    """Index in the roll's dice of the die this one re-rolls or explodes from."""


class RollFact(Fact, frozen=True):
    """One roll of dice with a purpose (a test, an attack, a terrain roll...)."""

    table: ClassVar[str] = "rolls"
    purpose: str
    dice: tuple[DieFace, ...]
    outcome: str
    """success, failure, special, critical, fumble, a table result..."""
    target: int | None = None
    successes: int | None = None
    success: bool | None = None
    pushed: bool = False
    manual: bool = False
    p_success: float | None = None
    """Exact probability of success, computed when the roll was decided."""
    opponent: bool = False
    """Thrown for an opponent of the characters (an enemy's attack): its success is the
    opponent's, and it counts in no character's luck index (docs/statistics.md, "Whose luck")."""


class MealFact(Fact, frozen=True):
    table: ClassVar[str] = "meals"
    food: str
    health: int = 0
    energy: int = 0
    contaminated: bool = False


class NightFact(Fact, frozen=True):
    table: ClassVar[str] = "nights"
    kind: str
    health: int = 0
    energy: int = 0
    hours: int | None = None


class DayFact(Fact, frozen=True):
    table: ClassVar[str] = "days"
    day: int
    ate: bool | None = None
    hunger_streak: int | None = None


class WoundFact(Fact, frozen=True):
    """Damage (positive) or healing (negative) to a track."""

    table: ClassVar[str] = "wounds"
    track: str
    amount: int
    cause: str


class ConditionFact(Fact, frozen=True):
    table: ClassVar[str] = "conditions"
    condition: str
    active: bool


class DeathFact(Fact, frozen=True):
    table: ClassVar[str] = "deaths"
    cause: str


FACT_TYPES: tuple[type[Fact], ...] = (
    RollFact,
    MealFact,
    NightFact,
    DayFact,
    WoundFact,
    ConditionFact,
    DeathFact,
)
"""The shared fact classes, in the order of their warehouse tables (``rolls`` first)."""


_CORE_TYPES = frozenset(CORE_EVENTS)


def event_facts(hook: Callable[[Any], list[Fact]] | None, env: Any) -> list[Fact]:
    """The facts of one stored event: a core ``ledger roll`` as :func:`rolled_fact`, a
    system's own event through the system's ``facts`` hook, nothing for the other core
    events (what the sheet's luck and the report read; the warehouse reads a core roll in
    SQL, ``ROLLED_SQL``)."""
    ev = env.event
    if isinstance(ev, Rolled):
        return [rolled_fact(ev)]
    if isinstance(ev, ActionRevealed):  # a sealed roll counts once revealed, as its roller's
        return [replace(rolled_fact(r), character=ev.actor) for r in revealed_rolls(ev.content)]
    if hook is not None and type(ev) not in _CORE_TYPES:
        return hook(env)
    return []


def judged_rolls(hook: Callable[[Any], list[Fact]] | None, env: Any) -> list[RollFact]:
    """The rolls of one stored event that the luck index judges: a chance of success
    recorded, the success known, and not an opponent's (docs/statistics.md)."""
    return [
        f
        for f in event_facts(hook, env)
        if isinstance(f, RollFact) and f.p_success is not None and f.success is not None and not f.opponent
    ]


def rolled_fact(ev: Rolled) -> RollFact:
    """A core ``ledger roll`` as a roll with purpose ``roll``.

    Success-counting notation (``8d6>=5``) is a success when at least one die
    succeeds, with the probability recorded when it was rolled. Other rolls
    are successless: their outcome is the total."""
    result = ev.result
    dice: list[DieFace] = []
    for group in result.groups:
        start = len(dice)
        for d in group.dice:
            of = d.explodes if d.explodes is not None else d.rerolls
            reroll = None if of is None else start + of
            dice.append(DieFace(size=d.sides, face=d.face, kept=d.kept, reroll_of=reroll))
    if result.successes is None:
        return RollFact(
            purpose="roll",
            dice=tuple(dice),
            outcome=str(result.total),
            manual=ev.manual,
            p_success=ev.p_success,
        )
    success = result.successes > 0
    return RollFact(
        purpose="roll",
        dice=tuple(dice),
        outcome="success" if success else "failure",
        successes=result.successes,
        success=success,
        manual=ev.manual,
        p_success=ev.p_success,
    )


def field_defaults(cls: type[msgspec.Struct]) -> dict[str, Any]:
    """Each field of a Struct class that has a default, with that default."""
    return {f.name: f.default for f in msgspec.structs.fields(cls) if f.default is not msgspec.NODEFAULT}


DIE_SQL = "STRUCT(size INTEGER, face INTEGER, kept BOOLEAN, reroll_of INTEGER)"
"""The SQL type of one element of a roll fact's ``dice`` list (``kept`` NULL means kept)."""


class FactQuery(msgspec.Struct, frozen=True):
    """One kind of fact as a DuckDB ``SELECT`` over a batch of stored events.

    The statement reads only the relation ``ev``, one row per stored event of
    the system's campaigns, with the columns ``position BIGINT`` (the
    notification id), ``stream VARCHAR``, ``version INTEGER``, ``day
    INTEGER``, ``actor VARCHAR``, ``kind VARCHAR`` (the event's tag) and
    ``event JSON`` (the event itself, as stored). It returns ``position``,
    ``n`` (the fact's index in the list the system's Python ``facts``
    function returns for that event, so both give the same ids) and the
    fact's fields by name; a field with a default may be left out. A roll's
    ``dice`` is a list of :data:`DIE_SQL`.
    """

    fact: type[Fact]
    kinds: tuple[str, ...]
    """The event kinds the statement reads: the system's own (a core event's facts are the
    core's, and a page of only core events loads no system to read them)."""
    sql: str


def attributed(facts: Callable[[Any], list[Fact]], field: str) -> Callable[[Any], list[Fact]]:
    """A system's Python ``facts`` whose facts name, when they name nobody, the character
    the event's ``field`` names: the player who records an event is not always the one it
    happens to (a Year Zero player shares her water, and the meal is Vesna's)."""

    def named(env: Any) -> list[Fact]:
        out = facts(env)
        who = getattr(env.event, field, None)
        if not isinstance(who, str):
            return out
        return [f if f.character is not None else msgspec.structs.replace(f, character=who) for f in out]

    return named


def attributed_sql(query: FactQuery, who: str) -> FactQuery:
    """One query whose rows name the character ``who`` gives, an SQL expression over the
    event's row of ``ev`` (``ev.event->>'character'``); the query must not return
    ``character`` itself. The twin of :func:`attributed`."""
    kinds = ", ".join("'" + k.replace("'", "''") + "'" for k in query.kinds)
    sql = (
        f"SELECT q.*, w.character FROM ({query.sql}) q "
        f"JOIN (SELECT position, {who} AS character FROM ev WHERE kind IN ({kinds})) w USING (position)"
    )
    return FactQuery(query.fact, query.kinds, sql)
