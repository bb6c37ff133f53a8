"""Year Zero's own statistics: pushes and what they cost, and Rot over time
(``ledger stats --report pushes``, ``--report rot``), read from the tables of its own
fact types (``pushes``, ``rot``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.i18n import N_
from ledger.projections.stats.reports import Scope, rows
from ledger.projections.stats.tables import dict_table
from ledger.projections.yearzero.vocabulary import term
from ledger.systems import StatsReport

if TYPE_CHECKING:
    import duckdb


def pushes(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Pushed rolls by attribute and what they cost."""
    where, params = scope.where("NOT undone")
    sql = f"""SELECT system, attribute, count(*) AS pushes, sum(trauma) AS trauma,
       sum(gear_damage) AS gear_damage, sum(mutation_points) AS mutation_points
       FROM pushes {where} GROUP BY system, attribute ORDER BY pushes DESC, attribute"""
    return rows(con, sql, params)


def rot(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[dict[str, Any]]:
    """Rot over time: each campaign's Rot at the end of each day, averaged."""
    where, params = scope.where("NOT undone", "day IS NOT NULL")
    sql = f"""WITH last AS (
         SELECT stream, day, arg_max(total, position) AS total, arg_max(permanent, position) AS permanent,
                sum(change) FILTER (WHERE change > 0) AS gained
         FROM rot {where} GROUP BY stream, day)
       SELECT day, count(*) AS campaigns, round(avg(total), 2) AS mean_rot, max(total) AS max_rot,
              round(avg(permanent), 2) AS mean_permanent, coalesce(sum(gained), 0) AS gained
       FROM last GROUP BY day ORDER BY day"""
    return rows(con, sql, params)


def _pushes_shown(found: list[dict[str, Any]]) -> list[str]:
    """The pushes table as read: each attribute by its name in the reader's language (the
    data, ``stats --json``, keeps the keys)."""
    return [dict_table([{**row, "attribute": term(str(row["attribute"]))} for row in found])]


REPORTS = {
    "pushes": StatsReport(title=N_("Pushes and their cost"), run=pushes, render=_pushes_shown),
    "rot": StatsReport(title=N_("Rot over time"), run=rot, render=lambda v: [dict_table(v)]),
}
"""Year Zero's reports (``ReadModel.reports``)."""
