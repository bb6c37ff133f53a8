"""eventsourcing's SQLite recorders over a ledger file: the datastore, the events' recorder
(:class:`BulkSQLiteRecorder`) and one aggregate recorder per private table. Imported when a
store first needs them (:func:`ledger.log.store.sqlite.open_sqlite`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteApplicationRecorder, SQLiteDatastore

from ledger.log.store.common import EVENTS_TABLE, PAGE, PRIVATE_TABLES, Claim


def select_states_sql(table: str, gt: int, lte: int | None, mark: str) -> tuple[str, list[Any]]:
    """A stream's states in (gt, lte], in version order: the statement and its
    parameters after the stream's (``mark`` is the driver's placeholder)."""
    sql = f"SELECT state FROM {table} WHERE originator_id = {mark} AND originator_version > {mark}"
    if lte is not None:
        sql += f" AND originator_version <= {mark}"
    return sql + " ORDER BY originator_version", [gt] if lte is None else [gt, lte]


def recorders(name: str) -> tuple[SQLiteDatastore, BulkSQLiteRecorder, dict[str, Any]]:
    """eventsourcing's datastore over the file (or read-only URI) ``name``, the recorder of
    the events and one aggregate recorder per private table."""
    datastore = SQLiteDatastore(name, lock_timeout=30, pool_size=1, originator_id_type="text")
    recorder = BulkSQLiteRecorder(datastore, events_table_name=EVENTS_TABLE)
    private = {table: SQLiteAggregateRecorder(datastore, events_table_name=table) for table in PRIVATE_TABLES}
    return datastore, recorder, private


class BulkSQLiteRecorder(SQLiteApplicationRecorder):
    """The SQLite application recorder, inserting a transaction's rows with
    one ``executemany`` (the stock one issues one ``execute`` per row to
    collect notification ids, which the ledger does not need), and reading
    a stream's states as a stream of bytes."""

    def insert_rows(self, rows: Sequence[tuple[str, int, str, bytes]], claim: Claim | None = None) -> None:
        """Insert (stream, version, topic, state) tuples in one transaction, and the
        ``claim``'s row in its table in the same one."""
        with self.datastore.transaction(commit=True) as c:
            if claim is not None:
                c.execute(f"INSERT INTO {claim.table} VALUES (?, ?, ?, ?)", claim.row)
            c.executemany(self.insert_events_statement, rows)

    def select_states(self, stream: str, gt: int, lte: int | None) -> Iterator[bytes]:
        sql, params = select_states_sql(self.events_table_name, gt, lte, "?")
        with self.datastore.transaction(commit=False) as c:
            cursor = c.sqlite_cursor
            cursor.row_factory = None
            cursor.execute(sql, [stream, *params])
            while rows := cursor.fetchmany(PAGE):
                for row in rows:
                    yield row[0]

    def select_rows(self, stream: str, gt: int, lte: int | None) -> Iterator[tuple[int, str, bytes]]:
        """(version, topic, state) of a stream's events in (gt, lte], in version order:
        what :meth:`select_states` streams, with the two columns ``verify`` checks."""
        sql, params = select_states_sql(self.events_table_name, gt, lte, "?")
        sql = sql.replace("SELECT state", "SELECT originator_version, topic, state", 1)
        with self.datastore.transaction(commit=False) as c:
            cursor = c.sqlite_cursor
            cursor.row_factory = None
            cursor.execute(sql, [stream, *params])
            while rows := cursor.fetchmany(PAGE):
                yield from rows

    def select_marked(
        self, stream: str, gt: int, lte: int, marker: bytes, limit: int
    ) -> list[tuple[int, bytes]]:
        sql = (
            f"SELECT originator_version, state FROM {self.events_table_name} WHERE originator_id = ? "
            "AND originator_version > ? AND originator_version <= ? AND instr(state, ?) > 0 "
            "ORDER BY originator_version DESC LIMIT ?"
        )
        with self.datastore.transaction(commit=False) as c:
            cursor = c.sqlite_cursor
            cursor.row_factory = None
            cursor.execute(sql, [stream, gt, lte, marker, limit])
            return [(v, bytes(state)) for v, state in cursor.fetchall()]

    def select_states_after(self, position: int, limit: int) -> list[tuple[int, str, bytes]]:
        sql = (
            f"SELECT rowid, originator_id, state FROM {self.events_table_name} "
            "WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        with self.datastore.transaction(commit=False) as c:
            cursor = c.sqlite_cursor
            cursor.row_factory = None
            cursor.execute(sql, [position, limit])
            return cursor.fetchall()  # type: ignore[no-any-return]
