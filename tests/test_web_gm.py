"""The GM's laptop at the live table, in Debian's Chromium (tests/helpers_browser.py), against a
real ``ledger serve``: the invite panel shows a seat's link and its QR code and the seat list
says when a phone joined; the GM revokes a seat and its phone says so; a fork made at the
table takes the GM there and offers every other seat a place, taken with one tap; and a page
whose server stops says so and comes back by itself when it is back.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ledger import Ledger
from ledger.trust.seats import seats_of
from tests.helpers_browser import LIVE, Seat, browser, shots
from tests.helpers_web import free_port, serving

__all__ = ["browser"]

EVIL_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)">'
    "<script>alert(2)</script><rect width='10' height='10'/></svg>"
)


def table(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """Campaign 'Friday' (freeform) with Ana, Bob and Cy: (db, secrets of the GM, Ana, Bob)."""
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Friday")
        for name in ("Ana", "Bob", "Cy"):
            book.add_character(name, "Friday")
        friday = book.campaign("Friday")
        seats = seats_of(book)
        secrets = {
            "gm": seats.invite(friday.id, "gm", label="gm-laptop")[1],
            "ana": seats.invite(friday.id, "player", "Ana", label="ana-phone")[1],
            "bob": seats.invite(friday.id, "player", "Bob", label="bob-phone")[1],
        }
    return db, secrets


def head(db: str, campaign: str = "Friday") -> int:
    with Ledger(db) as book:
        return book.head(book.campaign(campaign))


def test_the_gm_invites_a_phone_with_a_qr_code_sees_it_join_and_revokes_it(
    browser: Any, tmp_path: Path
) -> None:
    db, secrets = table(tmp_path)
    with serving(db) as base:
        gm = Seat(browser, base, secrets["gm"], phone=False, shots=shots(tmp_path))
        page = gm.page
        gm.press(page.locator("#invite-box > summary"))
        page.select_option("#invite-role", "player")
        page.select_option("#invite-character", "Cy")
        assert page.locator("#invite-label").get_attribute("placeholder") == "Cy"
        gm.press(page.locator("#invite-go"))
        page.locator("#invited").wait_for(timeout=LIVE)
        link = page.locator("#invite-link").inner_text()
        assert re.fullmatch(re.escape(base) + r"/join/[A-Za-z0-9_-]{43}", link), link
        assert "Cy" in page.locator("#invited-who").inner_text()
        qr = page.locator("#invite-qr")
        assert (qr.get_attribute("src") or "").startswith("data:image/svg+xml,")
        page.wait_for_function("() => document.getElementById('invite-qr').naturalWidth > 100")
        assert qr.get_attribute("alt") == "QR code of the invitation link for Cy"
        row = page.locator("#seat-list li[data-seat='Cy']")
        row.wait_for(timeout=LIVE)
        assert "link not used yet" in row.inner_text()
        gm.shoot("invite-gm-laptop")
        # Cy's phone opens the link the QR code holds; the GM's list says it joined
        cy = Seat(browser, base, link.rsplit("/", 1)[1], shots=shots(tmp_path))
        assert cy.page.locator("#title").inner_text() == "Cy"
        page.wait_for_selector("#seat-list li[data-seat='Cy'][data-joined='1']", timeout=10_000)
        assert page.locator("#invited-joined").inner_text() == "Cy has joined the table."
        # the GM's own seat has no revoke; a revoke is tapped twice, and the phone is told
        assert page.locator("#seat-list li[data-seat='gm-laptop'] button").count() == 0
        revoke = page.locator("#seat-list li[data-seat='Cy'] button.revoke")
        gm.press(revoke)
        assert revoke.inner_text() == "Revoke Cy: tap again"
        assert cy.page.locator("#live").get_attribute("data-state") == "live"
        gm.press(revoke)
        page.locator("#seat-list li[data-seat='Cy']").wait_for(state="detached", timeout=LIVE)
        cy.page.wait_for_selector("#live[data-state='revoked']", timeout=LIVE)
        assert "revoked" in cy.page.locator("#notice").inner_text()
        gm.clean()
        cy.clean("status of 401")
        gm.close()
        cy.close()


def test_a_qr_code_is_shown_as_an_image_so_no_script_in_it_runs(browser: Any, tmp_path: Path) -> None:
    """Whatever SVG the answer holds, the page shows it as an image: its script never runs."""
    db, secrets = table(tmp_path)

    def evil(context: Any) -> None:
        def answer(route: Any) -> None:
            if route.request.method != "POST":
                route.continue_()
                return
            found = route.fetch()
            route.fulfill(response=found, json={**found.json(), "qr_svg": EVIL_SVG})

        context.route(re.compile(r".*/api/c/Friday/seats$"), answer)

    with serving(db) as base:
        gm = Seat(browser, base, secrets["gm"], phone=False, before=evil)
        page = gm.page
        gm.press(page.locator("#invite-box > summary"))
        page.select_option("#invite-role", "watcher")
        gm.press(page.locator("#invite-go"))
        page.locator("#invited").wait_for(timeout=LIVE)
        page.wait_for_function("() => document.getElementById('invite-qr').complete")
        page.wait_for_timeout(300)
        assert page.locator("#invited svg, #invited script").count() == 0
        gm.clean()  # no dialog: neither alert ran
        gm.close()


def test_a_fork_at_the_table_takes_the_gm_there_and_two_phones_follow_with_one_tap(
    browser: Any, tmp_path: Path
) -> None:
    db, secrets = table(tmp_path)
    with serving(db) as base:
        gm = Seat(browser, base, secrets["gm"], phone=False, shots=shots(tmp_path))
        ana = Seat(browser, base, secrets["ana"], shots=shots(tmp_path))
        bob = Seat(browser, base, secrets["bob"], shots=shots(tmp_path))
        ana.roll("1d6", "before the fork")
        gm.seen("before the fork")
        parent = head(db)
        gm.page.fill("#fork-name", "What if")
        gm.press(gm.page.locator("#fork-form button[type=submit]"))
        gm.page.wait_for_url("**/t/What%20if", timeout=LIVE)
        gm.page.wait_for_selector("body[data-ready='1']", timeout=LIVE)
        assert gm.page.locator("#seat").inner_text() == "GM (gm-laptop)"
        for seat in (ana, bob):
            button = seat.page.locator("#offers button[data-offer='What if']")
            button.wait_for(timeout=LIVE)
            assert "The GM forked the campaign: “What if”" in seat.page.locator("#offers").inner_text()
        ana.shoot("fork-offer-ana-phone")
        for seat, name in ((ana, "Ana"), (bob, "Bob")):
            seat.press(seat.page.locator("#offers button[data-offer='What if']"))
            seat.page.wait_for_url("**/t/What%20if", timeout=LIVE)
            seat.page.wait_for_selector("body[data-ready='1']", timeout=LIVE)
            seat.page.wait_for_selector("#live[data-state='live']", timeout=LIVE)
            assert seat.page.locator("#title").inner_text() == name
            assert seat.page.locator("#offers").is_hidden()
        assert "at the fork" in ana.roll("2d6", "at the fork").inner_text()
        assert "bob at the fork" in bob.roll("1d20", "bob at the fork").inner_text()
        gm.seen("bob at the fork")
        assert head(db) == parent, "the parent is untouched"
        with Ledger(db) as book:
            fork = book.campaign("What if")
            assert fork.parent_version == parent
            rolled = [(e.actor, e.event.label) for e in book.effective(fork) if e.v > parent + 1]
        assert rolled == [("Ana", "at the fork"), ("Bob", "bob at the fork")]
        for seat in (gm, ana, bob):
            seat.clean()
            seat.close()


def test_a_page_says_the_server_went_away_and_comes_back_by_itself(browser: Any, tmp_path: Path) -> None:
    db, secrets = table(tmp_path)
    port = free_port()
    with serving(db, port=port) as base:
        gm = Seat(browser, base, secrets["gm"], phone=False)
        ana = Seat(browser, base, secrets["ana"], shots=shots(tmp_path))
        ana.roll("1d6", "before the stop")
    # the server stopped: both pages say so in the header, in words
    for seat in (gm, ana):
        seat.page.wait_for_selector("#live[data-state='closed']", timeout=10_000)
        badge = seat.page.locator("#live")
        assert badge.is_visible() and badge.inner_text().startswith("server gone")
    ana.page.mouse.wheel(0, 2000)
    assert ana.page.locator("#live").is_visible(), "the badge stays in sight while scrolling"
    ana.shoot("server-gone-ana-phone")
    with Ledger(db) as book:
        book.note("said while the server was away", "Friday")
    with serving(db, port=port):
        for seat in (gm, ana):
            seat.page.wait_for_selector("#live[data-state='live']", timeout=20_000)
            seat.seen("said while the server was away", ms=10_000)
        assert "after the restart" in ana.roll("1d6", "after the restart").inner_text()
        gm.seen("after the restart")
    for seat in (gm, ana):
        seat.clean("ERR_CONNECTION_REFUSED", "ERR_EMPTY_RESPONSE", "ERR_INCOMPLETE_CHUNKED_ENCODING")
        seat.close()
