"""One table, two seats in two languages at once, in Debian's Chromium (Playwright, as
tests/test_web_browser.py): a player's phone whose browser asks for Spanish and the GM's
laptop in English each read the page, the refusals, the log and the hints in their own
language, ``<html lang>`` says which; the GM's language picker turns the page Spanish and
keeps it so; the Spanish phone page fits its screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.trust.seats import seats_of
from tests.helpers_browser import ANSWER, LIVE, Seat, browser, shots
from tests.helpers_web import serving

__all__ = ["browser"]

ENGLISH_ON_THE_PAGE = ("Recent rolls", "Notation", "I rolled real dice", "Roll mode", "The log", "Sheet")


@pytest.fixture
def crawl(tmp_path: Path) -> Any:
    """A served crawl, 'Mine', with Ada exploring: (base URL, the GM's secret, Ada's)."""
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign("crawl", "Mine")
        book.add_character("Ada", "Mine")
        mine = book.campaign("Mine")
        seats = seats_of(book)
        gm = seats.invite(mine.id, "gm", label="gm-laptop")[1]
        ada = seats.invite(mine.id, "player", "Ada", label="ada-phone")[1]
    with serving(db) as base:
        yield base, gm, ada


def spanish(context: Any) -> None:
    context.set_extra_http_headers({"Accept-Language": "es-ES,es;q=0.9"})


def pane(seat: Seat, name: str) -> None:
    """Go to a pane by its tab's id (``me``, ``table``, ``log``), whatever its name says."""
    if seat.phone:
        seat.press(seat.page.locator(f"#tab-{name}"))


def roll(seat: Seat, notation: str) -> Any:
    """Roll in the dice box: the result card."""
    pane(seat, "me")
    card = seat.page.locator("[data-slot='dice'] > .result")
    before = card.get_attribute("data-version") if card.count() else None
    seat.page.fill("#notation", notation)
    seat.press(seat.page.locator("#roll"))
    seat.page.wait_for_function(
        """before => {
            const c = document.querySelector("[data-slot='dice'] > .result");
            return c && !c.classList.contains('pending') && c.dataset.version !== before
              && (c.dataset.action || c.classList.contains('refused'));
        }""",
        arg=before,
        timeout=ANSWER,
    )
    return card


def test_two_seats_at_one_table_each_read_their_own_language(
    browser: Any, crawl: tuple[str, str, str], tmp_path: Path
) -> None:
    base, gm_secret, ada_secret = crawl
    gm = Seat(browser, base, gm_secret, phone=False, shots=shots(tmp_path))
    ada = Seat(browser, base, ada_secret, shots=shots(tmp_path), before=spanish)

    assert ada.page.evaluate("document.documentElement.lang") == "es"
    assert gm.page.evaluate("document.documentElement.lang") == "en"
    assert ada.page.locator("#roll").inner_text() == "Tirar"
    assert gm.page.locator("#roll").inner_text() == "Roll"
    assert [ada.page.locator(f"#tab-{t}").inner_text() for t in ("me", "table", "log")] == [
        "Hoja",
        "Mesa",
        "Registro",
    ]
    assert (
        ada.page.locator("#live").inner_text() == "en directo"
        and gm.page.locator("#live").inner_text() == "live"
    )
    assert ada.page.locator("#lang").input_value() == "es"
    # the hints the server words for each seat's sheet
    assert "caja de dados («Tirar»)" in ada.page.locator("#hints").inner_text()
    assert "the dice box (“Roll”)" in gm.page.locator("#hints").inner_text()

    # a refusal, where each tapped
    refused_es = roll(ada, "banana")
    assert refused_es.inner_text().startswith("Rechazado: ")
    refused_en = roll(gm, "banana")
    assert refused_en.inner_text().startswith("Refused: ")

    # a roll: its result card and its log entry in each seat's words
    done = roll(ada, "1d6")
    assert "Anotado como v" in done.inner_text()
    version = done.get_attribute("data-version")
    pane(ada, "log")
    mine = ada.page.locator(f"#log li.entry[data-version='{version}']")
    theirs = gm.page.locator(f"#log li.entry[data-version='{version}']")
    theirs.wait_for(state="attached", timeout=LIVE)
    assert mine.locator(".seat-of").inner_text() == "por ada-phone"
    assert theirs.locator(".seat-of").inner_text() == "by ada-phone"

    # the GM undoes it: each log marks it undone in its own words
    gm.press(gm.page.locator("#undo"))
    mine.locator(".badge.undone").wait_for(timeout=LIVE)
    assert mine.locator(".badge.undone").inner_text() == "deshecha"
    theirs.locator(".badge.undone").wait_for(timeout=LIVE)
    assert theirs.locator(".badge.undone").inner_text() == "undone"

    # the phone page in Spanish fits its screen and shows none of the page's English
    pane(ada, "me")
    ada.page.evaluate("window.scrollTo(0, 0)")
    shot = ada.shoot("spanish-phone")
    ada.shoot("spanish-phone-whole", full=True)
    assert shot.exists()
    assert ada.page.evaluate("document.documentElement.scrollWidth") <= 390
    shown = ada.page.locator("body").inner_text()
    assert [w for w in ENGLISH_ON_THE_PAGE if w in shown] == []
    pane(ada, "log")
    ada.shoot("spanish-phone-log")
    assert ada.page.evaluate("document.documentElement.scrollWidth") <= 390

    # the GM picks Spanish on the page: it reads again in Spanish, and stays so
    gm.page.select_option("#lang", "es")
    gm.page.wait_for_function("document.documentElement.lang === 'es'", timeout=ANSWER)
    gm.page.wait_for_selector("body[data-ready='1']", timeout=15_000)
    assert gm.page.locator("#roll").inner_text() == "Tirar"
    assert gm.page.evaluate("localStorage.getItem('ledger-lang')") == "es"
    gm.page.reload()
    gm.page.wait_for_selector("body[data-ready='1']", timeout=15_000)
    assert gm.page.locator("#undo .verb").inner_text() == "Deshacer"
    # the cookie lost, the page remembers the choice (localStorage) and reads again in it
    gm.page.evaluate("document.cookie = 'ledger_lang=; path=/; max-age=0'")
    gm.page.reload()
    gm.page.wait_for_function("document.documentElement.lang === 'es'", timeout=ANSWER)
    gm.page.wait_for_selector("body[data-ready='1']", timeout=15_000)
    assert gm.page.locator("#roll").inner_text() == "Tirar"
    gm.shoot("spanish-laptop")
    assert ada.page.locator("#roll").inner_text() == "Tirar"  # the other seat is left as it was

    ada.clean(422)
    gm.clean(422)


def test_every_word_on_the_page_passes_through_the_catalogs(
    browser: Any, crawl: tuple[str, str, str], tmp_path: Path
) -> None:
    """The pseudo-language's page (helpers_pseudo): the GM's laptop and a player's phone,
    after a roll, a refusal and an undo, show no word of the ledger's own English outside a
    catalog's brackets."""
    from tests.helpers_pseudo import untranslated

    base, gm_secret, ada_secret = crawl

    def pseudo(context: Any) -> None:
        context.add_cookies([{"name": "ledger_lang", "value": "qps", "url": base}])

    gm = Seat(browser, base, gm_secret, phone=False, shots=shots(tmp_path), before=pseudo)
    ada = Seat(browser, base, ada_secret, shots=shots(tmp_path), before=pseudo)
    assert ada.page.evaluate("document.documentElement.lang") == "qps"
    roll(ada, "banana")
    roll(ada, "1d6")
    gm.press(gm.page.locator("#undo"))
    ada.page.locator("#log .badge.undone").first.wait_for(state="attached", timeout=LIVE)
    for seat in (ada, gm):
        for name in ("me", "table", "log"):
            pane(seat, name)
            shown = seat.page.locator("body").inner_text()
            assert "⟦" in shown
            assert "\n".join(untranslated(shown, allowed={"ada", "mine"})) == "", name
    ada.clean(422)
    gm.clean(422)
