"""Where a recorded action's time goes on PostgreSQL: statements and round trips.

    python bench/pg_profile.py                # 300 rolls by one Ledger on a fresh schema
    python bench/pg_profile.py --rolls 1000

Every connection the store opens is wrapped so that each statement sent to
the server is counted (by its first words) and each wait for the server's
answer is counted as a round trip (psycopg's ``execute``, ``executemany``,
``commit``, ``rollback`` and the pool's liveness check each wait once; a
pipeline waits once per ``sync``). Prints the statements and round trips per
``Ledger.roll`` and the share of the wall time spent waiting on the server.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from ledger import Ledger  # noqa: E402

PG = os.environ.get("LEDGER_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")


class Tally:
    """Statements and server waits seen on every connection."""

    def __init__(self) -> None:
        self.statements: collections.Counter[str] = collections.Counter()
        self.trips = 0
        self.waiting = 0.0
        self.on = False

    def statement(self, query: Any) -> None:
        if not self.on:
            return
        text = (
            query if isinstance(query, str) else getattr(query, "as_string", lambda _c=None: str(query))(None)
        )
        words = text.split()
        key = " ".join(words[:2]).upper() if words else "(empty: the pool's liveness check)"
        self.statements[key] += 1

    @contextlib.contextmanager
    def trip(self) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            if self.on:
                self.trips += 1
                self.waiting += time.perf_counter() - start


def instrument(tally: Tally) -> None:
    """Count what every psycopg connection sends (patching the classes, once)."""
    cursor, connection = psycopg.Cursor, psycopg.Connection
    execute, executemany = cursor.execute, cursor.executemany
    commit, rollback = connection.commit, connection.rollback
    conn_execute = connection.execute

    def c_execute(self: Any, query: Any, *args: Any, **kw: Any) -> Any:
        tally.statement(query)
        if self.connection._pipeline is not None:
            return execute(self, query, *args, **kw)
        with tally.trip():
            return execute(self, query, *args, **kw)

    def c_executemany(self: Any, query: Any, params: Any, *args: Any, **kw: Any) -> Any:
        params = list(params)
        for _ in params:
            tally.statement(query)
        with tally.trip():
            return executemany(self, query, params, *args, **kw)

    def k_execute(self: Any, query: Any, *args: Any, **kw: Any) -> Any:
        return conn_execute(self, query, *args, **kw)  # counted by the cursor's execute

    def k_commit(self: Any) -> None:
        if self.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            return commit(self)  # nothing to commit: psycopg sends nothing
        tally.statement("COMMIT")
        with tally.trip():
            commit(self)

    def k_rollback(self: Any) -> None:
        if self.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            return rollback(self)
        tally.statement("ROLLBACK")
        with tally.trip():
            rollback(self)

    cursor.execute = c_execute  # type: ignore[method-assign]
    cursor.executemany = c_executemany  # type: ignore[method-assign]
    connection.execute = k_execute  # type: ignore[method-assign]
    connection.commit = k_commit  # type: ignore[method-assign]
    connection.rollback = k_rollback  # type: ignore[method-assign]
    # Transactions opened with ``with conn.transaction()`` send BEGIN and COMMIT or
    # ROLLBACK themselves; count them where psycopg sends them.
    transaction = psycopg.Transaction
    enter, exit_ = transaction._enter_gen, transaction._exit_gen

    def t_enter(self: Any) -> Any:
        tally.statement("BEGIN")
        if self._conn._pipeline is None:
            tally.trips += tally.on
        return enter(self)

    def t_exit(self: Any, exc_type: Any, exc_val: Any, exc_tb: Any) -> Any:
        tally.statement("COMMIT" if exc_type is None and not self.force_rollback else "ROLLBACK")
        if self._conn._pipeline is None:
            tally.trips += tally.on
        return exit_(self, exc_type, exc_val, exc_tb)

    transaction._enter_gen = t_enter  # type: ignore[method-assign]
    transaction._exit_gen = t_exit  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=300)
    args = parser.parse_args()
    tally = Tally()
    instrument(tally)
    schema = f"prof_{uuid.uuid4().hex[:8]}"
    url = f"{PG}?schema={schema}"
    try:
        with Ledger(url) as book:
            book.new_campaign("freeform", "Tomb")
            book.add_character("Ana", "Tomb")
            for _ in range(20):
                book.roll("1d20+5", "Tomb")  # warm: the tip is cached, statements prepared
            tally.on = True
            start = time.perf_counter()
            for _ in range(args.rolls):
                book.roll("1d20+5", "Tomb")
            took = time.perf_counter() - start
            tally.on = False
        n = args.rolls
        print(f"Ledger.roll on PostgreSQL, one Ledger, {n} rolls: {n / took:,.0f} per s")
        print(f"  round trips per roll       {tally.trips / n:5.1f}")
        print(f"  time waiting on the server {tally.waiting / took:5.0%} of the wall time")
        print("  statements per roll:")
        for key, count in tally.statements.most_common():
            print(f"    {count / n:5.2f}  {key}")
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


if __name__ == "__main__":
    main()
