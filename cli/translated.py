"""The command line's help in the reader's language.

Every help text of the command line (a command's, an option's, an argument's, a group's
line in its parent's list) is written in English, marked ``N_`` where it is written
(``help=N_("...")``: a docstring is not read by the catalogs' extractor) and put into words
when the help is shown, in the language of the moment (:mod:`ledger.i18n`). The commands of
the root group and of every :class:`~ledger.cli.systems.SystemGroup` are :class:`Command`
and :class:`Group` (a group's ``command()`` and ``group()`` make them), so a system's module
marks its help with ``N_`` and has nothing else to do. A plugin whose help is in its own
catalog sets ``catalog`` on its group (a class attribute or ``group.catalog = ...``): its
commands read theirs.

Click's own words ("Usage:", "Options:", "Show this message and exit.", "No such option",
"Try 'ledger --help' for help."...) go through the same catalog: click looks them up with
``gettext.gettext``, bound as ``_`` (and ``ngettext``) in each of its modules; :func:`install`
binds those names to :func:`said` and :func:`said_n` instead, which read the ledger's
catalog in the language of the moment. Their English sentences are listed below with ``N_``
so the catalogs hold them. Installed when this module is imported (by ``ledger.cli.root``,
before any command is made). English reads no catalog.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from ledger import i18n
from ledger.i18n import N_


class Said(str):
    """A sentence click asked for, in the language of the moment, that remembers its English
    (``msgid``): click keeps some (the help option's help) past the moment it asked."""

    msgid: str

    def __new__(cls, text: str, msgid: str) -> Said:
        made = super().__new__(cls, text)
        made.msgid = msgid
        return made


_SAID: dict[str, str] = {}
"""Each sentence click was given in another language than English, by the English it was
(an option's help loses :class:`Said`'s ``msgid`` to ``inspect.cleandoc``)."""


def said(message: str) -> str:
    """Click's ``gettext``: its sentence in the ledger's catalog, in the language of the moment."""
    text = i18n.translate(message)
    if text != message:
        _SAID.setdefault(text, message)
    return Said(text, message)


def said_n(singular: str, plural: str, n: int) -> str:
    """Click's ``ngettext``: the form for ``n`` in the language of the moment."""
    return i18n.CATALOG.say(i18n.language(), None, singular, plural, n)


CLICK_MODULES = (
    "click.core",
    "click.decorators",
    "click.exceptions",
    "click.formatting",
    "click.parser",
    "click.types",
    "click.termui",
    "click.utils",
)
"""The modules of click that look their words up with a module-level ``_``/``ngettext``."""


def install() -> None:
    """Make click say its words through the ledger's catalog (see the module's text)."""
    for name in CLICK_MODULES:
        module = sys.modules.get(name)
        if module is None:
            continue
        if getattr(module, "_", None) is not None:
            module._ = said  # type: ignore[attr-defined]
        if getattr(module, "ngettext", None) is not None:
            module.ngettext = said_n  # type: ignore[attr-defined]


def in_words(text: str | None, catalog: i18n.Catalog | None = None) -> str | None:
    """A help text (marked ``N_`` where it is written, or one click made) in the language
    of the moment."""
    if not text:
        return text
    msgid = getattr(text, "msgid", None) or _SAID.get(text, text)
    return (catalog or i18n.CATALOG).translate(msgid)


def catalog_of(command: click.Command) -> i18n.Catalog:
    """The catalog a command's help is in: its own ``catalog``, else the ledger's."""
    found = getattr(command, "catalog", None)
    return found if isinstance(found, i18n.Catalog) else i18n.CATALOG


@contextmanager
def shown(command: click.Command, ctx: click.Context | None = None) -> Iterator[None]:
    """``command``'s help texts (its own, its parameters', its help option's) in the language
    of the moment while the block runs, as they were after it."""
    catalog = catalog_of(command)
    params: list[click.Parameter] = list(command.params)
    if ctx is not None:
        helper = command.get_help_option(ctx)
        if helper is not None:
            params.append(helper)
    saved = (command.help, command.short_help, command.epilog)
    kept = [(p, getattr(p, "help", None)) for p in params]
    try:
        if not isinstance(getattr(type(command), "help", None), property):  # words its own
            command.help = in_words(command.help, catalog)
        command.short_help = in_words(command.short_help, catalog)
        command.epilog = in_words(command.epilog, catalog)
        for param, text in kept:
            if text and not isinstance(getattr(type(param), "help", None), property):
                param.help = in_words(text, catalog)  # type: ignore[attr-defined]
        yield
    finally:
        if not isinstance(getattr(type(command), "help", None), property):
            command.help = saved[0]
        command.short_help, command.epilog = saved[1], saved[2]
        for param, text in kept:
            if not isinstance(getattr(type(param), "help", None), property):
                param.help = text  # type: ignore[attr-defined]


USAGE_WORDS = (N_("[OPTIONS]"), N_("COMMAND [ARGS]..."))
"""The placeholders of a usage line (``ledger [OPTIONS] COMMAND [ARGS]...``)."""


class Translated(click.Command):
    """A command whose help is shown in the language of the moment."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = super().collect_usage_pieces(ctx)
        return [i18n.translate(p) if p in USAGE_WORDS else p for p in pieces]

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with shown(self, ctx):
            super().format_help(ctx, formatter)

    def get_short_help_str(self, limit: int = 45) -> str:
        with shown(self):
            return super().get_short_help_str(limit)


class Command(Translated):
    """A command of the ledger (see the module's text)."""


class Group(Translated, click.Group):
    """A group of the ledger: the commands and groups it makes are :class:`Command` and
    groups of its own class."""

    command_class = Command

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """Add ``cmd``; it says its help from this group's catalog unless it names its own."""
        own = getattr(self, "catalog", None)
        if own is not None and getattr(cmd, "catalog", None) is None:
            cmd.catalog = own  # type: ignore[attr-defined]
        super().add_command(cmd, name)


Group.group_class = Group


def short_help(command: click.Command, limit: int = 45) -> str:
    """A command's line in its group's list, in the language of the moment (also a command
    made by plain click: its help is looked up in the ledger's catalog)."""
    if isinstance(command, Translated):
        return command.get_short_help_str(limit)
    with shown(command):
        return command.get_short_help_str(limit)


# Click's own sentences, so that the catalogs hold them (click looks them up at run time,
# through :func:`said`). Their {fields} and %(fields)s are click's.
CLICK_WORDS = (
    N_("Aborted!"),
    N_("deprecated"),
    N_("Options"),
    N_("Positional arguments"),
    N_("Commands"),
    N_("Missing command."),
    N_("Value must be an iterable."),
    N_("DeprecationWarning: The command {name!r} is deprecated.{extra_message}"),
    N_("DeprecationWarning: The {param_type} {name!r} is deprecated.{extra_message}"),
    N_("env var: {var}"),
    N_("default: {default}"),
    N_("required"),
    N_("(dynamic)"),
    N_("Do you want to continue?"),
    N_("Confirm the action without prompting."),
    N_("%(prog)s, version %(version)s"),
    N_("Show the version and exit."),
    N_("Show this message and exit."),
    N_("Error: {message}"),
    N_("Try '{command} {option}' for help."),
    N_("Invalid value: {message}"),
    N_("Invalid value for {param_hint}: {message}"),
    N_("Missing argument"),
    N_("Missing option"),
    N_("Missing parameter"),
    N_("Missing {param_type}"),
    N_("Missing parameter: {param_name}"),
    N_("No such option {name!r}."),
    N_("No such command {name!r}."),
    N_("unknown error"),
    N_("Could not open file {filename!r}: {message}"),
    N_("Usage:"),
    N_("Invalid start character for option ({option})"),
    N_("Argument {name!r} takes {nargs} values."),
    N_("Option {name!r} does not take a value."),
    N_("Repeat for confirmation"),
    N_("Error: The two entered values do not match."),
    N_("Error: invalid input"),
    N_("Press any key to continue..."),
    N_("Choose from:\n\t{choices}"),
    N_("{value!r} is not a valid {number_type}."),
    N_("{value} is not in the range {range}."),
    N_("{value!r} is not a valid boolean. Recognized values: {states}"),
    N_("{value!r} is not a valid UUID."),
    N_("file"),
    N_("directory"),
    N_("path"),
    N_("{name} {filename!r} does not exist."),
    N_("{name} {filename!r} is a file."),
    N_("{name} {filename!r} is a directory."),
    N_("{name} {filename!r} is not readable."),
    N_("{name} {filename!r} is not writable."),
    N_("{name} {filename!r} is not executable."),
)


def _click_plurals() -> None:  # pragma: no cover - never called: it marks click's plurals
    n = 0
    i18n.n_("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})", n)
    i18n.n_("Takes {nargs} values but 1 was given.", "Takes {nargs} values but {len} were given.", n)
    i18n.n_("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)", n)
    i18n.n_("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments.", n)
    i18n.n_("{value!r} is not {choice}.", "{value!r} is not one of {choices}.", n)
    i18n.n_(
        "{value!r} does not match the format {format}.", "{value!r} does not match the formats {formats}.", n
    )
    i18n.n_(
        "{len_type} values are required, but {len_value} was given.",
        "{len_type} values are required, but {len_value} were given.",
        n,
    )


install()
