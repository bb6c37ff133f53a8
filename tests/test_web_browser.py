"""The live table in Debian's Chromium, driven by Playwright: a GM and a player at one
table in two browser contexts, each joined by its own invitation link, against a real
``ledger serve`` process.

The player rolls and takes a crawl day; the GM's page shows each action within a second;
the GM undoes, and the player's page strikes the action through and its sheet restores.
Text a player typed (``<img src=x onerror=alert(1)>``) shows as text. Phone-size and
laptop-size screenshots of a crawl and a yearzero table are kept in ``artifacts/table/``
(or ``$LEDGER_ARTIFACTS``).

Chromium comes from the Debian package (``apt-get install -y chromium``); nothing is
downloaded. Without it these tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.deciding.commands import stable_commands
from ledger.systems import system_names
from ledger.trust.seats import seats_of
from tests.helpers_web import free_port, serving

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
ARTIFACTS = Path(os.environ.get("LEDGER_ARTIFACTS") or ROOT / "artifacts") / "table"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 900}
LIVE = 1000
"""Milliseconds within which what one seat records shows on every other open page."""
XSS = "<img src=x onerror=alert(1)>"


def missing(why: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {why}")
    pytest.skip(why)


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        missing("Chromium is not installed (apt-get install -y chromium)")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("Playwright for Python is not installed (pip install -e '.[test]')")
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=path, args=FLAGS)
        yield launched
        launched.close()


class Seat:
    """One person's page: their own browser context, joined by their invitation link, with
    what the page did wrong (script errors, console errors, dialogs) kept."""

    def __init__(self, browser: Any, base: str, secret: str, viewport: dict[str, int]) -> None:
        self.context = browser.new_context(viewport=viewport)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"script error: {e}"))
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("dialog", self._dialog)
        self.page.goto(f"{base}/join/{secret}")
        self.page.click("form button")  # the confirm page: "Join CAMPAIGN as WHO?"
        self.page.wait_for_selector("body[data-ready='1']", timeout=10_000)
        self.page.wait_for_selector("#live[data-state='live']", timeout=10_000)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def entry(self, text: str) -> Any:
        """The log's entry whose text holds ``text``."""
        return self.page.locator("#log li.entry", has_text=text)

    def recorded(self) -> int:
        """Waits for this page's action to be answered; the version it recorded."""
        notice = self.page.locator("#notice")
        notice.filter(has_text="recorded v").wait_for(timeout=5000)
        return int(notice.inner_text().split("recorded v")[1].split()[0])

    def act(self, command: str, faces: list[int] | None = None, **fields: str) -> int:
        """Click a command's button (its form filled with ``fields``), with real dice."""
        page = self.page
        page.locator("#notice").evaluate("n => { n.textContent = ''; }")
        if faces is not None:
            page.check("#real")
            page.fill("#faces", ",".join(map(str, faces)))
        page.click(f"#commands button[data-command='{command}']")
        if fields:
            for name, value in fields.items():
                page.fill(f"#command-form [name='{name}']", value)
            page.click("#command-form button[type=submit]")
        return self.recorded()

    def roll(self, notation: str, label: str = "") -> int:
        page = self.page
        page.locator("#notice").evaluate("n => { n.textContent = ''; }")
        page.fill("#notation", notation)
        page.fill("#roll-label", label)
        page.click("#dice-box button[type=submit]")
        return self.recorded()

    def sheet_of(self, version: int) -> None:
        """Waits for the sheet read after ``version`` came in."""
        self.page.wait_for_function(f"() => +document.body.dataset.sheetHead >= {version}", timeout=LIVE)

    def sheet(self, key: str) -> str:
        return str(self.page.locator(f"#sheet [data-key='{key}'] .val").first.inner_text())

    def clean(self, *expected: int | str) -> None:
        """No script error, no dialog, and no console error but the browser's note of what
        the test brought about: a refusal (its status) or a network error (its name)."""
        noted = [f"status of {e} " if isinstance(e, int) else e for e in expected]
        problems = [p for p in self.problems if not any(n in p for n in noted)]
        assert problems == [], problems
        assert self.dialogs == [], self.dialogs

    def shoot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        self.context.close()


def seen_within(seat: Seat, text: str, ms: int = LIVE) -> None:
    """The entry shows on ``seat``'s page within ``ms`` of now, without a reload."""
    started = time.monotonic()
    seat.entry(text).first.wait_for(timeout=ms)
    assert (time.monotonic() - started) * 1000 <= ms


@pytest.fixture
def crawl(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
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


def test_the_player_rolls_and_takes_a_crawl_day_the_gm_sees_it_and_undoes_it(
    browser: Any, crawl: tuple[str, str, str]
) -> None:
    base, gm_secret, ada_secret = crawl
    gm = Seat(browser, base, gm_secret, LAPTOP)
    ada = Seat(browser, base, ada_secret, PHONE)
    assert gm.page.locator("#gm").is_visible() and not ada.page.locator("#gm").is_visible()

    ada.page.fill("#players-seed", "Ada's lucky seed")
    ada.page.click("#seed-form button[type=submit]")
    seeded = gm.page.locator("#dice-panel .commitment.open", has_text="Ada's lucky seed")
    seeded.wait_for(timeout=LIVE)
    ada.roll("2d6+1", "scouting")
    ada.page.wait_for_selector("#seed-form", state="hidden")  # a die was drawn under it
    seen_within(gm, "scouting")
    assert gm.entry("scouting").locator(".die").count() == 2

    ada.act("crawl.Move", direction="n")
    seen_within(gm, "moved n to (0,-1)")
    ada.act("crawl.Terrain", faces=[4])
    seen_within(gm, "marsh")
    terrain = gm.entry("marsh")
    assert terrain.locator(".die").all_inner_texts() == ["4"]
    assert terrain.locator("[data-dice]").get_attribute("data-dice") == "physical"
    ada.act("crawl.Explore", faces=[3, 4])
    seen_within(gm, "a dropped ration pack")
    ate = ada.act("crawl.Eat", food="bar")
    seen_within(gm, "eats bar")
    ada.sheet_of(ate)
    assert ada.sheet("health") == "12"
    slept = ada.act("crawl.Sleep", where="wild")
    seen_within(gm, "sleeps (wild)")
    ada.sheet_of(slept)
    assert ada.sheet("health") == "15"
    assert gm.page.locator("#map polygon.hex[data-here='1']").get_attribute("data-terrain") == "marsh"
    assert ada.entry("scouting").locator("[data-dice]").get_attribute("data-dice") == "pending"

    gm.page.click("#undo")
    started = time.monotonic()
    struck = ada.page.locator("#log li.entry.undone", has_text="sleeps (wild)")
    struck.wait_for(timeout=LIVE)
    assert (time.monotonic() - started) * 1000 <= LIVE
    assert (
        struck.evaluate("e => getComputedStyle(e.querySelector('.text')).textDecorationLine")
        == "line-through"
    )
    assert ada.page.locator("#log li.entry.undone", has_text="day 1 ends").count() == 1  # the whole action
    ada.page.wait_for_function(
        "() => document.querySelector(\"#sheet [data-key='health'] .val\").textContent === '12'", timeout=LIVE
    )
    gm.page.locator("#log li.entry.undone", has_text="sleeps (wild)").wait_for(timeout=LIVE)
    assert ada.entry("eats bar").first.get_attribute("data-undone") == "0"

    gm.page.fill("#next-seed", "our table's seed")
    gm.page.click("#reveal-form button[type=submit]")
    proven = ada.entry("scouting").locator("[data-dice='proven']")
    proven.wait_for(timeout=LIVE)
    ada.page.wait_for_selector("#dice-panel .badge.verified", timeout=LIVE)
    assert "\u2713" in proven.inner_text()  # the revealed seed hashes to its commitment
    assert ada.page.locator("#dice-panel .commitment.open code").nth(1).inner_text() == "our table's seed"
    ada.shoot("crawl-day-player-phone")
    gm.shoot("crawl-day-gm-laptop")
    gm.clean()
    ada.clean()
    gm.close()
    ada.close()


def test_what_a_player_typed_shows_as_text_never_as_html(browser: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Friday")
        book.add_character("Ana", "Friday")
        friday = book.campaign("Friday")
        gm_secret = seats_of(book).invite(friday.id, "gm", label="gm")[1]
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, LAPTOP)
        gm.act("core.Note", text=XSS)
        seen_within(gm, XSS)
        gm.roll("1d6", XSS)
        gm.entry(f"rolled {XSS}").first.wait_for(timeout=LIVE)
        gm.act("core.AddCharacter", name="Bea", attrs=f"class={XSS}")
        seen_within(gm, "character Bea joins")
        gm.page.click("#commands button[data-command='core.AddCharacter']")
        gm.page.fill("#command-form [name='name']", XSS)
        gm.page.click("#command-form button[type=submit]")
        refusal = gm.page.locator("#notice.bad")
        refusal.wait_for(timeout=5000)
        assert f"character name '{XSS}' is not allowed" in refusal.inner_text()
        assert gm.page.locator("#log").inner_text().count(XSS) >= 3
        assert gm.page.locator("img").count() == 0
        time.sleep(0.3)  # an onerror would have fired by now
        gm.clean(422)
        gm.close()


def imported(tmp_path: Path, system: str) -> tuple[str, str, str, str]:
    """The system's sample campaign in a new ledger: (db, campaign, GM secret, a player's)."""
    db = str(tmp_path / f"{system}.ledger")
    with Ledger(db) as book:
        with (SAMPLES / system / "campaign.jsonl").open("rb") as f:
            c = book.import_(f)
        first = next(iter(book.tip(c).state.core.characters))
        seats = seats_of(book)  # reusable: each seat opens on a laptop and on a phone
        gm = seats.invite(c.id, "gm", label="gm", reusable=True)[1]
        player = seats.invite(c.id, "player", first, label=f"{first.lower()}-phone", reusable=True)[1]
        return db, c.name, gm, player


@pytest.mark.parametrize(
    ("system", "mark"), [("crawl", "#map polygon.hex"), ("yearzero", "#map rect.sector")]
)
def test_a_table_on_a_phone_and_a_laptop(browser: Any, tmp_path: Path, system: str, mark: str) -> None:
    db, _name, gm_secret, player_secret = imported(tmp_path, system)
    with serving(db) as base:
        for who, secret, size, viewport in (
            ("gm", gm_secret, "laptop", LAPTOP),
            ("player", player_secret, "phone", PHONE),
            ("gm", gm_secret, "phone", PHONE),
            ("player", player_secret, "laptop", LAPTOP),
        ):
            seat = Seat(browser, base, secret, viewport)
            page = seat.page
            page.wait_for_selector(mark, timeout=5000)
            page.wait_for_selector("#sheet .sheet-title", timeout=5000)
            assert page.locator("#sheet .meter").count() >= 1  # tracks drawn as bars
            assert page.locator("#log li.entry").count() >= 10
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= viewport["width"], f"{who} on a {size}: the page is {width}px wide"
            seat.shoot(f"{system}-{who}-{size}")
            seat.clean()
            seat.close()


def test_the_gm_travels_back_to_a_day_and_the_sheet_follows(browser: Any, tmp_path: Path) -> None:
    db, name, gm_secret, _player = imported(tmp_path, "crawl")
    with Ledger(db) as book:
        on_day_2 = book.state(name, day=2)
        health = on_day_2.game.health
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, LAPTOP)
        page = gm.page
        page.wait_for_selector("#sheet .sheet-title")
        page.locator("#day-slider").evaluate("(s) => { s.value = 2; s.dispatchEvent(new Event('input')); }")
        page.wait_for_function("() => document.querySelector('#sheet-when').textContent === 'on day 2'")
        page.wait_for_function(
            f"() => document.querySelector(\"#sheet [data-key='health'] .val\").textContent === '{health}'"
        )
        assert "day 2" in page.locator("#sheet .sheet-title").inner_text()
        page.fill("#fork-name", "what if")
        page.click("#fork-form button[type=submit]")
        link = page.locator("#fork-link")
        link.wait_for(timeout=5000)
        assert "'what if'" in link.inner_text()
        with Ledger(db) as book:
            assert book.campaign("what if").parent_version == book.version_at_day(book.campaign(name), 2)
        page.click("#now")
        page.wait_for_function("() => document.querySelector('#sheet-when').textContent.startsWith('now')")
        gm.clean()
        gm.close()


def test_a_page_that_lost_the_server_catches_up_without_a_gap_or_a_duplicate(
    browser: Any, tmp_path: Path
) -> None:
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Friday")
        book.add_character("Ana", "Friday")
        friday = book.campaign("Friday")
        gm_secret = seats_of(book).invite(friday.id, "gm", label="gm")[1]
    port = free_port()
    with serving(db, port=port) as base:
        gm = Seat(browser, base, gm_secret, LAPTOP)
        gm.roll("1d6", "before")
        seen_within(gm, "before")
    gm.page.wait_for_selector("#live:not([data-state='live'])", timeout=5000)
    with Ledger(db) as book:  # recorded while the page could not hear
        for n in range(3):
            book.note(f"while away {n}", "Friday")
        head = book.head(book.campaign("Friday"))
    with serving(db, port=port):
        gm.page.wait_for_selector("#live[data-state='live']", timeout=10_000)
        gm.entry("while away 2").wait_for(timeout=5000)
        versions = [
            int(v)
            for v in gm.page.locator("#log li.entry").evaluate_all("l => l.map(e => e.dataset.version)")
        ]
        assert versions == list(range(head, 0, -1))
    gm.clean("ERR_CONNECTION_REFUSED", "ERR_EMPTY_RESPONSE", "ERR_INCOMPLETE_CHUNKED_ENCODING")
    gm.close()


@pytest.mark.parametrize("system", system_names())
def test_every_systems_commands_are_buttons_and_its_sheet_is_drawn(
    browser: Any, tmp_path: Path, system: str
) -> None:
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign(system, "Friday")
        friday = book.campaign("Friday")
        book.add_character("Ana", "Friday")
        commands = sorted(stable_commands(book.system(friday)))
        gm_secret = seats_of(book).invite(friday.id, "gm", label="gm")[1]
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, PHONE)
        page = gm.page
        shown = page.locator("#commands button[data-command]").evaluate_all(
            "l => l.map(b => b.dataset.command)"
        )
        assert sorted([*shown, "core.Roll"]) == commands  # core.Roll is the dice box
        page.wait_for_selector("#sheet .kv, #sheet .sheet-title", timeout=5000)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"]
        gm.shoot(f"sheet-{system}-phone")
        gm.clean()
        gm.close()


def test_a_watcher_sees_the_table_live_and_has_nothing_to_press(browser: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign("crawl", "Mine")
        book.add_character("Ada", "Mine")
        mine = book.campaign("Mine")
        seats = seats_of(book)
        ada_secret = seats.invite(mine.id, "player", "Ada", label="ada")[1]
        watch_secret = seats.invite(mine.id, "watch", label="screen")[1]
    with serving(db) as base:
        screen = Seat(browser, base, watch_secret, LAPTOP)
        ada = Seat(browser, base, ada_secret, PHONE)
        page = screen.page
        assert not page.locator("#act-card").is_visible() and not page.locator("#gm").is_visible()
        assert not page.locator("#seed-form").is_visible()
        assert page.locator("#map polygon.hex").count() >= 1
        ada.act("crawl.Move", direction="s")
        seen_within(screen, "moved s to (0,1)")
        page.wait_for_selector("#map polygon.hex[data-here='1'][data-q='0'][data-r='1']", timeout=LIVE)
        assert page.locator("#seat").inner_text() == "watching (screen)"
        screen.clean()
        ada.clean()
        screen.close()
        ada.close()
