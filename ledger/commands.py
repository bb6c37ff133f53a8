"""Commands every campaign accepts, and the core decider.

A command is what a player asks for; ``decide`` turns it into events or
refuses. Systems define their own commands the same way (``actor`` is filled
in by the ledger from ``--as`` or the campaign's default character).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from ledger import dice as dice_mod
from ledger.errors import DuplicateNameError, LedgerError
from ledger.events import CharacterAdded, Event, Noted, Rolled

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.'-]{0,63}$")


class Command(msgspec.Struct, frozen=True, kw_only=True):
    actor: str | None = None

    def introduces(self) -> str | None:
        """The character this command brings into the campaign, if any: the action is
        recorded under the newcomer, whoever typed it."""
        return None


class Introduction(Command, frozen=True):
    """A command that brings a character into the campaign, named ``name``."""

    name: str | None = None

    def introduces(self) -> str | None:
        return self.name


class Roll(Command, frozen=True):
    notation: str
    label: str = ""


class Note(Command, frozen=True):
    text: str


class AddCharacter(Introduction, frozen=True):
    name: str
    attrs: dict[str, str] = {}


def check_name(name: str, what: str) -> str:
    if not NAME_RE.match(name):
        raise LedgerError(
            f"{what} name {name!r} is not allowed; use 1-64 letters, digits, spaces or _ . ' -"
            " starting with a letter or digit"
        )
    return name


def decide_core(state: Any, command: Command, dice: dice_mod.Dice) -> list[Event] | None:
    """Events for a core command, or None when the command is not a core one."""
    if isinstance(command, Roll):
        result = dice_mod.roll(command.notation, dice)
        label = command.label.strip()
        if len(label) > 200 or not label.isprintable():
            raise LedgerError("--label must be one printable line of at most 200 characters; shorten it")
        return [
            Rolled(result=result, label=label, manual=dice.manual, p_success=dice_mod.p_any_success(result))
        ]
    if isinstance(command, Note):
        text = command.text.strip()
        if not text or not text.isprintable() or len(text) > 500:
            raise LedgerError("a note is one line of 1 to 500 characters; shorten or split it")
        return [Noted(text=text)]
    if isinstance(command, AddCharacter):
        check_name(command.name, "character")
        for key, value in command.attrs.items():
            if (
                not (key.isprintable() and str(value).isprintable())
                or len(key) > 64
                or len(str(value)) > 10_000
            ):
                raise LedgerError(
                    f"--attr {key!r} must be printable text (key up to 64, value up to 10000 characters)"
                )
        if command.name in state.core.characters:
            raise DuplicateNameError(f"character {command.name!r} already exists; pick another name")
        return [CharacterAdded(name=command.name, attrs=command.attrs)]
    return None


def check_text(value: str, what: str, limit: int) -> str:
    """``value`` when it is one printable line of at most ``limit`` characters."""
    if len(value) > limit or not value.isprintable():
        raise LedgerError(
            f"{what} must be one printable line of at most {limit} characters "
            "(no line breaks or control characters); shorten or fix it"
        )
    return value
