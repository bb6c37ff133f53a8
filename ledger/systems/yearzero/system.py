"""``yearzero``: Mutant: Year Zero. Base, skill and gear dice, the single push,
trauma and mutation points, gear damage and repair, armor, critical injuries,
daily needs and conditions, booze, Rot and travel through the Zone.

The deciders live in :mod:`ledger.systems.yearzero.commands`, the shared rules
(trauma, Rot, time) in :mod:`ledger.systems.yearzero.engine`, the tables in
:mod:`ledger.systems.yearzero.tables`; rulings are in docs/rulings/yearzero.md.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from ledger import words
from ledger.events import Envelope, Event
from ledger.projections import sheets
from ledger.projections.yearzero import report as rep
from ledger.projections.yearzero import state as proj
from ledger.systems import System
from ledger.systems.yearzero import HELP
from ledger.systems.yearzero import events as ev
from ledger.systems.yearzero import facts as f
from ledger.systems.yearzero import stats as yz_stats
from ledger.systems.yearzero.commands import decider
from ledger.systems.yearzero.facts_sql import FACTS_SQL
from ledger.systems.yearzero.invariants import check_state
from ledger.systems.yearzero.play import autoplay
from ledger.systems.yearzero.tables import check_settings, listing, load_tables
from ledger.systems.yearzero.tables import check_stored as stored_tables_check

SAMPLE_LOG = resources.files("ledger.samples") / "yearzero" / "campaign.jsonl"
FORK_LOG = resources.files("ledger.samples") / "yearzero" / "campaign-fork.jsonl"
SAMPLE_NAME = "yz-sample"
FORK_NAME = "yz-sample-turn-back"


def _faces(dice: ev.Pool) -> tuple[f.DieFace, ...]:
    return tuple(f.DieFace(6, x) for x in (*dice.base, *dice.skill, *dice.gear, *dice.negative))


def _rolled(e: ev.Rolled) -> list[f.Fact]:
    return [
        f.RollFact(
            purpose=e.skill or e.attribute,
            dice=_faces(e.dice),
            outcome="success" if e.success else "failure",
            successes=e.successes,
            success=e.success,
            manual=e.manual,
            p_success=e.p_success,
        )
    ]


def _pushed(e: ev.Pushed) -> list[f.Fact]:
    return [
        f.RollFact(
            purpose=f"push {e.skill or e.attribute}",
            dice=_faces(e.dice),
            outcome="success" if e.success else "failure",
            successes=e.successes,
            success=e.success,
            pushed=True,
            manual=e.manual,
            p_success=e.p_success,
        ),
        f.PushFact(
            attribute=e.attribute,
            trauma=e.trauma,
            gear_damage=e.gear_damage,
            mutation_points=e.mutation_points,
        ),
    ]


def _trauma(e: ev.Trauma) -> list[f.Fact]:
    return [f.WoundFact(track=e.attribute, amount=e.amount, cause=f"{e.trauma}: {e.cause}")]


def _recovered(e: ev.Recovered) -> list[f.Fact]:
    return [f.WoundFact(track=e.attribute, amount=-e.amount, cause=e.cause)]


def _booze(e: ev.Boozed) -> list[f.Fact]:
    return [
        f.WoundFact(track="strength", amount=-e.damage, cause="booze"),
        f.WoundFact(track="empathy", amount=-e.doubt, cause="booze"),
    ]


def _condition(e: ev.ConditionChanged) -> list[f.Fact]:
    return [f.ConditionFact(condition=e.condition, active=e.active)]


def _cold(e: ev.Hypothermia) -> list[f.Fact]:
    return [f.ConditionFact(condition="hypothermic", active=not e.warm)]


def _rot(e: ev.RotGained) -> list[f.Fact]:
    facts: list[f.Fact] = []
    if e.suit_faces:
        facts.append(
            f.RollFact(
                purpose="rot suit",
                dice=tuple(f.DieFace(6, x) for x in e.suit_faces),
                outcome="absorbed" if e.absorbed else "failed",
                success=e.absorbed,
            )
        )
    if not e.absorbed:
        facts.append(
            f.RollFact(
                purpose="rot", dice=tuple(f.DieFace(6, x) for x in e.rot_faces), outcome=f"{e.damage} damage"
            )
        )
        facts.append(f.RotFact(change=1, total=e.total, permanent=e.permanent, source=e.source))
    return facts


def _rot_lost(e: ev.RotLost) -> list[f.Fact]:
    return [f.RotFact(change=-e.lost, total=e.total, permanent=e.permanent, source=e.cause)]


def _died(e: ev.Died) -> list[f.Fact]:
    return [f.DeathFact(cause=e.cause)]


def _consumed(e: ev.Consumed) -> list[f.Fact]:
    return [f.MealFact(food=e.resource, contaminated=e.contaminated)]


def _rested(e: ev.Rested) -> list[f.Fact]:
    return [f.NightFact(kind="sleep" if e.sleep else "rest", hours=e.hours)]


def _day(e: ev.DayEnded) -> list[f.Fact]:
    return [f.DayFact(day=e.day)]


def _critical(e: ev.CriticalInjury) -> list[f.Fact]:
    return [
        f.RollFact(purpose="critical injury", dice=tuple(f.DieFace(6, x) for x in e.faces), outcome=e.name)
    ]


def _initiative(e: ev.Initiative) -> list[f.Fact]:
    return [f.RollFact(purpose="initiative", dice=(f.DieFace(6, e.face),), outcome=str(e.total))]


def _armor(e: ev.ArmorRolled) -> list[f.Fact]:
    return [
        f.RollFact(
            purpose=e.slot,
            dice=tuple(f.DieFace(6, x) for x in e.faces),
            outcome=f"stops {e.stopped}",
            successes=e.stopped,
        )
    ]


FACTS: dict[type[Event], Callable[[Any], list[f.Fact]]] = {
    ev.Rolled: _rolled,
    ev.Pushed: _pushed,
    ev.Trauma: _trauma,
    ev.Recovered: _recovered,
    ev.Boozed: _booze,
    ev.ConditionChanged: _condition,
    ev.Hypothermia: _cold,
    ev.RotGained: _rot,
    ev.RotLost: _rot_lost,
    ev.Died: _died,
    ev.Consumed: _consumed,
    ev.Rested: _rested,
    ev.DayEnded: _day,
    ev.CriticalInjury: _critical,
    ev.Initiative: _initiative,
    ev.ArmorRolled: _armor,
}


def facts(envelope: Envelope[Any]) -> list[f.Fact]:
    """Warehouse rows for one yearzero event (none for the others)."""
    make = FACTS.get(type(envelope.event))
    return make(envelope.event) if make is not None else []


def _imported(ledger: Any, name: str, path: Path) -> None:
    from ledger.errors import UnknownCampaignError

    try:
        ledger.campaign(name)
    except UnknownCampaignError:
        with path.open("rb") as data:
            ledger.import_(data, name)


def demo(ledger: Any, echo: Callable[[str], None]) -> None:
    """Import the sample week in the Zone (and its fork) and show sheets, the Rot and the map."""
    _imported(ledger, SAMPLE_NAME, SAMPLE_LOG)
    _imported(ledger, FORK_NAME, FORK_LOG)
    state = ledger.state(SAMPLE_NAME)
    game: proj.YZState = state.game
    echo(
        f"yearzero: {SAMPLE_NAME!r}, a week in the Zone, {words.count(state.core.version, 'event')}, "
        f"now {proj.clock(game.minute)['text']}"
    )
    for name in game.order:
        echo(sheets.text(sheets.view(proj.SHEET, proj.sheet(state, name))))
        echo("")
    echo(proj.render_rot(proj.rot_view(game)))
    echo("")
    echo(proj.render_zone(proj.zone_view(game)))
    alt = ledger.state(FORK_NAME).game
    alive = [n for n, c in alt.characters.items() if not c.dead]
    echo(
        f"fork {FORK_NAME!r} (the party turns back on day 2): {proj.clock(alt.minute)['text']}, "
        f"alive: {', '.join(alive) or 'nobody'}"
    )


SYSTEM = System(
    name=HELP.name,
    description=HELP.description,
    cli=HELP.cli,
    cli_name=HELP.cli_name,
    cli_help=HELP.cli_help,
    initial=proj.initial,
    evolve=proj.evolve,
    decide=decider,
    sheet=proj.sheet,
    sheet_layout=proj.SHEET,
    day=proj.day,
    load_tables=load_tables,
    check_tables=stored_tables_check,
    check_state=check_state,
    check_settings=check_settings,
    demo=demo,
    events=ev.EVENTS,
    commands=decider.commands,
    listing=listing,
    facts=f.attributed(facts, "character"),
    facts_sql=FACTS_SQL,
    fact_types=f.FACT_TYPES,
    health_tracks=("strength",),
    report=rep.HOOKS,
    reports=yz_stats.REPORTS,
    autoplay=autoplay,
    create="ledger.cli.yearzero:create",
)
