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

from ledger.decider import Decider
from ledger.events import Envelope
from ledger.facts import DeathFact, DieFace, Fact, RollFact, WoundFact, attributed
from ledger.projections import sheets
from ledger.projections.dicepool import report as rep
from ledger.projections.dicepool import state as proj
from ledger.systems import System
from ledger.systems.dicepool import HELP
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
    Attacked,
    Dodged,
    Healed,
    InitiativeRolled,
    Resisted,
    Roll,
    Tested,
)
from ledger.systems.dicepool.facts_sql import FACTS_SQL
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


# --- facts for the warehouse --------------------------------------------------------------


def _faces(roll: Roll) -> tuple[DieFace, ...]:
    faces: list[DieFace] = []
    for die in roll.dice:
        for i, face in enumerate(die.faces):
            faces.append(DieFace(size=6, face=face, reroll_of=len(faces) - 1 if i else None))
    return tuple(faces)


def _roll_fact(
    purpose: str, roll: Roll, manual: bool, outcome: str | None = None, character: str | None = None
) -> RollFact:
    success = roll.successes >= roll.needed
    return RollFact(
        character=character,
        purpose=purpose,
        dice=_faces(roll),
        outcome=outcome or ("success" if success else "failure"),
        target=roll.tn,
        successes=roll.successes,
        success=success,
        manual=manual,
        p_success=roll.p_success,
    )


def _resisted_facts(ev: Resisted) -> list[Fact]:
    facts: list[Fact] = [_roll_fact("resist", ev.roll, ev.manual, f"{ev.level or 'no'} wound")]
    if ev.boxes:
        facts.append(WoundFact(track=ev.track, amount=ev.boxes, cause=f"{ev.damage} staged to {ev.level}"))
    if ev.overflow > ev.body:
        facts.append(DeathFact(cause=f"{ev.damage} wound, overflow {ev.overflow}"))
    return facts


def _facts(env: Envelope[Any]) -> list[Fact]:
    ev = env.event
    if isinstance(ev, Attacked):
        return [_roll_fact("attack", ev.roll, ev.manual, "hit" if ev.hit else "miss", ev.attacker)]
    if isinstance(ev, Tested):
        return [_roll_fact(f"test:{ev.defaulting.wanted}", ev.roll, ev.manual)]
    if isinstance(ev, Dodged):
        return [_roll_fact("dodge", ev.roll, ev.manual, "dodged" if ev.remaining <= 0 else "hit")]
    if isinstance(ev, Resisted):
        return _resisted_facts(ev)
    if isinstance(ev, InitiativeRolled):
        return [
            RollFact(
                purpose="initiative",
                dice=tuple(DieFace(size=6, face=f) for f in e.faces),
                outcome=str(e.score),
                character=e.character,
                manual=ev.manual,
            )
            for e in ev.entries
        ]
    if isinstance(ev, Healed):
        return [WoundFact(track=ev.track, amount=-ev.boxes, cause=ev.reason or "healing")]
    return []


facts = attributed(_facts, "character")
"""Warehouse rows: every test with its exact odds, every wound and healing, each about the
character its event names (the attacker for an attack, each entry's for initiative)."""


# --- the demo ---------------------------------------------------------------------------------


def demo(book: Any, echo: Callable[[str], None]) -> None:
    """Import the sample street firefight and show its sheets and last exchange."""
    names = {c.name for c in book.campaigns()}
    if SAMPLE_NAME not in names:
        with Path(SAMPLE_LOG).open("rb") as data:
            book.import_(data, SAMPLE_NAME)
    echo(f"dicepool: {SAMPLE_NAME} (a street firefight, chain verified on import)")
    log = book.log(SAMPLE_NAME, show_all=True)
    first_wound = next(e.version for e in log if e.kind == "dicepool.resisted")
    example = proj.exchange_view(book.state(SAMPLE_NAME, at=first_wound).game.last)
    if example is not None:
        echo(f"  the rules' worked example (v{first_wound}): {proj.exchange_text(example)}")
    for entry in log[-10:]:
        who = f" {entry.actor}:" if entry.actor else ""
        mark = " [undone]" if entry.undone else ""
        echo(f"  v{entry.version}{who} {entry.summary}{mark}")
    state = book.state(SAMPLE_NAME)
    target = state.game.last.target if state.game.last else None
    echo(sheets.text(sheets.view(proj.SHEET, proj.sheet(state, target))))


SYSTEM = System(
    name=HELP.name,
    description=HELP.description,
    cli=HELP.cli,
    cli_help=HELP.cli_help,
    initial=proj.initial,
    evolve=proj.evolve,
    decide=decider,
    sheet=proj.sheet,
    sheet_layout=proj.SHEET,
    load_tables=load_tables,
    check_tables=stored_tables_check,
    check_state=check_state,
    demo=demo,
    events=EVENTS,
    commands=decider.commands,
    listing=listing,
    facts=facts,
    facts_sql=FACTS_SQL,
    health_tracks=("physical",),
    report=rep.HOOKS,
    autoplay=autoplay,
    create="ledger.cli.dicepool:create",
)
