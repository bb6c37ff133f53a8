"""Readers that follow the ledger with eventsourcing's own API miss nothing.

Several writers append at once (small actions as one ``INSERT``, bulk ones as
``COPY``), with a trigger that holds some inserts between taking their
notification ids and committing, so ids commit out of order. Three readers
follow the notification order the ways eventsourcing's subscriptions and
process followers do: ``select_notifications`` up to ``max_notification_id``,
``select_notifications`` with no stop, and ``subscribe``. Each must see every
event that was recorded exactly once, in increasing id order. Bounded: about
2,000 rows, and a reader that has not caught up 20 s after the writers ended
fails the test.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from contextlib import closing

import psycopg
import pytest

from ledger.log.store import EVENTS_TABLE, Store

pytestmark = pytest.mark.postgres

WRITERS = 4
APPENDS = 40
BULK_EVERY = 8
BULK_ROWS = 80
CATCH_UP = 20.0

Seen = list[tuple[int, str, int]]


def _split(url: str) -> tuple[str, str]:
    base, _, query = url.partition("?")
    return base, query.partition("schema=")[2]


def _slow_trigger(url: str) -> None:
    """Rows of topic ``slow`` wait up to 3 ms after their id is taken: a writer
    holding a lower id then often commits after one holding a higher id."""
    base, schema = _split(url)
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(
            f"""CREATE FUNCTION "{schema}".slow() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.topic = 'slow' THEN PERFORM pg_sleep(random() * 0.003); END IF; RETURN NEW; END $$"""
        )
        conn.execute(
            f'CREATE TRIGGER slow BEFORE INSERT ON "{schema}".{EVENTS_TABLE} '
            f'FOR EACH ROW EXECUTE FUNCTION "{schema}".slow()'
        )


def _write(url: str, writer: int, written: list[tuple[str, int]]) -> None:
    rng = random.Random(writer)
    with closing(Store(url)) as store:
        for n in range(APPENDS):
            stream = f"w{writer}-{n}"
            size = BULK_ROWS if n % BULK_EVERY == BULK_EVERY - 1 else rng.randint(1, 3)
            topic = "slow" if rng.random() < 0.5 else "fast"
            store.append([(stream, v, topic, b"{}") for v in range(1, size + 1)])
            written.extend((stream, v) for v in range(1, size + 1))


def _follow_to_max(store: Store, seen: Seen, until: Callable[[], bool]) -> None:
    recorder = store.recorder
    position = 0
    while not until():
        top = recorder.max_notification_id() or 0
        rows = recorder.select_notifications(position, 50, stop=top, inclusive_of_start=False)
        seen.extend((n.id, n.originator_id, n.originator_version) for n in rows)
        if rows:
            position = rows[-1].id
        else:
            time.sleep(0.005)


def _follow_open(store: Store, seen: Seen, until: Callable[[], bool]) -> None:
    recorder = store.recorder
    position = 0
    while not until():
        rows = recorder.select_notifications(position, 50, inclusive_of_start=False)
        seen.extend((n.id, n.originator_id, n.originator_version) for n in rows)
        if rows:
            position = rows[-1].id
        else:
            time.sleep(0.005)


def _subscribe(store: Store, seen: Seen, until: Callable[[], bool]) -> None:
    with store.recorder.subscribe(gt=0) as subscription:
        watch = threading.Thread(target=_stop_when, args=(subscription, until), daemon=True)
        watch.start()
        for n in subscription:
            seen.append((n.id, n.originator_id, n.originator_version))


def _stop_when(subscription: object, until: Callable[[], bool]) -> None:
    while not until():
        time.sleep(0.02)
    subscription.stop()  # type: ignore[attr-defined]


def test_stock_readers_under_concurrent_writers_miss_nothing_and_repeat_nothing(pg_url: str) -> None:
    with closing(Store(pg_url)):
        pass  # the ledger's tables
    _slow_trigger(pg_url)
    written: list[tuple[str, int]] = []
    writers_done = threading.Event()
    deadline: list[float] = []
    followers = {
        "to max_notification_id": _follow_to_max,
        "with no stop": _follow_open,
        "subscribe": _subscribe,
    }
    seen: dict[str, Seen] = {name: [] for name in followers}
    stores = {name: Store(pg_url) for name in followers}

    def until(name: str) -> Callable[[], bool]:
        def done() -> bool:
            if not writers_done.is_set():
                return False
            return len(seen[name]) >= len(written) or time.monotonic() > deadline[0]

        return done

    readers = [
        threading.Thread(target=follow, args=(stores[name], seen[name], until(name)), daemon=True)
        for name, follow in followers.items()
    ]
    try:
        for reader in readers:
            reader.start()
        writers = [threading.Thread(target=_write, args=(pg_url, w, written)) for w in range(WRITERS)]
        for w in writers:
            w.start()
        for w in writers:
            w.join(timeout=120)
        assert not any(w.is_alive() for w in writers)
        deadline.append(time.monotonic() + CATCH_UP)
        writers_done.set()
        for reader in readers:
            reader.join(timeout=CATCH_UP + 10)
        assert not any(r.is_alive() for r in readers)
    finally:
        for store in stores.values():
            store.close()
    expected = sorted(written)
    assert len(expected) == len(set(expected)) > 1_000
    for name, rows in seen.items():
        ids = [i for i, _, _ in rows]
        assert ids == sorted(set(ids)), f"the reader {name} saw an id twice or out of order"
        got = sorted((s, v) for _, s, v in rows)
        missed = len(set(expected) - set(got))
        assert got == expected, f"the reader {name} missed {missed} of {len(expected)} events"
