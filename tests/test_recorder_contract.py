"""The ledger's recorders keep eventsourcing's own recorder contract.

A tool that follows the ledger with eventsourcing's API (``max_notification_id``,
``select_notifications``, ``subscribe``, as its subscriptions and process
followers do) reads through the project's recorder classes. The installed
package's own test cases run here against them, on SQLite and PostgreSQL, and
the stock ``insert_events`` goes through the ledger's one-statement insert, so
the suite checks the path every command takes.

The stock non-interleaving case is not run: writers take no table lock, so the
ids of two concurrent appends can interleave. What that case protects, that a
reader skips nothing, is checked instead by tests/test_recorder_stress.py and
by the in-flight test below.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from contextlib import closing
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import psycopg
import pytest
from eventsourcing.persistence import AggregateRecorder, ApplicationRecorder, Notification
from eventsourcing.tests.persistence import AggregateRecorderTestCase, ApplicationRecorderTestCase

from ledger.log.store import EVENTS_TABLE, Store
from tests.conftest import PG_URL, postgres_available


class _SQLiteStores:
    """A fresh ledger file per test, closed afterwards."""

    def setUp(self) -> None:
        self._dir = TemporaryDirectory()
        self._stores: list[Store] = []
        self._threads = set(threading.enumerate())

    def tearDown(self) -> None:
        self._join_readers()
        for store in self._stores:
            store.close()
        self._dir.cleanup()

    def _join_readers(self) -> None:
        """The stock concurrency case signals its reader threads to stop but does not
        wait for them; closing a store under a read still running would crash."""
        for thread in set(threading.enumerate()) - self._threads:
            if not thread.daemon:  # the connection pools' workers are daemons, and run on
                thread.join(timeout=10)

    def new_store(self) -> Store:
        store = Store(str(Path(self._dir.name) / f"{uuid.uuid4().hex}.ledger"))
        self._stores.append(store)
        return store

    def new_originator_id(self) -> str:
        return str(uuid.uuid4())  # the ledger's stream ids are text


class _PostgresStores(_SQLiteStores):
    """A fresh schema per test, dropped afterwards; the project's convention when the
    server is unreachable (skip with the reason, or fail loudly under CI=true)."""

    def setUp(self) -> None:
        why = postgres_available()
        if why:
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"CI=true but {why}")
            pytest.skip(why)
        self._schema = f"t_{uuid.uuid4().hex[:12]}"
        self._stores = []
        self._threads = set(threading.enumerate())

    def tearDown(self) -> None:
        self._join_readers()
        for store in self._stores:
            store.close()
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{self._schema}" CASCADE')

    def new_store(self) -> Store:
        store = Store(f"{PG_URL}?schema={self._schema}")
        self._stores.append(store)
        return store


class TestSQLiteAggregateRecorder(_SQLiteStores, AggregateRecorderTestCase):
    def create_recorder(self) -> AggregateRecorder:
        return self.new_store().keys


class TestSQLiteApplicationRecorder(_SQLiteStores, ApplicationRecorderTestCase[ApplicationRecorder]):
    def create_recorder(self) -> ApplicationRecorder:
        return self.new_store().recorder


@pytest.mark.postgres
class TestPostgresAggregateRecorder(_PostgresStores, AggregateRecorderTestCase):
    def create_recorder(self) -> AggregateRecorder:
        return self.new_store().keys


@pytest.mark.postgres
class TestPostgresApplicationRecorder(_PostgresStores, ApplicationRecorderTestCase[ApplicationRecorder]):
    def create_recorder(self) -> ApplicationRecorder:
        return self.new_store().recorder

    def test_insert_subscribe(self) -> None:
        self.optional_test_insert_subscribe()


# --- the ledger's own appends, as eventsourcing's readers see them -----------------

INSERT = (
    "INSERT INTO {t} (originator_id, originator_version, topic, state) "
    "VALUES (%s, 1, 'k', %s) RETURNING notification_id"
)


def _split(url: str) -> tuple[str, str]:
    base, _, query = url.partition("?")
    return base, query.partition("schema=")[2]


@pytest.mark.postgres
def test_a_ledger_append_wakes_a_stock_subscription(pg_url: str) -> None:
    with closing(Store(pg_url)) as store:
        store.append([("before", 1, "k", b"1")])
        got: list[Notification] = []
        with store.recorder.subscribe(gt=store.recorder.max_notification_id()) as subscription:
            give_up = threading.Timer(10.0, subscription.stop)  # a subscription never woken
            give_up.start()
            time.sleep(0.5)  # the subscription has read what was there and waits
            store.append([("live", 1, "k", b"2"), ("live", 2, "k", b"3")])
            for notification in subscription:
                got.append(notification)
                if len(got) == 2:
                    break
            give_up.cancel()
        assert [(n.originator_id, n.originator_version) for n in got] == [("live", 1), ("live", 2)]


@pytest.mark.postgres
def test_an_empty_append_records_nothing_and_is_no_error(pg_url: str) -> None:
    with closing(Store(pg_url)) as store:
        store.append([])
        assert store.recorder.insert_events([]) is None
        assert store.max_notification_id() == 0
        assert store.recorder.select_notifications(None, 10) == []


@pytest.mark.postgres
@pytest.mark.parametrize("reader", ["select_notifications", "max_notification_id"])
def test_a_stock_reader_never_sees_past_an_id_still_in_flight(pg_url: str, reader: str) -> None:
    """One writer takes id n and holds its transaction open, a second takes n + 1 and
    commits: a reader must not be shown n + 1 while n may still commit."""
    base, schema = _split(pg_url)
    with closing(Store(pg_url)) as store:
        store.append([("first", 1, "k", b"{}")])
        recorder = store.recorder
        start = recorder.max_notification_id()
        assert start is not None
        table = f'"{schema}".{EVENTS_TABLE}'
        late = psycopg.connect(base)
        early = psycopg.connect(base, autocommit=True)
        try:
            late_id = late.execute(INSERT.format(t=table), ("late", b"{}")).fetchone()[0]  # type: ignore[index]
            early_id = early.execute(INSERT.format(t=table), ("early", b"{}")).fetchone()[0]  # type: ignore[index]
            assert early_id == late_id + 1
            seen: dict[str, Any] = {}

            def read() -> None:
                if reader == "max_notification_id":
                    top = recorder.max_notification_id()
                    seen["top"] = top
                    rows = recorder.select_notifications(start, 10, stop=top, inclusive_of_start=False)
                else:
                    rows = recorder.select_notifications(start, 10, inclusive_of_start=False)
                seen["ids"] = [n.id for n in rows]

            follower = threading.Thread(target=read)
            follower.start()
            time.sleep(0.5)  # the reader reads while the first writer is still open
            late.commit()
            follower.join(timeout=60)
            assert not follower.is_alive()
        finally:
            late.close()
            early.close()
        # The reader moves on from the last id it got: it was shown both or neither.
        assert seen["ids"] == [late_id, early_id]


@pytest.mark.postgres
def test_an_append_notifies_only_while_a_subscription_is_open(pg_url: str) -> None:
    """A notifying commit takes a database-wide lock, so writers notify only while a
    subscription says it listens; one that is open is always woken."""
    base, _ = _split(pg_url)
    with closing(Store(pg_url)) as store, psycopg.connect(base, autocommit=True) as listener:
        listener.execute(f'LISTEN "{store.recorder.channel_name}"')  # type: ignore[attr-defined]
        store.append([("quiet", 1, "k", b"{}")])
        assert list(listener.notifies(timeout=0.5, stop_after=1)) == []
        with store.recorder.subscribe(gt=None) as subscription:
            store.append([("heard", 1, "k", b"{}")])
            assert len(list(listener.notifies(timeout=5, stop_after=1))) == 1
            assert [(n.originator_id) for n in _take(subscription, 2)] == ["quiet", "heard"]
        store.append([("quiet", 2, "k", b"{}")])
        assert list(listener.notifies(timeout=0.5, stop_after=1)) == []


def _take(subscription: Any, n: int) -> list[Notification]:
    give_up = threading.Timer(10.0, subscription.stop)
    give_up.start()
    got: list[Notification] = []
    for notification in subscription:
        got.append(notification)
        if len(got) == n:
            break
    give_up.cancel()
    return got
