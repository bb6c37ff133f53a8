"""Commands every campaign accepts, and the core decider.

A command is what a player asks for; ``decide`` turns it into events or
refuses. Systems define their own commands the same way (``actor`` is filled
in by the ledger from ``--as`` or the campaign's default character).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from ledger.deciding import authority as auth
from ledger.deciding.authority import OWN, Authority, Reach
from ledger.dice import sources as dice_mod
from ledger.errors import (
    DuplicateNameError,
    InvalidTextError,
    PluginError,
    named,
)
from ledger.i18n import _, n_
from ledger.log.events import CharacterAdded, Decision, Envelope, Event, Noted, Rolled
from ledger.text import (
    LABEL_LIMIT,
    NOTE_LIMIT,
    check_attrs,
    check_name,
    check_text,
    invisible_reason,
    nfc,
)

if TYPE_CHECKING:
    from ledger.systems import System


def _normalised(value: Any) -> Any:
    if isinstance(value, str):
        return value if value.isascii() else nfc(value)
    if isinstance(value, tuple):
        return tuple(_normalised(v) for v in value)
    if isinstance(value, dict):
        return {_normalised(k): _normalised(v) for k, v in value.items()}
    return value


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, tuple | list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)


def check_command_text(command: Command) -> None:
    """Refuse a command holding a line break, control or invisible character in any of
    its texts, even one its rules would strip away: the action keeps its command
    (``Envelope.decision``), and nothing stored may hold such a character."""
    for field in command.__struct_fields__:
        for text in _strings(getattr(command, field)):
            reason = invisible_reason(text)
            if reason is not None:
                raise InvalidTextError(
                    text,
                    named(field) if field != "text" else _("the text"),
                    reason,
                    _("type it on one line with visible characters only"),
                    field=field,
                )


class Command(msgspec.Struct, frozen=True, kw_only=True):
    actor: str | None = None

    authority: ClassVar[Authority | None] = None
    """Whom the command reaches, and so who may issue it at the live table
    (:mod:`ledger.deciding.authority`); every command class declares it. None: the class
    declares nothing, and only the GM may issue it."""

    def __post_init__(self) -> None:
        # Everything a player types is compared in NFC, the form names are stored in:
        # "Café" typed with a combining accent finds the campaign "Café".
        for field in self.__struct_fields__:
            value = getattr(self, field)
            normal = _normalised(value)
            if normal is not value and normal != value:
                msgspec.structs.force_setattr(self, field, normal)

    def introduces(self) -> str | None:
        """The character this command brings into the campaign, if any: the action is
        recorded under the newcomer, whoever typed it."""
        return None

    def reaches(self) -> Reach | None:
        """Whom this command reaches with these values (its ``authority``, a field's
        :class:`ledger.deciding.authority.When` applied); None when it declares nothing.
        A command whose reach depends on its values beyond a field's value overrides it."""
        return auth.reach_of(self)

    def confirms(self) -> bool:
        """Whether a player confirms this command, with these values, once before sending it."""
        return auth.confirmed(self)

    def by_party(self) -> bool:
        """Whether this command is the party's, recorded under no character."""
        return self.reaches() is Reach.PARTY


class Introduction(Command, frozen=True):
    """A command that brings a character into the campaign, named ``name``."""

    authority = Authority(reach=Reach.NEWCOMER)

    name: str | None = None

    def introduces(self) -> str | None:
        return self.name


class Roll(Command, frozen=True):
    authority = OWN

    notation: str
    label: str = ""


class Note(Command, frozen=True):
    authority = OWN

    text: str


class AddCharacter(Introduction, frozen=True):
    name: str
    attrs: dict[str, str] = {}


LABELLED_FROM = 4
"""The first notation rules under which the words after a roll (``1d20+5 attack``) are its
label when the command gives none: under older ones a roll sent without a label (from the
page or the API) recorded none."""


def decide_core(
    state: Any, command: Command, dice: dice_mod.Dice, semantics: int = dice_mod.SEMANTICS
) -> list[Event] | None:
    """Events for a core command, or None when the command is not a core one; a roll under
    the current notation rules, or (``semantics``) the older ones an action recorded under
    an older core rules version took."""
    if isinstance(command, Roll):
        result = dice_mod.roll(command.notation, dice, semantics)
        given = command.label
        if not given and semantics >= LABELLED_FROM:  # the words after the roll (1d20+5 attack)
            given = dice_mod.parse(command.notation, semantics).comment
        label = check_text(given, "`label`", LABEL_LIMIT, field="label")
        p, truncated = dice_mod.chance(result)
        cut = True if truncated else msgspec.UNSET
        return [Rolled(result=result, label=label, manual=dice.manual, p_success=p, p_truncated=cut)]
    if isinstance(command, Note):
        text = check_text(command.text, _("a note"), NOTE_LIMIT)
        if not text:
            raise InvalidTextError(
                text,
                _("a note"),
                _("it is empty"),
                n_(
                    "write one line of 1 to {n} character",
                    "write one line of 1 to {n} characters",
                    NOTE_LIMIT,
                ),
            )
        return [Noted(text=text)]
    if isinstance(command, AddCharacter):
        name = check_name(command.name, "character")
        attrs = check_attrs(command.attrs)
        if name in state.core.characters:
            raise DuplicateNameError(_("character {name!r} already exists; pick another name", name=name))
        return [CharacterAdded(name=name, attrs=attrs)]
    return None


CORE = "core"
"""The prefix of the commands every campaign takes (``core.Roll``)."""
_commands: dict[str, Mapping[str, type]] = {}


def stable_commands(system: System) -> Mapping[str, type]:
    """Every command a campaign of ``system`` takes, by its stable name.

    The core's are ``core.Roll``, ``core.Note`` and ``core.AddCharacter``; a
    system's are ``<system>.<Class>`` for each class in ``Rules.commands``. The
    name holds no module path, so a stored decision still finds its command
    after the system's modules move."""
    found = _commands.get(system.name)
    if found is not None:
        return found
    table: dict[str, type] = {f"{CORE}.{kind.__name__}": kind for kind in (Roll, Note, AddCharacter)}
    for kind in system.rules.commands:
        name = f"{system.name}.{kind.__name__}"
        if table.setdefault(name, kind) is not kind:
            raise PluginError(system.name, "", _("it has two commands named {name}", name=kind.__name__))
    found = MappingProxyType(table)
    _commands[system.name] = found
    return found


def command_name(system: System, kind: type) -> str | None:
    """The stable name of a command class in ``system`` (see :func:`stable_commands`), or None
    when the system takes no such command."""
    for name, known in stable_commands(system).items():
        if known is kind:
            return name
    return None


def party_action(system: System, decision: Decision | None) -> bool:
    """Whether an action decided so is the party's: its decision says so, or (an action
    recorded before decisions said so) its command, with its recorded values, reaches the
    whole party (``Command.by_party``)."""
    if decision is None:
        return False
    if decision.party:
        return True
    key = (system.name, decision.command)
    verdict = _party.get(key, ...)
    if verdict is ...:
        verdict = _party[key] = _party_by_class(stable_commands(system).get(decision.command))
    if verdict is not None:
        return verdict
    kind = stable_commands(system)[decision.command]
    found = auth.declared(kind)
    if kind.reaches is Command.reaches and found is not None:  # its declaration, on the recorded values
        reach = next(
            (w.reach for w in found.when if w.reach is not None and w.holds(decision.args)), found.reach
        )
        return reach is Reach.PARTY
    try:
        command = msgspec.convert(decision.args, kind)
    except msgspec.ValidationError:
        return False
    return bool(command.by_party())


_party: dict[tuple[str, str], bool | None] = {}
"""Per system and command, whether it is the party's whatever its values (None: its values say)."""


def _party_by_class(kind: type | None) -> bool | None:
    """Whether a command class is the party's whatever its values; None when its values
    may change it (a field's value widens it, or it overrides ``reaches``)."""
    if kind is None or not issubclass(kind, Command):
        return False
    found = auth.declared(kind)
    if found is None:
        return False
    if kind.reaches is not Command.reaches or any(w.reach is not None for w in found.when):
        return None
    return found.reach is Reach.PARTY


Told = tuple[Envelope[Any], bool, str | None]
"""An event with whether its action is the party's, and the seat that issued the action."""


def told_actions(
    system: System,
    envelopes: Iterable[Envelope[Any]],
    first: Callable[[Envelope[Any]], Decision | None] | None = None,
) -> Iterator[Told]:
    """Each event of ``envelopes`` (in order) with whether its action is the party's and
    the seat its action was recorded from, read from the decision on the action's first
    event. ``first`` finds that decision when the first event given has none (the events may
    begin inside an action: a page of the log); without it such an action is told as a
    character's."""
    action, party, seat = None, False, None
    for env in envelopes:
        if env.action != action:
            opening = action is None  # only the first event read may be inside an action
            action = env.action
            how = env.decision if env.decision is not None or first is None or not opening else first(env)
            party = party_action(system, how)
            seat = how.seat if how is not None else None
        yield env, party, seat
