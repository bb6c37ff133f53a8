"""The statistics as terminal text: ``ledger stats``' report, its luck and survival lines."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ledger.errors import named
from ledger.projections.stats.maths import MIN_RANKED
from ledger.projections.stats.reports import REPORTS, system_reports
from ledger.projections.stats.tables import dict_table
from ledger.systems import loaded
from ledger.words import count as counted
from ledger.words import plural

MAX_LUCK_ROWS = 12
"""Characters listed in the text report before it shows only the extremes."""


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


def signed(v: float | None) -> str:
    return "-" if v is None else f"{v:+.2f}"


def survival_lines(curve: list[dict[str, Any]]) -> list[str]:
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


def luck_lines(lk: dict[str, Any], undone: int = 0) -> list[str]:
    """The luck report as text: the luck index of every die thrown, then, each labelled,
    the kept luck and the mulligans; then the characters (all, or the extremes of those
    with rolls enough to rank, with how many rolls each). ``undone`` counts every undone
    roll, the ones with no chance of success to judge (a plain ``1d6``) included."""
    o = lk["overall"]
    if not o["judged"]:
        return ["Luck: no rolls with a known chance of success yet"]
    kept, mull = o["kept"], o["mulligans"]
    lines = [
        f"Luck: luck index {signed(o['luck'])} over every die thrown: {counted(o['successes'] or 0, 'success')} "
        f"in {counted(o['judged'], 'roll')}, {o['expected'] or 0} expected "
        "(standard deviations above expectation; undone rolls included, sealed ones once revealed)",
        f"  kept luck {signed(kept['luck'])}: the {counted(kept['judged'], 'roll')} that stayed, "
        f"{counted(kept['successes'] or 0, 'success')}, {kept['expected'] or 0} expected",
    ]
    if mull["rolls"]:
        lines.append(
            f"  mulligans: {counted(mull['rolls'], 'roll')} undone ({counted(mull['successes'], 'success')}, "
            f"{mull['expected']} expected); undoing them moved the kept luck by {signed(mull['effect'])}"
        )
    elif undone:
        lines.append(
            f"  mulligans: no roll with a chance of success undone "
            f"(the {counted(undone, 'undone roll')} had no chance to judge)"
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
        lines.append(dict_table(table))
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
        undone = sum(int(row.get("undone") or 0) for row in data.get("mulligans") or ())
        out.extend(luck_lines(data["luck"], undone))
    sections: list[tuple[str, str, Callable[[Any], list[str]]]] = [
        (
            "rolls",
            "Rolls against expectation",
            lambda v: [
                dict_table(
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
        ("mulligans", "Mulligans (undone rolls) by player", lambda v: [dict_table(v)]),
        ("damage", "Damage taken and healed per day", lambda v: [dict_table(v)]),
        ("damage_causes", "What did the damage", lambda v: [dict_table(v)]),
        ("deaths", f"Deaths by cause (by day: {spell('json')})", lambda v: [dict_table(_by_cause(v))]),
        ("survival", "Survival by day (Kaplan-Meier)", survival_lines),
        (
            "fairness",
            "Physical dice fairness (chi-square)",
            lambda v: [dict_table(v, ["die", "throws", "chi2", "dof", "p_value", "verdict"])],
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
    own = system_reports(loaded()) if extra else {}  # the systems whose reports ran
    for key in extra:
        entry, value = own.get(key), data[key]
        if entry is None or entry.empty(value):
            continue
        out.append("")
        out.append(f"{entry.title}:")
        out.extend(entry.render(value))
    return "\n".join(out)
