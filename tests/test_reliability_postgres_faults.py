"""PostgreSQL faults: unreachable at start, the server going away and coming
back during a session, a connection dropped in the middle of a transaction.
Clear one-line errors, no partial writes, and the next command works once the
server is back.

The server itself is shared, so it is never really restarted here: a TCP proxy
in front of it is stopped (every connection dropped, new ones refused) and
started again, and a mid-transaction drop is made by terminating the backend
while a trigger holds the INSERT open.
"""

from __future__ import annotations

import socket
import threading
import time
import traceback
from collections.abc import Iterator
from urllib.parse import urlparse

import psycopg
import pytest

try:
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.errors import StoreError
from ledger.log.events import Noted


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def test_unreachable_server_at_start_is_one_clear_line() -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/test"
    for args in (
        ["new", "freeform", "Tomb"],
        ["campaigns"],
        ["-c", "Tomb", "roll", "1d6"],
        ["verify", "--all"],
    ):
        line = hr.assert_one_line_error(hr.invoke(url, *args), code=3)
        assert "cannot reach PostgreSQL database test" in line
        assert "start the server" in line


@pytest.mark.postgres
def test_missing_database_is_one_clear_line(pg_url: str) -> None:
    u = urlparse(pg_url)
    url = f"postgresql://{u.netloc}/no_such_database_here"
    line = hr.assert_one_line_error(hr.invoke(url, "campaigns"), code=3)
    assert "no_such_database_here" in line


@pytest.fixture
def proxied(pg_url: str) -> Iterator[tuple[hr.TcpProxy, str, str]]:
    """(proxy, URL through the proxy, direct URL) for one fresh schema."""
    u = urlparse(pg_url)
    proxy = hr.TcpProxy(u.hostname or "127.0.0.1", u.port or 5432)
    proxy.start()
    through = pg_url.replace(f"{u.hostname}:{u.port or 5432}", f"127.0.0.1:{proxy.port}", 1)
    try:
        yield proxy, through, pg_url
    finally:
        proxy.stop()


@pytest.mark.postgres
def test_server_down_then_back_between_commands(proxied: tuple[hr.TcpProxy, str, str]) -> None:
    proxy, url, direct = proxied
    assert hr.invoke(url, "new", "freeform", "Tomb").exit_code == 0
    assert hr.invoke(url, "-c", "Tomb", "roll", "2d6").exit_code == 0
    before = hr.store_rows(direct)
    proxy.stop()
    for args in (["-c", "Tomb", "roll", "2d6"], ["-c", "Tomb", "note", "while down"], ["-c", "Tomb", "undo"]):
        line = hr.assert_one_line_error(hr.invoke(url, *args), code=3)
        assert "cannot reach" in line
    assert hr.store_rows(direct) == before
    proxy.start()
    assert hr.invoke(url, "-c", "Tomb", "roll", "2d6").exit_code == 0
    result = hr.invoke(url, "verify", "--all")
    assert result.exit_code == 0, result.stderr
    assert len(hr.store_rows(direct)) == len(before) + 1


@pytest.mark.postgres
def test_server_restart_during_a_session(proxied: tuple[hr.TcpProxy, str, str]) -> None:
    proxy, url, direct = proxied
    with Ledger(url) as book:
        book.new_campaign("freeform", "Tomb")
        book.roll("1d20", "Tomb")
        # eventsourcing retries each call 10 times with the pool's wait; a short wait keeps
        # the test fast (bench/soak.py and docs/reliability.md give the default timing)
        book.store.datastore.pool.timeout = 0.3
        before = hr.store_rows(direct)
        proxy.stop()
        with pytest.raises(StoreError) as err:
            book.roll("1d20", "Tomb")
        assert "\n" not in str(err.value)
        assert hr.store_rows(direct) == before
        proxy.start()
        deadline = time.monotonic() + 60
        while True:  # the pool reconnects in the background
            try:
                book.roll("1d20", "Tomb", label="after restart")
                break
            except StoreError:
                assert time.monotonic() < deadline, "the session never recovered"
                time.sleep(0.5)
        book.verify("Tomb")
        labels = [e.event.label for e in book.log("Tomb") if e.kind == "dice.rolled"]
        assert labels.count("after restart") == 1
    assert len(hr.store_rows(direct)) == len(before) + 1


def _schema(url: str) -> str:
    return url.partition("schema=")[2]


@pytest.mark.postgres
def test_connection_dropped_mid_transaction_writes_all_or_nothing(pg_url: str) -> None:
    schema = _schema(pg_url)
    base = pg_url.partition("?")[0]
    with Ledger(pg_url) as book:
        book.new_campaign("freeform", "Tomb")
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(
            f'CREATE FUNCTION "{schema}".slow() RETURNS trigger LANGUAGE plpgsql AS '
            "$$ BEGIN PERFORM pg_sleep(0.4); RETURN NEW; END $$"
        )
        admin.execute(
            f'CREATE TRIGGER slow BEFORE INSERT ON "{schema}".ledger_events '
            f'FOR EACH ROW EXECUTE FUNCTION "{schema}".slow()'
        )
        outcome: dict[str, object] = {}
        with Ledger(pg_url) as book:

            def write() -> None:
                try:
                    book.record(
                        lambda _s, _d: [Noted(text=f"batch w:0:{k}") for k in range(hr.BATCH)], "Tomb"
                    )
                    outcome["ok"] = True
                except StoreError as e:
                    outcome["error"] = str(e)
                except BaseException as e:  # anything else fails the test, not just the thread
                    outcome["unexpected"] = "".join(traceback.format_exception(e))

            writer = threading.Thread(target=write)
            writer.start()
            killed = 0
            deadline = time.monotonic() + 20
            while killed < 3 and writer.is_alive() and time.monotonic() < deadline:
                time.sleep(0.6)  # the INSERT is inside the trigger: rows before it are written
                pids = [
                    r[0]
                    for r in admin.execute(
                        "SELECT pid FROM pg_stat_activity WHERE query ILIKE %s AND wait_event = 'PgSleep'",
                        (f"%{schema}%ledger_events%",),
                    )
                ]
                for pid in pids:
                    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                    killed += 1
            assert killed, "no transaction was caught in the middle"
            admin.execute(f'DROP TRIGGER slow ON "{schema}".ledger_events')
            writer.join(timeout=60)
            assert not writer.is_alive()
            assert "unexpected" not in outcome, f"the writer failed: {outcome['unexpected']}"
            assert len(outcome) == 1, outcome  # it recorded, or it was refused with a StoreError
            if "error" in outcome:
                assert "\n" not in str(outcome["error"])
            rows = hr.store_rows(pg_url)
            stored = hr.assert_batches_whole(rows)  # all four notes or none
            # recorded means stored; a refusal may still have committed (the drop hit the reply)
            assert (stored == {"w:0"}) if "ok" in outcome else (stored <= {"w:0"}), (outcome, stored)
            book.note("after the drop", "Tomb")  # the next command works
            book.verify(every=True)
