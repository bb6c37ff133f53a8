"""``dicepool``: a d6 pool game of target numbers, the rule of six and damage staging.

The decider's handlers live in the modules beside this one: the test, defaulting
and joining (``checks``), the dice and exact odds (``dice``), damage codes and the
condition monitor (``damage``, with what the fold shares in ``model``), combat
(``combat``), the typed tables (``tables``) and the autoplayer (``play``). Rulings on what the Spanish text leaves open are in
``docs/rulings/dicepool.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledger.deciding.decider import Decider
from ledger.i18n import N_, _
from ledger.projections import sheets
from ledger.projections.dicepool import report as rep
from ledger.projections.dicepool import state as proj
from ledger.systems import Play, ReadModel, Rules, System
from ledger.systems.dicepool.checks import decide_test, join
from ledger.systems.dicepool.combat import (
    decide_attack,
    decide_dodge,
    decide_heal,
    decide_initiative,
    decide_resist,
)
from ledger.systems.dicepool.commands import Attack, Dodge, Heal, Initiative, Join, Resist, Test
from ledger.systems.dicepool.events import (
    EVENTS,
)
from ledger.systems.dicepool.facts import FACTS_SQL, facts
from ledger.systems.dicepool.invariants import check_state
from ledger.systems.dicepool.play import autoplay
from ledger.systems.dicepool.tables import SAMPLES, listing, load_tables
from ledger.systems.dicepool.tables import check_stored as stored_tables_check

SAMPLE_LOG = SAMPLES / "campaign.jsonl"
SAMPLE_NAME = "dicepool-sample"

decider = Decider("dicepool", proj.evolve)
decider.on(Join)(join)
decider.on(Test)(decide_test)
decider.on(Attack)(decide_attack)
decider.on(Dodge)(decide_dodge)
decider.on(Resist)(decide_resist)
decider.on(Initiative)(decide_initiative)
decider.on(Heal)(decide_heal)


# --- the demo ---------------------------------------------------------------------------------


def demo(book: Any, echo: Callable[[str], None]) -> None:
    """Import the sample street firefight and show its sheets and last exchange."""
    names = {c.name for c in book.campaigns()}
    if SAMPLE_NAME not in names:
        with Path(SAMPLE_LOG).open("rb") as data:
            book.import_(data, SAMPLE_NAME)
    echo(_("dicepool: {name} (a street firefight, chain verified on import)", name=SAMPLE_NAME))
    log = book.log(SAMPLE_NAME, show_all=True)
    first_wound = next(e.version for e in log if e.kind == "dicepool.resisted")
    example = proj.exchange_view(book.state(SAMPLE_NAME, at=first_wound).game.last)
    if example is not None:
        echo(
            _(
                "  the rules' worked example (v{version}): {exchange}",
                version=first_wound,
                exchange=proj.exchange_text(example),
            )
        )
    for entry in log[-10:]:
        who = f" {entry.actor}:" if entry.actor else ""
        mark = _(" [undone]") if entry.undone else ""
        echo(f"  v{entry.version}{who} {entry.summary}{mark}")
    state = book.state(SAMPLE_NAME)
    target = state.game.last.target if state.game.last else None
    echo(sheets.text(sheets.view(proj.SHEET, proj.sheet(state, target))))


SYSTEM = System(
    name="dicepool",
    description=N_("d6 pools against target numbers: rule of six, combat pool, damage staging"),
    rules=Rules(
        initial=proj.initial,
        evolve=proj.evolve,
        decide=decider,
        load_tables=load_tables,
        check_tables=stored_tables_check,
        check_state=check_state,
        events=EVENTS,
        commands=decider.commands,
        creates=Join,
    ),
    read=ReadModel(
        sheet=proj.sheet,
        sheet_layout=proj.SHEET,
        forms=proj.FORMS,
        listing=listing,
        facts=facts,
        facts_sql=FACTS_SQL,
        health_tracks=("physical",),
        report=rep.HOOKS,
    ),
    play=Play(
        demo=demo,
        autoplay=autoplay,
    ),
)
