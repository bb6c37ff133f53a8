"""The Parquet export: every warehouse table written as Parquet files, partitioned by system.

``ledger export parquet`` writes into a folder that is new, empty, or an earlier export of
the same ledger. Its :data:`EXPORT_MARK` names every file the export wrote, with its size;
a later export into the same folder removes exactly those, and refuses, touching nothing, a
table folder that holds anything else (a file a user put there, a file changed since, a
symlink). A folder that holds the ledger or its warehouse, at any depth, is refused too.

It imports the kernel's errors and the files the ledger keeps (``ledger.trust.outfile``) and,
of the warehouse, the loading side (the caught-up warehouse it reads), its paths (the
scratch folders it sweeps), its layout (which tables) and the query sandbox's SQL escaping;
nothing imports it but the command line.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ledger.errors import WarehouseError, WarehouseStorageError
from ledger.i18n import _
from ledger.projections.warehouse.loading import Warehouse, open_warehouse
from ledger.projections.warehouse.paths import first_line, sweep, warehouse_path
from ledger.projections.warehouse.query import sql_str
from ledger.projections.warehouse.schema import tables
from ledger.trust import outfile

if TYPE_CHECKING:
    from ledger.campaign import Ledger

EXPORT_MARK = "ledger-export.json"
"""The file ``ledger export parquet`` leaves in its folder: which ledger it is from, which
table folders it wrote and every file in them with its size (a later export into the same
folder removes exactly those)."""


_TABLE_NAME = re.compile(r"[a-z][a-z0-9_]*")
_OLD_LAYOUT = re.compile(r"[a-z][a-z0-9_]*/system=[^/]+/data_[0-9]+\.parquet")
"""The files an export wrote before its mark listed them: ``<table>/system=<s>/data_<n>.parquet``."""


class Mark(msgspec.Struct, frozen=True):
    """What an earlier export left in :data:`EXPORT_MARK`."""

    ledger: str
    tables: list[str]
    files: dict[str, int] | None = None
    """Each file it wrote, by its path under the folder (``/``-separated), with its size;
    None in a mark written before the marks listed them."""
    store: str | None = None


def _check_holds_no_own_file(out: Path, own: Mapping[Path, str]) -> None:
    """Refuse a folder that holds, at any depth, the ledger's file or its warehouse."""
    try:
        root = out.resolve()
    except (OSError, RuntimeError):
        return  # a symlink loop: refused when the folder is looked at
    for file, what in own.items():
        if not os.path.lexists(file):
            continue
        try:
            where = file.resolve()
        except (OSError, RuntimeError):
            continue
        if where.is_relative_to(root):
            raise WarehouseError(
                _(
                    "{out} holds {what} {file}; it was left as it is: give the Parquet export a folder of its own (new or empty)",
                    out=out,
                    what=what,
                    file=file,
                ),
            )


def _export_target(out: Path, ledger_id: str) -> dict[str, dict[str, int] | None]:
    """The table folders an earlier export of this ledger left in ``out``, each with the
    files it wrote there (None: an older mark, which did not list them), which this export
    replaces; refuses a file, another ledger's export, and a folder that holds anything
    else, which is never touched."""
    if out.exists() and not out.is_dir():
        raise WarehouseError(_("{out} is a file; give a folder for the Parquet tables", out=out))
    if not out.exists():
        return {}
    mark_file = out / EXPORT_MARK
    if mark_file.is_file():
        try:
            mark = msgspec.json.decode(mark_file.read_bytes(), type=Mark)
        except (OSError, msgspec.DecodeError) as e:
            raise WarehouseError(
                _(
                    "{mark_file} cannot be read ({first_line}); the folder was left as it is: choose another folder",
                    mark_file=mark_file,
                    first_line=first_line(e),
                ),
            ) from e
        if mark.ledger != ledger_id:
            raise WarehouseError(
                _(
                    "{out} holds another ledger's Parquet export; it was left as it is: choose another folder",
                    out=out,
                ),
            )
        for t in mark.tables:
            if _TABLE_NAME.fullmatch(t) and (out / t).is_symlink():
                raise WarehouseError(
                    _(
                        "{link} is a symlink, not a table folder an export wrote; the folder was left as it is: remove the symlink, or choose another folder",
                        link=out / t,
                    ),
                )
        earlier: dict[str, dict[str, int] | None] = {}
        for t in mark.tables:
            if not (_TABLE_NAME.fullmatch(t) and (out / t).is_dir()):
                continue
            earlier[t] = (
                None if mark.files is None else {f: n for f, n in mark.files.items() if f.startswith(f"{t}/")}
            )
            _check_only_written(out, t, earlier[t])
        return earlier
    if any(p for p in out.iterdir() if not p.name.startswith(f".{EXPORT_MARK}-")):
        raise WarehouseError(
            _(
                "{out} is not empty and holds no Parquet export of this ledger; it was left as it is: give a new or empty folder",
                out=out,
            ),
        )
    return {}


def _check_only_written(out: Path, table: str, written: dict[str, int] | None) -> None:
    """Refuse a table folder that holds anything an export did not write: a file its mark
    does not list (or, for an older mark, a file outside the export's layout), a listed file
    whose size changed, a symlink or anything but a folder or a regular file."""
    for folder, dirs, files in os.walk(out / table):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode):
                continue
            relative = path.relative_to(out).as_posix()
            ours = stat.S_ISREG(mode) and (
                _OLD_LAYOUT.fullmatch(relative) is not None
                if written is None
                else written.get(relative) == os.lstat(path).st_size
            )
            if not ours:
                raise WarehouseError(
                    _(
                        "{path} was not written by an export of this ledger (or was changed since); the folder was left as it is: move it out of {out}, or choose another folder",
                        path=path,
                        out=out,
                    ),
                )


def _remove_written(out: Path, table: str, written: dict[str, int] | None) -> None:
    """Remove the files an export wrote in a table folder (checked by :func:`_check_only_written`),
    then the folders they leave empty, the table folder last."""
    root = out / table
    for folder, _dirs, files in os.walk(root, topdown=False):
        for name in files:
            path = Path(folder) / name
            relative = path.relative_to(out).as_posix()
            if (written is None and _OLD_LAYOUT.fullmatch(relative)) or (written and relative in written):
                path.unlink()
        Path(folder).rmdir()  # an OSError if anything else is left: nothing of the user's is lost


def _files_of(stage: Path, table: str) -> dict[str, int]:
    """The files a table's export wrote under ``stage``, by their path in the export, with their sizes."""
    return {
        p.relative_to(stage).as_posix(): p.stat().st_size
        for p in sorted((stage / table).rglob("*"))
        if p.is_file()
    }


def export_parquet(ledger: Ledger, directory: str, *, warehouse: str | None = None) -> list[str]:
    """Write every warehouse table as Parquet under ``directory/<table>/system=<s>/``.

    The folder must be new, empty, or an earlier export of this ledger (its
    :data:`EXPORT_MARK` names the files it wrote, and exactly those are removed); a
    table folder holding anything else, and a folder holding the ledger or its
    warehouse, are refused untouched (before the warehouse is caught up, which writes
    beside it). The tables are written into a scratch folder inside it first, then
    moved into place.

    Read it back with ``read_parquet('DIR/rolls/**/*.parquet', hive_partitioning=true)``."""
    out = Path(directory)
    _check_holds_no_own_file(out, outfile.own_files(ledger.store, [warehouse_path(ledger, warehouse)]))
    wh = open_warehouse(ledger, warehouse)
    try:
        return _export_parquet(wh, ledger, out)
    except OSError as e:
        raise WarehouseStorageError(
            _(
                "cannot write the Parquet export in {out}: {reason}; free some space, or choose another folder",
                out=out,
                reason=e.strerror or e,
            )
        ) from e


def _export_parquet(wh: Warehouse, ledger: Ledger, out: Path) -> list[str]:
    ledger_id = wh._ledger_id()
    earlier = _export_target(out, ledger_id)
    out.mkdir(parents=True, exist_ok=True)
    sweep(str(out), f".{EXPORT_MARK}-")
    stage = Path(tempfile.mkdtemp(prefix=f".{EXPORT_MARK}-{os.getpid()}-", dir=out))
    written: list[str] = []
    try:
        con = wh._connect()
        try:
            for table in tables():
                count = con.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]
                if not count:
                    continue
                select = f'SELECT * FROM "{table.name}"'
                if "system" not in table.names:  # dice: the system comes from its roll
                    select = "SELECT d.*, r.system FROM dice d JOIN rolls r USING (roll_id)"
                con.execute(
                    f"COPY ({select}) TO '{sql_str(stage / table.name)}' (FORMAT parquet, PARTITION_BY (system))"
                )
                written.append(table.name)
        finally:
            con.close()
        for name in written:
            there = out / name
            if os.path.lexists(there) and (name not in earlier or there.is_symlink()):
                raise WarehouseError(
                    _(
                        "{there} was not written by an export of this ledger; the folder was left as it is: remove it, or choose another folder",
                        there=there,
                    ),
                )
        files = {f: n for name in written for f, n in _files_of(stage, name).items()}
        (out / EXPORT_MARK).unlink(missing_ok=True)  # from here until the end, no export is whole
        for name, ours in earlier.items():
            _remove_written(out, name, ours)
        for name in written:
            os.replace(stage / name, out / name)
        mark = Mark(ledger=ledger_id, store=ledger.store.describe(), tables=written, files=files)
        (out / EXPORT_MARK).write_bytes(msgspec.json.encode(mark))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return [str(p) for name in written for p in sorted((out / name).rglob("*.parquet"))]
