"""Who may issue a command, declared beside the command: whom it reaches.

Every command class declares an :class:`Authority` (``Command.authority``): whom the
command reaches (:class:`Reach`). A command that is the acting character's own deed
(a roll, a meal, marking one's own wound, healing a friend with one's own skill) may be
issued by any seat that acts, for its own character; everything else is the GM's: what
acts for the whole party, moves the game's clock, awards something, is the GM's ruling,
or brings a character in. A value of a field may widen it (:class:`When`: ``everyone:
true`` feeds the whole party). ``confirm`` marks what a player asks to confirm once before
sending it, for a player cannot take it back (undo is the GM's): what may kill or maim
their character, spend what does not come back, or change the game for the others.

A command that declares nothing is the GM's alone (the safe default), and the contract
test (tests/test_system_contract.py) refuses an installed system whose command declares
nothing. A party's action is recorded under no character (``Decision.party``): it is told
as the party's, with the seat that issued it.

The command line is the GM's tool: whoever holds the ledger file holds everything, and
nothing here limits it. The live table (``ledger serve``) checks each action against it.
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec


class Reach(enum.Enum):
    """Whom a command reaches, and so who may issue it: :attr:`OWN` any seat for its own
    character, every other the GM's seat alone."""

    OWN = "own"
    """The acting character's own deed: any seat that acts may issue it, for its own character."""
    PARTY = "party"
    """The whole party at once (time passing for all, the party moving, a new combat turn):
    the GM's, and recorded as the party's, under no character."""
    CLOCK = "clock"
    """One character's, but the game's clock moves for everyone (a rest, months of therapy)."""
    AWARD = "award"
    """Something given that no roll earned (luck, supplies, boxes healed): the GM's to give."""
    RULING = "ruling"
    """The GM's ruling on a roll (luck refunded because the roll was not needed)."""
    NEWCOMER = "newcomer"
    """It brings a character into the campaign."""


class When(msgspec.Struct, frozen=True, kw_only=True):
    """A value of one of a command's fields that changes what the command is: with
    ``field`` holding ``value`` it reaches ``reach`` (when given) and a player confirms it
    (when ``confirm``)."""

    field: str
    value: bool | int | str
    reach: Reach | None = None
    confirm: bool = False

    def holds(self, command: Any) -> bool:
        """Whether ``command`` (a command, or its fields as a dict: a decision's ``args``)
        has this value in this field."""
        given = command.get(self.field) if isinstance(command, dict) else getattr(command, self.field, None)
        return bool(given == self.value and type(given) is type(self.value))


class Authority(msgspec.Struct, frozen=True, kw_only=True):
    """Whom a command reaches as it is usually given, whether a player confirms it
    first, and the field values (:class:`When`) that change either."""

    reach: Reach
    confirm: bool = False
    when: tuple[When, ...] = ()


OWN = Authority(reach=Reach.OWN)
"""The declaration of a character's own deed, confirmed by nobody."""


def declared(kind: type) -> Authority | None:
    """The declaration of a command class (inherited from the class it derives from), or
    None when it declares none."""
    found = getattr(kind, "authority", None)
    return found if isinstance(found, Authority) else None


def reach_of(command: Any) -> Reach | None:
    """Whom ``command`` reaches with its values: the first of its declaration's
    :class:`When` that holds and names a reach, else its declared reach; None when its
    class declares nothing (the GM's alone)."""
    authority = declared(type(command))
    if authority is None:
        return None
    for when in authority.when:
        if when.reach is not None and when.holds(command):
            return when.reach
    return authority.reach


def confirmed(command: Any) -> bool:
    """Whether a player confirms ``command`` once before sending it, with its values."""
    authority = declared(type(command))
    if authority is None:
        return False
    return authority.confirm or any(w.confirm and w.holds(command) for w in authority.when)


def by_player(reach: Reach | None) -> bool:
    """Whether a player's seat may issue a command reaching ``reach`` (for its own character)."""
    return reach is Reach.OWN
