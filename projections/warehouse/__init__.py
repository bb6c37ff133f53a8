"""The statistics warehouse: a DuckDB database derived from the event log.

The warehouse holds typed tables an analyst can read without knowing the
event classes: ``campaigns`` (branches included), ``events``, ``actions`` (a
view), ``characters``, ``rolls``, ``dice`` and one table per kind of fact: the
shared ones (``meals``, ``nights``, ``days``, ``wounds``, ``conditions``,
``deaths``) and those of the installed systems' own fact classes
(``ReadModel.fact_types``). Which tables there are, and so the layout a warehouse
was written with, depends on the installed systems.

One idea per module, each importing only those above it in this list:

- :mod:`.schema`: the tables and the layout's fingerprint;
- :mod:`.paths`: where the warehouse lives, the checks on its path, its scratch
  folders and how DuckDB is opened;
- :mod:`.query`: the query sandbox (the read-only connection, the limits, the
  escaping of SQL literals);
- :mod:`.loading`: catch-up, rebuild and the staged pages (:class:`Warehouse`);
- :mod:`.export`: the Parquet export.

This package exports the names the rest of the project reads from it, so that
``from ledger.projections.warehouse import Warehouse`` keeps working; the
project's own code imports each from the module that holds it where that is
clearer. Importing it loads no DuckDB.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ledger.errors import WarehouseError
from ledger.projections.warehouse.loading import StreamInfo, Warehouse, open_warehouse
from ledger.projections.warehouse.paths import (
    DEFAULT_PG_WAREHOUSE,
    DUCKDB_CONFIG,
    REBUILD,
    REBUILD_MARK,
    SCRATCH_PREFIX,
    WarehousePathError,
    check_warehouse_path,
    duckdb_config,
    warehouse_path,
)
from ledger.projections.warehouse.query import (
    DEFAULT_LIMIT,
    MAX_ELEMENTS,
    MAX_RESULT_BYTES,
    MAX_VALUE_BYTES,
    QueryLimits,
    QueryResult,
    QueryStream,
    check_query,
    check_query_text,
    left_out_note,
    open_query,
    read_only_connection,
    run_query,
)
from ledger.projections.warehouse.schema import (
    FACTS_REVISION,
    Layout,
    Schema,
    SchemaChanged,
    SystemFacts,
    Table,
    build_schema,
    layout_for,
    schema,
    tables,
)

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_PG_WAREHOUSE",
    "DUCKDB_CONFIG",
    "EXPORT_MARK",
    "FACTS_REVISION",
    "MAX_ELEMENTS",
    "MAX_RESULT_BYTES",
    "MAX_VALUE_BYTES",
    "REBUILD",
    "REBUILD_MARK",
    "SCRATCH_PREFIX",
    "Layout",
    "QueryLimits",
    "QueryResult",
    "QueryStream",
    "Schema",
    "SchemaChanged",
    "StreamInfo",
    "SystemFacts",
    "Table",
    "Warehouse",
    "WarehouseError",
    "WarehousePathError",
    "build_schema",
    "check_query",
    "check_query_text",
    "check_warehouse_path",
    "duckdb_config",
    "export_parquet",
    "layout_for",
    "left_out_note",
    "open_query",
    "open_warehouse",
    "read_only_connection",
    "run_query",
    "schema",
    "tables",
    "warehouse_path",
]

if TYPE_CHECKING:
    from ledger.projections.warehouse.export import EXPORT_MARK, export_parquet

_EXPORT = frozenset({"EXPORT_MARK", "export_parquet"})
"""The Parquet export's names, imported on first use: a command that reads the warehouse
loads no export (tests/test_cli_startup.py)."""


def __getattr__(name: str) -> Any:
    if name not in _EXPORT:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("ledger.projections.warehouse.export"), name)
    globals()[name] = value
    return value
