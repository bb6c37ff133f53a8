"""The live table in Debian's Chromium, driven by Playwright (tests/helpers_browser.py): each
person in their own browser context, joined by their own invitation link, against a real
``ledger serve`` process.

A player takes a crawl day by tapping their sheet and the GM sees it and undoes it; text a
player typed shows as text; a table on a phone and a laptop keeps every tap target at
least 44 px tall, its header in sight and nothing wider than the screen; the GM steps
through a campaign action by action, and at day 0 the sheet says day 0; a page that lost
the server catches up; every system's sheet is its controls; a watcher has nothing to press.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.systems import get_system, system_names
from ledger.trust.seats import seats_of
from tests.helpers_browser import LIVE, PHONE, Seat, browser, exactly, shots
from tests.helpers_web import free_port, serving

__all__ = ["browser"]

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
XSS = "<img src=x onerror=alert(1)>"


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


def test_a_player_takes_a_crawl_day_by_tapping_and_the_gm_sees_it_and_undoes_it(
    browser: Any, crawl: tuple[str, str, str], tmp_path: Path
) -> None:
    base, gm_secret, ada_secret = crawl
    gm = Seat(browser, base, gm_secret, phone=False, shots=shots(tmp_path))
    ada = Seat(browser, base, ada_secret, shots=shots(tmp_path))
    assert gm.page.locator("#gm-bar").is_visible() and not ada.page.locator("#gm-bar").is_visible()
    assert ada.page.locator("#title").inner_text() == "Ada"

    ada.tab("Log")
    ada.page.fill("#players-seed", "Ada's lucky seed")
    ada.press(ada.page.locator("#seed-form button[type=submit]"))
    gm.page.locator("#dice-panel .commitment.open", has_text="Ada's lucky seed").wait_for(timeout=LIVE)
    rolled = ada.roll("2d6+1", "scouting")
    assert rolled.locator(".faces.big .die").count() == 2 and "scouting" in rolled.inner_text()
    gm.seen("scouting")

    moved = ada.tap("move", direction="n")
    assert "moved n to (0,-1)" in moved.inner_text()
    gm.seen("moved n to (0,-1)")
    terrain = ada.tap("terrain", faces=[4])
    assert "marsh" in terrain.inner_text() and terrain.locator(".die").all_inner_texts() == ["4"]
    gm.seen("marsh")
    assert gm.entry("marsh").locator("[data-dice]").get_attribute("data-dice") == "physical"
    assert "a dropped ration pack" in ada.tap("event", faces=[3, 4]).inner_text()
    ate = ada.tap("eat", food="bar")
    assert "eats bar" in ate.inner_text()
    ada.page.wait_for_function(
        "() => document.querySelector(\"#tracks [data-key='health'] .val\").textContent === '12'"
    )
    assert "sleeps (wild)" in ada.tap("sleep", where="wild").inner_text()
    ada.page.wait_for_function(
        "() => document.querySelector(\"#tracks [data-key='health'] .val\").textContent === '15'"
    )
    gm.seen("sleeps (wild)")
    assert gm.page.locator("#map polygon.hex[data-here='1']").get_attribute("data-terrain") == "marsh"

    undo = gm.page.locator("#undo")
    assert undo.get_attribute("title", timeout=LIVE).startswith("Undo: Ada: day 1 ends")
    assert undo.locator(".what").inner_text().startswith("Ada: day 1 ends")
    gm.press(undo)
    ada.tab("Log")
    struck = ada.page.locator("#log li.entry.undone", has_text="sleeps (wild)")
    struck.wait_for(timeout=LIVE)
    assert (
        struck.evaluate("e => getComputedStyle(e.querySelector('.text')).textDecorationLine")
        == "line-through"
    )
    ada.page.wait_for_function(
        "() => document.querySelector(\"#tracks [data-key='health'] .val\").textContent === '12'"
    )
    gm.page.fill("#next-seed", "our table's seed")
    gm.press(gm.page.locator("#reveal-form button[type=submit]"))
    proven = ada.entry("scouting").locator("[data-dice='proven']")
    proven.wait_for(timeout=LIVE)
    ada.page.wait_for_selector("#dice-panel .badge.verified", timeout=LIVE)
    assert "\u2713" in proven.inner_text()
    ada.tab("Sheet")
    ada.shoot("crawl-player-phone")
    gm.shoot("crawl-gm-laptop")
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
        gm = Seat(browser, base, gm_secret, phone=False)
        assert XSS in gm.form("Notes", "Note", text=XSS).inner_text()
        gm.seen(XSS)
        gm.roll("1d6", XSS)
        gm.entry(f"rolled {XSS}").first.wait_for(timeout=LIVE)
        assert (
            "character Bea joins"
            in gm.form("Party", "Character add", name="Bea", attrs=f"class={XSS}").inner_text()
        )
        refused = gm.form("Party", "Character add", name=XSS)
        assert "refused" in (refused.get_attribute("class") or "")
        assert f"character name '{XSS}' is not allowed" in refused.inner_text()
        assert gm.page.locator("#log").inner_text().count(XSS) >= 3
        assert gm.page.locator("img:not(#invite-qr)").count() == 0
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


SMALL = """() => [...document.querySelectorAll('button, summary, select, input:not([type=checkbox]):not([type=range])')]
  .filter(b => b.offsetParent !== null && !b.closest('[hidden]'))
  .map(b => [b.textContent.trim() || b.getAttribute('aria-label') || b.id, b.getBoundingClientRect().height])
  .filter(([, h]) => h < 44)"""
"""The visible tap targets shorter than 44 px."""


@pytest.mark.parametrize(
    ("system", "mark"), [("crawl", "#map polygon.hex"), ("yearzero", "#map rect.sector")]
)
def test_a_table_on_a_phone_and_a_laptop(browser: Any, tmp_path: Path, system: str, mark: str) -> None:
    db, _name, gm_secret, player_secret = imported(tmp_path, system)
    with serving(db) as base:
        for who, secret, phone in (
            ("gm", gm_secret, False),
            ("player", player_secret, True),
            ("gm", gm_secret, True),
        ):
            seat = Seat(browser, base, secret, phone=phone, shots=shots(tmp_path))
            page = seat.page
            size = "phone" if phone else "laptop"
            page.wait_for_selector("#sheet .sheet-title", timeout=5000)
            page.wait_for_selector(".meter", state="attached", timeout=5000)  # tracks drawn as bars
            assert page.locator("#sheet button.control").count() >= 1, "the sheet offers something to tap"
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= page.viewport_size["width"], f"{who} on a {size}: the page is {width}px wide"
            if phone:
                assert page.evaluate(SMALL) == [], "a tap target under 44 px"
                page.mouse.wheel(0, 1500)
                page.wait_for_timeout(200)
                assert page.locator("#top").bounding_box()["y"] == 0, "the header stays in sight"
                assert page.locator("#live").is_visible()
                seat.shoot(f"{system}-{who}-{size}-sheet")
                seat.tab("Table")
            page.wait_for_selector(mark, timeout=5000)
            seat.tab("Log")
            assert page.locator("#log li.entry").count() >= 10
            seat.shoot(f"{system}-{who}-{size}")
            seat.clean()
            seat.close()


def test_the_gm_steps_through_the_campaign_action_by_action_and_day_0_says_day_0(
    browser: Any, tmp_path: Path
) -> None:
    db, name, gm_secret, _player = imported(tmp_path, "yearzero")
    with Ledger(db) as book:
        last: dict[str, tuple[int, int | None]] = {}  # each action's last event: (version, day)
        for e in book.effective(book.campaign(name)):
            last[e.action] = (e.v, e.day)
        ends = sorted(last.values())
        system = get_system("yearzero")

        def sheet_at(v: int) -> dict[str, Any]:
            return system.read.sheet(book.state(name, at=v), "Vesna")

        day0 = max(v for v, d in ends if d == 0)
        day0_title = f"day {sheet_at(day0)['time']['day']}"
        after = next(v for v, _ in ends if v > day0)
        after_time = sheet_at(after)["time"]["text"]
    assert day0_title == "day 0"
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, phone=False, shots=shots(tmp_path))
        page = gm.page
        assert page.locator("#step-label").inner_text().startswith("now")
        for _ in range(10):
            if (page.locator("body").get_attribute("data-at") or "").isdigit() and int(
                page.locator("body").get_attribute("data-at")
            ) <= day0:
                break
            gm.press(page.locator("#prev-day"))
        page.wait_for_function(f"() => document.body.dataset.at === '{day0}'")
        assert page.locator("#step-label").inner_text().startswith("day 0 · v")
        page.wait_for_function(
            "() => document.querySelector('#sheet .sheet-title').textContent.includes('day 0 ')"
        )
        assert page.locator("#sheet button.control").first.is_disabled(), "no control acts in the past"
        gm.press(page.locator("#next-step"))
        page.wait_for_function(f"() => document.body.dataset.at === '{after}'")
        page.wait_for_function(
            f"() => document.querySelector('#sheet .sheet-title').textContent.includes({after_time!r})"
        )
        gm.press(page.locator("#prev-step"))
        page.wait_for_function(f"() => document.body.dataset.at === '{day0}'")
        gm.shoot("yearzero-gm-day0")
        # a fork from the point shown: the GM is taken to it, its page at now
        page.fill("#fork-name", "what if")
        gm.press(page.locator("#fork-form button[type=submit]"))
        page.wait_for_url("**/t/what%20if", timeout=5000)
        page.wait_for_selector("body[data-ready='1']", timeout=5000)
        with Ledger(db) as book:
            assert book.campaign("what if").parent_version == day0
        assert page.locator("#step-label").inner_text().startswith("now")
        assert page.locator("#log li.entry.fork").count() == 1
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
        gm = Seat(browser, base, gm_secret, phone=False)
        gm.roll("1d6", "before")
        gm.seen("before")
    gm.page.wait_for_selector("#live:not([data-state='live'])", timeout=5000)
    assert gm.page.locator("#live").is_visible()
    with Ledger(db) as book:  # recorded while the page could not hear
        for n in range(3):
            book.note(f"while away {n}", "Friday")
        head = book.head(book.campaign("Friday"))
    with serving(db, port=port):
        gm.page.wait_for_selector("#live[data-state='live']", timeout=15_000)
        gm.entry("while away 2").wait_for(timeout=5000)
        versions = [
            int(v)
            for v in gm.page.locator("#log li.entry").evaluate_all("l => l.map(e => e.dataset.version)")
        ]
        assert versions == list(range(head, 0, -1))
    gm.clean("ERR_CONNECTION_REFUSED", "ERR_EMPTY_RESPONSE", "ERR_INCOMPLETE_CHUNKED_ENCODING")
    gm.close()


@pytest.mark.parametrize("system", system_names())
def test_every_systems_sheet_is_its_controls_and_its_forms_wait_in_groups(
    browser: Any, tmp_path: Path, system: str
) -> None:
    """No wall of buttons: the sheet's controls, then the remaining commands in a few
    groups by what a player is doing; no two buttons share a label."""
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign(system, "Friday")
        friday = book.campaign("Friday")
        book.add_character("Ana", "Friday")
        gm_secret = seats_of(book).invite(friday.id, "gm", label="gm")[1]
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, shots=shots(tmp_path))
        page = gm.page
        page.wait_for_selector("#sheet .kv, #sheet .sheet-title", timeout=5000)
        groups = page.locator("#forms details.form-group")
        assert groups.count() <= 8
        assert page.locator("#forms .form-button:visible").count() == 0, "the forms wait in their groups"
        for n in range(groups.count()):
            gm.press(groups.nth(n).locator("summary"))
        labels = page.locator("#me button:visible").evaluate_all(
            "l => l.map(b => b.textContent.trim().toLowerCase())"
        )
        repeated = sorted({x for x in labels if labels.count(x) > 1})
        assert repeated == [], f"buttons share a label: {repeated}"
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"]
        gm.shoot(f"sheet-{system}-phone", full=True)
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
        screen = Seat(browser, base, watch_secret, phone=False)
        ada = Seat(browser, base, ada_secret)
        page = screen.page
        assert page.locator("#sheet button.control").count() == 0
        assert not page.locator("#dice").is_visible() and not page.locator("#gm-bar").is_visible()
        assert not page.locator("#forms").is_visible() and not page.locator("#seed-form").is_visible()
        assert page.locator("#map polygon.hex").count() >= 1
        ada.tap("move", direction="s")
        screen.seen("moved s to (0,1)")
        page.wait_for_selector("#map polygon.hex[data-here='1'][data-q='0'][data-r='1']", timeout=LIVE)
        assert page.locator("#seat").inner_text() == "watching (screen)"
        assert page.get_by_role("button", name=exactly("move")).count() == 0
        screen.clean()
        ada.clean()
        screen.close()
        ada.close()


@pytest.mark.parametrize("system", system_names())
def test_a_player_is_offered_only_what_the_server_takes_and_asked_once_before_what_is_for_good(
    browser: Any, tmp_path: Path, system: str
) -> None:
    """Every button on a player's phone sends a command the table lists for the seat; no
    form asks a value that is the GM's (``gm_values``: a yes/no is not asked, a choice not
    offered); what the player confirms (``confirm``, ``confirm_values``) asks once, as it is
    chosen, and the press that follows sends it."""
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign(system, "Friday")
        friday = book.campaign("Friday")
        book.add_character("Ana", "Friday")
        ana_secret = seats_of(book).invite(friday.id, "player", "Ana", label="ana")[1]
    with serving(db) as base:
        ana = Seat(browser, base, ana_secret)
        page = ana.page
        info = page.evaluate("() => fetch(location.pathname.replace('/t/', '/api/c/')).then(r => r.json())")
        groups = page.locator("#forms details.form-group")
        for n in range(groups.count()):
            ana.press(groups.nth(n).locator("summary"))
        sent = set(page.locator("#me [data-command]").evaluate_all("l => l.map(b => b.dataset.command)"))
        assert sent <= set(info["commands"]), sorted(sent - set(info["commands"]))
        for form in page.locator("#forms .form-button").all():
            command = form.get_attribute("data-command")
            ana.press(form)
            dialog = page.locator("#options")
            dialog.wait_for(state="visible")
            asked = set(dialog.locator("[name]").evaluate_all("l => l.map(n => n.name)"))
            for field, values in info["gm_values"].get(command, {}).items():
                if values == [True]:
                    assert field not in asked, f"{command}: a player is asked {field!r}, the GM's"
            confirm = dialog.locator("#options-confirm")
            assert confirm.is_visible() == (command in info["confirm"]), command
            for field, values in info["confirm_values"].get(command, {}).items():
                if values == [True] and field in asked:
                    dialog.locator(f"[name='{field}']").set_checked(True)
                    assert confirm.is_visible(), f"{command} {field}: chosen, it asks first"
                    dialog.locator(f"[name='{field}']").set_checked(False)
                    assert not confirm.is_visible()
            ana.press(page.locator("#options-cancel"))
            dialog.wait_for(state="hidden")
        if "yearzero.Eat" in info["confirm_values"]:
            posts: list[str] = []
            page.on("request", lambda r: r.method == "POST" and posts.append(r.post_data or ""))
            result = ana.form("Food, water and rest", "Eat", contaminated=True)
            assert len(posts) == 1 and '"contaminated":true' in posts[0], posts
            assert "Ana" in result.inner_text()
        ana.clean(422)
        ana.close()
