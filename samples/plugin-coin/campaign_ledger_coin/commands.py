"""The coin system's commands: what a player asks for, before the rules decide it.

A command's stable name is ``coin.<Class>`` (``coin.Flip``): it is stored with
every action it decides, so an import can decide the action again. Keep the
class names.
"""

from __future__ import annotations

from ledger.deciding.authority import OWN
from ledger.deciding.commands import Command


class Flip(Command, frozen=True, kw_only=True):
    """Call ``heads`` or ``tails``, then flip the coin."""

    authority = OWN

    call: str
