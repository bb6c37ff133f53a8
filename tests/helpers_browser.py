"""People at the live table in Debian's Chromium, driven by Playwright: one browser context
per seat, a phone as ``viewport 390x844, is_mobile, has_touch`` and a laptop at 1366x768,
each joined by its own invitation link against a real ``ledger serve`` process.

:class:`Seat` does what a person does on the page: taps a control of the sheet (and fills
the short sheet of options it opens), fills a form, rolls in the dice box, and reads what
the page shows them (the result where they tapped, the log, the sticky tracks). It keeps
what the page did wrong (script errors, console errors, dialogs) for :meth:`Seat.clean`.

Chromium comes from the Debian package (``apt-get install -y chromium``); nothing is
downloaded. Without it these tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

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
LAPTOP = {"width": 1366, "height": 768}
LIVE = 2000
"""Milliseconds within which what one seat records shows on every other open page (the
machine runs four browser contexts and the server on two cores)."""
ANSWER = 10_000
"""Milliseconds a tap may take to show its result."""


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


def shots(tmp: Path) -> Path:
    """Where screenshots go: ``$LEDGER_ARTIFACTS/table`` when set, else the test's own
    temporary folder (nothing is written into the checkout)."""
    chosen = os.environ.get("LEDGER_ARTIFACTS")
    where = Path(chosen) / "table" if chosen else tmp / "shots"
    where.mkdir(parents=True, exist_ok=True)
    return where


def exactly(text: str) -> re.Pattern[str]:
    return re.compile(f"^{re.escape(text)}$", re.IGNORECASE)


class Seat:
    """One person's page: their own browser context, joined by their invitation link."""

    def __init__(
        self,
        browser: Any,
        base: str,
        secret: str,
        *,
        phone: bool = True,
        shots: Path | None = None,
        before: Any = None,
    ) -> None:
        """``before``: what to do with the seat's browser context before it opens the page
        (a route that changes what the server says)."""
        self.phone = phone
        if phone:
            self.context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        else:
            self.context = browser.new_context(viewport=LAPTOP)
        self.page = self.context.new_page()
        self.shots = shots
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"script error: {e}"))
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("dialog", self._dialog)
        if before is not None:
            before(self.context)
        self.page.goto(f"{base}/join/{secret}")
        self.page.click("form button")  # the confirm page: "Join CAMPAIGN as WHO?"
        self.page.wait_for_selector("body[data-ready='1']", timeout=15_000)
        self.page.wait_for_selector("#live[data-state='live']", timeout=15_000)
        self.page.wait_for_selector("body[data-sheet-head]", timeout=15_000)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    # --- doing --------------------------------------------------------------------------

    def press(self, target: Any) -> None:
        """A finger's tap on a phone, a click on a laptop."""
        target.scroll_into_view_if_needed()
        if self.phone:
            target.tap()
        else:
            target.click()

    def control(self, label: str) -> Any:
        """The sheet's control labelled ``label`` (its first line: ``Fight``, ``Call heads``)."""
        return self.page.locator("#me button.control").filter(
            has=self.page.locator(".label", has_text=exactly(label))
        )

    def tab(self, name: str) -> None:
        """Go to a pane (``Sheet``, ``Table``, ``Log``) on a phone; a laptop shows them all."""
        if self.phone:
            self.press(self.page.get_by_role("tab", name=name))

    def real_dice(self, faces: list[int] | None) -> None:
        if faces is None:
            return
        self.tab("Sheet")
        box = self.page.locator("#real")
        if not box.is_checked():
            self.press(box)
        self.page.fill("#faces", ",".join(map(str, faces)))

    def _fill(self, fields: Mapping[str, Any]) -> None:
        sheet = self.page.locator("#options")
        for name, value in fields.items():
            found = sheet.locator(f"[name='{name}']")
            first = found.first
            tag = first.evaluate("n => n.tagName.toLowerCase() + ':' + (n.type || '')")
            if tag.startswith("select"):
                first.select_option(str(value))
            elif tag.endswith("checkbox") and isinstance(value, bool):
                first.set_checked(value)
            elif tag.endswith("checkbox"):
                for v in value:
                    sheet.locator(f"[name='{name}'][value='{v}']").set_checked(True)
            else:
                first.fill(str(value))

    def _answered(self, slot: str, before: str | None) -> Any:
        card = self.page.locator(f"[data-slot='{slot}'] > .result")
        self.page.wait_for_function(
            """([slot, before]) => {
                const c = document.querySelector(`[data-slot='${slot}'] > .result`);
                return c && !c.classList.contains('pending') && c.dataset.version !== before
                  && (c.dataset.action || c.classList.contains('refused'));
            }""",
            arg=[slot, before],
            timeout=ANSWER,
        )
        return card

    def _before(self, slot: str) -> str | None:
        card = self.page.locator(f"[data-slot='{slot}'] > .result")
        return card.get_attribute("data-version") if card.count() else None

    def tap(self, label: str, faces: list[int] | None = None, go: bool = True, **fields: Any) -> Any:
        """Tap a control of the sheet; fill its options (``fields``), then its button: the
        result card where it was tapped."""
        self.tab("Sheet")
        self.real_dice(faces)
        button = self.control(label)
        slot = button.get_attribute("data-answer")
        before = self._before(slot)
        self.press(button)
        dialog = self.page.locator("#options")
        if dialog.is_visible():
            self._fill(fields)
            if not go:
                return None
            self.press(self.page.locator("#options-go"))
        else:
            assert not fields, f"{label} opened no options to fill"
        return self._answered(slot, before)

    def prepare(self, label: str, **fields: Any) -> tuple[str, str | None]:
        """Tap a control and fill its options, stopping before its button: (the slot its
        result shows in, the version shown there before)."""
        self.tab("Sheet")
        button = self.control(label)
        slot = button.get_attribute("data-answer")
        before = self._before(slot)
        self.press(button)
        self.page.locator("#options").wait_for(state="visible")
        self._fill(fields)
        return slot, before

    def answered(self, slot: str, before: str | None) -> Any:
        """The result card in ``slot``, once a new one is there."""
        return self._answered(slot, before)

    def form(self, group: str, label: str, faces: list[int] | None = None, **fields: Any) -> Any:
        """Open a form of the page (in its group), fill it, send it: its result card."""
        self.tab("Sheet")
        self.real_dice(faces)
        details = self.page.locator(f"#forms details[data-group='{group}']")
        if details.get_attribute("open") is None:
            self.press(details.locator("summary"))
        slot = f"form-{group}"
        before = self._before(slot)
        self.press(details.get_by_role("button", name=exactly(label)))
        self._fill(fields)
        self.press(self.page.locator("#options-go"))
        return self._answered(slot, before)

    def roll(self, notation: str, label: str = "") -> Any:
        self.tab("Sheet")
        before = self._before("dice")
        self.page.fill("#notation", notation)
        self.page.fill("#roll-label", label)
        self.press(self.page.locator("#roll"))
        return self._answered("dice", before)

    # --- reading ------------------------------------------------------------------------

    def entry(self, text: str) -> Any:
        """The log's entry whose text holds ``text``."""
        return self.page.locator("#log li.entry", has_text=text)

    def seen(self, text: str, ms: int = LIVE) -> None:
        """The log shows ``text`` within ``ms``, without a reload."""
        self.entry(text).first.wait_for(state="attached", timeout=ms)

    def sheet_of(self, version: int) -> None:
        """Waits for the sheet read after ``version`` came in."""
        self.page.wait_for_function(f"() => +document.body.dataset.sheetHead >= {version}", timeout=LIVE)

    def track(self, key: str) -> str:
        """A sticky headline track's value (``strength`` -> ``3``)."""
        return str(self.page.locator(f"#tracks [data-key='{key}'] .val").first.inner_text())

    def clean(self, *expected: int | str) -> None:
        """No script error, no dialog, and no console error but the browser's note of what
        the test brought about: a refusal (its status) or a network error (its name)."""
        noted = [f"status of {e} " if isinstance(e, int) else e for e in expected]
        problems = [p for p in self.problems if not any(n in p for n in noted)]
        assert problems == [], problems
        assert self.dialogs == [], self.dialogs

    def shoot(self, name: str, full: bool = False) -> Path:
        assert self.shots is not None
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full)
        return path

    def close(self) -> None:
        self.context.close()


def at_once(taps: list[tuple[Seat, str]], lead: int = 1200) -> None:
    """Each seat presses its button (a selector) at the same moment of the machine's clock,
    ``lead`` milliseconds from now: the taps of several people at once."""
    start = taps[0][0].page.evaluate("() => Date.now()") + lead
    for seat, selector in taps:
        seat.page.evaluate(
            "([sel, t]) => setTimeout(() => document.querySelector(sel).click(), t - Date.now())",
            [selector, start],
        )
