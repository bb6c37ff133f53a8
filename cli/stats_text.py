"""The statistics as terminal text: ``ledger stats``' report, its luck and survival lines."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ledger import i18n
from ledger.errors import named
from ledger.i18n import N_, _, n_
from ledger.projections.stats.maths import MIN_RANKED
from ledger.projections.stats.reports import REPORTS, system_reports
from ledger.projections.stats.tables import dict_table
from ledger.systems import loaded

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
                "cause": n_("({n} other cause)", "({n} other causes)", len(ranked) - 10),
                "deaths": sum(n for _, (n, _) in ranked[10:]),
                "first_day": None,
            }
        )
    return out


def signed(v: float | None) -> str:
    """A luck index with its sign, two decimals, as the language writes them (``+0,25``)."""
    if v is None:
        return "-"
    return ("-" if math.copysign(1.0, v) < 0 else "+") + i18n.number(abs(v), decimals=2)


def _successes(n: int | float) -> str:
    return n_("{n} success", "{n} successes", n)


def _rolls(n: int | float) -> str:
    return n_("{n} roll", "{n} rolls", n)


def survival_lines(curve: list[dict[str, Any]]) -> list[str]:
    if not curve:
        return [_("  (no campaign counts days)")]
    last = curve[-1]["day"]
    step = max(1, math.ceil((last + 1) / 15))
    shown = [row for row in curve if row["day"] % step == 0 or row["day"] == last]
    lines = []
    for row in shown:
        bar = "#" * round(row["survival"] * 40)
        survival = f"{row['survival']:6.1%}"
        if i18n.language() not in ("en", i18n.PSEUDO):
            survival = i18n.localize_digits(survival, i18n.language())
        lines.append(
            _(
                "  day {day:>3}  {survival}  {bar}  (at risk {at_risk})",
                day=row["day"],
                survival=survival,
                bar=bar,
                at_risk=row["at_risk"],
            )
        )
    return lines


def luck_lines(lk: dict[str, Any], undone: int = 0) -> list[str]:
    """The luck report as text: the luck index of every die thrown, then, each labelled,
    the kept luck and the mulligans; then the characters (all, or the extremes of those
    with rolls enough to rank, with how many rolls each). ``undone`` counts every undone
    roll, the ones with no chance of success to judge (a plain ``1d6``) included."""
    o = lk["overall"]
    if not o["judged"]:
        return [_("Luck: no rolls with a known chance of success yet")]
    kept, mull = o["kept"], o["mulligans"]
    lines = [
        _(
            "Luck: luck index {luck} over every die thrown: {successes} in {rolls}, {expected} expected "
            "(standard deviations above expectation; undone rolls included, sealed ones once revealed)",
            luck=signed(o["luck"]),
            successes=_successes(o["successes"] or 0),
            rolls=_rolls(o["judged"]),
            expected=o["expected"] or 0,
        ),
        n_(
            "  kept luck {luck}: the {n} roll that stayed, {successes}, {expected} expected",
            "  kept luck {luck}: the {n} rolls that stayed, {successes}, {expected} expected",
            kept["judged"],
            luck=signed(kept["luck"]),
            successes=_successes(kept["successes"] or 0),
            expected=kept["expected"] or 0,
        ),
    ]
    if mull["rolls"]:
        lines.append(
            n_(
                "  mulligans: {n} roll undone ({successes}, {expected} expected); "
                "undoing them moved the kept luck by {effect}",
                "  mulligans: {n} rolls undone ({successes}, {expected} expected); "
                "undoing them moved the kept luck by {effect}",
                mull["rolls"],
                successes=_successes(mull["successes"]),
                expected=mull["expected"],
                effect=signed(mull["effect"]),
            )
        )
    elif undone:
        lines.append(
            n_(
                "  mulligans: no roll with a chance of success undone (the {n} undone roll had no chance to judge)",
                "  mulligans: no roll with a chance of success undone (the {n} undone rolls had no chance to judge)",
                undone,
            )
        )
    else:
        lines.append(_("  mulligans: no roll undone"))
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
            n_(
                "  luckiest and unluckiest of {n} character with rolls enough to rank "
                "(at least {least} successes and {least} failures expected)",
                "  luckiest and unluckiest of {n} characters with rolls enough to rank "
                "(at least {least} successes and {least} failures expected)",
                len(ranked),
                least=MIN_RANKED,
            )
        )
        if len(ranked) < len(chars):
            unranked = len(chars) - len(ranked)
            lines.append(
                n_(
                    "  ({n} character with fewer rolls is not ranked)",
                    "  ({n} characters with fewer rolls are not ranked)",
                    unranked,
                )
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
    scoped = {"campaign": N_("campaign {name}"), "character": N_("character {name}")}
    what = " / ".join(_(scoped[k], name=v) for k, v in named.items() if v) or _("all campaigns")
    if scope.get("simulated") and not named["campaign"]:
        what = _("{what}, simulated ones included", what=what)
    ov = data.get("overview")
    head = _("Statistics: {what}", what=what)
    if ov:
        head = _(
            "Statistics: {what} ({campaigns}, {events}, {rolls})",
            what=what,
            campaigns=n_("{n} campaign", "{n} campaigns", ov["campaigns"]),
            events=n_("{n} event", "{n} events", ov["events"]),
            rolls=_rolls(ov["rolls"]),
        )
    out.append(head)
    left_out = scope.get("simulated_left_out")
    if left_out:
        out.append(
            n_(
                "({n} simulated campaign left out; {option} brings them in)",
                "({n} simulated campaigns left out; {option} brings them in)",
                left_out,
                option=spell("simulated"),
            )
        )
    if "luck" in data:
        out.append("")
        undone = sum(int(row.get("undone") or 0) for row in data.get("mulligans") or ())
        out.extend(luck_lines(data["luck"], undone))
    sections: list[tuple[str, str, Callable[[Any], list[str]]]] = [
        (
            "rolls",
            N_("Rolls against expectation"),
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
        ("mulligans", N_("Mulligans (undone rolls) by player"), lambda v: [dict_table(v)]),
        ("damage", N_("Damage taken and healed per day"), lambda v: [dict_table(v)]),
        ("damage_causes", N_("What did the damage"), lambda v: [dict_table(v)]),
        ("deaths", N_("Deaths by cause (by day: {option})"), lambda v: [dict_table(_by_cause(v))]),
        ("survival", N_("Survival by day (Kaplan-Meier)"), survival_lines),
        (
            "fairness",
            N_("Physical dice fairness (chi-square)"),
            lambda v: [dict_table(v, ["die", "throws", "chi2", "dof", "p_value", "verdict"])],
        ),
    ]
    for key, title, show in sections:
        value = data.get(key)
        if value is None or (key != "fairness" and not value):
            continue
        out.append("")
        out.append(_("{title}:", title=_(title, option=spell("json"))))
        if key == "fairness" and not value:
            out.append(_("  (no dice entered with {option})", option=spell("faces")))
            continue
        out.extend(show(value))
    extra = [key for key in data if key not in REPORTS and key != "scope"]
    own = system_reports(loaded()) if extra else {}  # the systems whose reports ran
    for key in extra:
        entry, value = own.get(key), data[key]
        if entry is None or entry.empty(value):
            continue
        out.append("")
        out.append(_("{title}:", title=i18n.translate(entry.title)))
        out.extend(entry.render(value))
    return "\n".join(out)
