"""One error hierarchy for everything a user can get wrong.

Every message says what was expected and what was got, on a single line, in
the library's words; how to put it right is a :class:`Fix`, data a program can
act on. The command line words the fix as a command (``ledger.cli.fixes``) and
turns any ``LedgerError`` into one line and a non-zero exit; nothing is
recorded when one is raised.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec


class Fix(msgspec.Struct, frozen=True):
    """How to put a refusal right.

    ``action`` names what to do, from a small vocabulary a front end can map to
    its own controls: ``undo`` (take the last action back), ``choose_character``
    (say who acts; ``characters`` lists them), ``choose_actor`` (choose the character
    who acts from now on; ``characters`` lists them), ``create_character``,
    ``create_campaign`` (``name``), ``choose_campaign``, ``system_commands`` (see
    what the system takes; ``system``), ``command`` (do what the operation
    ``command`` does, introduced by ``verb``, or ``how``, with ``after`` following it:
    ``{"verb": "run", "command": "verify", "options": "all"}``, ``options`` being the
    inputs given with it, comma-separated, as a caller names them; with ``system``, the
    operation is one of that system's commands), ``edit_tables`` (``table``), ``read_table`` (look
    at ``table``), ``setting`` (``key``), ``option`` (give the input ``option``, with
    ``verb`` and ``after`` around it), ``drop_option`` (leave ``option`` out),
    ``other``. ``text`` says it in plain words for a reader of the library's messages."""

    action: str
    text: str
    detail: Mapping[str, str] = msgspec.field(default_factory=dict)


def command(
    operation: str,
    text: str,
    verb: str = "run",
    after: str = "",
    options: tuple[str, ...] = (),
    system: str | None = None,
) -> Fix:
    """A fix that is another operation of the ledger (``verify`` with ``options=("all",)``,
    ``undo 2``), or of a system's when ``system`` names it (``tick``): ``text`` says it in
    plain words, the front end names its own control for it (``verb`` before it, ``after``
    behind it, each of ``options`` after the operation: an input's name as a caller passes
    it, with words after it when it takes a value)."""
    detail = {"command": operation, "verb": verb}
    if system is not None:
        detail["system"] = system
    if after:
        detail["after"] = after
    if options:
        detail["options"] = ",".join(options)
    return Fix("command", text, detail)


def option(name: str, text: str, verb: str = "pass", after: str = "") -> Fix:
    """A fix that is an input to give again (``name`` as a library caller passes it, with
    words after it when it takes a value: ``at VERSION``):
    ``text`` says it in plain words (``verb`` before the option, ``after`` behind it)."""
    detail = {"option": name, "verb": verb}
    if after:
        detail["after"] = after
    return Fix("option", text, detail)


def named(name: str) -> str:
    """An input's name in the library's words (in backquotes, as a caller passes it): the
    default speller of the report lines that say which input to give (``spell=``)."""
    return f"`{name}`"


class LedgerError(Exception):
    """Base class: a refusal that names the problem, and its fix when there is one.

    ``field`` names the input the refusal is about, as a library caller passes it
    (``faces``, ``seed``, ``client_seed``); the message writes an input's name in
    backquotes (```seed` 5 is out of range``) so a front end can name its own
    control for it."""

    exit_code = 1
    field: str | None = None

    def __init__(self, message: str, *, fix: Fix | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        if field is not None:
            self.field = field

    def __str__(self) -> str:
        return self.message if self.fix is None else f"{self.message}; {self.fix.text}"


class StoreError(LedgerError):
    """The database target cannot be opened or written."""

    exit_code = 3

    def __init__(
        self, message: str, path: str | None = None, *, fix: Fix | None = None, field: str | None = None
    ) -> None:
        super().__init__(message, fix=fix, field=field)
        self.path = path


class NotALedgerError(StoreError):
    """The file or database exists but is not a campaign-ledger store."""


class UnknownCampaignError(LedgerError):
    def __init__(self, name: str, known: list[str]) -> None:
        hint = f"known: {', '.join(known)}" if known else "none exist yet"
        shown = name if name.isprintable() and " " not in name else "NAME"
        super().__init__(
            f"no campaign named {name!r} ({hint})",
            fix=Fix("create_campaign", f"start a campaign named {shown} first", {"name": shown}),
        )
        self.name = name
        self.known = known


class NoCurrentCampaignError(LedgerError):
    """No ``-c`` was given and the ledger has no current campaign to act on."""

    def __init__(self, message: str, known: list[str], *, fix: Fix | None = None) -> None:
        super().__init__(message, fix=fix)
        self.known = known


class NoActorError(LedgerError):
    """A command needs a character to act as, and the campaign has several, none chosen."""

    def __init__(self, campaign: str, characters: list[str]) -> None:
        shown = ", ".join(characters[:8]) + (
            f" and {len(characters) - 8} more" if len(characters) > 8 else ""
        )
        super().__init__(
            f"who acts? {campaign!r} has {len(characters)} characters ({shown}) and none is chosen",
            fix=Fix("choose_actor", "choose the character who acts", {"characters": ", ".join(characters)}),
        )
        self.campaign = campaign
        self.characters = characters


class UnknownSystemError(LedgerError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown system {name!r}; choose one of: {', '.join(known)}")
        self.name = name
        self.known = known


class PluginError(LedgerError):
    """An installed system whose entry point does not give a working :class:`ledger.systems.System`."""

    def __init__(self, name: str, target: str, problem: str) -> None:
        where = f" ({target})" if target else ""
        super().__init__(f"the system {name!r}{where} is broken: {problem}; reinstall or remove its package")
        self.name = name
        self.target = target
        self.problem = problem


class DuplicateNameError(LedgerError):
    pass


class NotationError(LedgerError):
    """Dice notation that cannot be parsed or would roll absurdly."""

    def __init__(self, notation: str, problem: str) -> None:
        super().__init__(
            f"bad dice notation {notation!r}: {problem} (examples: 2d6+1, 4d6kh3, 2d20kl1, 3d6!, 8d6>=5)"
        )
        self.notation = notation


class FacesError(LedgerError):
    """Physical dice given as ``faces`` do not fit the roll."""


class OutputExistsError(LedgerError):
    """A command would overwrite a file the user did not say it may replace."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


class RuleError(LedgerError):
    """The rules of the game refuse the command."""


class OutOfOrderError(RuleError):
    """A command given out of the game's fixed order."""


class GameOverError(RuleError):
    """The character is dead or the campaign has ended."""


class NothingToUndoError(LedgerError):
    pass


class VersionError(LedgerError):
    """A version or day outside the campaign's history."""


class ConflictError(LedgerError):
    """Another writer kept winning the race for the same campaign."""


class TamperError(LedgerError):
    """A chain hash does not match: the log or export was edited."""

    exit_code = 4

    def __init__(self, campaign: str, version: int, problem: str, *, fix: Fix | None = None) -> None:
        super().__init__(f"campaign {campaign!r} fails verification at version {version}: {problem}", fix=fix)
        self.problem = problem
        self.campaign = campaign
        self.version = version


class WarehouseError(LedgerError):
    """The warehouse (``ledger.projections.warehouse``) cannot be opened, written or queried."""


class TableError(LedgerError):
    """A user's table file is missing, malformed or incomplete."""


class ImportFileError(LedgerError):
    """An import file is malformed."""


class InvalidTextError(LedgerError):
    """A name or stored text that the ledger refuses: a line break, a control or
    invisible character, the wrong characters for a name, or too long."""

    def __init__(self, value: str, what: str, reason: str, allowed: str, *, field: str | None = None) -> None:
        shown = value if len(value) <= 40 else value[:40] + "..."
        super().__init__(f"{what} {shown!r} is not allowed: {reason}; {allowed}", field=field)
        self.value = value
        self.what = what
        self.reason = reason


class InvalidNameError(InvalidTextError):
    """A campaign or character name outside the allowed form."""


class SignatureError(LedgerError):
    """An export's signature does not hold, or a signature that was required is missing."""

    exit_code = 4

    def __init__(
        self,
        message: str,
        fingerprint: str | None = None,
        *,
        fix: Fix | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message, fix=fix, field=field)
        self.fingerprint = fingerprint


class PublicKeyError(LedgerError):
    """A public key given to trust, forget or check cannot be read or used."""


class OutputPathError(LedgerError):
    """A file the ledger was asked to write that it must not replace: one of the ledger's own
    files (or its warehouse's), a symlink, a folder or a device. Nothing is written."""

    def __init__(self, message: str, path: str, *, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.path = path


class OutputWriteError(StoreError):
    """A file or the standard output could not be written (a full disk, an I/O error, a
    missing folder); a file being replaced keeps its old contents."""


class WarehouseStorageError(WarehouseError):
    """The warehouse's disk is full or failing: a storage error. A warehouse that could not be
    laid out is not left behind half-made."""

    exit_code = 3
