"""The rule systems: the contract a system fills in, and where the installed ones are found.

A system is a :class:`System` published under the entry-point group
``campaign_ledger.systems`` (the built-in ones register there the same way, in
pyproject.toml). Each built-in system keeps its events, commands, rules, tables
and facts in ``ledger/systems/<name>/``, its folds in ``ledger/projections/<name>/``
and its commands in ``ledger/cli/<name>.py``; a plugin keeps them wherever it
likes (docs/plugins.md). Nothing outside a system's own folders names it: the
rest of the ledger reaches a system through this contract alone.

A command is named the same wherever its class lives (:func:`commands`):
``core.<Class>`` for the commands every campaign takes, ``<system>.<Class>``
for a system's own, the classes its decider registers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

from ledger.errors import PluginError, UnknownSystemError

if TYPE_CHECKING:
    import duckdb

    from ledger.browse import Table
    from ledger.dice import Dice
    from ledger.events import Envelope, Event
    from ledger.facts import Fact, FactQuery
    from ledger.state import CampaignState

GROUP = "campaign_ledger.systems"
"""The entry-point group every system is published under."""


def _no_day(_game: Any) -> int | None:
    return None


@dataclass(frozen=True, kw_only=True)
class ReportHooks:
    """What a system adds to ``ledger report`` beyond the sheets and the rolls.

    ``map`` turns the state into what the page draws as a map (JSON-ready), with
    ``map_kind`` naming how (``hex`` or ``zone``); ``tracks`` picks the numbers
    worth drawing over time from one sheet, ``charts`` groups them; ``meters``
    names the bars the page draws with their maximum; ``legend`` adds what the
    map's legend needs from the campaign's tables."""

    map: Callable[[CampaignState], Any] | None = None
    map_kind: str | None = None
    tracks: Callable[[dict[str, Any]], dict[str, tuple[int | None, int | None]]] | None = None
    charts: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    meters: Mapping[str, int] = field(default_factory=dict)
    legend: Callable[[dict[str, Any]], dict[str, Any]] | None = None


@dataclass(frozen=True, kw_only=True)
class StatsReport:
    """A statistics report a system adds to ``ledger stats`` (``--report NAME``).

    ``run`` reads the warehouse (a DuckDB connection and the scope's WHERE clause
    builder) and returns JSON-ready data; ``render`` turns it into terminal lines;
    ``empty`` says when there is nothing to show."""

    title: str
    run: Callable[[duckdb.DuckDBPyConnection, Any], Any]
    render: Callable[[Any], list[str]]
    empty: Callable[[Any], bool] = lambda value: not value


@dataclass(frozen=True, kw_only=True)
class System:
    """Everything a rule system plugs into the ledger.

    ``events`` are the system's event classes (tags never renamed); ``initial``
    builds the game state from the campaign's start event; ``evolve`` folds one
    of the system's events into it (pure, never rolls) and returns the state
    unchanged for events it does not know; ``decide`` turns a command into
    events given the campaign state and the dice, or raises a LedgerError
    (usually a :class:`ledger.decider.Decider`, whose ``commands`` it lists);
    ``sheet`` projects the state to the JSON-ready dict ``ledger sheet`` prints
    and ``render_sheet`` turns that into terminal text; ``day`` reads the game
    day from the state (None when the system has no days).
    """

    name: str
    description: str
    events: tuple[type[Event], ...]
    initial: Callable[[Any], Any]
    evolve: Callable[[Any, Event, Envelope[Any]], Any]
    decide: Callable[[CampaignState, Any, Dice], list[Event]]
    commands: tuple[type, ...] = ()
    """The system's command classes, each named ``<system>.<Class>`` in a stored decision."""
    sheet: Callable[[CampaignState, str | None], dict[str, Any]]
    render_sheet: Callable[[dict[str, Any]], str] | None = None
    day: Callable[[Any], int | None] = _no_day
    load_tables: Callable[[str | None], tuple[dict[str, Any], str]] | None = None
    """Reads a user's table file (or the system's sample tables when None): (tables, source)."""
    listing: Callable[[dict[str, Any]], list[Table]] | None = None
    """The tables a player can browse and roll on (``ledger tables``), from a campaign's tables."""
    check_settings: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """Validates ``--setting`` values at campaign creation (raises a LedgerError)."""
    solo: bool = False
    """One character only: a second ``character create`` is refused."""
    facts: Callable[[Envelope[Any]], list[Fact]] | None = None
    """The warehouse rows of one stored event (``ledger.facts``)."""
    facts_sql: tuple[FactQuery, ...] = ()
    """The same facts as DuckDB statements over a batch of events; when given, they are what
    the warehouse runs, and ``facts`` must give the same rows (a test holds them equal)."""
    fact_types: tuple[type[Fact], ...] = ()
    """Fact classes of the system's own, each writing the warehouse table its ``table`` names."""
    roll_checks: Mapping[type, Callable[[Any], None]] = field(default_factory=dict)
    """Rolls recorded in a form of the system's own, each with the check an import runs on
    it (it raises :class:`ledger.admission.Refusal` when the faces do not give the roll)."""
    autoplay: Callable[..., None] | None = None
    """Plays one campaign for ``ledger simulate`` through a batch: (batch, campaign, days)."""
    simulate: Callable[[Any, str, int, int], None] | None = None
    """Creates and plays one whole campaign for ``ledger simulate``, when a batch is not enough
    (an undo between actions): (ledger, name, seed, days)."""
    demo: Callable[..., None] | None = None
    """Shows the system in ``ledger demo``: (ledger, echo) -> None."""
    journal: Callable[[CampaignState], Iterable[dict[str, Any]]] | None = None
    """The day-by-day journal rows (``ledger journal``); None when the system keeps no journal."""
    hints: Callable[[CampaignState], list[str]] | None = None
    """What the player may do next, as command lines (``next:`` after an action; None: a
    character first, then the system's commands)."""
    report: ReportHooks = field(default_factory=ReportHooks)
    reports: Mapping[str, StatsReport] = field(default_factory=dict)
    """Statistics reports of the system's own, by the name ``stats --report`` takes."""
    cli: str | None = None
    """The system's command group, as an import string (``package.module:attribute``): the
    library never imports click, the command line loads it by this name."""
    cli_name: str | None = None
    """The group's name on the command line, when it is not the system's (``yz``)."""
    cli_help: str = ""
    """One line for the group in ``ledger --help``."""
    create: str | None = None
    """The ``character create`` command of the system, as an import string (None: the core's)."""
    first_steps: tuple[str, ...] | None = None
    """What a new campaign's player does first, as command lines ``ledger new`` prints (None:
    create a character)."""
    sample_log: Callable[[], str] | None = None
    """The system's sample campaign (an export's text), for ``ledger demo`` and the tests."""


@functools.cache
def _entry_points() -> dict[str, metadata.EntryPoint]:
    """The installed systems' entry points by name, looked up once per process: a system is
    installed or removed with its distribution, never while a command runs. The ledger's own
    come first, in the order pyproject.toml lists them; plugins after, by name."""
    found: dict[str, metadata.EntryPoint] = {}
    points = sorted(
        metadata.entry_points(group=GROUP),
        key=lambda p: (p.dist is None or p.dist.name != "campaign-ledger", "" if p.dist else p.name),
    )
    for point in points:
        found.setdefault(point.name, point)
    return found


def system_names() -> list[str]:
    """Names of the installed systems: the ledger's own first, then the plugins'."""
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
        raise PluginError(name, point.value, f"it does not import ({e})") from e
    if not isinstance(system, System):
        raise PluginError(name, point.value, f"it is a {type(system).__name__}, not a System")
    if system.name != name:
        raise PluginError(name, point.value, f"it calls itself {system.name!r}")
    _loaded[name] = system
    return system


def installed() -> list[System]:
    """Every installed system, loaded."""
    return [get_system(n) for n in system_names()]
