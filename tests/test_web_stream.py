"""The live feed through a real ``ledger serve``: an SSE stream gives every event once, in
order, resumes after ``Last-Event-ID`` with no gap and no duplicate, carries an undo as
its event, ends when its seat is revoked, and on PostgreSQL shows an action recorded
through another server process within a second."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from tests.helpers_web import Seated, bearer, seat_table, serving, sse

ROLL = {"command": "core.Roll", "args": {"notation": "d6"}}


def act(base: str, secret: str, body: dict[str, Any] = ROLL, path: str = "actions") -> dict[str, Any]:
    answer = httpx.post(f"{base}/api/c/Friday/{path}", json=body, headers=bearer(secret), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def versions(db: str) -> list[int]:
    with Ledger(db) as book:
        return [e.version for e in book.log("Friday", show_all=True)]


@pytest.fixture
def seated(tmp_path: Path) -> Seated:
    return seat_table(str(tmp_path / "live.ledger"))


def test_a_stream_resumes_after_its_last_event_id_with_no_gap_or_duplicate(seated: Seated) -> None:
    received: list[int] = []
    with serving(seated.db) as base:
        for _ in range(3):
            act(base, seated.ana)
        with httpx.stream(
            "GET", f"{base}/api/c/Friday/stream", headers=bearer(seated.watch), timeout=10
        ) as got:
            assert got.headers["content-type"].startswith("text/event-stream")
            assert "script-src 'self'" in got.headers["content-security-policy"]
            first = sse(got.iter_lines(), len(versions(seated.db)), time.monotonic() + 10)
        received += [m["id"] for m in first]
        for _ in range(4):  # recorded while the client is away
            act(base, seated.bob)
        act(base, seated.gm, {}, "undo")
        resume = {**bearer(seated.watch), "Last-Event-ID": str(received[-1])}
        with httpx.stream("GET", f"{base}/api/c/Friday/stream", headers=resume, timeout=10) as got:
            lines = got.iter_lines()
            caught_up = sse(lines, 5, time.monotonic() + 10)
            act(base, seated.ana)
            live = sse(lines, 1, time.monotonic() + 5)
    received += [m["id"] for m in caught_up + live]
    assert received == versions(seated.db)
    undo = caught_up[-1]["data"]
    assert undo["kind"] == "action.undone" and undo["event"]["last"] == received[-3]
    assert all(m["id"] == m["data"]["version"] for m in first + caught_up + live)


def test_an_action_reaches_every_open_stream_within_a_second(seated: Seated) -> None:
    with serving(seated.db) as base:
        start = len(versions(seated.db))
        got: dict[str, list[dict[str, Any]]] = {}

        def follow(name: str, secret: str) -> None:
            with httpx.stream(
                "GET", f"{base}/api/c/Friday/stream", headers=bearer(secret), timeout=10
            ) as answer:
                got[name] = sse(answer.iter_lines(), start + 1, time.monotonic() + 10)

        readers = [
            threading.Thread(target=follow, args=(n, s))
            for n, s in (("gm", seated.gm), ("watch", seated.watch))
        ]
        for reader in readers:
            reader.start()
        time.sleep(1.0)
        sent = time.monotonic()
        act(base, seated.ana)
        for reader in readers:
            reader.join(10)
        took = time.monotonic() - sent
    assert took < 1.5
    for name in ("gm", "watch"):
        assert [m["id"] for m in got[name]] == versions(seated.db), name


def test_an_action_from_the_command_line_reaches_the_stream(seated: Seated) -> None:
    with (
        serving(seated.db) as base,
        httpx.stream("GET", f"{base}/api/c/Friday/stream", headers=bearer(seated.gm), timeout=10) as answer,
    ):
        lines = answer.iter_lines()
        sse(lines, len(versions(seated.db)), time.monotonic() + 10)
        result = CliRunner().invoke(
            cli, ["--db", seated.db, "-c", "Friday", "--as", "Bob", "note", "from a shell"]
        )
        assert result.exit_code == 0, result.output
        sent = time.monotonic()
        (message,) = sse(lines, 1, time.monotonic() + 5)
        assert time.monotonic() - sent < 1.0
    assert message["data"]["summary"] == "note: from a shell" and message["data"]["decision"]["seat"] is None


def test_revoking_a_seat_ends_its_open_stream(seated: Seated) -> None:
    with serving(seated.db) as base:
        with httpx.stream(
            "GET", f"{base}/api/c/Friday/stream", headers=bearer(seated.bob), timeout=10
        ) as answer:
            lines = answer.iter_lines()
            sse(lines, len(versions(seated.db)), time.monotonic() + 10)
            result = CliRunner().invoke(cli, ["--db", seated.db, "table", "revoke", "bob"])
            assert result.exit_code == 0, result.output
            (ended,) = sse(lines, 1, time.monotonic() + 5)
            assert ended["event"] == "revoked" and ended["data"]["error"]["type"] == "Unauthorized"
            assert list(lines) == []  # the server closed the stream
        assert httpx.get(f"{base}/api/c/Friday/events", headers=bearer(seated.bob)).status_code == 401


@pytest.mark.postgres
def test_two_server_processes_on_postgresql_see_each_others_actions(pg_url: str) -> None:
    seated = seat_table(pg_url)
    with serving(pg_url) as one, serving(pg_url) as two:
        streams: dict[str, list[dict[str, Any]]] = {}
        start = len(versions(pg_url))

        def follow(base: str) -> None:
            with httpx.stream(
                "GET", f"{base}/api/c/Friday/stream", headers=bearer(seated.watch), timeout=15
            ) as answer:
                streams[base] = sse(answer.iter_lines(), start + 2, time.monotonic() + 15)

        readers = [threading.Thread(target=follow, args=(base,)) for base in (one, two)]
        for reader in readers:
            reader.start()
        time.sleep(1.0)
        sent = time.monotonic()
        act(one, seated.ana)
        act(two, seated.bob)
        for reader in readers:
            reader.join(15)
        took = time.monotonic() - sent
    assert took < 1.5
    for base in (one, two):
        assert [m["id"] for m in streams[base]] == versions(pg_url)
    assert [streams[one][-2]["data"]["decision"]["seat"], streams[one][-1]["data"]["decision"]["seat"]] == [
        "ana",
        "bob",
    ]


@pytest.mark.parametrize("seed", [None, 7], ids=["committed dice", "seeded dice"])
def test_what_a_write_hands_its_streams_is_what_the_store_gives_back(
    tmp_path: Path, seed: int | None
) -> None:
    """A write through the server gives its campaign's streams the entries it recorded
    without reading them back; a stream that reads the store (a reconnecting one) must
    get the very same bytes, or two pages of one table would tell one action apart."""
    from ledger.deciding.commands import Note, Roll
    from ledger.web.entries import entries_after, entries_since, recorded_entries
    from ledger.web.stream import message

    with Ledger(str(tmp_path / "same.ledger")) as book:
        book.new_campaign("freeform", "Same", seed=seed)
        book.add_character("Ada", "Same")
        c = book.campaign("Same")
        for act in (
            lambda: book.execute(Roll(notation="4d6kh3", label="STR"), "Same", actor="Ada", seat="ada"),
            lambda: book.execute(Note(text="<img src=x onerror=alert(1)>"), "Same", actor="Ada"),
            lambda: book.undo("Same", 1, seat="gm"),
            lambda: book.redo("Same", 1, seat="gm"),
        ):
            rec = act()
            first = rec.envelopes[0].v
            handed = [message(item) for item in recorded_entries(book, rec)]
            read, _head, _more = entries_after(book, c, first - 1)
            assert handed == [message(item) for item in read]
            # A feed's own read of what is new (another process's write) gives them too.
            fed, more = entries_since(book, c, first - 1)
            assert not more and [message(item) for item in fed] == handed
        # Read as one batch, a roll and the undo that takes it back: the roll is undone.
        book.execute(Roll(notation="d6"), "Same", actor="Ada")
        book.undo("Same", 1)
        head = book.head(c)
        both, _ = entries_since(book, c, head - 2)
        assert [e["undone"] for e in both] == [True, False]
        assert both == entries_after(book, c, head - 2)[0]
