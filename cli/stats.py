"""``ledger stats``, ``ledger query``, ``ledger warehouse``, ``ledger simulate`` and the statistics part of ``ledger demo``.

DuckDB is imported only inside the commands that read the warehouse.
"""

from __future__ import annotations

import contextlib
import csv
import io
import secrets
import sys
import textwrap
import time
import unicodedata
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ledger.cli import fixes
from ledger.cli.options import Ctx, emit, json_text, pass_ctx, printable
from ledger.cli.stats_text import render, signed, survival_lines
from ledger.cli.translated import Command, Group
from ledger.errors import Input, LedgerError, RunCommand
from ledger.i18n import N_, _, n_
from ledger.play.simulate import Simulator, check_simulator, plan, still_to_simulate
from ledger.projections.stats.reports import REPORTS, Scope, report, report_names
from ledger.projections.stats.tables import table_lines
from ledger.projections.warehouse.loading import Warehouse
from ledger.projections.warehouse.query import (
    DEFAULT_LIMIT,
    QueryLimits,
    check_query,
    check_query_text,
    left_out_note,
    open_query,
    out_of_memory,
    process_memory_bound,
)
from ledger.projections.warehouse.schema import SchemaChanged
from ledger.systems import installed

if TYPE_CHECKING:
    import duckdb

    from ledger.errors import Fix
    from ledger.projections.warehouse.loading import Warehouse

F = TypeVar("F", bound=Callable[..., Any])

PROGRESS_FROM = 20_000
"""Show a progress bar when catching up at least this many events."""


class ReportChoice(click.Choice):  # type: ignore[type-arg]
    """The names ``--report`` takes: the shared reports and the installed systems' own. A
    shared name is taken as it is; the systems' names are read (every system loaded) only
    for another name, or to show the help, never when the command line starts."""

    def __init__(self) -> None:
        super().__init__((), case_sensitive=True)

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return tuple(report_names())

    @choices.setter
    def choices(self, _value: Any) -> None:
        pass

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in REPORTS:  # a shared report: no system loaded to list the others
            return value
        return super().convert(value, param, ctx)


def warehouse_option(f: F) -> F:
    return click.option(
        "--warehouse",
        "warehouse_path",
        metavar="PATH",
        envvar="LEDGER_WAREHOUSE",
        default=None,
        help=N_(
            "The DuckDB warehouse (default: beside a ledger file as FILE.duckdb; "
            "./ledger-warehouse.duckdb for PostgreSQL; env LEDGER_WAREHOUSE)."
        ),
    )(f)


def _json_flag(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.find_object(Ctx).json = True  # type: ignore[union-attr]
    return value


def _campaign_choice(ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        ctx.find_object(Ctx).campaign = unicodedata.normalize("NFC", value)  # type: ignore[union-attr]
    return value


def json_option(f: F) -> F:
    """``--json`` after the command too."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        expose_value=False,
        callback=_json_flag,
        is_eager=True,
        help=N_("Machine-readable JSON output."),
    )(f)


def scope_options(f: F) -> F:
    """``--json`` and ``-c CAMPAIGN`` (all campaigns when not given)."""
    f = json_option(f)
    return click.option(
        "-c",
        "--campaign",
        expose_value=False,
        callback=_campaign_choice,
        is_eager=True,
        help=N_("Only this campaign (default: every campaign)."),
    )(f)


def _stderr() -> Any:
    return sys.stderr


@contextlib.contextmanager
def _open_caught_up(
    c: Ctx, wh: Warehouse, check: Callable[[duckdb.DuckDBPyConnection], object] | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """The warehouse's writable connection, after the catch-up on it: a command opens DuckDB
    once for both (closed on leaving, so that a read-only connection can be opened after it).
    ``check`` runs on it before the catch-up (a refused query costs no catch-up)."""
    top = c.ledger.store.max_notification_id()

    def rebuilt() -> duckdb.DuckDBPyConnection:  # an older layout: built again from the log, then opened
        _with_progress(wh, top, rebuild=True)
        return wh.connect()

    try:
        con = wh.connect()
    except SchemaChanged:
        con = rebuilt()
    try:
        if check is not None:
            check(con)
        behind = top - wh.position(con)
        if behind > 0:
            _with_progress(wh, behind, con=con)
    except SchemaChanged:  # a system's own layout changed: found when a page held its events
        wh.close(con)
        con = rebuilt()
    except BaseException:
        wh.close(con)
        raise
    try:
        yield con
    finally:
        wh.close(con)


def _with_progress(
    wh: Warehouse, behind: int, *, rebuild: bool = False, con: duckdb.DuckDBPyConnection | None = None
) -> int:
    if behind < PROGRESS_FROM:
        return wh.rebuild() if rebuild else wh.catch_up(con=con)
    label = _("rebuilding the warehouse") if rebuild else _("updating the warehouse")
    with click.progressbar(length=behind, label=label, file=_stderr()) as bar:
        return wh.rebuild(bar.update) if rebuild else wh.catch_up(bar.update, con=con)


# --- ledger stats ----------------------------------------------------------------------------


@click.command(
    "stats",
    cls=Command,
    help=N_(
        "Campaign statistics: luck index, success rates against expectation, mulligans,\n"
        "damage per day, deaths, survival curve, dice fairness, and the reports of each\n"
        "system (--report lists them all).\n"
        "\n"
        "Across every campaign, or one with -c NAME."
    ),
)
@click.option("--character", default=None, help=N_("Only this character's rows."))
@click.option(
    "--simulated",
    is_flag=True,
    help=N_(
        "Include the campaigns `ledger simulate` played (left out by default; -c NAME always reads NAME)."
    ),
)
@click.option(
    "--report",
    "only",
    multiple=True,
    type=ReportChoice(),
    help=N_("Only this report (repeatable; default: all)."),
)
@warehouse_option
@scope_options
@pass_ctx
def stats(
    c: Ctx, character: str | None, simulated: bool, only: tuple[str, ...], warehouse_path: str | None
) -> None:
    if c.campaign is not None:
        c.ledger.campaign(c.campaign)  # refuses an unknown name

    who = unicodedata.normalize("NFC", character) if character is not None else None
    # The reports are the project's own SQL with bound values, so they run on the connection
    # that caught up; only `ledger query`, which runs a user's SQL, needs the read-only one.
    with _open_caught_up(c, Warehouse(c.ledger, warehouse_path)) as con:
        data = report(con, Scope(c.campaign, who, simulated), only or None)
    emit(c, data, lambda: printable(render(data, spell=fixes.spelled)))


# --- ledger query ----------------------------------------------------------------------------


@click.command(
    "query",
    cls=Command,
    help=N_(
        "Run read-only SQL over the warehouse (tables: campaigns, events, actions,\n"
        "characters, rolls, dice, and one per kind of fact: meals, nights, days, wounds,\n"
        "conditions, deaths and the systems' own; `ledger warehouse status` lists them).\n"
        "Output a table, --json or --csv; rows stream out as DuckDB finds them, within a\n"
        "time limit and bounded memory."
    ),
)
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help=N_("Output CSV."))
@click.option(
    "--limit",
    type=int,
    default=None,
    help=N_(
        "Print at most this many rows (default 1000; 0 prints every row). A note says how many were left out."
    ),
)
@click.option(
    "--timeout",
    type=float,
    default=None,
    metavar="SECONDS",
    help=N_("Stop the query after this many seconds (default 20)."),
)
@warehouse_option
@json_option
@pass_ctx
def query(
    c: Ctx, sql: str, as_csv: bool, limit: int | None, timeout: float | None, warehouse_path: str | None
) -> None:
    limits = QueryLimits() if timeout is None else QueryLimits(timeout=timeout)
    limit = DEFAULT_LIMIT if limit is None else limit
    check_query_text(sql, limit)  # a bad --limit or an empty query, before anything is opened
    wh = Warehouse(c.ledger, warehouse_path)
    # Parsed on the warehouse's connection before the catch-up (a refused query costs no
    # catch-up, and no DuckDB database of its own just to parse); the user's SQL then runs
    # on the read-only connection open_query opens once this one is closed.
    with _open_caught_up(c, wh, lambda con: check_query(sql, limit, con)):
        pass
    shown = 0
    # The whole process is held to the query's memory, whatever DuckDB builds outside its own
    # limit (a string) and whatever the rows take in Python; the catch-up above is not.
    try:
        with process_memory_bound(limits), open_query(wh, sql, limit=limit, limits=limits) as q:

            def pages(safe: bool) -> Any:
                nonlocal shown
                for page in q.pages():
                    shown += len(page)
                    yield [tuple(map(_shown, row)) for row in page] if safe else page

            headers = [printable(name) for name in q.columns]
            if as_csv:
                _write_csv(headers, pages(True))
            elif c.json:
                _write_json(q.columns, pages(False))  # JSON writes every control character as \uNNNN
            else:
                for line in table_lines(headers, pages(True)):
                    click.echo(line)
            note = left_out_note(shown, q.left_out, q.left_out_exact, spell=fixes.spelled)
    except MemoryError as e:  # the rows as they are written out, past the process's bound
        raise out_of_memory(limits, _("the rows could not be written out")) from e
    if as_csv or c.json:
        if note:
            click.echo(_("note: {note}", note=note), err=True)
    elif note:
        click.echo(f"({note})")
    else:
        click.echo(n_("({n} row)", "({n} rows)", shown))


def _shown(value: Any) -> Any:
    """A value of a query's row, as text output shows it: a text with its control characters
    escaped (:func:`printable`; a nested value's texts are shown quoted and escaped already)."""
    return printable(value) if isinstance(value, str) else value


def _write_csv(columns: list[str], pages: Any) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for page in pages:
        writer.writerows(page)
        click.echo(buf.getvalue(), nl=False)
        buf.seek(0)
        buf.truncate()
    click.echo(buf.getvalue(), nl=False)


def _write_json(columns: list[str], pages: Any) -> None:
    """The rows as one JSON array of objects, written as they come (indented as ``--json`` output is)."""
    first = True
    for page in pages:
        for row in page:
            item = json_text(dict(zip(columns, row, strict=True)), indent=2)
            click.echo((("[\n" if first else ",\n") + textwrap.indent(item, "  ")).encode("utf-8"), nl=False)
            first = False
    click.echo("[]" if first else "\n]")


# --- ledger warehouse ---------------------------------------------------------------------------


@click.group("warehouse", cls=Group, help=N_("The DuckDB statistics warehouse derived from the log."))
def warehouse() -> None:
    pass


@warehouse.command("rebuild", help=N_("Drop the warehouse and build it again from the whole log."))
@warehouse_option
@json_option
@pass_ctx
def warehouse_rebuild(c: Ctx, warehouse_path: str | None) -> None:
    start = time.perf_counter()
    wh = Warehouse(c.ledger, warehouse_path)
    n = _with_progress(wh, c.ledger.store.max_notification_id(), rebuild=True)
    took = time.perf_counter() - start
    rate = n / took if took > 0 else 0.0
    emit(
        c,
        {"path": str(wh.path), "events": n, "seconds": round(took, 3), "events_per_second": round(rate)},
        _(
            "rebuilt {path} from {events} in {took:.2f}s ({rate:,.0f} events/s)",
            path=wh.path,
            events=n_("{n} event", "{n} events", n),
            took=took,
            rate=float(rate),
        ),
    )


@warehouse.command(
    "status", help=N_("Where the warehouse is, how far behind the log it is, and its row counts.")
)
@warehouse_option
@json_option
@pass_ctx
def warehouse_status(c: Ctx, warehouse_path: str | None) -> None:
    data = Warehouse(c.ledger, warehouse_path).status()

    def text() -> str:
        if not data["exists"]:
            return _(
                "no warehouse at {path} yet; `ledger stats` or `ledger warehouse rebuild` builds it",
                path=data["path"],
            )
        if data.get("outdated"):
            return _(
                "warehouse {path} has an older layout; the next `ledger stats` rebuilds it", path=data["path"]
            )
        lines = [
            _("warehouse {path}", path=data["path"]),
            _(
                "applied up to event {position} of {top} ({behind} behind) from {store}",
                position=data["position"],
                top=data["store_position"],
                behind=data["behind"],
                store=data["store"],
            ),
        ]
        lines += [f"  {name:<12} {count:>10}" for name, count in data["tables"].items()]
        return "\n".join(lines)

    emit(c, data, text)


# --- ledger simulate ------------------------------------------------------------------------------


@click.command(
    "simulate",
    cls=Command,
    help=N_(
        "Generate whole campaigns of SYSTEM fast, to try statistics at scale\n"
        "(each system plays with its own autoplayer or simulator)."
    ),
)
@click.argument("system")
@click.option(
    "--campaigns", "count", type=int, default=100, show_default=True, help=N_("How many campaigns.")
)
@click.option("--seed", type=int, default=None, help=N_("Make the run reproducible (default: random)."))
@click.option(
    "--days",
    type=int,
    default=30,
    show_default=True,
    help=N_("Days to play each campaign, as the system counts them (rounds, shifts, thirds of a day...)."),
)
@click.option("--prefix", default=None, help=N_("Campaign names start with this (default: sim-SYSTEM-SEED)."))
@json_option
@pass_ctx
def simulate(c: Ctx, system: str, count: int, seed: int | None, days: int, prefix: str | None) -> None:
    check_simulator(system)
    if days < 1:
        raise LedgerError(_("--days must be at least 1, got {days}", days=days))
    seed = secrets.randbelow(2**31) if seed is None else seed
    run = plan(system, count, seed, prefix)
    todo = still_to_simulate(c.ledger, run)
    before = c.ledger.store.max_notification_id()
    start = time.perf_counter()
    show = not c.json
    with (
        Simulator(c.ledger, system, days) as simulator,
        click.progressbar(
            todo,
            label=_("simulating {system} (seed {seed})", system=system, seed=seed),
            file=_stderr() if show else io.StringIO(),
        ) as bar,
    ):
        for name, campaign_seed in bar:
            simulator.play(name, campaign_seed)
    took = time.perf_counter() - start
    events = c.ledger.store.max_notification_id() - before
    there = count - len(todo)
    data = {
        "system": system,
        "campaigns": len(todo),
        "already_there": there,
        "seed": seed,
        "events": events,
        "seconds": round(took, 3),
        "first": run.names[0],
        "last": run.names[-1],
    }
    resumed = _("; {there} of the {count} were there already", there=there, count=count) if there else ""
    emit(
        c,
        data,
        n_(
            "simulated {n} {system} campaign (seed {seed}{resumed}): {events} in {took:.1f}s; "
            "see `ledger stats --simulated`",
            "simulated {n} {system} campaigns (seed {seed}{resumed}): {events} in {took:.1f}s; "
            "see `ledger stats --simulated`",
            len(todo),
            system=system,
            seed=seed,
            resumed=resumed,
            events=n_("{n} event", "{n} events", events),
            took=took,
        ),
    )
    sys.stdout.flush()


def demo(book: Any, echo: Callable[[str], None]) -> None:
    """The statistics part of ``ledger demo``: the campaigns each system simulates for it
    (made once), then luck, the survival curve, what each system says of them and the
    physical dice check."""
    demo_report(book, Warehouse(book), lambda line: echo(f"  {line}"), word=fixes.command_line)


def _own_words(fix: Fix) -> str:
    return fix.text


def demo_report(
    ledger: Any,
    warehouse: Warehouse,
    echo: Callable[[str], None],
    *,
    campaigns: int | None = None,
    seed: int = 7,
    word: Callable[[Fix], str] = _own_words,
) -> dict[str, Any]:
    """The statistics part of ``ledger demo``: simulate (once) the campaigns each installed
    system shows there (``Play.stats_demo``; ``campaigns`` of each when given), then report
    luck, the survival curve, what each system says of its campaigns and the physical dice
    check, read from ``warehouse`` (caught up here, after the simulations). Each step is
    echoed after ``$ `` as the operation that does it, a :class:`Fix` ``word`` says in the
    reader's words (its own text by default)."""
    shown = [
        (system.name, system.play.stats_demo) for system in installed() if system.play.stats_demo is not None
    ]
    for name, demo in shown:
        count = demo.campaigns if campaigns is None else campaigns
        run = plan(name, count, seed)
        known = {c.name for c in ledger.campaigns()}
        todo = [(n, s) for n, s in zip(run.names, run.seeds, strict=True) if n not in known]
        if todo:
            step = RunCommand(
                text=n_(
                    "simulate {n} {system} campaign from seed {seed}",
                    "simulate {n} {system} campaigns from seed {seed}",
                    count,
                    system=name,
                    seed=seed,
                ),
                command="simulate",
                arguments=(name,),
                options=(Input("campaigns", str(count)), Input("seed", str(seed))),
            )
            echo(f"$ {word(step)}")
            with Simulator(ledger, name, demo.days) as simulator:
                for campaign, campaign_seed in todo:
                    simulator.play(campaign, campaign_seed)
    warehouse.catch_up()
    con = warehouse.connect_read_only()
    try:
        data = report(con, Scope(simulated=True), ["overview", "luck", "fairness", "survival"])
        remarks = [line for _name, demo in shown if demo.lines is not None for line in demo.lines(con)]
    finally:
        con.close()
    echo(
        "$ "
        + word(
            RunCommand(
                text=_("report on every campaign, simulated ones included"),
                command="stats",
                options=(Input("simulated"),),
            )
        )
    )
    ov, lk = data["overview"], data["luck"]["overall"]
    echo(
        n_(
            "{campaigns}, {events}, {rolls}; luck index {luck} over {n} die thrown with a known chance "
            "(kept luck {kept}, {mulligans})",
            "{campaigns}, {events}, {rolls}; luck index {luck} over {n} dice thrown with a known chance "
            "(kept luck {kept}, {mulligans})",
            lk["judged"],
            campaigns=n_("{n} campaign", "{n} campaigns", ov["campaigns"]),
            events=n_("{n} event", "{n} events", ov["events"]),
            rolls=n_("{n} roll", "{n} rolls", ov["rolls"]),
            luck=signed(lk["luck"]),
            kept=signed(lk["kept"]["luck"]),
            mulligans=n_("{n} mulligan", "{n} mulligans", lk["mulligans"]["rolls"]),
        )
    )
    curve = data["survival"]
    if curve:
        enough = max(1, curve[0]["at_risk"] // 10)
        kept = [row for row in curve if row["at_risk"] >= enough]
        echo(_("survival by day (Kaplan-Meier):"))
        for line in survival_lines(kept)[::2]:
            echo(line)
    for line in remarks:
        echo(line)
    judged = [die for die in data["fairness"] if die["p_value"] is not None]
    for die in judged:
        echo(
            _(
                "physical {die}: {throws}, p = {p:.3g}, {verdict}",
                die=die["die"],
                throws=n_("{n} throw", "{n} throws", die["throws"]),
                p=float(die["p_value"]),
                verdict=die["verdict"],
            )
        )
    if len(judged) < len(data["fairness"]):
        echo(_("other physical dice: too few throws to judge yet"))
    return data
