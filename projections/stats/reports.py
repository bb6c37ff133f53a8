"""The statistics reports over the warehouse: each a function of a DuckDB connection to
the warehouse (see ``ledger.projections.warehouse``) and a :class:`Scope` (one campaign,
one character, or everything), JSON-ready.

Undone rows are left out, except where the dice were thrown anyway (the luck index, the
dice fairness) or where undoing is the point (mulligans)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from ledger import systems
from ledger.errors import LedgerError, PluginError
from ledger.projections.stats.maths import fairness, kaplan_meier, luck_index, plain, rankable

if TYPE_CHECKING:
    import duckdb

    from ledger.systems import StatsReport


def who(alias: str = "") -> str:
    """Whom a fact row is about: the character it names (one initiative event rolls for the
    whole party), else the actor it was recorded under; the character sheet counts the same way."""
    prefix = f"{alias}." if alias else ""
    return f"coalesce({prefix}character, {prefix}actor)"


class Scope(msgspec.Struct, frozen=True):
    """Which rows a report reads: one campaign and/or one character, or everything; the
    campaigns ``ledger simulate`` played only when ``simulated`` (or named by ``campaign``)."""

    campaign: str | None = None
    character: str | None = None
    simulated: bool = False

    def where(self, *extra: str, alias: str = "", by_actor: bool = False) -> tuple[str, list[Any]]:
        """The WHERE clause and its parameters; ``by_actor`` for a table with no
        ``character`` column (``events``)."""
        prefix = f"{alias}." if alias else ""
        clauses, params = list(extra), []
        if self.campaign is not None:
            clauses.append(f"{prefix}campaign = ?")
            params.append(self.campaign)
        elif not self.simulated:
            clauses.append(f"{prefix}stream NOT IN (SELECT stream FROM campaigns WHERE simulated)")
        if self.character is not None:
            clauses.append(f"{prefix}actor = ?" if by_actor else f"{who(alias)} = ?")
            params.append(self.character)
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", params

    @property
    def everything(self) -> bool:
        """Every row of every campaign, simulated ones included."""
        return self.campaign is None and self.character is None and self.simulated


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    """The rows of a query as dicts by column name (for a report's JSON)."""
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def rate(num: float | None, den: float | None) -> float | None:
    """``num / den`` to four decimals; None when either is unknown or ``den`` is 0."""
    return plain(round(float(num) / float(den), 4)) if num is not None and den else None


EXACT = "DECIMAL(18, 12)"
"""Probabilities are summed as fixed-point decimals, exactly: a float sum in DuckDB adds in
whatever order its threads finish, so the same rolls could give a luck of 0.0 one run and
-0.0 (or a last digit apart) the next. Twelve decimals are far below the two shown."""


def _luck_fields(n: int, wins: Any, exp: Any, var: Any) -> dict[str, Any]:
    """A luck row's figures from its four sums (``exp`` and ``var`` exact decimals or None)."""
    exp = None if exp is None else float(exp)
    idx = luck_index(wins or 0, exp or 0, float(var or 0))
    return {
        "judged": n,
        "successes": wins,
        "expected": None if exp is None else plain(round(exp, 2)),
        "rate": rate(wins, n),
        "expected_rate": rate(exp, n),
        "luck": None if idx is None else plain(round(idx, 2)),
    }


def _luck_row(row: dict[str, Any]) -> dict[str, Any]:
    n, wins, exp, var = row.pop("judged"), row.pop("wins"), row.pop("expected"), row.pop("variance")
    row.update(_luck_fields(n, wins, exp, var))
    return row


_JUDGED = f"""count(*) FILTER (WHERE p_success IS NOT NULL AND success IS NOT NULL) AS judged,
       sum(success::INTEGER) FILTER (WHERE p_success IS NOT NULL) AS wins,
       sum(p_success::{EXACT}) FILTER (WHERE success IS NOT NULL) AS expected,
       sum((p_success * (1 - p_success))::{EXACT}) FILTER (WHERE success IS NOT NULL) AS variance"""


Sums = tuple[int, Any, Any, Any]
"""A luck row's four sums: rolls judged, successes, expected successes and their variance
(the last two exact decimals; None, like the successes, over no roll)."""

_NO_ROLL: Sums = (0, None, None, None)


def _luck_parts(head: dict[str, Any], every: Sums, kept: Sums, undone: Sums) -> dict[str, Any]:
    """A luck row (``head``'s fields first) of every die thrown, with its ``kept`` luck (the
    rolls that stayed) and its ``mulligans`` (the undone rolls: how many, their successes
    against expectation, and the ``effect``, the standard deviations of kept luck that
    undoing them added)."""
    out = {**head, **_luck_fields(*every)}
    stayed = out if kept == every else _luck_fields(*kept)
    out["kept"] = {k: stayed[k] for k in ("judged", "successes", "expected", "luck")}
    effect = (
        None
        if stayed["luck"] is None or out["luck"] is None
        else plain(round(stayed["luck"] - out["luck"], 2))
    )
    if undone == _NO_ROLL:
        out["mulligans"] = {"rolls": 0, "successes": 0, "expected": 0.0, "effect": effect}
        return out
    taken = _luck_fields(*undone)
    out["mulligans"] = {
        "rolls": taken["judged"],
        "successes": taken["successes"] or 0,
        "expected": taken["expected"] or 0.0,
        "effect": effect,
    }
    return out


# --- the reports ---------------------------------------------------------------------------------


def rolls(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Rolls by system and purpose: how many stayed and were undone, the success rate of
    every die thrown against the expected rate, and their luck."""
    where, params = scope.where()
    sql = f"""SELECT system, purpose, count(*) FILTER (WHERE NOT undone) AS rolls,
       count(*) FILTER (WHERE undone) AS undone, count(*) FILTER (WHERE manual AND NOT undone) AS physical,
       {_JUDGED} FROM rolls {where} GROUP BY system, purpose ORDER BY system, rolls DESC, purpose"""
    return [_luck_row(r) for r in rows(con, sql, params)]


def _sum(values: list[Any]) -> Any:
    """The sum of ``values``, None when there are none (as SQL's ``sum``); exact for decimals."""
    return sum(values[1:], values[0]) if values else None


def _luck_sums(groups: Sequence[tuple[Any, ...]]) -> tuple[Sums, Sums, Sums]:
    """Every die's, the kept and the undone sums of a luck row over ``groups`` (rows of
    :func:`luck`'s query: one per campaign, character and undone flag), as SQL would give
    them over those rolls. The probabilities' sums are DuckDB's exact sums added exactly."""
    if len(groups) == 1 and groups[0][3] is False:  # nothing undone: every die is kept
        g = groups[0]
        every: Sums = (g[4], g[5], g[6], g[7])
        return every, every, _NO_ROLL

    def over(chosen: list[tuple[Any, ...]]) -> Sums:
        return (
            sum(g[4] for g in chosen),
            _sum([g[5] for g in chosen if g[5] is not None]),
            _sum([g[6] for g in chosen if g[6] is not None]),
            _sum([g[7] for g in chosen if g[7] is not None]),
        )

    return (
        over(list(groups)),
        over([g for g in groups if g[3] is False]),
        over([g for g in groups if g[3] is True]),
    )


def luck(con: duckdb.DuckDBPyConnection, scope: Scope) -> dict[str, Any]:
    """The luck index overall, per campaign and per character (one pass over the rolls),
    over every die thrown; beside it the kept luck and the mulligans (:func:`_luck_parts`).

    An opponent's roll (an enemy's attack) is the opponent's luck and counts in none of
    these: the luck index measures the dice thrown for the characters (docs/statistics.md).
    The luckiest and unluckiest campaigns and characters are ranked by the luck index
    among those with rolls enough to rank (:func:`rankable`).

    DuckDB sums each character's rolls by whether they were undone, in one plain grouping;
    the campaigns' and the overall sums, and the three parts, are added up here from those
    few rows (exactly, as decimals): a query that grouped by every level and part at once
    cost more to plan than the rows it sums."""
    where, params = scope.where("p_success IS NOT NULL", "success IS NOT NULL", "NOT opponent")
    groups = con.execute(
        f"""SELECT campaign, any_value(system), who, undone, count(*), sum(success::INTEGER),
               sum(p_success::{EXACT}), sum((p_success * (1 - p_success))::{EXACT})
        FROM (SELECT campaign, system, success, p_success, undone, {who()} AS who FROM rolls {where})
        GROUP BY campaign, who, undone""",
        params,
    ).fetchall()
    by_character: dict[tuple[str, str | None], list[tuple[Any, ...]]] = {}
    for g in groups:
        by_character.setdefault((g[0], g[2]), []).append(g)
    by_campaign: dict[str, list[tuple[Any, ...]]] = {}
    for (campaign, _), found in by_character.items():
        by_campaign.setdefault(campaign, []).extend(found)
    by_campaign_parts = [
        _luck_parts({"campaign": name, "system": found[0][1]}, *_luck_sums(found))
        for name, found in sorted(by_campaign.items(), key=lambda kv: kv[0])
    ]
    by_character_parts = [
        _luck_parts({"campaign": campaign, "character": character}, *_luck_sums(found))
        for (campaign, character), found in sorted(
            by_character.items(), key=lambda kv: (kv[0][0], kv[0][1] is None, kv[0][1] or "")
        )
    ]
    for r in by_character_parts:
        r["ranked"] = rankable(r)
    ranked = [r for r in by_campaign_parts if rankable(r)]
    ranked_characters = [r for r in by_character_parts if r["ranked"]]
    return {
        "overall": _luck_parts({}, *_luck_sums(groups)),
        "characters": by_character_parts,
        "campaigns": len(by_campaign_parts),
        "luckiest": sorted(ranked, key=lambda r: -r["luck"])[:3],
        "unluckiest": sorted(ranked, key=lambda r: r["luck"])[:3],
        "luckiest_characters": sorted(ranked_characters, key=lambda r: -r["luck"])[:3],
        "unluckiest_characters": sorted(ranked_characters, key=lambda r: r["luck"])[:3],
    }


def mulligans(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Undone rolls by player: how often each one took a roll back."""
    where, params = scope.where()
    sql = f"""SELECT actor AS character, count(*) AS rolls, count(*) FILTER (WHERE undone) AS undone
       FROM rolls {where} GROUP BY actor HAVING count(*) FILTER (WHERE undone) > 0
       ORDER BY undone DESC, character NULLS LAST"""
    out = rows(con, sql, params)
    for r in out:
        r["share"] = rate(r["undone"], r["rolls"])
    return out


def held_systems(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The systems the warehouse holds a campaign of: the only ones a report has rows of."""
    return {str(r[0]) for r in con.execute("SELECT DISTINCT system FROM campaigns").fetchall()}


def health_tracks(only: Collection[str] | None = None) -> dict[str, tuple[str, ...]]:
    """The tracks of bodily harm of each installed system that names some
    (``ReadModel.health_tracks``), of the systems named in ``only`` when given (the others
    are not loaded): the damage reports read these alone, not the stress, fatigue or other
    tracks a wound fact may name."""
    return {s.name: tuple(s.read.health_tracks) for s in _systems(only) if s.read.health_tracks}


def _systems(only: Collection[str] | None) -> list[systems.System]:
    """Every installed system, or those named in ``only`` alone (the others not loaded)."""
    if only is None:
        return systems.installed()
    return [systems.get_system(n) for n in systems.system_names() if n in only]


def _health(
    tracks: dict[str, tuple[str, ...]] | None = None, con: duckdb.DuckDBPyConnection | None = None
) -> str:
    """The SQL condition on a ``wounds`` row that it harms a body, as its system counts (of the
    systems ``con``'s warehouse holds, when given)."""
    found = (
        (health_tracks(held_systems(con)) if con is not None else health_tracks())
        if tracks is None
        else tracks
    )
    parts = [
        f"(system = {_sql_text(name)} AND track IN ({', '.join(_sql_text(t) for t in names)}))"
        for name, names in found.items()
    ]
    return "(" + " OR ".join(parts) + ")" if parts else "false"


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def damage(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Damage taken and healed to Health per game day (summed over the campaigns in scope)."""
    where, params = scope.where("NOT undone", "day IS NOT NULL", _health(con=con))
    sql = f"""SELECT day, count(DISTINCT stream) AS campaigns,
       coalesce(sum(amount) FILTER (WHERE amount > 0), 0) AS taken,
       coalesce(-sum(amount) FILTER (WHERE amount < 0), 0) AS healed
       FROM wounds {where} GROUP BY day ORDER BY day"""
    return rows(con, sql, params)


def damage_causes(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    where, params = scope.where("NOT undone", "amount > 0", _health(con=con))
    sql = f"""SELECT cause, count(*) AS wounds, sum(amount) AS taken FROM wounds {where}
       GROUP BY cause ORDER BY taken DESC, cause LIMIT 10"""
    return rows(con, sql, params)


def deaths(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Deaths by day and cause."""
    where, params = scope.where("NOT undone")
    sql = f"""SELECT day, cause, count(*) AS deaths FROM deaths {where}
       GROUP BY day, cause ORDER BY day NULLS LAST, deaths DESC, cause"""
    return rows(con, sql, params)


def survival(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Kaplan-Meier survival by game day over the campaigns that count days.

    A campaign leaves the curve when its first death happens, or (censored,
    still alive) after the last day it reached."""
    where, params = scope.where("NOT e.undone", "e.day IS NOT NULL", alias="e", by_actor=True)
    d_where, d_params = scope.where("NOT undone")
    sql = f"""WITH reach AS (SELECT e.stream, max(e.day) AS last_day FROM events e {where} GROUP BY e.stream),
       died AS (SELECT stream, min(day) AS death_day FROM deaths {d_where} GROUP BY stream)
       SELECT r.last_day, d.death_day FROM reach r LEFT JOIN died d USING (stream)"""
    lives = con.execute(sql, params + d_params).fetchall()
    if not lives:
        return []
    return kaplan_meier([(death if death is not None else last, death is not None) for last, death in lives])


def _any_simulated(con: duckdb.DuckDBPyConnection) -> bool:
    found = con.execute("SELECT count(*) FROM campaigns WHERE simulated").fetchone()
    return bool(found and found[0])


def dice_fairness(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Chi-square per die size over the physical dice entered with ``--faces``
    (undone rolls included: those dice were thrown all the same)."""
    if scope.everything or (scope.campaign is None and scope.character is None and not _any_simulated(con)):
        source, where, params = "dice", "WHERE manual", []
    else:
        source = "dice JOIN rolls r USING (roll_id)"
        where, params = scope.where("r.manual", alias="r")
    found = con.execute(
        f"""SELECT size, face, count(*) FROM {source} {where}
        GROUP BY size, face ORDER BY size, face""",
        params,
    ).fetchall()
    by_size: dict[int, list[int]] = {}
    for size, face, n in found:
        counts = by_size.setdefault(int(size), [0] * int(size))
        if 1 <= face <= size:
            counts[face - 1] = int(n)
    return [fairness(size, counts).as_dict() for size, counts in sorted(by_size.items())]


def overview(con: duckdb.DuckDBPyConnection, scope: Scope) -> dict[str, Any]:
    where, params = scope.where(by_actor=True)
    camps = con.execute(f"SELECT count(DISTINCT campaign), count(*) FROM events {where}", params).fetchone()
    r_where, r_params = scope.where("NOT undone")
    n_rolls = con.execute(f"SELECT count(*) FROM rolls {r_where}", r_params).fetchone()
    return {
        "campaigns": camps[0] if camps else 0,
        "events": camps[1] if camps else 0,
        "rolls": n_rolls[0] if n_rolls else 0,
    }


REPORTS: dict[str, Callable[[Any, Scope], Any]] = {
    "overview": overview,
    "rolls": rolls,
    "luck": luck,
    "mulligans": mulligans,
    "damage": damage,
    "damage_causes": damage_causes,
    "deaths": deaths,
    "survival": survival,
    "fairness": dice_fairness,
}
"""The reports every warehouse has, by name, in the order ``ledger stats`` prints them;
the installed systems' own follow them (:func:`system_reports`)."""


def system_reports(only: Collection[str] | None = None) -> dict[str, StatsReport]:
    """The installed systems' own reports (``ReadModel.reports``) by name, system by system
    (of the systems named in ``only``, when given: those are the only ones loaded); a name
    that another report has already is refused."""
    found: dict[str, StatsReport] = {}
    owner: dict[str, str] = dict.fromkeys(REPORTS, "the ledger")
    for system in _systems(only):
        for name, entry in system.read.reports.items():
            if name in owner:
                raise PluginError(
                    system.name, "", f"its statistics report {name!r} is {owner[name]}'s already"
                )
            owner[name] = f"the {system.name} system"
            found[name] = entry
    return found


def report_names() -> list[str]:
    """Every report ``ledger stats --report`` takes: the shared ones, then the systems'."""
    return [*REPORTS, *system_reports()]


def report(
    con: duckdb.DuckDBPyConnection, scope: Scope | None = None, only: Sequence[str] | None = None
) -> dict[str, Any]:
    """The named reports (all by default) for a scope, JSON-ready."""
    scope = scope or Scope()
    # The shared reports alone load no system: `stats --report luck` right after an action
    # imports only the systems whose events it applies.
    shared_only = bool(only) and all(n in REPORTS for n in only)
    # Every report asked for by default is of a system the warehouse holds a campaign of:
    # another system has nothing to report, and is not loaded.
    held = (
        None if only else {str(r[0]) for r in con.execute("SELECT DISTINCT system FROM campaigns").fetchall()}
    )
    own = {} if shared_only else system_reports(held)
    names = list(only) if only else [*REPORTS, *own]
    unknown = [n for n in names if n not in REPORTS and n not in own]
    if unknown:
        raise LedgerError(
            f"no statistics report named {unknown[0]!r}; the reports are: {', '.join([*REPORTS, *own])}"
        )
    left_out = 0
    if scope.campaign is None and not scope.simulated:
        found = con.execute("SELECT count(*) FROM campaigns WHERE simulated").fetchone()
        left_out = int(found[0]) if found else 0
    out: dict[str, Any] = {
        "scope": {
            "campaign": scope.campaign,
            "character": scope.character,
            "simulated": scope.simulated,
            "simulated_left_out": left_out,
        }
    }
    for name in names:
        out[name] = REPORTS[name](con, scope) if name in REPORTS else own[name].run(con, scope)
    return out
