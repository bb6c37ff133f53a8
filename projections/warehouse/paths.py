"""Where the warehouse lives, and what may be opened there.

The warehouse's default path (``--warehouse``, ``LEDGER_WAREHOUSE``, beside the ledger
file), the checks that refuse a path that would overwrite the ledger's own files or a file
that is no DuckDB database (:func:`check_warehouse_path`), the scratch folders a catch-up,
a rebuild or an export leaves beside it and sweeps up, and how every DuckDB connection of
the project is configured (:data:`DUCKDB_CONFIG`: no extension fetched or loaded) and how
its errors are put in one line.

It imports the kernel's errors and ``ledger.trust.outfile`` (the ledger's own files), and no
other module of the warehouse. It never imports DuckDB.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledger.errors import Fix, RunCommand, WarehouseError
from ledger.i18n import _
from ledger.trust import outfile

if TYPE_CHECKING:
    from ledger.campaign import Ledger

DEFAULT_PG_WAREHOUSE = outfile.DEFAULT_PG_WAREHOUSE


class WarehousePathError(WarehouseError):
    """A warehouse path that holds something else: the ledger, or a file that is no warehouse
    of this ledger (it is never written)."""

    def __init__(self, message: str, path: Path, *, field: str | None = None, fix: Fix | None = None) -> None:
        super().__init__(message, field=field, fix=fix)
        self.path = path


REBUILD = RunCommand(text="rebuild the warehouse", command="warehouse rebuild")
"""The fix of a warehouse that is missing or not filled yet."""

DUCKDB_CONFIG: Mapping[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
}
"""The configuration of every DuckDB connection the project opens: no extension is ever
fetched or loaded on its own (given a SQLite file, DuckDB would otherwise download its
SQLite scanner). JSON and Parquet are built in."""


QUIET_ENGINE: Mapping[str, Any] = {"async_threads": 0}
"""What DuckDB 2 is also told (it is given to 2 and later, where it was measured): no threads
of asynchronous I/O.
DuckDB 2 starts eight of them with every database, for remote files the warehouse never
reads, and joins them when it closes; a warm ``stats`` or ``query`` (two databases) made
and joined 9 or 18 threads for one small page. On a loaded machine each waits its turn for
a core to start and again to stop (a database's close took 17 ms against 14 without them,
at load average 12); its worker threads (``threads``) are left as they are."""


def duckdb_config(**more: Any) -> dict[str, Any]:
    """:data:`DUCKDB_CONFIG` with more settings (and :data:`QUIET_ENGINE` where DuckDB, already
    imported by the caller that connects, is 2 or later)."""
    engine = sys.modules.get("duckdb")
    version = getattr(engine, "__version__", "1.")
    quiet = QUIET_ENGINE if not version.startswith(("0.", "1.")) else {}
    return {**DUCKDB_CONFIG, **quiet, **more}


_DUCKDB_MAGIC = b"DUCK"
"""Bytes 8 to 11 of every DuckDB database file."""


def check_warehouse_path(ledger: Ledger, path: Path) -> None:
    """Refuse a warehouse path that would overwrite something other than a warehouse: the
    ledger's own files (after resolving symlinks and relative paths, with the warehouse's
    write-ahead log and spill folder beside it), or an existing file that is not a DuckDB
    database. Whether a DuckDB database is this ledger's warehouse is checked when it opens."""
    ledger_files = outfile.ledger_files(ledger.store)
    if ledger_files:
        main = next(iter(ledger_files))
        for own in outfile.warehouse_files(path):
            found = outfile.clash(own, ledger_files)
            if found is not None:
                raise WarehousePathError(
                    _(
                        "warehouse {path} would overwrite {what} {file}; give `warehouse` a file of its own, e.g. {main}.duckdb",
                        path=path,
                        what=found[1],
                        file=found[0],
                        main=main,
                    ),
                    path,
                    field="warehouse",
                )
    try:
        kind = outfile.not_a_file(path, follow_symlinks=True)
    except OSError as e:
        raise WarehousePathError(
            _(
                "cannot look at warehouse {path}: {strerror}; choose another `warehouse`",
                path=path,
                strerror=e.strerror,
            ),
            path,
            field="warehouse",
        ) from e
    if kind is not None:
        raise WarehousePathError(
            _("warehouse {path} is {kind}, not a file; choose another `warehouse`", path=path, kind=kind),
            path,
            field="warehouse",
        )
    if not path.exists():
        return
    try:
        with path.open("rb") as f:
            head = f.read(12)
    except OSError as e:
        raise WarehousePathError(
            _(
                "cannot read warehouse {path}: {strerror}; choose another `warehouse`",
                path=path,
                strerror=e.strerror,
            ),
            path,
            field="warehouse",
        ) from e
    if head[8:12] != _DUCKDB_MAGIC:
        raise WarehousePathError(
            _(
                "{path} is not a DuckDB database, so not a warehouse of this ledger; it was left as it is: choose another `warehouse`, or remove the file if it is a damaged warehouse",
                path=path,
            ),
            path,
            field="warehouse",
        )


def warehouse_path(ledger: Ledger, explicit: str | None = None) -> Path:
    """``--warehouse``, else ``LEDGER_WAREHOUSE``, else ``<ledger file>.duckdb``
    for SQLite or ``./ledger-warehouse.duckdb`` for PostgreSQL."""
    return Path(explicit) if explicit else outfile.default_warehouse(ledger.store)


REBUILD_MARK = ".rebuild-"
"""A rebuild fills ``.<warehouse name>.rebuild-<pid>-<random>/`` beside the warehouse."""

SCRATCH_PREFIX = "ledger-wh-"
"""Scratch folders are named ``ledger-wh-<pid>-<random>``: a catch-up that was killed
leaves its folder, which the next catch-up removes once that process is gone."""


def sweep(scratch: str | None, prefix: str = SCRATCH_PREFIX) -> None:
    """Remove the scratch folders of catch-ups (or rebuilds) whose process no longer runs (a
    process killed mid-page cannot remove its own; on shared memory they would hold RAM)."""
    if os.name != "posix":  # os.kill(pid, 0) only asks on POSIX
        return
    root = Path(scratch or tempfile.gettempdir())
    try:
        names = [name for name in os.listdir(root) if name.startswith(prefix) and "-" in name[len(prefix) :]]
    except OSError:
        return
    for name in names:
        folder = root / name
        pid = name[len(prefix) :].split("-", 1)[0]
        if not folder.is_dir() or not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:  # alive, another user's
            continue


def scratch_folder() -> str | None:
    """Where pages wait for DuckDB: the folder ``LEDGER_SCRATCH`` names, else shared memory
    when the machine has it (the pages are read once and dropped, so they need never reach
    a disk), else the temporary folder."""
    chosen = os.environ.get("LEDGER_SCRATCH")
    if chosen:
        return chosen
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def first_line(e: BaseException) -> str:
    """The first line of an error's text (its type's name when it has none), for a one-line message."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
