"""What every system's autoplayer shares: one campaign played through the ledger,
a command at a time, following the state each recorded action returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Player:
    """The campaign being played, its state and who hears of each recorded action."""

    def __init__(self, ledger: Any, campaign: str | None, on_action: Callable[[Any], None] | None) -> None:
        self.ledger, self.campaign, self.on_action = ledger, campaign, on_action
        self.state = ledger.state(campaign)

    def record(self, command: Any, actor: str | None = None) -> Any:
        """Record a command and follow the state it returns (a refusal raises)."""
        rec = self.ledger.execute(command, self.campaign, actor=actor)
        self.state = rec.state
        if self.on_action:
            self.on_action(rec)
        return rec
