"""Several processes recording at once, on SQLite and PostgreSQL: no lost or
duplicated event, contiguous versions, a valid chain, and every version
conflict retried by the ledger (none reaches a writer as ConflictError)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest

try:
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.errors import StoreError
from ledger.log.store import Store, is_postgres

WRITERS = 4
SQLITE_ACTIONS = 25
POSTGRES_ACTIONS = 10
"""Actions per writer (PostgreSQL round trips are slower; bench/soak.py runs longer)."""


def actions_for(target: str) -> int:
    return POSTGRES_ACTIONS if is_postgres(target) else SQLITE_ACTIONS


def opened(target: str) -> str:
    """Create the store once before the writers start, so they race on campaigns and names;
    creating a fresh store at once is test_fresh_postgres_store_opened_by_many_at_once."""
    with Ledger(target):
        return target


def check_campaign(target: str, name: str, expected: set[str]) -> None:
    """Exactly the expected labels, once each, at contiguous versions, chain intact."""
    with Ledger(target) as book:
        camp = book.campaign(name)
        entries = book.log(name, show_all=True)
        assert [e.version for e in entries] == list(range(1, len(entries) + 1))
        found = Counter(e.event.label for e in entries if e.kind == "dice.rolled")
        assert set(found) == expected, f"lost: {expected - set(found)}, extra: {set(found) - expected}"
        assert all(n == 1 for n in found.values()), [k for k, n in found.items() if n > 1]
        book.verify(every=True)
        assert book.head(camp) == len(expected) + 1


def recorded(reports: list[dict[str, Any]], actions: int) -> set[str]:
    """What the writers say they recorded: every action, none refused with a conflict
    (the ledger retries a lost race) or a store error."""
    out: set[str] = set()
    for r in reports:
        assert (r["conflicts"], r["store_errors"]) == (0, 0), r
        assert len(r["recorded"]) == actions, r
        out.update(r["recorded"])
    return out


def test_writers_on_one_campaign(target: str) -> None:
    actions = actions_for(target)
    with Ledger(target) as book:
        book.new_campaign("freeform", "Race")
    procs = hr.start_writers(target, [("Race", f"w{n}", actions) for n in range(WRITERS)])
    reports = hr.finish_writers(procs)
    expected = recorded(reports, actions)
    assert len(expected) == WRITERS * actions
    check_campaign(target, "Race", expected)
    hr.assert_streams_contiguous(hr.store_rows(target))


def test_writers_on_separate_campaigns(target: str) -> None:
    actions = actions_for(target)
    with Ledger(target) as book:
        for n in range(WRITERS):
            book.new_campaign("freeform", f"Table {n}")
    procs = hr.start_writers(target, [(f"Table {n}", f"w{n}", actions) for n in range(WRITERS)])
    reports = hr.finish_writers(procs)
    for n, report in enumerate(reports):
        assert report["conflicts"] == 0, "writers on different campaigns must never conflict"
        assert len(report["recorded"]) == actions
        check_campaign(target, f"Table {n}", recorded([report], actions))


def test_campaigns_created_at_once_are_all_registered(target: str) -> None:
    per_writer = 6
    jobs = [("Camp", f"w{n}", per_writer) for n in range(WRITERS)]
    reports = hr.finish_writers(hr.start_writers(opened(target), jobs, mode="new"))
    assert all(len(r["recorded"]) == per_writer for r in reports), reports
    with Ledger(target) as book:
        names = sorted(c.name for c in book.campaigns())
        assert names == sorted(f"Camp w{n} {i}" for n in range(WRITERS) for i in range(per_writer))
        report = book.verify(every=True)
        assert report.checked["(registry)"] == 1 + WRITERS * per_writer
    hr.assert_streams_contiguous(hr.store_rows(target))


def test_racing_for_one_name_lets_exactly_one_win(target: str) -> None:
    jobs = [("Same", f"w{n}", 3) for n in range(WRITERS)]
    reports = hr.finish_writers(hr.start_writers(opened(target), jobs, mode="same-name"))
    assert sum(len(r["recorded"]) for r in reports) == 1
    assert sum(r["duplicates"] for r in reports) == WRITERS * 3 - 1
    with Ledger(target) as book:
        assert [c.name for c in book.campaigns()] == ["Same"]
        book.verify(every=True)


def test_undo_and_roll_racing_keep_one_history(target: str) -> None:
    """Writers that roll and undo at once: every roll and every undo is recorded once,
    each undo takes back exactly one roll, and the replay matches the undo marks."""
    writers, rolls = 3, 8
    undos_each = len([i for i in range(rolls) if i % 3 == 2])
    with Ledger(target) as book:
        book.new_campaign("freeform", "Undo race")
    jobs = [("Undo race", f"w{n}", rolls) for n in range(writers)]
    reports = hr.finish_writers(hr.start_writers(target, jobs, mode="roll-undo"))
    assert all(r["conflicts"] == 0 and r["store_errors"] == 0 for r in reports), reports
    assert [len(r["recorded"]) for r in reports] == [rolls] * writers, reports
    assert [r["undos"] for r in reports] == [undos_each] * writers, reports
    undone = writers * undos_each
    with Ledger(target) as book:
        book.verify(every=True)
        every = book.log("Undo race", show_all=True)
        assert [e.version for e in every] == list(range(1, len(every) + 1))
        assert sum(e.kind == "dice.rolled" for e in every) == writers * rolls
        assert sum(e.kind == "action.undone" for e in every) == undone
        kinds = {e.version: e.kind for e in every}
        for env in book.envelopes(book.campaign("Undo race")):
            if env.event.kind == "action.undone":  # one roll each, never an undo or a second roll
                assert env.event.first == env.event.last, env.event
                assert kinds[env.event.first] == "dice.rolled", env.event
        live = [e for e in book.log("Undo race") if e.kind == "dice.rolled"]
        assert len(live) == writers * rolls - undone
        assert book.state("Undo race").game.rolls == len(live)


@pytest.mark.postgres
def test_fresh_postgres_store_opened_by_many_at_once(pg_url: str) -> None:
    barrier = threading.Barrier(8)
    errors: list[str] = []

    def open_store() -> None:
        barrier.wait()
        try:
            Store(pg_url).close()
        except StoreError as e:
            errors.append(str(e))
        except BaseException as e:  # anything else fails the test, not just the thread
            errors.append(repr(e))

    threads = [threading.Thread(target=open_store) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
