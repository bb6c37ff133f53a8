"""The coin system played by the ledger itself: ``ledger simulate coin`` and ``ledger demo``."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from campaign_ledger_coin.commands import Flip
from campaign_ledger_coin.events import FACES


def autoplay(ledger: Any, campaign: str | None, days: int) -> int:
    """Flip ``days`` coins (a coin has no days: one flip stands for one), each against a
    call of its own; through a :class:`ledger.batch.Batch` or the ledger. Returns the flips.

    The calls follow the campaign's seed, the faces the campaign's dice."""
    seed = ledger.state(campaign).core.seed
    rng = random.Random(f"coin-autoplay:{seed if seed is not None else random.randrange(2**62)}")
    for _ in range(days):
        ledger.execute(Flip(call=rng.choice(FACES)), campaign)
    return days


DEMO = "demo-coin"
PLAYED = (("heads", "heads"), ("heads", "tails"), ("tails", "tails"), ("heads", "tails"))
"""The demo's flips, each (call, face) on a physical coin."""


def demo(book: Any, echo: Callable[[str], None]) -> None:
    """Four physical flips, the last one undone, and the sheet."""
    from campaign_ledger_coin.state import render_sheet, sheet

    if DEMO not in {c.name for c in book.campaigns()}:
        book.new_campaign("coin", DEMO)
        for call, face in PLAYED:
            book.execute(Flip(call=call), DEMO, faces=[FACES.index(face) + 1])
        book.undo(DEMO)
    echo(f"  $ ledger new coin {DEMO}")
    for call, face in PLAYED:
        echo(f"  $ ledger coin flip --call {call} --faces {face}")
    echo("  $ ledger undo        (the last flip is taken back)")
    echo("  $ ledger log --all")
    for e in book.log(DEMO, show_all=True):
        mark = "  [undone]" if e.undone else ""
        echo(f"    v{e.version:<3} {e.summary}{mark}")
    echo("  $ ledger sheet")
    for line in render_sheet(sheet(book.state(DEMO), None)).splitlines():
        echo(f"    {line}")
