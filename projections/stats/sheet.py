"""The luck a character sheet shows, read straight from the log (no warehouse)."""

from __future__ import annotations

from typing import Any

from ledger.facts import judged_rolls
from ledger.projections.stats.maths import luck_index, plain


def luck_from_log(
    ledger: Any, campaign: str | None = None, character: str | None = None, *, version: int | None = None
) -> dict[str, Any]:
    """The luck index of one campaign's dice, read from the log without the warehouse:
    cheap enough for a character sheet.

    Counts every roll with a recorded probability of success along the branch's
    whole history up to ``version`` (a fork includes the history it shares with its
    parent), undone ones included: those dice were thrown, as in the
    warehouse's luck report (:func:`ledger.projections.stats.reports.luck`)."""
    camp = ledger.campaign(campaign)
    hook = ledger.system(camp).read.facts
    judged = wins = 0
    expected = variance = 0.0
    for env in ledger.envelopes(camp, 0, version):
        for fact in judged_rolls(hook, env):
            if character is not None and (fact.character or env.actor) != character:
                continue
            p = float(fact.p_success)  # type: ignore[arg-type]
            judged += 1
            wins += int(fact.success)  # type: ignore[arg-type]
            expected += p
            variance += p * (1 - p)
    idx = luck_index(wins, expected, variance)
    return {
        "judged": judged,
        "successes": wins,
        "expected": round(expected, 2),
        "luck": None if idx is None else plain(round(idx, 2)),
    }
