"""The Parquet export: every warehouse table written as Parquet files, partitioned by system.

``ledger export parquet`` writes into a folder that is new, empty, or an earlier export of
the same ledger (its :data:`EXPORT_MARK` names the table folders it holds, and exactly those
are replaced); anything else there is refused untouched.

It imports the kernel's errors and, of the warehouse, the loading side (the caught-up
warehouse it reads), its paths (the scratch folders it sweeps), its layout (which tables)
and the query sandbox's SQL escaping; nothing imports it but the command line.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ledger.errors import WarehouseError, WarehouseStorageError
from ledger.projections.warehouse.loading import Warehouse, open_warehouse
from ledger.projections.warehouse.paths import first_line, sweep
from ledger.projections.warehouse.query import sql_str
from ledger.projections.warehouse.schema import tables

if TYPE_CHECKING:
    from ledger.campaign import Ledger

EXPORT_MARK = "ledger-export.json"
"""The file ``ledger export parquet`` leaves in its folder: which ledger it is from and which
table folders it wrote (a later export into the same folder replaces exactly those)."""


_TABLE_NAME = re.compile(r"[a-z][a-z0-9_]*")


def _export_target(out: Path, ledger_id: str) -> list[str]:
    """The table folders an earlier export of this ledger left in ``out`` (which this export
    replaces); refuses a file, another ledger's export, and a folder that holds anything
    else, which is never touched."""
    if out.exists() and not out.is_dir():
        raise WarehouseError(f"{out} is a file; give a folder for the Parquet tables")
    if not out.exists():
        return []
    mark = out / EXPORT_MARK
    if mark.is_file():
        try:
            earlier = msgspec.json.decode(mark.read_bytes())
            tables = [str(t) for t in earlier["tables"]]
            other = earlier["ledger"] != ledger_id
        except (OSError, msgspec.DecodeError, KeyError, TypeError) as e:
            raise WarehouseError(
                f"{mark} cannot be read ({first_line(e)}); the folder was left as it is: choose another folder",
            ) from e
        if other:
            raise WarehouseError(
                f"{out} holds another ledger's Parquet export; it was left as it is: choose another folder",
            )
        for t in tables:
            if _TABLE_NAME.fullmatch(t) and (out / t).is_symlink():
                raise WarehouseError(
                    f"{out / t} is a symlink, not a table folder an export wrote; the folder was left as it "
                    "is: remove the symlink, or choose another folder",
                )
        return [t for t in tables if _TABLE_NAME.fullmatch(t) and (out / t).is_dir()]
    if any(p for p in out.iterdir() if not p.name.startswith(f".{EXPORT_MARK}-")):
        raise WarehouseError(
            f"{out} is not empty and holds no Parquet export of this ledger; it was left as it is: "
            "give a new or empty folder",
        )
    return []


def export_parquet(ledger: Ledger, directory: str, *, warehouse: str | None = None) -> list[str]:
    """Write every warehouse table as Parquet under ``directory/<table>/system=<s>/``.

    The folder must be new, empty, or an earlier export of this ledger (its
    :data:`EXPORT_MARK` names the table folders it holds, and exactly those are
    replaced); anything else in it is refused untouched. The tables are written
    into a scratch folder inside it first, then moved into place.

    Read it back with ``read_parquet('DIR/rolls/**/*.parquet', hive_partitioning=true)``."""
    wh = open_warehouse(ledger, warehouse)
    out = Path(directory)
    try:
        return _export_parquet(wh, ledger, out)
    except OSError as e:
        raise WarehouseStorageError(
            f"cannot write the Parquet export in {out}: {e.strerror or e}; free some space, or choose another folder"
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
                    f"{there} was not written by an export of this ledger; the folder was left as it is: "
                    "remove it, or choose another folder",
                )
        (out / EXPORT_MARK).unlink(missing_ok=True)  # from here until the end, no export is whole
        for name in earlier:
            shutil.rmtree(out / name)
        for name in written:
            os.replace(stage / name, out / name)
        mark = {"ledger": ledger_id, "store": ledger.store.describe(), "tables": written}
        (out / EXPORT_MARK).write_bytes(msgspec.json.encode(mark))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return [str(p) for name in written for p in sorted((out / name).rglob("*.parquet"))]
