"""The query sandbox: untrusted SQL run read-only over the warehouse, within limits.

``ledger query`` runs one SELECT (anything else is refused before it runs) on a read-only
DuckDB connection with external access, extensions and Python objects off and its settings
locked (:func:`read_only_connection`); its memory, threads, spill files and time are bounded
(:class:`QueryLimits`), and so is every value and the whole result as the rows stream out
(:class:`QueryStream`). DuckDB's errors become one-line refusals. The SQL literals the
warehouse writes into its own statements are escaped here (:func:`sql_literal`,
:func:`sql_str`).

It imports the kernel's errors and, of the warehouse, only its paths (:mod:`.paths`): the
warehouse it reads is handed in. DuckDB is imported inside the functions that use it: a
command that runs no query never loads it (tests/test_warehouse.py).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

try:
    import resource
except ImportError:  # not POSIX: the process's own bound is not held (process_memory_bound)
    resource = None  # type: ignore[assignment]

from ledger.errors import WarehouseError, named
from ledger.i18n import _, n_
from ledger.projections.warehouse.paths import (
    REBUILD,
    WarehousePathError,
    check_warehouse_path,
    duckdb_config,
    first_line,
)

if TYPE_CHECKING:
    import duckdb

    from ledger.projections.warehouse.loading import Warehouse

DEFAULT_LIMIT = 1000
"""Rows ``ledger query`` prints unless told otherwise (``--limit 0``: every row)."""
PAGE_ROWS = 1000
"""Rows fetched from DuckDB at a time: a result is streamed, never held whole."""
COUNT_LEFT_OUT = 100_000
"""Rows past the limit that are still counted (for at most :data:`COUNT_SECONDS`)."""
COUNT_SECONDS = 0.5
MAX_ELEMENTS = 1_000_000
"""Most elements one value of a result may hold (lists, maps, structs, counted all the way
down): DuckDB's Python binding converts a value in one piece, out of the time limit's
reach, so a bigger one is refused before it is converted."""
_TOO_BIG = "ledger-value-too-big:"
MAX_VALUE_BYTES = 16 * 1024 * 1024
"""Most bytes one value of a result may hold (a text, a blob, or a nested value written out):
more than any event of the ledger (8 MiB), far less than DuckDB lets a string grow, which
its memory limit does not count. A bigger one is refused before it is converted."""
_TOO_LONG = "ledger-value-too-long:"
MAX_RESULT_BYTES = 256 * 1024 * 1024
"""Most bytes the rows of one result may hold, as they stream out."""
PAGE_BYTES = 8 * 1024 * 1024
"""About the most bytes one page of rows holds: a page of wide rows is fetched in fewer rows."""


class QueryLimits(msgspec.Struct, frozen=True):
    """What one untrusted query may use."""

    timeout: float = 20.0
    """Seconds before DuckDB is interrupted (the rows streamed out count too)."""
    memory_mb: int = 512
    threads: int = 2
    temp_mb: int = 1024
    """Largest total size of the files DuckDB may spill to."""
    headroom_mb: int = 384
    """What the query's process may hold beyond DuckDB's memory limit while it runs
    (:func:`process_memory_bound`): the rows as they stream out, and what DuckDB allocates
    outside its limit (a string it builds, which the limit does not count)."""

    def __post_init__(self) -> None:
        if not (0 < self.timeout <= 86_400):  # also refuses NaN
            raise WarehouseError(
                _("`timeout` must be between 0 and 86400 seconds, got {timeout}", timeout=self.timeout),
                field="timeout",
            )
        for name in ("memory_mb", "threads", "headroom_mb"):
            if getattr(self, name) < 1:
                raise WarehouseError(
                    _("query {name} must be at least 1, got {given}", name=name, given=getattr(self, name))
                )
        if self.temp_mb < 0:
            raise WarehouseError(_("query temp_mb must be 0 or more, got {temp_mb}", temp_mb=self.temp_mb))


def read_only_connection(wh: Warehouse, limits: QueryLimits | None = None) -> duckdb.DuckDBPyConnection:
    """A connection to ``wh`` for SQL: read-only, no files, no network, no extensions, no
    Python objects, locked settings; with ``limits`` (untrusted SQL: :func:`open_query`) its
    memory, threads and spill files are bounded too.

    A DuckDB database of its own, started read-only, so that every database the SQL can
    reach is read-only: in one started writable (the catch-up's, say) with the warehouse
    attached read-only and external access turned off after, SQL can attach an in-memory
    database, use it, detach the warehouse and attach its file again writable, or create a
    database in the spill folder; turning the local file system off closes that and stops
    spilling as well."""
    # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
    import duckdb

    check_warehouse_path(wh.ledger, wh.path)
    if not wh.path.exists():
        raise WarehouseError(_("no warehouse at {path}", path=wh.path), fix=REBUILD)
    config = duckdb_config(enable_external_access=False, python_enable_replacements=False)
    if limits is not None:
        config.update(
            memory_limit=f"{limits.memory_mb}MB",
            threads=limits.threads,
            max_temp_directory_size=f"{limits.temp_mb}MB",
        )
    try:
        con = duckdb.connect(str(wh.path), read_only=True, config=config)
    except duckdb.Error as e:
        raise wh._cannot_open(wh.path, e) from e
    try:
        if wh._meta(con) is None:
            raise WarehousePathError(
                _("{path} is an empty DuckDB database, not a warehouse yet", path=wh.path),
                wh.path,
                fix=REBUILD,
            )
        # Locked here, not in the configuration it starts with: a DuckDB started locked took
        # 48 ms to open and answer where this took 28 ms, for fewer instructions.
        locked = con.execute("SELECT current_setting('lock_configuration')").fetchone()
        if not (locked and locked[0]):  # a connection of this process may have locked it already
            con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def _data_size() -> int | None:
    """The bytes of data (private, writable memory) the process maps now, as the kernel
    counts them against ``RLIMIT_DATA``; None where ``/proc`` does not say (not Linux)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


@contextlib.contextmanager
def process_memory_bound(limits: QueryLimits) -> Iterator[None]:
    """Hold the whole process to what it maps now plus the query's memory and headroom
    (``memory_mb + headroom_mb``) for as long as the block runs, then let it go: the soft
    ``RLIMIT_DATA`` of the process, lowered (never raised) and restored.

    DuckDB's memory limit counts its buffers, not a string it builds (``repeat('x',
    1000000000)`` took 2 GB under a 512 MB limit), nor the rows as Python converts them.
    Under this bound an allocation past it fails: DuckDB says out of memory, Python raises
    :class:`MemoryError`, and :func:`open_query` turns either into a one-line refusal. The
    bound is the process's, so it is for a process that runs one query and little else
    (``ledger query``), never for a server; where the data size cannot be read (not Linux),
    the block runs with DuckDB's own limits alone."""
    now = _data_size()
    if resource is None or now is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    bound = now + (limits.memory_mb + limits.headroom_mb) * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        bound = min(bound, hard)
    if soft != resource.RLIM_INFINITY and soft <= bound:
        yield  # already held tighter
        return
    resource.setrlimit(resource.RLIMIT_DATA, (bound, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


class QueryResult(msgspec.Struct, frozen=True):
    columns: list[str]
    types: list[str]
    rows: list[tuple[Any, ...]]
    left_out: int = 0
    """Rows past the limit, counted up to :data:`COUNT_LEFT_OUT` (for :data:`COUNT_SECONDS`)."""
    left_out_exact: bool = True
    """Whether :attr:`left_out` is all of them."""

    def note(self, *, spell: Callable[[str], str] = named) -> str | None:
        """What was left out, in words (None: nothing; ``spell`` as :func:`left_out_note`)."""
        return left_out_note(len(self.rows), self.left_out, self.left_out_exact, spell=spell)


def left_out_note(
    shown: int, left_out: int, exact: bool, *, spell: Callable[[str], str] = named
) -> str | None:
    """``12 more rows were left out`` and the like, or None when every row was shown
    (``spell`` names the input that shows more, ``limit``, in the reader's words)."""
    if exact and not left_out:
        return None
    if exact:
        more = n_("{n} more row was left out", "{n} more rows were left out", left_out)
    elif left_out:
        more = n_("at least {n} more row was left out", "at least {n} more rows were left out", left_out)
    else:
        more = _("more rows may have been left out (counting them failed)")
    return n_(
        "{n} row shown; {more}: {limit} N shows more, {limit} 0 every row",
        "{n} rows shown; {more}: {limit} N shows more, {limit} 0 every row",
        shown,
        more=more,
        limit=spell("limit"),
    )


class QueryStream:
    """A running query: its columns, then its rows page by page, up to the limit."""

    def __init__(
        self,
        cursor: duckdb.DuckDBPyConnection,
        limit: int,
        guard: _Guard,
        columns: list[str],
        types: list[str],
        wide: bool = True,
    ) -> None:
        self._cursor = cursor
        self._limit = limit
        self._guard = guard
        self.columns = columns
        self.types = types
        self.wide = wide
        """Whether a column holds values of any size (texts, blobs, nested values)."""
        self.left_out = 0
        """Known once :meth:`pages` is exhausted: rows past the limit that were counted."""
        self.left_out_exact = True
        """Whether :attr:`left_out` is every row past the limit (counting stops early)."""

    def pages(self) -> Iterator[list[tuple[Any, ...]]]:
        if not self.columns:
            return
        sent = total = 0
        rows = 1 if self.wide else PAGE_ROWS  # a first row shows how wide they are
        while not self._limit or sent < self._limit:
            want = rows if not self._limit else min(rows, self._limit - sent)
            with self._guard:
                page = self._cursor.fetchmany(want)
            if not page:
                return
            held = sum(_size(v) for row in page for v in row)
            total += held
            if total > MAX_RESULT_BYTES:
                raise WarehouseError(
                    _(
                        "the result holds more than {mib} MiB, more than `query` gives, past its first {sent} rows; narrow it: fewer rows (WHERE, {limit}) or fewer or shorter columns",
                        mib=MAX_RESULT_BYTES // (1024 * 1024),
                        sent=sent,
                        limit=named("limit"),
                    )
                )
            # A page of wide rows: fetch fewer at a time, so that one page stays near PAGE_BYTES.
            rows = max(1, min(PAGE_ROWS, PAGE_BYTES * len(page) // max(held, 1)))
            sent += len(page)
            yield page
        self.left_out, self.left_out_exact = self._count_rest()

    def _count_rest(self) -> tuple[int, bool]:
        """The rows past the limit, counted while that stays cheap, and whether that is all."""
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
        import duckdb

        counted, until = 0, time.monotonic() + COUNT_SECONDS
        try:
            while counted < COUNT_LEFT_OUT and time.monotonic() < until:
                page = self._cursor.fetchmany(PAGE_ROWS * 10)
                if not page:
                    return counted, True
                counted += len(page)
        except duckdb.Error:  # interrupted or failed past the limit: the rows shown stand
            pass
        return counted, False


class _Guard:
    """Turns DuckDB's errors into one-line refusals, and owns the timer that interrupts it."""

    def __init__(self, con: duckdb.DuckDBPyConnection, limits: QueryLimits) -> None:
        self.con = con
        self.limits = limits
        self.fired = False
        self._timer = threading.Timer(limits.timeout, self._interrupt)
        self._timer.daemon = True

    def _interrupt(self) -> None:
        self.fired = True
        self.con.interrupt()

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.cancel()

    def __enter__(self) -> _Guard:
        return self

    def __exit__(self, _t: object, e: BaseException | None, _tb: object) -> None:
        # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
        import duckdb

        if isinstance(e, MemoryError):  # Python's side, under process_memory_bound
            raise out_of_memory(self.limits, "the rows could not be converted") from e
        if not isinstance(e, duckdb.Error):
            return
        if _TOO_BIG in str(e):
            column = str(e).split(_TOO_BIG, 1)[1].split("\n", 1)[0].strip()
            raise WarehouseError(
                _(
                    "a value of column {column!r} holds more than {max_elements:,} elements, more than `query` prints; count or slice it in SQL (len(x), x[1:100])",
                    column=column,
                    max_elements=MAX_ELEMENTS,
                )
            ) from e
        if _TOO_LONG in str(e):
            column = str(e).split(_TOO_LONG, 1)[1].split("\n", 1)[0].strip()
            raise WarehouseError(
                _(
                    "a value of column {column!r} holds more than {mib} MiB, more than `query` gives; take a part of it in SQL (left(x, 1000), strlen(x))",
                    column=column,
                    mib=MAX_VALUE_BYTES // (1024 * 1024),
                )
            ) from e
        if isinstance(e, duckdb.InterruptException) or self.fired:
            raise WarehouseError(
                _(
                    "the query ran past its time limit of {timeout:g} s and was stopped; narrow it, or give `timeout` SECONDS",
                    timeout=self.limits.timeout,
                ),
                field="timeout",
            ) from e
        if isinstance(e, duckdb.OutOfMemoryException):
            raise out_of_memory(self.limits, first_line(e)) from e
        if isinstance(e, duckdb.PermissionException) or _names_a_file(e):
            raise WarehouseError(
                _(
                    "`query` cannot read files or reach the network (external access is off); query the warehouse tables, e.g. SELECT * FROM rolls"
                )
            ) from e
        raise WarehouseError(_("query failed: {first_line}", first_line=first_line(e))) from e


def out_of_memory(limits: QueryLimits, reason: str) -> WarehouseError:
    """The refusal of a query that needs more memory than its limits give."""
    return WarehouseError(
        _(
            "the query needs more memory than `query` allows ({memory_mb} MB, {whole_mb} MB for the whole query, spilling at most {temp_mb} MB to disk): {reason}; narrow it",
            memory_mb=limits.memory_mb,
            whole_mb=limits.memory_mb + limits.headroom_mb,
            temp_mb=limits.temp_mb,
            reason=reason,
        )
    )


def _names_a_file(e: Exception) -> bool:
    """A table DuckDB could not find whose name is a file path: with external access off DuckDB
    does not look for the file (``SELECT * FROM '/etc/passwd'``)."""
    # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
    import duckdb

    if not isinstance(e, duckdb.CatalogException):
        return False
    first = first_line(e)
    marker = "Table with name "
    if marker not in first:
        return False
    name = first.split(marker, 1)[1].rsplit(" does not exist", 1)[0]
    return "/" in name or "\\" in name or "." in name.lstrip(".")


def check_query_text(sql: str, limit: int) -> str:
    """The checks of :func:`check_query` that need no parser: the limit, and a query at all."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise WarehouseError(
            _("`limit` must be a whole number of rows, 0 for every row; got {limit!r}", limit=limit),
            field="limit",
        )
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise WarehouseError(_('the query is empty; give a SELECT, e.g. "SELECT count(*) FROM rolls"'))
    return text


def check_query(sql: str, limit: int = DEFAULT_LIMIT, con: duckdb.DuckDBPyConnection | None = None) -> str:
    """The one SELECT statement of ``sql``; anything else is refused before it runs, as is a
    ``limit`` that is not a number of rows. Parsed by ``con`` when given: without one DuckDB
    parses on its default connection, a database of its own that costs as much to start as
    opening the warehouse (20-40 ms)."""
    # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
    import duckdb

    text = check_query_text(sql, limit)
    try:
        statements = (con if con is not None else duckdb).extract_statements(text)
    except duckdb.Error as e:
        raise WarehouseError(_("the query cannot be parsed: {first_line}", first_line=first_line(e))) from e
    if len(statements) != 1:
        raise WarehouseError(
            _("give one statement, not {count}; run them one at a time", count=len(statements))
        )
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        name = str(kind).rsplit(".", 1)[-1]
        raise WarehouseError(_("`query` is read-only: {name} statements are refused; use SELECT", name=name))
    return text


def _elements(expr: str, kind: Any, depth: int = 1) -> str | None:
    """SQL counting the elements of a nested value of type ``kind``, all the way down (None:
    the type is not nested, its values are small)."""
    name = kind.id
    if name in ("list", "array"):
        x = f"x{depth}"
        inner = _elements(x, kind.children[0][1], depth + 1)
        count = f"coalesce(len({expr}), 0)"
        if inner is None:
            return count
        return f"{count} + coalesce(list_sum(list_transform({expr}, lambda {x}: {inner})), 0)"
    if name == "map":
        parts = [f"coalesce(cardinality({expr}), 0)"]
        for fn, (_, child) in zip(("map_keys", "map_values"), kind.children, strict=True):
            inner = _elements(f"{fn}({expr})", duckdb_list_of(child), depth)
            if inner is not None:
                parts.append(inner)
        return " + ".join(parts)
    if name in ("struct", "union"):
        fn = "struct_extract" if name == "struct" else "union_extract"
        parts = []
        for field, child in kind.children:
            if not field:  # a union's tag
                continue
            inner = _elements(f"{fn}({expr}, {sql_literal(field)})", child, depth)
            if inner is not None:
                parts.append(f"coalesce({inner}, 0)")
        return " + ".join(parts) or None
    return None


def _bytes(expr: str, kind: Any) -> str | None:
    """SQL for how many bytes a value of type ``kind`` holds, when that can be large: a text,
    a blob, a bit string, or a nested value (written out as text, after its elements were
    counted); None for the fixed-size types."""
    name = kind.id
    if name == "varchar":
        return f"strlen({expr})"
    if name in ("blob", "bit"):
        return f"octet_length({expr})"
    if name in ("list", "array", "map", "struct", "union"):
        return f"strlen(CAST({expr} AS VARCHAR))"
    return None


def _size(value: Any) -> int:
    """About how many bytes a fetched value holds (its text's, for the strings in it)."""
    if isinstance(value, str | bytes | bytearray):
        return len(value) + 8
    if isinstance(value, list | tuple):
        return sum(map(_size, value)) + 8
    if isinstance(value, dict):
        return sum(_size(k) + _size(v) for k, v in value.items()) + 8
    return 8


def duckdb_list_of(kind: Any) -> Any:
    # lazy: importing the warehouse imports no duckdb (tests/test_warehouse.py)
    import duckdb

    return duckdb.list_type(kind)


def _bounded(text: str, columns: Sequence[str], types: Sequence[Any]) -> str:
    """``text`` as it runs: unchanged when no column is nested, else wrapped so that a value
    holding more than :data:`MAX_ELEMENTS` elements stops the query (columns renamed by
    position, so that duplicate names stay apart; the output keeps the original names)."""
    names = [f"c{i}" for i in range(1, len(types) + 1)]
    select, guarded = [], False
    for name, original, kind in zip(names, columns, types, strict=True):
        count = _elements(f'"{name}"', kind)
        size = _bytes(f'"{name}"', kind)
        if count is None and size is None:
            select.append(f'"{name}"')
            continue
        guarded = True
        whens = []
        if count is not None:
            whens.append(
                f"WHEN ({count}) > {MAX_ELEMENTS} THEN error({sql_literal(f'{_TOO_BIG} {original}')})"
            )
        if size is not None:
            whens.append(
                f"WHEN ({size}) > {MAX_VALUE_BYTES} THEN error({sql_literal(f'{_TOO_LONG} {original}')})"
            )
        select.append(f'CASE {" ".join(whens)} ELSE "{name}" END AS "{name}"')
    if not guarded:
        return text
    aliases = ", ".join(f'"{n}"' for n in names)
    return f"SELECT {', '.join(select)} FROM (\n{text}\n) AS q({aliases})"


@contextlib.contextmanager
def open_query(
    wh: Warehouse, sql: str, *, limit: int = DEFAULT_LIMIT, limits: QueryLimits | None = None
) -> Iterator[QueryStream]:
    """Run one read-only SELECT over the warehouse and stream its rows (``limit`` 0: all of them).

    Anything but a single SELECT is refused before it runs. The connection is read-only
    with external access, extensions and Python objects off; its memory, threads and
    spill files are bounded and its settings locked; a timer interrupts DuckDB once the
    time limit has passed, while the query runs or while its rows stream out."""
    check_query_text(sql, limit)  # the limit and an empty query, before opening anything
    limits = limits or QueryLimits()
    con = wh.connect_read_only(limits)
    try:
        text = check_query(sql, limit, con)  # parsed on the connection that will run it
    except BaseException:
        con.close()
        raise
    guard = _Guard(con, limits)
    try:
        guard.start()
        with guard:
            relation = con.sql(text)  # bound, not run: its columns and their types
            columns, types = list(relation.columns), list(relation.types)
            cursor = con.execute(_bounded(text, columns, types))
        wide = any(_bytes("x", t) is not None for t in types)
        yield QueryStream(cursor, limit, guard, columns, [str(t) for t in types], wide)
    finally:
        guard.stop()
        con.close()


def run_query(
    wh: Warehouse, sql: str, *, limit: int = DEFAULT_LIMIT, limits: QueryLimits | None = None
) -> QueryResult:
    """:func:`open_query`, with the rows up to ``limit`` in a list."""
    with open_query(wh, sql, limit=limit, limits=limits) as q:
        rows = [row for page in q.pages() for row in page]
        return QueryResult(q.columns, q.types, rows, q.left_out, q.left_out_exact)


# --- escaping ------------------------------------------------------------------------------


def sql_literal(value: Any) -> str:
    """``value`` as a SQL literal (NULL, a boolean, a number, or a quoted text)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def sql_str(path: Path) -> str:
    """A path inside a single-quoted SQL string."""
    return str(path).replace("'", "''")
