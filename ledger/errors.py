"""One error hierarchy for everything a user can get wrong.

Every message says what was expected and what was got, on a single line, in
the library's words; how to put it right is a :class:`Fix`, one operation of a
closed set (:data:`FIXES`) with typed arguments, data a program can act on. No
message or fix names an option or a command of the command line: an input is
named as a library caller passes it. The command line words the fix as a
command (``ledger.cli.fixes``) and turns any ``LedgerError`` into one line and a
non-zero exit; nothing is recorded when one is raised.
"""

from __future__ import annotations

import msgspec

from ledger.i18n import _, n_


class Input(msgspec.Struct, frozen=True):
    """An input to give, as a library caller names it (``faces``, ``campaign``), and the
    value to give it when it takes one, as the user reads it (``NAME``, ``long``, ``0``)."""

    name: str
    value: str = ""


class Fix(msgspec.Struct, frozen=True, kw_only=True, tag_field="action"):
    """How to put a refusal right: one operation of a closed set, each with typed arguments,
    tagged by ``action`` so a front end can map it to its own controls.

    ``text`` says it in the library's words. An operation's inputs are named in backquotes
    there as in every message (```db```); an operation that is a command names it in
    backquotes too (```dice reveal```) where the words around it are more than doing it. A
    front end words the fix as its own controls (``ledger.cli.fixes`` as a command line)."""

    text: str

    @property
    def action(self) -> str:
        """Which operation the fix is: its tag (``"undo"``, ``"command"``)."""
        return str(self.__struct_config__.tag)


class Undo(Fix, frozen=True, tag="undo"):
    """Take the last action back."""


class ChooseCharacter(Fix, frozen=True, tag="choose_character"):
    """Say which character acts, for this command: one of ``characters``."""

    characters: tuple[str, ...] = ()


class ChooseActor(Fix, frozen=True, tag="choose_actor"):
    """Choose the character who acts from now on: one of ``characters``."""

    characters: tuple[str, ...] = ()


class CreateCharacter(Fix, frozen=True, tag="create_character"):
    """Create a character first."""


class CreateCampaign(Fix, frozen=True, tag="create_campaign"):
    """Start the campaign ``name`` first."""

    name: str


class SystemCommands(Fix, frozen=True, tag="system_commands"):
    """Use one of the commands of ``system``."""

    system: str


class RunCommand(Fix, frozen=True, tag="command"):
    """Do what the operation ``command`` does (``verify``, ``dice reveal``), with its
    ``arguments`` as the user reads them and its ``options``; with ``system``, the operation
    is one of that system's commands (``supply``)."""

    command: str
    arguments: tuple[str, ...] = ()
    options: tuple[Input, ...] = ()
    system: str | None = None


class GiveOption(Fix, frozen=True, tag="option"):
    """Give ``inputs`` with the command: every one of them when ``every``, else any one
    (``exclusive``: one, not more); with ``system``, they are inputs of that system's
    command."""

    inputs: tuple[Input, ...]
    every: bool = False
    exclusive: bool = False
    system: str | None = None


class DropOption(Fix, frozen=True, tag="drop_option"):
    """Leave ``inputs`` out (their names): every one of them when ``every``, else one of
    them; with ``system``, they are inputs of that system's command."""

    inputs: tuple[str, ...]
    every: bool = False
    system: str | None = None


class EditTable(Fix, frozen=True, tag="edit_tables"):
    """Fix ``table`` in the table file."""

    table: str


class ReadTable(Fix, frozen=True, tag="read_table"):
    """Look at ``table``."""

    table: str


class Setting(Fix, frozen=True, tag="setting"):
    """Start the campaign again with the setting ``key`` given."""

    key: str


class Other(Fix, frozen=True, tag="other"):
    """Anything else: ``text`` says it."""


FIXES: tuple[type[Fix], ...] = (
    Undo,
    ChooseCharacter,
    ChooseActor,
    CreateCharacter,
    CreateCampaign,
    SystemCommands,
    RunCommand,
    GiveOption,
    DropOption,
    EditTable,
    ReadTable,
    Setting,
    Other,
)
"""Every operation a fix can be: the closed set a front end words."""

AnyFix = (
    Undo
    | ChooseCharacter
    | ChooseActor
    | CreateCharacter
    | CreateCampaign
    | SystemCommands
    | RunCommand
    | GiveOption
    | DropOption
    | EditTable
    | ReadTable
    | Setting
    | Other
)
"""The type of a fix as data (``msgspec.convert(data, AnyFix)`` reads one back)."""


def named(name: str) -> str:
    """An input's name in the library's words (in backquotes, as a caller passes it): the
    default speller of the report lines that say which input to give (``spell=``)."""
    return f"`{name}`"


class LedgerError(Exception):
    """Base class: a refusal that names the problem, and its fix when there is one.

    ``field`` names the input the refusal is about, as a library caller passes it
    (``faces``, ``seed``, ``client_seed``); the message writes an input's name in
    backquotes (```seed` 5 is out of range``), and an operation's (```query` is
    read-only``), so a front end can name its own control for it."""

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
        hint = _("known: {names}", names=", ".join(known)) if known else _("none exist yet")
        shown = name if name.isprintable() else "NAME"
        super().__init__(
            _("no campaign named {name!r} ({hint})", name=name, hint=hint),
            fix=CreateCampaign(text=_("start a campaign named {name} first", name=shown), name=shown),
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
        shown = ", ".join(characters[:8])
        if len(characters) > 8:
            shown = _("{names} and {more} more", names=shown, more=len(characters) - 8)
        super().__init__(
            n_(
                "who acts? {campaign!r} has {n} character ({names}) and none is chosen",
                "who acts? {campaign!r} has {n} characters ({names}) and none is chosen",
                len(characters),
                campaign=campaign,
                names=shown,
            ),
            fix=ChooseActor(text=_("choose the character who acts"), characters=tuple(characters)),
        )
        self.campaign = campaign
        self.characters = characters


class UnknownSystemError(LedgerError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(
            _("unknown system {name!r}; choose one of: {known}", name=name, known=", ".join(known))
        )
        self.name = name
        self.known = known


class PluginError(LedgerError):
    """An installed system whose entry point does not give a working :class:`ledger.systems.System`."""

    def __init__(self, name: str, target: str, problem: str) -> None:
        if target:
            message = _(
                "the system {name!r} ({target}) is broken: {problem}; reinstall or remove its package",
                name=name,
                target=target,
                problem=problem,
            )
        else:
            message = _(
                "the system {name!r} is broken: {problem}; reinstall or remove its package",
                name=name,
                problem=problem,
            )
        super().__init__(message)
        self.name = name
        self.target = target
        self.problem = problem


class DuplicateNameError(LedgerError):
    pass


class NotationError(LedgerError):
    """Dice notation that cannot be parsed or would roll absurdly."""

    def __init__(self, notation: str, problem: str) -> None:
        super().__init__(
            _(
                "bad dice notation {notation!r}: {problem} (examples: 2d6+1, 4d6kh3, 2d20kl1, 3d6!, 8d6>=5)",
                notation=notation,
                problem=problem,
            )
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


class SealedError(LedgerError):
    """A sealed action that is not there, or not for the seat that asks: it names nothing
    of what the action holds."""


class VersionError(LedgerError):
    """A version or day outside the campaign's history."""


class ConflictError(LedgerError):
    """Another writer kept winning the race for the same campaign."""


class StaleVersionError(ConflictError):
    """The campaign is not at the version the caller decided on (``expected_version``):
    someone acted first, and nothing was recorded."""

    field = "expected_version"

    def __init__(self, campaign: str, expected: int, head: int) -> None:
        super().__init__(
            _(
                "campaign {campaign!r} is at version {head}, not {expected}: "
                "someone acted first; read the events and decide again",
                campaign=campaign,
                head=head,
                expected=expected,
            )
        )
        self.head = head


class TamperError(LedgerError):
    """A chain hash does not match: the log or export was edited."""

    exit_code = 4

    def __init__(self, campaign: str, version: int, problem: str, *, fix: Fix | None = None) -> None:
        super().__init__(
            _(
                "campaign {campaign!r} fails verification at version {version}: {problem}",
                campaign=campaign,
                version=version,
                problem=problem,
            ),
            fix=fix,
        )
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
        super().__init__(
            _(
                "{what} {value!r} is not allowed: {reason}; {allowed}",
                what=what,
                value=shown,
                reason=reason,
                allowed=allowed,
            ),
            field=field,
        )
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
