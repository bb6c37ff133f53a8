"""Where a recorded action's time goes on PostgreSQL: statements and round trips.

    python bench/pg_profile.py                # 300 rolls by one Ledger on a fresh schema
    python bench/pg_profile.py --rolls 1000
    python bench/pg_profile.py --writers 8    # 8 processes on one campaign, then 1, alternating
    python bench/pg_profile.py --writers 8 --campaigns 8 --listen

Every connection the store opens is wrapped so that each statement sent to
the server is counted (by its first words) and each wait for the server's
answer is counted as a round trip (psycopg's ``execute``, ``executemany``,
``commit``, ``rollback`` and the pool's liveness check each wait once; a
pipeline waits once per ``sync``). Prints the statements and round trips per
``Ledger.roll`` and the share of the wall time spent waiting on the server.

With ``--writers N`` it profiles N writer processes on one campaign (or on
``--campaigns`` campaigns) against one writer, in alternating rounds: per
recorded action, the wall time each process spent waiting on each kind of
statement (an ``INSERT`` that won, one that lost the race, the read of what is
new), sleeping in the back-off after a lost race, and elsewhere (deciding,
sealing, the client's share of the processors), and the lost races. With
``--listen`` a live-table listener is open on the ledger meanwhile, so every
append notifies.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import multiprocessing as mp
import os
import statistics
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
        self.waited: collections.Counter[str] = collections.Counter()
        """Seconds waited on the server by what was waited for (a won or lost INSERT, a read)."""
        self.last = ""
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
        self.last = key

    @contextlib.contextmanager
    def trip(self) -> Iterator[None]:
        start = time.perf_counter()
        what = self.last
        try:
            yield
        except Exception:
            if self.on:
                self.waited[f"{what} (refused)"] += time.perf_counter() - start
            raise
        else:
            if self.on:
                self.waited[what] += time.perf_counter() - start
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


# --- many writers ------------------------------------------------------------------


def _writer(url: str, campaign: str, seconds: float, go: Any, out: Any) -> None:
    """One writer process: ``roll`` for ``seconds``; what its time went to."""
    from ledger.campaign import recording
    from ledger.log.store import Store, VersionConflict

    tally = Tally()
    instrument(tally)
    lost, slept = 0, 0.0
    backoff, append = recording.backoff, Store.append

    def slept_for(attempt: int) -> None:
        nonlocal slept
        start = time.perf_counter()
        backoff(attempt)
        slept += time.perf_counter() - start

    def counted(self: Store, events: Any) -> None:  # every lost race
        nonlocal lost
        try:
            append(self, events)
        except VersionConflict:
            lost += 1
            raise

    recording.backoff = slept_for
    Store.append = counted  # type: ignore[method-assign]
    with Ledger(url) as book:
        for _ in range(3):
            book.roll("1d20+5", campaign)
        go.wait()
        lost, slept, tally.on = 0, 0.0, True
        end = time.perf_counter() + seconds
        done, cpu = 0, time.process_time()
        while time.perf_counter() < end:
            book.roll("1d20+5", campaign)
            done += 1
        tally.on = False
        out.put((done, lost, slept, time.process_time() - cpu, dict(tally.waited), tally.trips))


def profile_writers(url: str, writers: int, campaigns: int, seconds: float) -> dict[str, float]:
    """Run ``writers`` processes (over ``campaigns`` campaigns) for ``seconds``: their rate,
    and per recorded action the seconds of each process's wall time by where it went."""
    ctx = mp.get_context("fork")
    go, out = ctx.Barrier(writers), ctx.Queue()
    procs = [
        ctx.Process(target=_writer, args=(url, f"Table {i % campaigns}", seconds, go, out))
        for i in range(writers)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join()
    done = sum(r[0] for r in results) or 1
    waited: collections.Counter[str] = collections.Counter()
    for r in results:
        waited.update(r[4])
    wall = writers * seconds
    figures = {
        "rate": done / seconds,
        "lost races": sum(r[1] for r in results) / done,
        "round trips": sum(r[5] for r in results) / done,
        "back-off": sum(r[2] for r in results) / done,
        "processor": sum(r[3] for r in results) / done,
    }
    for key, value in waited.items():
        figures[f"wait: {key}"] = value / done
    figures["elsewhere"] = wall / done - sum(waited.values()) / done - figures["back-off"]
    return figures


def main_writers(args: argparse.Namespace) -> None:
    schema = f"prof_{uuid.uuid4().hex[:8]}"
    url = f"{PG}?schema={schema}"
    rows: list[tuple[dict[str, float], dict[str, float]]] = []
    try:
        with Ledger(url) as book:
            for i in range(args.campaigns):
                book.new_campaign("freeform", f"Table {i}")
                book.add_character("Ana", f"Table {i}")
            listener = book.store.listen(lambda _stream: None) if args.listen else None
            try:
                if listener is not None and not listener.listening.wait(10):
                    raise SystemExit("the listener did not start")
                for r in range(args.rounds):
                    one = profile_writers(url, 1, 1, args.seconds)
                    many = profile_writers(url, args.writers, args.campaigns, args.seconds)
                    rows.append((one, many))
                    print(
                        f"round {r + 1}: 1 writer {one['rate']:,.0f}/s, {args.writers} writers "
                        f"{many['rate']:,.0f}/s: {many['rate'] / one['rate']:.2f}x",
                        flush=True,
                    )
            finally:
                if listener is not None:
                    listener.close()
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    where = "one campaign" if args.campaigns == 1 else f"{args.campaigns} campaigns"
    listening = ", a listener open" if args.listen else ""
    ratio = statistics.median(m["rate"] / o["rate"] for o, m in rows)
    print(
        f"\n{args.writers} writers on {where}{listening}: {ratio:.2f}x 1 writer (median of {len(rows)} rounds)"
    )
    print("per recorded action, medians over the rounds (each process's wall time, in ms):")
    keys = sorted({k for o, m in rows for k in (*o, *m)} - {"rate"}, key=_order)
    print(f"  {'':<38}{'1 writer':>10}{f'{args.writers} writers':>12}")
    for key in keys:
        scale = 1.0 if key in ("lost races", "round trips") else 1000.0
        one = statistics.median(o.get(key, 0.0) for o, _ in rows) * scale
        many = statistics.median(m.get(key, 0.0) for _, m in rows) * scale
        print(f"  {key:<38}{one:>10.2f}{many:>12.2f}")


def _order(key: str) -> tuple[int, str]:
    first = ("lost races", "round trips", "processor", "back-off", "elsewhere")
    return (first.index(key), key) if key in first else (len(first), key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=300)
    parser.add_argument(
        "--writers", type=int, default=0, help="writer processes (0: one Ledger in this process)"
    )
    parser.add_argument("--campaigns", type=int, default=1, help="the campaigns the writers share")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--listen", action="store_true", help="keep a live-table listener open")
    args = parser.parse_args()
    if args.writers:
        main_writers(args)
        return
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
