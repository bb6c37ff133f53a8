"""The coin system played by the ledger itself: ``ledger simulate coin``.

(Its part of ``ledger demo`` shows command lines: it is the command line's, in ``cli.py``.)"""

from __future__ import annotations

import random
from typing import Any

from campaign_ledger_coin.commands import Flip
from campaign_ledger_coin.events import FACES


def autoplay(ledger: Any, campaign: str | None, days: int) -> int:
    """Flip ``days`` coins (a coin has no days: one flip stands for one), each against a
    call of its own; through a batch or the ledger. Returns the flips.

    The calls follow the campaign's seed, the faces the campaign's dice."""
    seed = ledger.state(campaign).core.seed
    rng = random.Random(f"coin-autoplay:{seed if seed is not None else random.randrange(2**62)}")
    for _ in range(days):
        ledger.execute(Flip(call=rng.choice(FACES)), campaign)
    return days
