"""Joining the live table: a link opens a confirm page and seats nothing until its own form
is posted from this origin (no login CSRF); a link seats one device; labels are unique per
campaign; the GM invites through the API with the link's QR code; a fork made at the table
offers every seat a seat at the fork, taken with one tap; invitations link to where the
server listens; ``--lan`` prints the address and its QR code; and no secret is ever at rest."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import segno

from ledger import Ledger
from ledger.cli.serve import lan_address
from ledger.trust.seats import seats_of
from ledger.web.app import create_app
from tests.conftest import Session
from tests.helpers_browser import browser, missing  # noqa: F401  (the browser fixture)
from tests.helpers_web import Seated, TestClient, bearer, free_port, head, join, seat_table, serving, sse

OWN = {"Origin": "http://testserver"}


@pytest.fixture
def seated(tmp_path: Path) -> Seated:
    return seat_table(str(tmp_path / "web.ledger"))


@pytest.fixture
def client(seated: Seated) -> Iterator[TestClient]:
    with TestClient(create_app(seated.db)) as client:
        yield client


# --- the confirm page ------------------------------------------------------------------------


def test_opening_a_link_seats_nothing_until_its_confirm_page_is_posted(
    client: TestClient, seated: Seated
) -> None:
    page = client.get(f"/join/{seated.ana}")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<h1>Join Friday as Ana?</h1>" in page.text and '<form method="post">' in page.text
    assert seated.ana not in page.text  # the form posts back where it was opened: no secret in the page
    assert "set-cookie" not in page.headers
    assert page.headers["referrer-policy"] == "no-referrer" and page.headers["cache-control"] == "no-store"
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert not re.search(r"(src|href)=\"(https?:)?//", page.text)  # nothing from elsewhere
    assert client.get("/api/c/Friday/events").status_code == 401  # still no seat
    joined = client.post(f"/join/{seated.ana}", headers=OWN, follow_redirects=False)
    assert joined.status_code == 303 and joined.headers["location"] == "/t/Friday"
    cookie = joined.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/api/c/Friday" in cookie
    assert seated.ana not in cookie  # the device's own secret, not the link's
    assert client.get("/api/c/Friday").json()["seat"]["label"] == "ana"


def test_a_foreign_page_cannot_seat_a_visitor_with_the_attackers_link(
    client: TestClient, seated: Seated
) -> None:
    """Login CSRF: the victim holds Ana's seat; a page of another site sends the browser to
    the attacker's link (Bob's), by a link or by a form posted to it."""
    join(client, seated.ana)
    lured = client.get(f"/join/{seated.bob}", follow_redirects=False)
    assert "set-cookie" not in lured.headers and lured.status_code == 200
    for headers in (
        {"Origin": "https://evil.example"},
        {"Origin": "null", "Sec-Fetch-Site": "cross-site"},  # a sandboxed frame of another site
        {},
    ):
        forged = client.post(f"/join/{seated.bob}", headers=headers, follow_redirects=False)
        assert forged.status_code == 403 and "set-cookie" not in forged.headers
        assert "text/html" in forged.headers["content-type"]
    assert client.get("/api/c/Friday").json()["seat"]["label"] == "ana"
    # the browser's own page: Chromium posts it as Origin: null (no-referrer) with Sec-Fetch-Site
    own = client.post(
        f"/join/{seated.bob}",
        headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"},
        follow_redirects=False,
    )
    assert own.status_code == 303


def test_an_invite_link_seats_one_device(seated: Seated) -> None:
    with TestClient(create_app(seated.db)) as first, TestClient(create_app(seated.db)) as second:
        assert join(first, seated.ana).status_code == 303
        used = second.get(f"/join/{seated.ana}")
        assert used.status_code == 410 and "was used already" in used.text and "ask the GM" in used.text
        again = second.post(f"/join/{seated.ana}", headers=OWN, follow_redirects=False)
        assert again.status_code == 410 and "set-cookie" not in again.headers
        assert second.get("/api/c/Friday/events", headers=bearer(seated.ana)).status_code == 401
        assert first.get("/api/c/Friday/events").status_code == 200  # the device it seated
    listed = subprocess.run(
        [
            sys.executable,
            "-m",
            "ledger.cli.main",
            "--db",
            seated.db,
            "--json",
            "table",
            "seats",
            "-c",
            "Friday",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    seats = {s["seat"]: s for s in json.loads(listed.stdout)}
    assert seats["ana"]["joined"] is not None and seats["bob"]["joined"] is None


def test_a_reusable_link_seats_every_screen(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "Friday")
    shown = ledger_cli("table", "invite", "--watch", "--label", "tv", "--reusable").output
    assert "open this link on every screen it seats" in shown
    secret = shown.strip().rsplit("/", 1)[1]
    with TestClient(create_app(db)) as one, TestClient(create_app(db)) as two:
        assert "This link seats any number of screens." in one.get(f"/join/{secret}").text
        assert join(one, secret).status_code == join(two, secret).status_code == 303
        assert one.get("/api/c/Friday").status_code == two.get("/api/c/Friday").status_code == 200
    assert ledger_cli("table", "seats").output == "tv: watch at 'Friday' (reusable link)\n"


def test_the_confirm_page_fits_a_phone_and_its_button_seats_the_browser(
    browser: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    seated = seat_table(str(tmp_path / "t.ledger"))
    with serving(seated.db) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page = context.new_page()
        elsewhere: list[str] = []
        page.on("request", lambda r: r.url.startswith(base) or elsewhere.append(r.url))
        page.goto(f"{base}/join/{seated.ana}")
        assert page.locator("h1").inner_text() == "Join Friday as Ana?"
        button = page.locator("form button").bounding_box()
        assert button is not None and button["height"] >= 44 and button["width"] >= 44
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling
        assert page.evaluate("getComputedStyle(document.body).fontSize") >= "16px"
        page.locator("form button").tap()
        page.wait_for_url(f"{base}/t/Friday")
        assert elsewhere == [] and seated.ana not in page.url
        context.close()


# --- labels --------------------------------------------------------------------------------


def test_labels_are_unique_per_campaign_and_the_refusal_says_so_once(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Friday")
    ledger_cli("new", "freeform", "Other")
    ledger_cli("-c", "Friday", "table", "invite", "--gm", "--label", "table")
    ledger_cli("-c", "Other", "table", "invite", "--gm", "--label", "table")  # another campaign: fine
    again = ledger_cli("-c", "Friday", "table", "invite", "--watch", "--label", "table", ok=False)
    assert again.stderr == (
        "error: this campaign's table has a seat labelled 'table' already; choose another --label\n"
    )
    which = ledger_cli("table", "revoke", "table", ok=False)
    assert which.stderr == (
        "error: seats labelled 'table' sit at the tables of 2 campaigns (Friday, Other); say which with -c NAME\n"
    )
    assert ledger_cli("-c", "Other", "table", "revoke", "table").output == "table: revoked\n"
    listed = ledger_cli("table", "seats").output.splitlines()
    assert listed[0] == "table: gm at 'Friday'" and listed[1].startswith("table: gm at 'Other' (revoked ")


# --- the GM invites through the API ----------------------------------------------------------


def test_the_gm_invites_a_seat_through_the_api_with_its_qr_code(client: TestClient, seated: Seated) -> None:
    asked = {"role": "player", "character": "Bob", "label": "bob-phone"}
    assert client.post("/api/c/Friday/seats", json=asked, headers=bearer(seated.ana)).status_code == 403
    join(client, seated.gm)
    assert client.post("/api/c/Friday/seats", json=asked).status_code == 403  # the cookie wants this origin
    answer = client.post("/api/c/Friday/seats", json=asked, headers=OWN)
    assert answer.status_code == 200, answer.text
    invited = answer.json()
    assert invited["seat"]["label"] == "bob-phone" and invited["seat"]["character"] == "Bob"
    assert invited["link"].startswith("http://testserver/join/")
    assert answer.headers["cache-control"] == "no-store"
    svg = invited["qr_svg"]
    assert (
        svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
        and "<image" not in svg
        and "href" not in svg
    )
    width = segno.make(invited["link"], error="m").symbol_size(scale=6, border=4)[0]
    assert f'width="{width}" height="{width}"' in svg and 'fill="#fff"' in svg  # the link's code, on white
    secret = invited["link"].rsplit("/", 1)[1]
    with TestClient(create_app(seated.db)) as phone:
        assert join(phone, secret).status_code == 303
        assert phone.get("/api/c/Friday").json()["seat"]["character"] == "Bob"
    watcher = client.post("/api/c/Friday/seats", json={"role": "watcher", "reusable": True}, headers=OWN)
    assert watcher.json()["seat"]["role"] == "watch" and watcher.json()["seat"]["reusable"] is True
    for bad, status in (
        ({"role": "owner"}, 422),
        ({"role": "player"}, 422),
        ({"role": "gm", "character": "Ana"}, 422),
        ({"role": "player", "character": "Zed"}, 422),
        ({"role": "player", "character": "Ana", "label": "bob-phone"}, 409),
    ):
        refused = client.post("/api/c/Friday/seats", json=bad, headers=OWN)
        assert refused.status_code == status, (bad, refused.text)
        assert set(refused.json()) == {"error"}


def test_the_gm_revokes_a_seat_from_the_page_and_its_devices_open_nothing_more(
    client: TestClient, seated: Seated
) -> None:
    assert client.get("/api/c/Friday", headers=bearer(seated.bob)).status_code == 200
    assert client.delete("/api/c/Friday/seats/bob", headers=bearer(seated.ana)).status_code == 403
    join(client, seated.gm)
    assert client.delete("/api/c/Friday/seats/bob").status_code == 403  # the cookie wants this origin
    assert client.get("/api/c/Friday", headers=bearer(seated.bob)).status_code == 200
    ended = client.delete("/api/c/Friday/seats/bob", headers=OWN)
    assert ended.status_code == 200, ended.text
    assert ended.json()["label"] == "bob" and ended.json()["revoked"] is not None
    assert client.get("/api/c/Friday", headers=bearer(seated.bob)).status_code == 401
    listed = {s["label"]: s for s in client.get("/api/c/Friday/seats").json()}
    assert listed["bob"]["revoked"] is not None and listed["ana"]["revoked"] is None
    own = client.delete("/api/c/Friday/seats/gm", headers=OWN)
    assert own.status_code == 422 and "ledger table revoke gm" in own.json()["error"]["message"]
    # another campaign's seat is no seat of this table: named, never revoked
    elsewhere = client.delete("/api/c/Friday/seats/other-gm", headers=OWN)
    assert (
        elsewhere.status_code == 422
        and "no seat is labelled 'other-gm'" in elsewhere.json()["error"]["message"]
    )
    assert client.get("/api/c/Other", headers=bearer(seated.other_gm)).status_code == 200
    assert client.get("/api/c/Friday").status_code == 200  # the GM's own seat holds


# --- a fork takes the table along ---------------------------------------------------------------


def test_a_fork_at_the_table_offers_every_seat_a_seat_at_the_fork(seated: Seated) -> None:
    with Ledger(seated.db) as book:
        book.add_character("Cy", "Friday")  # after the fork point below: no seat for Cy's player
        seats_of(book).invite(book.campaign("Friday").id, "player", "Cy", label="cy")
        cy_version = book.head(book.campaign("Friday"))
    with (
        TestClient(create_app(seated.db)) as gm,
        TestClient(create_app(seated.db)) as ana,
        TestClient(create_app(seated.db)) as other,
    ):
        join(gm, seated.gm)
        join(ana, seated.ana)
        forked = gm.post("/api/c/Friday/fork", json={"name": "What if", "at": cy_version - 1}, headers=OWN)
        assert forked.status_code == 200, forked.text
        answer = forked.json()
        assert "link" not in answer and set(answer["offered"]) == {"gm", "ana", "bob", "watch"}
        assert answer["take"] == "/api/c/Friday/offers/What%20if"
        (offer,) = ana.get("/api/c/Friday").json()["offers"]
        assert offer == {
            "campaign": "What if",
            "url": "/api/c/Friday/offers/What%20if",
            "role": "player",
            "character": "Ana",
        }
        assert other.post(offer["url"], headers=OWN).status_code == 401  # no seat at the parent
        assert ana.post(offer["url"]).status_code == 403  # the cookie wants this origin
        taken = ana.post(offer["url"], headers=OWN)
        assert taken.status_code == 200, taken.text
        assert taken.json()["page"] == "/t/What%20if" and "secret" not in taken.json()
        assert "Path=/api/c/What%20if" in taken.headers["set-cookie"]
        there = ana.get("/api/c/What if").json()
        assert there["seat"] == {**there["seat"], "label": "ana", "role": "player", "character": "Ana"}
        assert ana.get("/api/c/Friday").json()["offers"] == []  # the parent seat holds on
        assert ana.post(offer["url"], headers=OWN).status_code == 409  # one device takes it
        roll = {"command": "core.Roll", "args": {"notation": "d6"}}
        assert ana.post("/api/c/What if/actions", json=roll, headers=OWN).status_code == 200
        assert gm.post(answer["take"], headers=OWN).status_code == 200
        assert gm.post("/api/c/What if/undo", json={}, headers=OWN).status_code == 200
        bot = gm.post(answer["take"].replace("What%20if", "Other"), headers=bearer(seated.bob))
        assert bot.status_code == 422  # offered no seat there
        by_token = gm.post(answer["take"], headers=bearer(seated.bob))
        assert by_token.status_code == 200 and len(by_token.json()["secret"]) >= 43  # a bot's token
        cy = Ledger(seated.db)
        try:
            assert cy.head(cy.campaign("What if")) >= 3
        finally:
            cy.close()


def test_an_offer_reaches_the_parents_open_streams(seated: Seated) -> None:
    with serving(seated.db) as base:
        lines: list[str] = []

        def follow() -> None:
            with httpx.stream(
                "GET",
                f"{base}/api/c/Friday/stream?after={head(seated.db)}",
                headers=bearer(seated.bob),
                timeout=30,
            ) as answer:
                for line in answer.iter_lines():
                    lines.append(line)
                    if line.startswith("data: ") and lines[-2:-1] == ["event: offer"]:
                        return

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        time.sleep(0.5)
        forked = httpx.post(f"{base}/api/c/Friday/fork", json={"name": "Branch"}, headers=bearer(seated.gm))
        assert forked.status_code == 200
        reader.join(timeout=10)
        messages = sse(iter([*lines, ""]), 10, time.monotonic() + 1)
        offer = next(m for m in messages if m.get("event") == "offer")
        assert "id" not in offer  # no log entry: the stream's Last-Event-ID is untouched
        assert offer["data"]["url"] == "/api/c/Friday/offers/Branch"


# --- where the server listens ----------------------------------------------------------------------


def test_invitations_link_to_where_the_running_server_listens(seated: Seated, tmp_path: Path) -> None:
    def invite(*extra: str) -> str:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "ledger.cli.main",
                "--db",
                seated.db,
                "-c",
                "Friday",
                "table",
                "invite",
                "--watch",
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()[1]

    port = free_port()
    with serving(seated.db, port=port):
        record = json.loads(Path(seated.db + ".serving.json").read_text())
        assert (
            set(record) == {"url", "pid", "host", "started"} and record["url"] == f"http://127.0.0.1:{port}"
        )
        assert invite().startswith(f"http://127.0.0.1:{port}/join/")
        assert invite("--url", "https://table.example").startswith("https://table.example/join/")
    assert not Path(seated.db + ".serving.json").exists()  # removed at shutdown
    assert invite().startswith("http://127.0.0.1:8000/join/")
    stale = {"url": "http://127.0.0.1:1", "pid": 2**22 + 7, "host": record["host"], "started": "x"}
    Path(seated.db + ".serving.json").write_text(json.dumps(stale))  # a killed server's record
    assert invite().startswith("http://127.0.0.1:8000/join/")


def test_serve_lan_prints_the_address_to_share_and_its_qr_code(seated: Seated) -> None:
    address = lan_address()
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ledger.cli.main", "--db", seated.db, "serve", "--lan", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        if address is None:
            out, err = proc.communicate(timeout=30)
            assert proc.returncode == 2 and "this machine has no LAN address" in err
            return
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                front = httpx.get(f"http://{address}:{port}/", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert front.status_code == 200 and "Open the link the GM gave you" in front.text
        shown = invite_link(seated.db)
        assert shown.startswith(f"http://{address}:{port}/join/")
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    lines = out.splitlines()
    assert lines[0] == f"serving ledger file {seated.db} at http://{address}:{port}/ (Ctrl-C stops)"
    assert (
        lines[1]
        == f"share http://{address}:{port}/ with the table; a phone's camera opens it from this code:"
    )
    drawn = "\n".join(lines[2:]) + "\n"
    assert drawn == qr_of(f"http://{address}:{port}/") and "█" in drawn
    assert err.splitlines()[0].startswith(f"warning: {address} is reachable from other machines")


def invite_link(db: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ledger.cli.main", "--db", db, "-c", "Friday", "table", "invite", "--watch"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout.splitlines()[1]


def qr_of(url: str) -> str:
    import io

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


# --- no secret at rest --------------------------------------------------------------------------------


def store_text(target: str) -> bytes:
    """Every row of every table of the store, as bytes (text and binary columns alike)."""
    if target.startswith("postgresql://"):
        import psycopg

        url, _, schema = target.partition("?schema=")
        with psycopg.connect(url) as conn:
            tables = [
                r[0]
                for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
                )
            ]
            rows = [row for t in tables for row in conn.execute(f'SELECT * FROM "{schema}"."{t}"')]
        assert {"ledger_seats", "ledger_requests"} <= set(tables)
    else:
        con = sqlite3.connect(target)
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        rows = [row for t in tables for row in con.execute(f'SELECT * FROM "{t}"')]
        con.close()
    return b"\n".join(
        str(row).encode() + b"".join(bytes(v) for v in row if isinstance(v, bytes | memoryview))
        for row in rows
    )


def test_no_secret_issued_is_kept_in_any_table_or_file(target: str, tmp_path: Path) -> None:
    """Every secret the server and the command line issue (links by the command line and the
    API, a reusable one, a device's cookie, a fork's seats taken by cookie and by token)
    is looked for in every table of the store and every file the server wrote (beside a
    ledger file; a PostgreSQL ledger's in the runtime folder)."""
    seated = seat_table(target)
    runtime = tmp_path / "run"
    runtime.mkdir()
    issued = [seated.gm, seated.ana, seated.bob, seated.watch, seated.other_gm]
    with serving(target, XDG_RUNTIME_DIR=str(runtime)) as base:
        with httpx.Client(base_url=base) as browser:
            own = {"Origin": base}
            assert browser.post(f"/join/{seated.gm}", headers=own).status_code == 303
            issued.append(browser.cookies.get("ledger_seat"))
            invited = browser.post(
                "/api/c/Friday/seats", json={"role": "watcher", "reusable": True}, headers=own
            )
            issued.append(invited.json()["link"].rsplit("/", 1)[1])
            forked = browser.post(
                "/api/c/Friday/fork", json={"name": "Branch"}, headers={**own, "Idempotency-Key": "fork-1"}
            )
            assert forked.status_code == 200, forked.text
            taken = browser.post(forked.json()["take"], headers=own)
            assert taken.status_code == 200
            issued.extend(c.value for c in browser.cookies.jar if c.name == "ledger_seat")
            by_token = httpx.post(base + forked.json()["take"], headers=bearer(seated.ana))
            issued.append(by_token.json()["secret"])
            note = {"command": "core.Note", "args": {"text": "the door"}}
            key = {**bearer(by_token.json()["secret"]), "Idempotency-Key": "note-1"}
            assert httpx.post(f"{base}/api/c/Branch/actions", json=note, headers=key).status_code == 200
        written = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    cli = subprocess.run(
        [sys.executable, "-m", "ledger.cli.main", "--db", target, "-c", "Friday", "table", "invite", "--gm"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    issued.append(cli.stdout.splitlines()[1].rsplit("/", 1)[1])
    issued = [s for s in dict.fromkeys(issued) if s]
    assert len(issued) == 10
    rows = store_text(target)
    written.update({p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()})
    assert any("serving" in p.name and p.suffix == ".json" for p in written)  # the server's record was there
    for secret in issued:
        assert secret.encode() not in rows, "a secret in the store"
        for path, data in written.items():
            assert secret.encode() not in data, f"a secret in {path.name}"
