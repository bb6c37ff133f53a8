"""``ledger demo`` for d20: the derelict-station sample, its sheet and its fork."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.projections import sheets
from ledger.projections.d20.state import SHEET, sheet
from ledger.systems.d20.facts import facts
from ledger.systems.d20.tables import SAMPLES

MAIN, DARK = "demo-d20-derelict", "demo-d20-derelict-dark"
SHOWN = ("d20.attacked", "d20.unjammed", "d20.stressed", "d20.panicked", "d20.usage")


def _import(book: Any, name: str, file: str) -> None:
    if name not in {c.name for c in book.campaigns()}:
        with (SAMPLES / file).open("rb") as data:
            book.import_(data, name)


def demo(book: Any, echo: Callable[[str], None]) -> None:
    _import(book, MAIN, "campaign.jsonl")
    _import(book, DARK, "campaign-fork.jsonl")
    echo(f"  $ ledger import samples/d20/campaign.jsonl --name {MAIN}")
    echo(f"  $ ledger -c {MAIN} log   (combat and stress, abridged)")
    for e in book.log(MAIN):
        if e.kind in SHOWN:
            echo(f"    v{e.version:<3} {e.summary}")
    echo(f"  $ ledger -c {MAIN} sheet --as Parker")
    for line in sheets.text(sheets.view(SHEET, sheet(book.state(MAIN), "Parker"))).splitlines():
        echo(f"    {line}")
    dark = sheet(book.state(DARK), "Parker")
    echo(f"  $ ledger -c {DARK} sheet --as Parker   (the branch where the queen strikes first)")
    echo(f"    PV {dark['hp']['current']}/{dark['hp']['max']}, alive: {dark['alive']}")
    rolls = [
        f
        for env in book.effective(book.campaign(MAIN))
        for f in facts(env)
        if getattr(f, "p_success", None) is not None and f.purpose.startswith(("attack", "stress"))
    ]
    chances = ", ".join(f"{f.purpose} {f.p_success:.2f}" for f in rolls)
    echo(f"  exact chances of success recorded with each roll: {chances}")
