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

from ledger.errors import UnknownCampaignError
from ledger.i18n import N_, _, n_
from ledger.projections import sheets
from ledger.projections.yearzero import report as rep
from ledger.projections.yearzero import state as proj
from ledger.systems import Play, ReadModel, Rules, System
from ledger.systems.yearzero import events as ev
from ledger.systems.yearzero import stats as yz_stats
from ledger.systems.yearzero.commands import CreateCharacter, decider, decider_v1
from ledger.systems.yearzero.facts import FACT_TYPES, FACTS_SQL, facts
from ledger.systems.yearzero.invariants import check_state
from ledger.systems.yearzero.play import autoplay
from ledger.systems.yearzero.tables import check_settings, listing, load_tables
from ledger.systems.yearzero.tables import check_stored as stored_tables_check

SAMPLE_LOG = resources.files("ledger.samples") / "yearzero" / "campaign.jsonl"
FORK_LOG = resources.files("ledger.samples") / "yearzero" / "campaign-fork.jsonl"
SAMPLE_NAME = "yz-sample"
FORK_NAME = "yz-sample-turn-back"


def _imported(ledger: Any, name: str, path: Path) -> None:
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
        _(
            "yearzero: {name!r}, a week in the Zone, {events}, now {time}",
            name=SAMPLE_NAME,
            events=n_("{n} event", "{n} events", state.core.version),
            time=proj.clock(game.minute)["text"],
        )
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
        _(
            "fork {name!r} (the party turns back on day 2): {time}, alive: {alive}",
            name=FORK_NAME,
            time=proj.clock(alt.minute)["text"],
            alive=", ".join(alive) or _("nobody"),
        )
    )


SYSTEM = System(
    name="yearzero",
    description=N_(
        "Mutant: Year Zero: base/skill/gear dice, pushing, trauma, gear damage, conditions, Rot, Zone"
    ),
    rules=Rules(
        initial=proj.initial,
        evolve=proj.evolve,
        decide=decider,
        day=proj.day,
        load_tables=load_tables,
        check_tables=stored_tables_check,
        check_state=check_state,
        check_settings=check_settings,
        events=ev.EVENTS,
        commands=decider.commands,
        creates=CreateCharacter,
        rules_version=2,
        older_rules={1: decider_v1},
    ),
    read=ReadModel(
        sheet=proj.sheet,
        sheet_layout=proj.SHEET,
        forms=proj.FORMS,
        listing=listing,
        facts=facts,
        facts_sql=FACTS_SQL,
        fact_types=FACT_TYPES,
        health_tracks=("strength",),
        report=rep.HOOKS,
        reports=yz_stats.REPORTS,
    ),
    play=Play(
        demo=demo,
        autoplay=autoplay,
    ),
)
