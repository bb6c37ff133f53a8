"""What every crawl state the rules reach holds (``Rules.check_state``): an import runs
these on the state after each imported action, a second line behind deciding the action
again (an action recorded without a decision is only folded)."""

from __future__ import annotations

from msgspec.structs import replace

from ledger.i18n import _
from ledger.log.state import CampaignState
from ledger.projections.crawl.game import CAP, Crawl

MEALS_A_DAY = 3
"""The meals an explorer eats in a day at most (docs/rulings.md)."""
TRACKS = ("health", "energy")
"""Kept between 0 and CAP by every rule (``outcomes.capped``)."""
COUNTS = ("bits", "bar", "fruit", "arrows", "meals", "hunger_streak", "towns")
"""Never below zero."""


def check_state(before: CampaignState, after: CampaignState) -> str | None:
    """The first invariant the state after an action breaks, in a few words; None when it
    holds them all."""
    g, was = after.game, before.game
    if not isinstance(g, Crawl):
        return None
    if isinstance(was, Crawl) and not was.alive and replace(g, notes=was.notes) != was:  # a note is no act
        return _("the explorer acts after dying ({cause})", cause=was.cause or _("dead"))
    for name in TRACKS:
        value = getattr(g, name)
        if not 0 <= value <= CAP:
            return _(
                "{track} {value} is outside 0 to {cap}", track=_(name.capitalize()), value=value, cap=CAP
            )
    for name in COUNTS:
        value = getattr(g, name)
        if value < 0:
            return _("{count} {value} is below zero", count=name.replace("_", " "), value=value)
    if g.meals > MEALS_A_DAY:
        return _(
            "{meals} meals on day {day}, more than the {most} a day allows",
            meals=g.meals,
            day=g.day,
            most=MEALS_A_DAY,
        )
    return None
