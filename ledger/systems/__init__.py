"""The rule systems: the contract a system fills in, and where the installed ones are found.

A system is a :class:`System` published under the entry-point group
``campaign_ledger.systems`` (the built-in ones register there the same way, in
pyproject.toml). Each built-in system keeps its events, commands, rules, tables
and facts in ``ledger/systems/<name>/``, its folds in ``ledger/projections/<name>/``
and its commands in ``ledger/cli/<name>.py``, published under ``campaign_ledger.commands``
(:data:`COMMANDS_GROUP`); a plugin keeps them wherever it likes (docs/plugins.md). Nothing outside a system's own folders names it: the
rest of the ledger reaches a system through this contract alone.

A command is named the same wherever its class lives (:func:`commands`):
``core.<Class>`` for the commands every campaign takes, ``<system>.<Class>``
for a system's own, the classes its decider registers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.errors import PluginError, UnknownSystemError
from ledger.i18n import _

if TYPE_CHECKING:
    import duckdb

    from ledger.dice.sources import Dice
    from ledger.facts import Fact, FactQuery
    from ledger.log.events import Envelope, Event
    from ledger.log.state import CampaignState
    from ledger.tables.browse import Table

GROUP = "campaign_ledger.systems"
"""The entry-point group every system is published under."""

HELP_GROUP = "campaign_ledger.system_help"
"""The entry-point group where a system may publish its :class:`SystemHelp`, under the
system's name and from the distribution that publishes the system."""

COMMANDS_GROUP = "campaign_ledger.commands"
"""The entry-point group where a system may publish its commands on the command line, under
the system's name and from the distribution that publishes the system: a function the
command line calls with its root click group to register them on (the library never
imports click; docs/plugins.md)."""


class Refusal(Exception):
    """What a system's check of a stored roll raises (``Rules.roll_checks``) when the faces
    do not give the roll: ``problem`` in a few words; an import turns it into a refusal of
    the file, naming ``version`` when it is not the event being read."""

    def __init__(self, problem: str, version: int | None = None) -> None:
        super().__init__(problem)
        self.version = version


def _no_day(_game: Any) -> int | None:
    return None


Track = tuple[int | None, int | None]
"""One number the report draws over time: (value, maximum), either unknown (None)."""


class ReportHooks(msgspec.Struct, frozen=True, kw_only=True):
    """What a system adds to ``ledger report`` beyond the sheets, the journal and the rolls.

    The report draws, at every step of the campaign, what these give; each is optional."""

    map: Callable[[CampaignState], Any] | None = None
    """The state as the page draws it as a map, JSON-ready (called once the game has
    started). A list is stored entry by entry, so that steps share the entries that did
    not change (a hex map's hexes); anything else is stored whole."""
    map_kind: str | None = None
    """How the page draws ``map``: ``hex`` (a list of hexes: ``q``, ``r``, ``terrain``,
    ``icon``, ``number``, ``chapter``, ``enemy``, ``days`` walked, ``here``) or ``zone``
    (a dict of ``sectors`` by name, their grid ``cells``, the ``path``, the ``position``
    and the ``ark``); None: no map."""
    tracks: Callable[[dict[str, Any]], dict[str, Track]] | None = None
    """The numbers worth drawing over time from one character's sheet, name -> (value,
    maximum), besides the ones the report finds itself (every sheet value that is a
    ``{"current": N, "max": M}`` meter)."""
    charts: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    """The system's own charts over the tracks (each ``{"character", "name", "max",
    "values"}``): ``{"title", "series": [track index...], "bars": bool}``. They come first;
    each character's tracks that none of them draws get a chart of their own."""
    meters: Mapping[str, int] = msgspec.field(default_factory=dict)
    """Sheet values the page draws as a bar out of a fixed maximum, by key (``health: 20``)."""
    legend: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """What the map's legend needs from the campaign's tables (the report's ``legend``).
    The hex map reads ``terrains`` (terrain names in table order, each given its colour)
    and ``divine_signs`` (a sign's number -> the name the legend gives it)."""


class SheetField(msgspec.Struct, frozen=True):
    """One line of a sheet as a player reads it: the value at ``key`` (a dotted path into the
    dict ``ReadModel.sheet`` returns) under ``label``.

    A value that is a ``{"current": N, "max": M}`` meter is a track; so is a number with a
    ``max`` (a fixed maximum, or the dotted path of the value that holds it). ``show`` is a
    template that words the value instead (``"({position.q}, {position.r}) {position.terrain}"``),
    its ``{path}`` parts filled from the sheet. A field whose value is missing or None is left
    out, so a sheet shows what there is."""

    key: str
    label: str
    max: int | str | None = None
    show: str = ""


class SheetSection(msgspec.Struct, frozen=True):
    """A titled group of fields; ``when`` (a dotted path) shows it only while that value is
    set (a fight, a wound)."""

    title: str
    fields: tuple[SheetField, ...]
    when: str = ""


Given = str | int | float | bool
"""A value a declaration fills a command's field with."""


class Ask(msgspec.Struct, frozen=True, kw_only=True):
    """How the live table asks for one field of a command, in the command line's words:
    ``label`` is the name the command line gives it (its option without the dashes, or its
    argument: ``mod``, ``hours``), its line of help is that option's. ``choices`` are fixed
    choices; ``pick`` takes them from the sheet instead: the dotted path of a dict (its
    keys) or a list (its items, or their ``name``), ``@characters`` (the campaign's
    characters), ``@others`` (everyone but the sheet's character) or ``@tables.PATH`` (the
    keys of one of the campaign's tables); ``where`` keeps the entries whose value at each
    path is one of the values given (``{"kind": ("armor", "shield")}``; the path ``""`` is
    the entry itself). ``scale`` is what
    the command multiplies the number asked by (hours asked, minutes recorded: 60);
    ``flip``: the command line's flag sets the field to false (``--no-armor``).
    ``default`` is what the page fills in (None: the command's own default); ``low`` and
    ``high`` bound a number. ``help`` is the field's line of help for a system with no
    command line (the command line's own help is used when there is one)."""

    field: str
    label: str = ""
    help: str = ""
    choices: tuple[Given, ...] = ()
    pick: str = ""
    where: Mapping[str, tuple[Given | None, ...]] = msgspec.field(default_factory=dict)
    scale: int = 1
    flip: bool = False
    default: Given | None = None
    low: int | None = None
    high: int | None = None


class Control(msgspec.Struct, frozen=True, kw_only=True):
    """Something on the sheet a player taps to act: a skill to roll, a weapon to attack
    with, a usage die, a luck or calm point to spend. The live table draws it where the
    sheet shows the field ``on`` (a key of the layout's headline or sections), one control
    for the field, or one for each entry of the sheet's value at ``each`` (a dict's keys, a
    list's items) that ``where`` keeps (as :class:`Ask`'s; a control without ``each`` is
    kept when the sheet holds those values). A control on no field (``on`` empty) is offered beside the player's last result while ``when`` (a dotted path of the
    sheet) is set: a push, a panic that is due.

    Tapping it issues ``command`` (a stable name) with ``args``, each a value or a template:
    ``{key}`` is the entry's key (or item), ``{value}`` / ``{value.PATH}`` its value, any
    other ``{PATH}`` a value of the sheet. ``options`` are the fields a short sheet of
    options offers first (helpers, gear, a modifier, advantage), each with a default, so
    that a plain tap works; a field the command requires and neither ``args`` nor a
    default fills is asked before anything is sent. ``label`` words the control (a template
    like ``args``; default: the entry's key, or the field's label) and ``detail`` what it
    shows beside it (default: the entry's value)."""

    command: str
    on: str = ""
    each: str = ""
    where: Mapping[str, tuple[Given | None, ...]] = msgspec.field(default_factory=dict)
    args: Mapping[str, Given] = msgspec.field(default_factory=dict)
    options: tuple[Ask, ...] = ()
    label: str = ""
    detail: str = ""
    when: str = ""


class Form(msgspec.Struct, frozen=True, kw_only=True):
    """A command the live table offers as a short form, beside the sheet's controls.

    ``name`` is the command's name on the command line after ``ledger`` (``coin flip``:
    the system's group, then its command): the page calls it so too, and its help is the
    command line's. ``group`` says what a player is doing with it (``Travel``, ``Rest``,
    ``Harm``): the page groups the forms so. ``asks`` are its fields in the order asked
    (a field not asked keeps its default). ``seen``: the command names the state it acts
    on (a correction of the last action), so the page sends it with the version the
    player saw and a change in between refuses it; a roll, a check or a note never does.
    ``sheet``: the sheet's controls offer the command (a skill roll, a push), so the page
    draws no form of its own for it; the form still names it. ``help`` is its line of help
    for a system with no command line."""

    command: str
    name: str
    group: str
    asks: tuple[Ask, ...] = ()
    seen: bool = False
    sheet: bool = False
    help: str = ""


class SheetLayout(msgspec.Struct, frozen=True, kw_only=True):
    """How a system's sheet reads, declared once: the terminal (``ledger sheet``), its
    ``--json`` (``view``) and the report all draw it (:mod:`ledger.projections.sheets`).

    ``title`` holds templates (``"{name}, day {day}"``), the first whose every part the
    sheet holds being the title (a party sheet with no character yet); ``headline`` holds the few fields a
    player looks at first (tracks with their maximum); ``sections`` the rest, in order.
    What the layout does not name stays out of the sheet a player reads (it remains in the
    data ``ledger sheet --json`` gives). ``controls`` are what a player taps on the sheet
    at the live table to act (:class:`Control`)."""

    title: tuple[str, ...]
    headline: tuple[SheetField, ...] = ()
    sections: tuple[SheetSection, ...] = ()
    controls: tuple[Control, ...] = ()


class StatsReport(msgspec.Struct, frozen=True, kw_only=True):
    """A statistics report a system adds to ``ledger stats`` (``--report NAME``).

    ``run`` reads the warehouse: a DuckDB connection and the :class:`ledger.projections.stats.reports.Scope`
    of the rows to read (its ``where()`` builds the WHERE clause); it returns JSON-ready
    data, what ``stats --json`` prints under the report's name. ``render`` turns that into
    the lines printed under ``title``; ``empty`` says when there is nothing to show (the
    text leaves the report out)."""

    title: str
    run: Callable[[duckdb.DuckDBPyConnection, Any], Any]
    render: Callable[[Any], list[str]]
    empty: Callable[[Any], bool] = lambda value: not value


class StatsDemo(msgspec.Struct, frozen=True, kw_only=True):
    """What a system shows in the statistics part of ``ledger demo``: ``campaigns`` of its
    campaigns simulated once (``ledger simulate``, ``days`` each), which the statistics
    then read, and ``lines`` with what the system says of them (given a read-only DuckDB
    connection to the warehouse)."""

    campaigns: int = 200
    days: int = 30
    lines: Callable[[duckdb.DuckDBPyConnection], list[str]] | None = None


class Walkthrough(msgspec.Struct, frozen=True, kw_only=True):
    """A short walk through the system's play, for ``ledger --help``: a title line, then
    the commands in the order a player types them, each with what it does. It is the
    command line's words: a system's command group holds it (``ledger.cli.systems.SystemGroup``)
    and its published help the same."""

    title: str
    steps: tuple[tuple[str, str], ...]
    """(command line as typed, what it does)."""


class SystemHelp(msgspec.Struct, frozen=True, kw_only=True):
    """What ``ledger --help`` shows of a system, kept where importing it is cheap (a
    system's package ``__init__``) and published under :data:`HELP_GROUP`: the help lists
    every installed system without importing one. It holds what the help prints and
    nothing else: the name of the system's command group and its line in the command list
    (the group's own ``short_help``, published under :data:`COMMANDS_GROUP`), and the
    walkthrough (its group's ``walkthrough``); the contract test holds them equal. A system that
    publishes no help is loaded for it."""

    name: str
    """The system's name (its entry point's)."""
    command: str | None = None
    """The name of the system's command group on the command line (None: it has none)."""
    summary: str = ""
    """The group's line in ``ledger --help``."""
    walkthrough: Walkthrough | None = None


class Rules(msgspec.Struct, frozen=True, kw_only=True):
    """What a system records and how: its events and commands, the decider, the fold of its
    events into the game state, its tables and settings, and what an import checks.

    ``initial`` builds the game state from the campaign's start event; ``evolve`` folds one
    of the system's events into it (pure, never rolls) and returns the state unchanged for
    events it does not know; ``decide`` turns a command into events given the campaign
    state and the dice, or raises a LedgerError (usually a :class:`ledger.deciding.decider.Decider`,
    whose ``commands`` it lists); ``day`` reads the game day from the state (None when the
    system has no days)."""

    events: tuple[type[Event], ...]
    """The system's event classes (tags never renamed)."""
    initial: Callable[[Any], Any]
    evolve: Callable[[Any, Event, Envelope[Any]], Any]
    decide: Callable[[CampaignState, Any, Dice], list[Event]]
    commands: tuple[type, ...] = ()
    """The system's command classes, each named ``<system>.<Class>`` in a stored decision."""
    day: Callable[[Any], int | None] = _no_day
    solo: bool = False
    """One character only: a second ``character create`` is refused."""
    creates: type | None = None
    """The system's own command that creates a character, when its creation takes more than
    a name (its inputs are the command's; None: the core's ``AddCharacter``). Without a
    ``from_attrs`` of its own, adding a character with attributes is refused: its creation
    gives them."""
    load_tables: Callable[[str | None], tuple[dict[str, Any], str]] | None = None
    """Reads a user's table file (or the system's sample tables when None): (tables, source)."""
    check_tables: Callable[[dict[str, Any]], None] | None = None
    """Checks a campaign's stored tables (its start event's ``tables``) at import, by the
    same function that reads a table file given at the start: raises a LedgerError naming
    the problem. A system with tables and without one has its stored tables taken as given."""
    check_settings: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """Checks a campaign's settings (``Draft.settings``) when it starts and when it is
    imported, returning them (raises a LedgerError); a system without one takes none. The
    settings win over the ``[settings]`` of the campaign's tables (``Draft.tables``)."""
    rules_version: int = 1
    """The version of the system's rules, recorded with every decided action
    (``Decision.rules``): raised whenever a rule changes what a command records on the same
    state and dice. An import decides each action again by the rules it was recorded
    under: today's ``decide`` for this version, one of ``older_rules`` for an earlier one."""
    older_rules: Mapping[int, Callable[[CampaignState, Any, Dice], list[Event]]] = msgspec.field(
        default_factory=dict
    )
    """The deciders of earlier rules versions the system still keeps, by version: an action
    recorded under a version neither ``decide`` nor one of these decides is refused at import."""
    check_state: Callable[[CampaignState, CampaignState], str | None] | None = None
    """The system's invariants, run at import on the states before and after every imported
    action (undo and redo aside): the problem in a few words (``Health 1000 is outside 0 to
    20``), or None when the state after is one the rules can reach from the state before."""
    roll_checks: Mapping[type, Callable[[Any], None]] = msgspec.field(default_factory=dict)
    """Rolls recorded in a form of the system's own, each with the check an import runs on
    it (it raises :class:`Refusal` when the faces do not give the roll)."""


class ReadModel(msgspec.Struct, frozen=True, kw_only=True):
    """What a system shows of its campaigns: the sheet, the tables a player browses, the
    journal, the warehouse facts, the report's and the statistics' additions.

    ``sheet`` projects the state to the JSON-ready dict ``ledger sheet`` prints and
    ``render_sheet`` turns that into terminal text."""

    sheet: Callable[[CampaignState, str | None], dict[str, Any]]
    render_sheet: Callable[[dict[str, Any]], str] | None = None
    sheet_layout: SheetLayout | None = None
    """How the sheet reads (what a player looks at first, labelled tracks, sections); when
    given, the terminal and the report draw it, and ``render_sheet`` is not needed."""
    forms: tuple[Form, ...] = ()
    """Each of the system's commands as the live table names and offers it (:class:`Form`):
    as a form, grouped by what a player does, or by the sheet's controls (``sheet``)."""
    listing: Callable[[dict[str, Any]], list[Table]] | None = None
    """The tables a player can browse and roll on (``ledger tables``), from a campaign's tables."""
    journal: Callable[[CampaignState], Iterable[dict[str, Any]]] | None = None
    """The day-by-day journal rows (``ledger journal``); None when the system keeps no journal."""
    journal_hidden: tuple[str, ...] = ()
    """Sheet keys the Markdown journal's end-of-day line leaves out (what comes next, a phase:
    the sheet shows them, a day's summary does not)."""
    facts: Callable[[Envelope[Any]], list[Fact]] | None = None
    """The warehouse rows of one stored event (``ledger.facts``)."""
    facts_sql: tuple[FactQuery, ...] = ()
    """The same facts as DuckDB statements over a batch of events; when given, they are what
    the warehouse runs, and ``facts`` must give the same rows (a test holds them equal)."""
    fact_types: tuple[type[Fact], ...] = ()
    """Fact classes of the system's own (beyond the shared ones of :mod:`ledger.facts`), each
    writing the warehouse table its ``table`` names: the warehouse makes one table per class."""
    facts_revision: int = 0
    """Raised whenever the system's facts change what they record: a warehouse filled under
    another revision is rebuilt."""
    health_tracks: tuple[str, ...] = ()
    """The tracks of the system's wound facts that are bodily harm (Health, hit points): the
    damage reports read these alone, not stress, fatigue or the other tracks it wounds."""
    report: ReportHooks = msgspec.field(default_factory=ReportHooks)
    """What the system adds to ``ledger report`` (map, tracks, charts, meters, legend)."""
    reports: Mapping[str, StatsReport] = msgspec.field(default_factory=dict)
    """Statistics reports of the system's own, by the name ``stats --report`` takes."""


class Play(msgspec.Struct, frozen=True, kw_only=True):
    """How the ledger plays the system itself: whole campaigns for ``ledger simulate``, its
    section and its statistics in ``ledger demo``. Every part is optional. A section of the
    demo that shows command lines, and the walk through its play that ``ledger --help``
    shows, are the command line's (the system's group's ``demo`` and ``walkthrough``)."""

    autoplay: Callable[..., None] | None = None
    """Plays one campaign for ``ledger simulate`` through a batch: (batch, campaign, days)."""
    simulate: Callable[[Any, str, int, int], None] | None = None
    """Creates and plays one whole campaign for ``ledger simulate``, when a batch is not enough
    (an undo between actions): (ledger, name, seed, days)."""
    demo: Callable[..., None] | None = None
    """Shows the system in ``ledger demo``: (ledger, echo) -> None."""
    stats_demo: StatsDemo | None = None
    """The system's campaigns in the statistics part of ``ledger demo`` (None: none)."""


class System(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a rule system plugs into the ledger, in three parts: its :class:`Rules`
    (what it records and how), its :class:`ReadModel` (what it shows) and its
    :class:`Play` (how the ledger plays it). Its commands on the command line are no part
    of it: they are published under :data:`COMMANDS_GROUP`."""

    name: str
    description: str
    """One line for the system's section of ``ledger demo``."""
    rules: Rules
    read: ReadModel
    play: Play = msgspec.field(default_factory=Play)


@functools.cache
def _installed_points() -> tuple[metadata.EntryPoint, ...]:
    """The installed systems' entry points, their help's and their commands' (:data:`GROUP`,
    :data:`HELP_GROUP`, :data:`COMMANDS_GROUP`), read in one pass once per process: a system
    is installed or removed with its distribution, never while a command runs."""
    found = metadata.entry_points()
    return tuple(p for group in (GROUP, HELP_GROUP, COMMANDS_GROUP) for p in found.select(group=group))


DISTRIBUTION = "campaign-ledger"
"""The ledger's own distribution, whose systems come first."""


@functools.cache
def _own_points() -> frozenset[metadata.EntryPoint]:
    """The entry points the ledger's own distribution publishes, read from its
    ``entry_points.txt`` (found by its name, as its folder is named): telling the ledger's
    own from a plugin's by each one's distribution name would parse every distribution's
    metadata, the README included, on every command that names the systems."""
    try:
        return frozenset(metadata.distribution(DISTRIBUTION).entry_points)
    except metadata.PackageNotFoundError:
        return frozenset()


@functools.cache
def _entry_points() -> dict[str, metadata.EntryPoint]:
    """The installed systems' entry points by name. The ledger's own come first, then the
    plugins', each by name; a plugin cannot take a name the ledger's own systems use (the
    first distribution to claim a name keeps it)."""
    found: dict[str, metadata.EntryPoint] = {}
    own = _own_points()
    points = sorted(
        (p for p in _installed_points() if p.group == GROUP), key=lambda p: (p not in own, p.name)
    )
    for point in points:
        found.setdefault(point.name, point)
    return found


def system_names() -> list[str]:
    """Names of the installed systems: the ledger's own first, then the plugins', by name."""
    return list(_entry_points())


_loaded: dict[str, System] = {}


def get_system(name: str) -> System:
    """The system called ``name``, loaded from its entry point on first use."""
    found = _loaded.get(name)
    if found is not None:
        return found
    points = _entry_points()
    point = points.get(name)
    if point is None:
        raise UnknownSystemError(name, list(points))
    try:
        system = point.load()
    except ImportError as e:
        raise PluginError(name, point.value, _("it does not import ({problem})", problem=e)) from e
    if not isinstance(system, System):
        raise PluginError(name, point.value, _("it is a {kind}, not a System", kind=type(system).__name__))
    if system.name != name:
        raise PluginError(name, point.value, _("it calls itself {name!r}", name=system.name))
    _loaded[name] = system
    return system


def loaded() -> frozenset[str]:
    """The names of the systems this process has loaded so far (:func:`get_system`)."""
    return frozenset(_loaded)


def installed() -> list[System]:
    """Every installed system, loaded."""
    return [get_system(n) for n in system_names()]


def _beside(group: str, name: str) -> metadata.EntryPoint | None:
    """The entry point named ``name`` in ``group`` that the distribution publishing the
    system ``name`` publishes (another distribution's is not the system's)."""
    point = _entry_points().get(name)
    if point is None or point.dist is None:
        return None
    for candidate in _installed_points():
        if candidate.group != group or candidate.name != name:
            continue
        # One reading of the entry points gives each distribution one object, shared by
        # every entry point it publishes: the same object is the same distribution.
        if candidate.dist is point.dist:
            return candidate
    return None


def system_help(name: str) -> SystemHelp | System:
    """What ``ledger --help`` shows of the installed system ``name``: the :class:`SystemHelp`
    its distribution publishes beside it (:data:`HELP_GROUP`), imported without the system;
    else, or when that help does not load or names another system, the System itself."""
    candidate = _beside(HELP_GROUP, name)
    if candidate is not None:
        try:
            shown = candidate.load()
        except (ImportError, AttributeError):
            shown = None
        if isinstance(shown, SystemHelp) and shown.name == name:
            return shown
    return get_system(name)


def commands_point(name: str) -> metadata.EntryPoint | None:
    """Where the installed system ``name`` publishes its commands (:data:`COMMANDS_GROUP`),
    not loaded; None when it publishes none (its campaigns take the core's commands alone)."""
    return _beside(COMMANDS_GROUP, name)
