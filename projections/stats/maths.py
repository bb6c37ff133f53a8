"""The mathematics of the statistics: the luck index, the chi-square test that a die is
fair (with the incomplete gamma function it needs), the Kaplan-Meier survival curve, and
the rule for which luck indexes have rolls enough to be ranked."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import msgspec

from ledger.i18n import _

FLAG_P = 0.01
"""Dice whose chi-square p-value falls below this are flagged unfair."""
STRONG_P = 0.001
MIN_RANKED = 5
"""Fewest expected successes, and expected failures, for a luck index to be ranked: below
that the count of successes is too coarse for its standard deviations to compare (the
same rule as the chi-square's ``MIN_EXPECTED``)."""
MIN_EXPECTED = 5
"""Fewest expected throws per face for the chi-square test to mean anything."""


def luck_index(successes: float, expected: float, variance: float) -> float | None:
    """Standard deviations by which ``successes`` beat ``expected`` (None without variance)."""
    if variance <= 0:
        return None
    return (successes - expected) / math.sqrt(variance)


def _gamma_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its power series (x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _step in range(10_000):
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
            _("too few throws to judge ({throws}; need at least {need})", throws=throws, need=need),
        )
    p = chi2_sf(chi2, dof)
    if p < STRONG_P:
        verdict = _("unfair: a fair die gives faces this uneven less than 1 time in 1000")
    elif p < FLAG_P:
        verdict = _("suspicious: a fair die gives faces this uneven less than 1 time in 100")
    else:
        verdict = _("consistent with a fair die")
    return Fairness(size, throws, tuple(counts), chi2, dof, p, p < FLAG_P, verdict)


def plain(x: float) -> float:
    """``x`` with a negative zero made zero: a rounded -0.001 prints ``0.0``, never ``-0.0``."""
    return x + 0.0


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
    for day in range(min(0, min(d for d, _life in lives)), last + 1):
        dead = deaths_on.get(day, 0)
        if at_risk:
            s *= 1 - dead / at_risk
        curve.append({"day": day, "at_risk": at_risk, "deaths": dead, "survival": round(s, 4)})
        at_risk -= leaving.get(day, 0)
    return curve
