"""The crawl's own statistics: hunger streaks (``ledger stats --report hunger``) and what
the statistics part of ``ledger demo`` says of its simulated explorers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.i18n import N_, _, n_
from ledger.projections.crawl.game import CHAPTER_DAYS, GOD_CHAPTER
from ledger.projections.stats.reports import Scope, rate, rows
from ledger.projections.stats.tables import dict_table
from ledger.systems import StatsDemo, StatsReport

if TYPE_CHECKING:
    import duckdb

GOD_DAY = next(day for day, chapter in CHAPTER_DAYS.items() if chapter == GOD_CHAPTER)
"""The day the explorer faces God (God's chapter opens on it)."""


def hunger(con: duckdb.DuckDBPyConnection, scope: Scope) -> dict[str, Any]:
    """Hunger streaks: the longest run of days without eating, per campaign."""
    where, params = scope.where("NOT undone", "hunger_streak IS NOT NULL")
    per = rows(
        con,
        f"""SELECT campaign, max(hunger_streak) AS longest,
        count(*) FILTER (WHERE ate = false) AS hungry_days, count(*) AS days
        FROM days {where} GROUP BY campaign""",
        params,
    )
    if not per:
        return {"campaigns": 0}
    spread: dict[int, int] = {}
    for r in per:
        spread[int(r["longest"])] = spread.get(int(r["longest"]), 0) + 1
    worst = max(per, key=lambda r: (r["longest"], r["campaign"]))
    return {
        "campaigns": len(per),
        "longest": worst["longest"],
        "longest_in": worst["campaign"],
        "mean_longest": round(sum(r["longest"] for r in per) / len(per), 2),
        "hungry_day_share": rate(sum(r["hungry_days"] for r in per), sum(r["days"] for r in per)),
        "by_longest": [{"longest": k, "campaigns": v} for k, v in sorted(spread.items())],
    }


def render_hunger(value: dict[str, Any]) -> list[str]:
    return [
        _(
            "  longest {days} ({campaign}), mean longest {mean}, hungry days {share:.1%}",
            days=n_("{n} day", "{n} days", value["longest"]),
            campaign=value["longest_in"],
            mean=value["mean_longest"],
            share=value["hungry_day_share"],
        ),
        dict_table(value.get("by_longest", [])),
    ]


REPORTS = {
    "hunger": StatsReport(
        title=N_("Hunger streaks"),
        run=hunger,
        render=render_hunger,
        empty=lambda value: not value.get("campaigns"),
    )
}
"""The crawl's reports (``ReadModel.reports``)."""


def deaths_before_god(con: duckdb.DuckDBPyConnection) -> list[str]:
    """How many explorers died before facing God, of all the crawl's deaths."""
    row = con.execute(
        f"SELECT count(DISTINCT stream) FILTER (WHERE day < {GOD_DAY}), count(DISTINCT stream) FROM deaths "
        "WHERE NOT undone AND system = 'crawl'"
    ).fetchone()
    if not row or not row[1]:
        return []
    return [
        _(
            "{characters} died before facing God on day {day} ({deaths} in all)",
            characters=n_("{n} character", "{n} characters", row[0]),
            day=GOD_DAY,
            deaths=n_("{n} death", "{n} deaths", row[1]),
        )
    ]


STATS_DEMO = StatsDemo(campaigns=200, days=30, lines=deaths_before_god)
"""200 simulated explorers, 30 days each, in ``ledger demo`` (``Play.stats_demo``)."""
