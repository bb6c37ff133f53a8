"""Campaign statistics over the warehouse: luck, rates, costs, survival, fair dice.

Every report is a function of a DuckDB connection to the warehouse (see
``ledger.projections.warehouse``) and an optional scope (one campaign, one
character). Undone rows are left out, except where the dice were thrown anyway
(the luck index, the dice fairness) or where undoing is the point (mulligans).

The luck index of a set of rolls with known probabilities of success is
``(successes - sum p) / sqrt(sum p (1 - p))``: how many standard deviations
the successes ran above (lucky) or below (unlucky) their expectation. It counts
every die thrown, undone ones included: undoing is a choice made after seeing
the dice, so luck over the kept rolls alone ("kept luck") measures the
mulligans as much as the dice.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.errors import Fix, named
from ledger.errors import command as fix_command
from ledger.words import count as counted
from ledger.words import plural

if TYPE_CHECKING:
    import duckdb

    from ledger.projections.warehouse.loading import Warehouse
    from ledger.systems import StatsReport

FLAG_P = 0.01
"""Dice whose chi-square p-value falls below this are flagged unfair."""
STRONG_P = 0.001
MAX_LUCK_ROWS = 12
"""Characters listed in the text report before it shows only the extremes."""
MIN_RANKED = 5
"""Fewest expected successes, and expected failures, for a luck index to be ranked: below
that the count of successes is too coarse for its standard deviations to compare (the
same rule as the chi-square's ``MIN_EXPECTED``)."""
MIN_EXPECTED = 5
"""Fewest expected throws per face for the chi-square test to mean anything."""


# --- the mathematics ------------------------------------------------------------------


def luck_index(successes: float, expected: float, variance: float) -> float | None:
    """Standard deviations by which ``successes`` beat ``expected`` (None without variance)."""
    if variance <= 0:
        return None
    return (successes - expected) / math.sqrt(variance)


def _gamma_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its power series (x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _ in range(10_000):
        n += 1
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by Lentz's continued fraction (x >= a + 1)."""
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    if a <= 0:
        raise ValueError(f"gamma_q needs a > 0, got {a!r}")
    if x <= 0:
        return 1.0
    if x < a + 1:
        return max(0.0, 1.0 - _gamma_series(a, x))
    return min(1.0, _gamma_fraction(a, x))


def chi2_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square distributed with ``dof`` degrees of freedom."""
    return gamma_q(dof / 2, statistic / 2)


class Fairness(msgspec.Struct, frozen=True):
    size: int
    throws: int
    counts: tuple[int, ...]
    chi2: float
    dof: int
    p_value: float | None
    flagged: bool
    verdict: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "die": f"d{self.size}",
            "size": self.size,
            "throws": self.throws,
            "counts": list(self.counts),
            "chi2": round(self.chi2, 3),
            "dof": self.dof,
            "p_value": None if self.p_value is None else float(f"{self.p_value:.4g}"),
            "flagged": self.flagged,
            "verdict": self.verdict,
        }


def fairness(size: int, counts: Sequence[int]) -> Fairness:
    """Pearson's chi-square test that every face of a d``size`` is equally likely."""
    throws = sum(counts)
    expected = throws / size if size else 0
    chi2 = sum((c - expected) ** 2 / expected for c in counts) if expected else 0.0
    dof = size - 1
    if expected < MIN_EXPECTED or dof < 1:
        need = MIN_EXPECTED * size
        return Fairness(
            size,
            throws,
            tuple(counts),
            chi2,
            dof,
            None,
            False,
            f"too few throws to judge ({throws}; need at least {need})",
        )
    p = chi2_sf(chi2, dof)
    if p < STRONG_P:
        verdict = "unfair: a fair die gives faces this uneven less than 1 time in 1000"
    elif p < FLAG_P:
        verdict = "suspicious: a fair die gives faces this uneven less than 1 time in 100"
    else:
        verdict = "consistent with a fair die"
    return Fairness(size, throws, tuple(counts), chi2, dof, p, p < FLAG_P, verdict)


# --- scoping ------------------------------------------------------------------------------


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
    return _plain(round(float(num) / float(den), 4)) if num is not None and den else None


_rows = rows
_rate = rate


def _plain(x: float) -> float:
    """``x`` with a negative zero made zero: a rounded -0.001 prints ``0.0``, never ``-0.0``."""
    return x + 0.0


EXACT = "DECIMAL(18, 12)"
"""Probabilities are summed as fixed-point decimals, exactly: a float sum in DuckDB adds in
whatever order its threads finish, so the same rolls could give a luck of 0.0 one run and
-0.0 (or a last digit apart) the next. Twelve decimals are far below the two shown."""


def _luck_row(row: dict[str, Any]) -> dict[str, Any]:
    n, wins, exp, var = row.pop("judged"), row.pop("wins"), row.pop("expected"), row.pop("variance")
    exp = None if exp is None else float(exp)
    idx = luck_index(wins or 0, exp or 0, float(var or 0))
    row.update(
        {
            "judged": n,
            "successes": wins,
            "expected": None if exp is None else _plain(round(exp, 2)),
            "rate": _rate(wins, n),
            "expected_rate": _rate(exp, n),
            "luck": None if idx is None else _plain(round(idx, 2)),
        }
    )
    return row


def rankable(row: dict[str, Any]) -> bool:
    """Whether a luck row has rolls enough to be ranked against others: at least
    :data:`MIN_RANKED` successes expected and as many failures. One failed roll at 95% is
    -4.4 standard deviations, yet one roll says nothing of anyone's luck."""
    exp = row.get("expected")
    return (
        row.get("luck") is not None
        and exp is not None
        and exp >= MIN_RANKED
        and row["judged"] - exp >= MIN_RANKED
    )


_JUDGED = f"""count(*) FILTER (WHERE p_success IS NOT NULL AND success IS NOT NULL) AS judged,
       sum(success::INTEGER) FILTER (WHERE p_success IS NOT NULL) AS wins,
       sum(p_success::{EXACT}) FILTER (WHERE success IS NOT NULL) AS expected,
       sum((p_success * (1 - p_success))::{EXACT}) FILTER (WHERE success IS NOT NULL) AS variance"""


def _sums(prefix: str = "", where: str = "") -> str:
    """The four sums of a luck row, over the rows ``where`` says (all when empty)."""
    only = f" FILTER (WHERE {where})" if where else ""
    return f"""count(*){only} AS {prefix}judged, sum(success::INTEGER){only} AS {prefix}wins,
       sum(p_success::{EXACT}){only} AS {prefix}expected,
       sum((p_success * (1 - p_success))::{EXACT}){only} AS {prefix}variance"""


def _luck_parts(row: dict[str, Any]) -> dict[str, Any]:
    """A luck row of every die thrown, with its ``kept`` luck (the rolls that stayed) and
    its ``mulligans`` (the undone rolls: how many, their successes against expectation,
    and the ``effect``, the standard deviations of kept luck that undoing them added)."""
    kept = _luck_row({k: row.pop(f"kept_{k}") for k in ("judged", "wins", "expected", "variance")})
    undone = _luck_row({k: row.pop(f"undone_{k}") for k in ("judged", "wins", "expected", "variance")})
    out = _luck_row(row)
    out["kept"] = {k: kept[k] for k in ("judged", "successes", "expected", "luck")}
    effect = (
        None if kept["luck"] is None or out["luck"] is None else _plain(round(kept["luck"] - out["luck"], 2))
    )
    out["mulligans"] = {
        "rolls": undone["judged"],
        "successes": undone["successes"] or 0,
        "expected": undone["expected"] or 0.0,
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
    return [_luck_row(r) for r in _rows(con, sql, params)]


def luck(con: duckdb.DuckDBPyConnection, scope: Scope) -> dict[str, Any]:
    """The luck index overall, per campaign and per character (one pass over the rolls),
    over every die thrown; beside it the kept luck and the mulligans (:func:`_luck_parts`).

    An opponent's roll (an enemy's attack) is the opponent's luck and counts in none of
    these: the luck index measures the dice thrown for the characters (docs/statistics.md).
    The luckiest and unluckiest campaigns and characters are ranked by the luck index
    among those with rolls enough to rank (:func:`rankable`)."""
    where, params = scope.where("p_success IS NOT NULL", "success IS NOT NULL", "NOT opponent")
    found = _rows(
        con,
        f"""SELECT grouping(campaign, who) AS level, campaign, any_value(system) AS system,
               who AS character, {_sums()}, {_sums("kept_", "NOT undone")}, {_sums("undone_", "undone")}
        FROM (SELECT *, {who()} AS who FROM rolls {where})
        GROUP BY GROUPING SETS ((), (campaign), (campaign, who))""",
        params,
    )
    empty = {f"{p}{k}": None for p in ("", "kept_", "undone_") for k in ("wins", "expected", "variance")}
    overall = [r for r in found if r["level"] == 3] or [
        {"level": 3, "judged": 0, "kept_judged": 0, "undone_judged": 0, **empty}
    ]
    campaigns = sorted((r for r in found if r["level"] == 1), key=lambda r: r["campaign"])
    characters = sorted(
        (r for r in found if r["level"] == 0),
        key=lambda r: (r["campaign"], r["character"] is None, r["character"] or ""),
    )
    for r in found:
        del r["level"]
    for r in campaigns:
        del r["character"]
    for r in characters:
        del r["system"]
    top = {k: v for k, v in overall[0].items() if k not in ("level", "campaign", "system", "character")}
    by_campaign = [_luck_parts(r) for r in campaigns]
    by_character = [_luck_parts(r) for r in characters]
    for r in by_character:
        r["ranked"] = rankable(r)
    ranked = [r for r in by_campaign if rankable(r)]
    ranked_characters = [r for r in by_character if r["ranked"]]
    return {
        "overall": _luck_parts(top),
        "characters": by_character,
        "campaigns": len(campaigns),
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
    out = _rows(con, sql, params)
    for r in out:
        r["share"] = _rate(r["undone"], r["rolls"])
    return out


def health_tracks() -> dict[str, tuple[str, ...]]:
    """The tracks of bodily harm of each installed system that names some
    (``System.health_tracks``): the damage reports read these alone, not the stress,
    fatigue or other tracks a wound fact may name."""
    from ledger.systems import installed

    return {s.name: tuple(s.health_tracks) for s in installed() if s.health_tracks}


def _health(tracks: dict[str, tuple[str, ...]] | None = None) -> str:
    """The SQL condition on a ``wounds`` row that it harms a body, as its system counts."""
    found = health_tracks() if tracks is None else tracks
    parts = [
        f"(system = {_sql_text(name)} AND track IN ({', '.join(_sql_text(t) for t in names)}))"
        for name, names in found.items()
    ]
    return "(" + " OR ".join(parts) + ")" if parts else "false"


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def damage(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Damage taken and healed to Health per game day (summed over the campaigns in scope)."""
    where, params = scope.where("NOT undone", "day IS NOT NULL", _health())
    sql = f"""SELECT day, count(DISTINCT stream) AS campaigns,
       coalesce(sum(amount) FILTER (WHERE amount > 0), 0) AS taken,
       coalesce(-sum(amount) FILTER (WHERE amount < 0), 0) AS healed
       FROM wounds {where} GROUP BY day ORDER BY day"""
    return _rows(con, sql, params)


def damage_causes(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    where, params = scope.where("NOT undone", "amount > 0", _health())
    sql = f"""SELECT cause, count(*) AS wounds, sum(amount) AS taken FROM wounds {where}
       GROUP BY cause ORDER BY taken DESC, cause LIMIT 10"""
    return _rows(con, sql, params)


def deaths(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Deaths by day and cause."""
    where, params = scope.where("NOT undone")
    sql = f"""SELECT day, cause, count(*) AS deaths FROM deaths {where}
       GROUP BY day, cause ORDER BY day NULLS LAST, deaths DESC, cause"""
    return _rows(con, sql, params)


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


def kaplan_meier(lives: Sequence[tuple[int, bool]]) -> list[dict[str, Any]]:
    """(day, died) per life -> [{day, at_risk, deaths, survival}] for every day 0..last."""
    last = max(day for day, _ in lives)
    deaths_on: dict[int, int] = {}
    leaving: dict[int, int] = {}
    for day, died in lives:
        leaving[day] = leaving.get(day, 0) + 1
        if died:
            deaths_on[day] = deaths_on.get(day, 0) + 1
    at_risk, s, curve = len(lives), 1.0, []
    for day in range(min(0, min(d for d, _ in lives)), last + 1):
        dead = deaths_on.get(day, 0)
        if at_risk:
            s *= 1 - dead / at_risk
        curve.append({"day": day, "at_risk": at_risk, "deaths": dead, "survival": round(s, 4)})
        at_risk -= leaving.get(day, 0)
    return curve


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


def system_reports() -> dict[str, StatsReport]:
    """The installed systems' own reports (``System.reports``) by name, system by system; a
    name that another report has already is refused."""
    from ledger.errors import PluginError
    from ledger.systems import installed

    found: dict[str, StatsReport] = {}
    owner: dict[str, str] = dict.fromkeys(REPORTS, "the ledger")
    for system in installed():
        for name, entry in system.reports.items():
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
    from ledger.errors import LedgerError

    scope = scope or Scope()
    # The shared reports alone load no system: `stats --report luck` right after an action
    # imports only the systems whose events it applies.
    shared_only = bool(only) and all(n in REPORTS for n in only)
    own = {} if shared_only else system_reports()
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


# --- text rendering -------------------------------------------------------------------------------


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 72) -> str:
    """A plain aligned table; numbers right-aligned, NULL shown as '-'."""
    return "\n".join(table_lines(headers, [rows], max_width))


def table_lines(
    headers: Sequence[str], pages: Iterable[Sequence[Sequence[Any]]], max_width: int = 72
) -> Iterator[str]:
    """The lines of :func:`format_table` for rows that arrive page by page: the columns are
    as wide as the first page needs (a longer cell later pushes its line out)."""

    def cell(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.4g}" if abs(v) < 1e6 else f"{v:.0f}"
        text = str(v).replace("\n", " ")
        return text if len(text) <= max_width else text[: max_width - 1] + "…"

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return "  ".join(parts).rstrip()

    widths = [len(h) for h in headers]
    numeric = [False] * len(headers)
    first = True
    for rows in pages:
        cells = [[cell(v) for v in row] for row in rows]
        if first:
            for row in cells:
                widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
            numeric = [
                all(isinstance(r[i], int | float) or r[i] is None for r in rows) and bool(rows)
                for i in range(len(headers))
            ]
            yield line(list(headers))
            yield line(["-" * w for w in widths])
            first = False
        yield from (line(row) for row in cells)
    if first:
        yield line(list(headers))
        yield line(["-" * w for w in widths])


def dict_table(found: list[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """Report rows as an indented table (the columns of the first row unless given)."""
    if not found:
        return "  (none)"
    cols = list(columns or found[0].keys())
    return "\n".join(
        "  " + ln for ln in format_table(cols, [[r.get(c) for c in cols] for r in found]).splitlines()
    )


_dict_table = dict_table


def _by_cause(deaths_by_day: list[dict[str, Any]]) -> list[dict[str, Any]]:
    totals: dict[str, list[int]] = {}
    for row in deaths_by_day:
        entry = totals.setdefault(row["cause"], [0, row["day"] if row["day"] is not None else -1])
        entry[0] += row["deaths"]
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1][0], kv[0]))
    out = [{"cause": cause, "deaths": n, "first_day": None if d < 0 else d} for cause, (n, d) in ranked[:10]]
    if len(ranked) > 10:
        out.append(
            {
                "cause": f"({len(ranked) - 10} other causes)",
                "deaths": sum(n for _, (n, _) in ranked[10:]),
                "first_day": None,
            }
        )
    return out


def _signed(v: float | None) -> str:
    return "-" if v is None else f"{v:+.2f}"


def _survival_lines(curve: list[dict[str, Any]]) -> list[str]:
    if not curve:
        return ["  (no campaign counts days)"]
    last = curve[-1]["day"]
    step = max(1, math.ceil((last + 1) / 15))
    shown = [row for row in curve if row["day"] % step == 0 or row["day"] == last]
    lines = []
    for row in shown:
        bar = "#" * round(row["survival"] * 40)
        lines.append(f"  day {row['day']:>3}  {row['survival']:6.1%}  {bar}  (at risk {row['at_risk']})")
    return lines


def luck_lines(lk: dict[str, Any]) -> list[str]:
    """The luck report as text: the luck index of every die thrown, then, each labelled,
    the kept luck and the mulligans; then the characters (all, or the extremes of those
    with rolls enough to rank, with how many rolls each)."""
    o = lk["overall"]
    if not o["judged"]:
        return ["Luck: no rolls with a known chance of success yet"]
    kept, mull = o["kept"], o["mulligans"]
    lines = [
        f"Luck: luck index {_signed(o['luck'])} over every die thrown: {counted(o['successes'] or 0, 'success')} "
        f"in {counted(o['judged'], 'roll')}, {o['expected'] or 0} expected "
        "(standard deviations above expectation; undone rolls included)",
        f"  kept luck {_signed(kept['luck'])}: the {counted(kept['judged'], 'roll')} that stayed, "
        f"{counted(kept['successes'] or 0, 'success')}, {kept['expected'] or 0} expected",
    ]
    if mull["rolls"]:
        lines.append(
            f"  mulligans: {counted(mull['rolls'], 'roll')} undone ({counted(mull['successes'], 'success')}, "
            f"{mull['expected']} expected); undoing them moved the kept luck by {_signed(mull['effect'])}"
        )
    else:
        lines.append("  mulligans: no roll undone")
    chars = [c for c in lk["characters"] if c["judged"]]
    if not chars:
        return lines
    ranked = sorted((c for c in chars if c["ranked"]), key=lambda c: -c["luck"])
    if len(chars) <= MAX_LUCK_ROWS:
        shown = chars
    else:
        half = MAX_LUCK_ROWS // 2
        shown = ranked if len(ranked) <= MAX_LUCK_ROWS else ranked[:half] + ranked[-half:]
        lines.append(
            f"  luckiest and unluckiest of {counted(len(ranked), 'character')} with rolls enough to rank "
            f"(at least {MIN_RANKED} successes and {MIN_RANKED} failures expected)"
        )
        if len(ranked) < len(chars):
            unranked = len(chars) - len(ranked)
            lines.append(
                f"  ({counted(unranked, 'character')} with fewer rolls {plural(unranked, 'is')} not ranked)"
            )
    table = [
        {
            "campaign": c["campaign"],
            "character": c["character"],
            "rolls": c["judged"],
            "successes": c["successes"],
            "expected": c["expected"],
            "luck": c["luck"],
            "kept luck": c["kept"]["luck"],
            "mulligans": c["mulligans"]["rolls"],
        }
        for c in shown
    ]
    if shown:
        lines.append(_dict_table(table))
    return lines


def render(data: dict[str, Any], *, spell: Callable[[str], str] = named) -> str:
    """The report as terminal text; ``spell`` names an input to give (``simulated``,
    ``faces``) in the reader's words."""
    out: list[str] = []
    scope = data.get("scope", {})
    named = {k: scope.get(k) for k in ("campaign", "character")}
    what = " / ".join(f"{k} {v}" for k, v in named.items() if v) or "all campaigns"
    if scope.get("simulated") and not named["campaign"]:
        what += ", simulated ones included"
    ov = data.get("overview")
    head = f"Statistics: {what}"
    if ov:
        head += (
            f" ({counted(ov['campaigns'], 'campaign')}, {counted(ov['events'], 'event')}, "
            f"{counted(ov['rolls'], 'roll')})"
        )
    out.append(head)
    left_out = scope.get("simulated_left_out")
    if left_out:
        out.append(
            f"({counted(left_out, 'simulated campaign')} left out; {spell('simulated')} brings them in)"
        )
    if "luck" in data:
        out.append("")
        out.extend(luck_lines(data["luck"]))
    sections: list[tuple[str, str, Callable[[Any], list[str]]]] = [
        (
            "rolls",
            "Rolls against expectation",
            lambda v: [
                _dict_table(
                    v,
                    [
                        "system",
                        "purpose",
                        "rolls",
                        "undone",
                        "physical",
                        "judged",
                        "rate",
                        "expected_rate",
                        "luck",
                    ],
                )
            ],
        ),
        ("mulligans", "Mulligans (undone rolls) by player", lambda v: [_dict_table(v)]),
        ("damage", "Damage taken and healed per day", lambda v: [_dict_table(v)]),
        ("damage_causes", "What did the damage", lambda v: [_dict_table(v)]),
        ("deaths", f"Deaths by cause (by day: {spell('json')})", lambda v: [_dict_table(_by_cause(v))]),
        ("survival", "Survival by day (Kaplan-Meier)", _survival_lines),
        (
            "fairness",
            "Physical dice fairness (chi-square)",
            lambda v: [_dict_table(v, ["die", "throws", "chi2", "dof", "p_value", "verdict"])],
        ),
    ]
    for key, title, show in sections:
        value = data.get(key)
        if value is None or (key != "fairness" and not value):
            continue
        out.append("")
        out.append(f"{title}:")
        if key == "fairness" and not value:
            out.append(f"  (no dice entered with {spell('faces')})")
            continue
        out.extend(show(value))
    extra = [key for key in data if key not in REPORTS and key != "scope"]
    own = system_reports() if extra else {}
    for key in extra:
        entry, value = own.get(key), data[key]
        if entry is None or entry.empty(value):
            continue
        out.append("")
        out.append(f"{entry.title}:")
        out.extend(entry.render(value))
    return "\n".join(out)


# --- simulation ---------------------------------------------------------------------------------


class SimulationPlan(msgspec.Struct, frozen=True):
    """What ``simulate`` will create: campaign names and their dice seeds."""

    system: str
    seed: int
    names: tuple[str, ...]
    seeds: tuple[int, ...]


def plan(system: str, campaigns: int, seed: int, prefix: str | None = None) -> SimulationPlan:
    import random

    if campaigns < 1:
        from ledger.errors import LedgerError

        raise LedgerError(f"`campaigns` must be at least 1, got {campaigns}", field="campaigns")
    stem = prefix or f"sim-{system}-{seed}"
    names = tuple(f"{stem}-{i:05d}" for i in range(1, campaigns + 1))
    seeds = tuple(random.Random(f"{seed}:{system}:{i}").getrandbits(62) for i in range(1, campaigns + 1))
    return SimulationPlan(system, seed, names, seeds)


def simulators() -> list[str]:
    """The installed systems ``simulate`` can play: those with an autoplayer or a simulator."""
    from ledger.systems import get_system, system_names

    return [n for n in system_names() if get_system(n).autoplay or get_system(n).simulate]


def check_simulator(system: str) -> None:
    """Refuse, before anything is recorded, a system that cannot be simulated."""
    from ledger.errors import LedgerError
    from ledger.systems import get_system

    get_system(system)
    if system not in simulators():
        raise LedgerError(
            f"the {system} system has no simulator yet; simulate one of: {', '.join(simulators())}"
        )


def _play(ledger: Any, system: str, name: str, seed: int, days: int) -> None:
    """Create and play one campaign: the system's simulator, or its autoplayer in one batch."""
    from ledger.systems import get_system

    sysdef = get_system(system)
    autoplay = sysdef.autoplay
    if sysdef.simulate is not None:
        sysdef.simulate(ledger, name, seed, days)
    elif autoplay is not None:
        ledger.new_campaign(system, name, seed=seed)
        with ledger.batch(name) as batch:
            autoplay(batch, name, days)
    else:
        check_simulator(system)


class Simulator:
    """Plays campaigns in a scratch ledger of its own, then appends each one, registration and
    every event, to the real ledger in one transaction: a run killed at any moment leaves
    each of its campaigns whole or absent, never a stub."""

    RENEW = 100
    """Campaigns played in one scratch ledger before it is replaced by an empty one."""

    def __init__(self, ledger: Any, system: str, days: int) -> None:
        self.ledger = ledger
        self.system = system
        self.days = days
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._scratch: Any = None
        self._played = 0

    def __enter__(self) -> Simulator:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._scratch is not None:
            self._scratch.close()
            self._scratch = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def _fresh_scratch(self) -> Any:
        from ledger.campaign import Ledger

        if self._scratch is None or self._played >= self.RENEW:
            self.close()
            self._folder = tempfile.TemporaryDirectory(prefix="ledger-sim-", dir=_scratch_dir())
            self._scratch = Ledger(str(Path(self._folder.name) / "play.ledger"))
            self._played = 0
        return self._scratch

    def play(self, name: str, seed: int) -> None:
        """Play campaign ``name`` and record it whole (refused if the name is taken)."""
        from ledger.errors import DuplicateNameError
        from ledger.events import CampaignRegistered

        if name in {c.name for c in self.ledger.campaigns()}:
            raise DuplicateNameError(f"a campaign named {name!r} exists; choose another name")
        scratch = self._fresh_scratch()
        _play(scratch, self.system, name, seed, self.days)
        self._played += 1
        played = scratch.campaign(name)
        rows = [
            (played.id, stored.originator_version, stored.topic, bytes(stored.state))
            for stored in scratch.store.read(played.id)
        ]

        def make() -> tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]:
            registered = CampaignRegistered(
                campaign_id=played.id, name=name, system=self.system, simulated=True
            )
            return registered, rows

        self.ledger.register(make)


def _scratch_dir() -> str | None:
    """Shared memory when the machine has it (a scratch ledger need never reach a disk)."""
    import os

    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def simulate_campaign(ledger: Any, system: str, name: str, seed: int, days: int) -> None:
    """Create and play one campaign, recorded whole in one transaction (see :class:`Simulator`)."""
    with Simulator(ledger, system, days) as simulator:
        simulator.play(name, seed)


def still_to_simulate(ledger: Any, run: SimulationPlan) -> list[tuple[str, int]]:
    """The (name, seed) of each campaign of ``run`` not recorded yet: a run stopped part-way
    resumes where it stopped. A campaign of the run's name that another run (or a player)
    made is refused."""
    from ledger.errors import DuplicateNameError
    from ledger.events import CampaignStarted

    known = {c.name: c for c in ledger.campaigns()}
    todo = []
    for name, seed in zip(run.names, run.seeds, strict=True):
        camp = known.get(name)
        if camp is None:
            todo.append((name, seed))
            continue
        started = ledger.envelope(camp, 1).event if camp.parent_id is None else None
        if camp.system != run.system or not isinstance(started, CampaignStarted) or started.seed != seed:
            raise DuplicateNameError(
                f"campaign {name!r} exists already and is not part of this run; use another `seed` or `prefix`",
                field="prefix",
            )
    return todo


# --- the demo ----------------------------------------------------------------------------------


def _own_words(fix: Fix) -> str:
    return fix.text


def demo_report(
    ledger: Any,
    warehouse: Warehouse,
    echo: Callable[[str], None],
    *,
    campaigns: int | None = None,
    seed: int = 7,
    word: Callable[[Fix], str] = _own_words,
) -> dict[str, Any]:
    """The statistics part of ``ledger demo``: simulate (once) the campaigns each installed
    system shows there (``System.stats_demo``; ``campaigns`` of each when given), then report
    luck, the survival curve, what each system says of its campaigns and the physical dice
    check, read from ``warehouse`` (caught up here, after the simulations). Each step is
    echoed after ``$ `` as the operation that does it, a :class:`Fix` ``word`` says in the
    reader's words (its own text by default)."""
    from ledger.systems import installed

    shown = [(system.name, system.stats_demo) for system in installed() if system.stats_demo is not None]
    for name, demo in shown:
        count = demo.campaigns if campaigns is None else campaigns
        run = plan(name, count, seed)
        known = {c.name for c in ledger.campaigns()}
        todo = [(n, s) for n, s in zip(run.names, run.seeds, strict=True) if n not in known]
        if todo:
            step = fix_command(
                f"simulate {name}",
                f"simulate {count} {name} {plural(count, 'campaign')} from seed {seed}",
                options=(f"campaigns {count}", f"seed {seed}"),
            )
            echo(f"$ {word(step)}")
            with Simulator(ledger, name, demo.days) as simulator:
                for campaign, campaign_seed in todo:
                    simulator.play(campaign, campaign_seed)
    warehouse.catch_up()
    con = warehouse.connect_read_only()
    try:
        data = report(con, Scope(simulated=True), ["overview", "luck", "fairness", "survival"])
        remarks = [line for _, demo in shown if demo.lines is not None for line in demo.lines(con)]
    finally:
        con.close()
    echo(
        f"$ {word(fix_command('stats', 'report on every campaign, simulated ones included', options=('simulated',)))}"
    )
    ov, lk = data["overview"], data["luck"]["overall"]
    echo(
        f"{counted(ov['campaigns'], 'campaign')}, {counted(ov['events'], 'event')}, {counted(ov['rolls'], 'roll')}; "
        f"luck index {_signed(lk['luck'])} over {counted(lk['judged'], 'die', 'dice')} thrown with a known chance "
        f"(kept luck {_signed(lk['kept']['luck'])}, {counted(lk['mulligans']['rolls'], 'mulligan')})"
    )
    curve = data["survival"]
    if curve:
        enough = max(1, curve[0]["at_risk"] // 10)
        kept = [row for row in curve if row["at_risk"] >= enough]
        echo("survival by day (Kaplan-Meier):")
        for line in _survival_lines(kept)[::2]:
            echo(line)
    for line in remarks:
        echo(line)
    judged = [die for die in data["fairness"] if die["p_value"] is not None]
    for die in judged:
        echo(
            f"physical {die['die']}: {counted(die['throws'], 'throw')}, p = {die['p_value']:.3g}, {die['verdict']}"
        )
    if len(judged) < len(data["fairness"]):
        echo("other physical dice: too few throws to judge yet")
    return data


# --- luck straight from the log (for sheets) ------------------------------------------------------


def luck_from_log(
    ledger: Any, campaign: str | None = None, character: str | None = None, *, version: int | None = None
) -> dict[str, Any]:
    """The luck index of one campaign's dice, read from the log without the warehouse:
    cheap enough for a character sheet.

    Counts every roll with a recorded probability of success along the branch's
    whole history up to ``version`` (a fork includes the history it shares with its
    parent), undone ones included: those dice were thrown, as in :func:`luck`."""
    from ledger.events import CORE_EVENTS, Rolled
    from ledger.facts import RollFact, rolled_fact

    camp = ledger.campaign(campaign)
    hook = ledger.system(camp).facts
    judged = wins = 0
    expected = variance = 0.0
    for env in ledger.envelopes(camp, 0, version):
        ev = env.event
        if isinstance(ev, Rolled):
            facts: list[Any] = [rolled_fact(ev)]
        elif hook is not None and type(ev) not in CORE_EVENTS:
            facts = hook(env)
        else:
            continue
        for fact in facts:
            if character is not None and (getattr(fact, "character", None) or env.actor) != character:
                continue
            if (
                isinstance(fact, RollFact)
                and fact.p_success is not None
                and fact.success is not None
                and not fact.opponent
            ):
                judged += 1
                wins += int(fact.success)
                expected += fact.p_success
                variance += fact.p_success * (1 - fact.p_success)
    idx = luck_index(wins, expected, variance)
    return {
        "judged": judged,
        "successes": wins,
        "expected": round(expected, 2),
        "luck": None if idx is None else _plain(round(idx, 2)),
    }
