"""``ledger demo`` for d100: import the sample campaign and show what it holds."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

from ledger.i18n import _, n_
from ledger.projections import sheets
from ledger.projections.d100.state import SHEET, sheet
from ledger.systems.d100 import model

SAMPLE = resources.files("ledger.samples") / "d100" / "campaign.jsonl"
NAME = "la-casa-ibarra"
SHOWN = (
    "note",
    "d100.luck_spent",
    "d100.luck_refunded",
    "d100.horrified",
    "d100.treated",
    "d100.round_declared",
    "d100.dodge_resolved",
    "d100.wounded",
)


def demo(ledger: Any, echo: Callable[[str], None]) -> None:
    if NAME not in {c.name for c in ledger.campaigns()}:
        with SAMPLE.open("rb") as data:
            ledger.import_(data, NAME)
        echo(_("imported the d100 sample {name!r} (chain verified)", name=NAME))
    camp = ledger.campaign(NAME)
    entries = ledger.log(NAME)
    echo(
        n_(
            "{name}: {n} event; the scenes and the rolls that decided them:",
            "{name}: {n} events; the scenes and the rolls that decided them:",
            len(entries),
            name=NAME,
        )
    )
    for e in entries:
        if e.kind in SHOWN or (
            e.kind == "d100.tested" and e.event.level in ("fumble", "special", "critical")
        ):
            echo(f"  v{e.version:<3} {e.summary}")
    state = ledger.state(camp)
    for who in state.core.characters:
        echo(sheets.text(sheets.view(SHEET, sheet(state, who))))
    before = ledger.state(camp, day=0)
    bruno = sheet(before, "Bruno")
    echo(
        _(
            "time travel: at the end of day 0 Bruno was {state} (valor {current}/{max})",
            state=model.state(bruno["state"]),
            current=bruno["valor"]["current"],
            max=bruno["valor"]["max"],
        )
    )
