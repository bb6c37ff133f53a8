"""The screenshots of docs/gm.md: the live table as a GM's laptop (1366x768) and a player's
phone (390x844, touch) show it, in Debian's Chromium through Playwright, on the Year Zero
sample campaign. Run by hand when the page changes (not by CI), then look at every picture:

    python bench/shots.py                 # writes docs/images/*.png
    python bench/shots.py --out /tmp/shots

Each picture is written as Chromium draws it and then, when Pillow is installed
(``pip install pillow``), reduced to a palette of 128 colours (the page's flat colours
keep their look): each stays well under 200 KB.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.serve_load import serving  # noqa: E402
from ledger import Ledger  # noqa: E402
from ledger.trust.seats import seats_of  # noqa: E402

PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LAPTOP: dict[str, Any] = {"viewport": {"width": 1366, "height": 768}}
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--font-render-hinting=none"]
SAMPLE = ROOT / "samples" / "yearzero" / "campaign.jsonl"


def table(target: str) -> tuple[str, str, dict[str, str]]:
    """The Year Zero sample, its GM's seat and a seat for each player: (campaign, GM secret,
    each character's player's secret)."""
    with Ledger(target) as book:
        with SAMPLE.open("rb") as f:
            c = book.import_(f)
        seats = seats_of(book)
        gm = seats.invite(c.id, "gm", label="gm", reusable=True)[1]  # a laptop and a phone
        system, state = book.system(c), book.tip(c).state
        players = {
            who: seats.invite(c.id, "player", who, label=f"{who.lower()}-phone")[1]
            for who in state.core.characters
            if not system.read.sheet(state, who).get("dead")  # a living mutant's phone
        }
        return c.name, gm, players


def seat(browser: Any, base: str, secret: str, size: dict[str, Any]) -> Any:
    page = browser.new_context(**size).new_page()
    page.goto(f"{base}/join/{secret}")
    page.click("form button")  # "Join ... as ...?"
    page.wait_for_selector("body[data-ready='1']", timeout=30_000)
    page.wait_for_selector("#live[data-state='live']", timeout=30_000)
    page.wait_for_selector("body[data-log-drawn]", timeout=30_000)
    return page


def small(path: Path) -> None:
    """The picture as a palette of 128 colours, when Pillow is there."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as picture:
        reduced = picture.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=0)
        reduced.save(path, optimize=True)


def shoot(page: Any, out: Path, name: str) -> None:
    path = out / f"{name}.png"
    page.wait_for_timeout(400)  # the last redraws
    page.screenshot(path=str(path))
    small(path)
    print(f"{path}  {path.stat().st_size // 1024} KB")


def tap(page: Any, label: str, **fields: Any) -> None:
    """A tap on a control of the sheet, its options filled, and its result shown."""
    button = page.locator("#me button.control").filter(has=page.locator(".label", has_text=label)).first
    slot = button.get_attribute("data-answer")
    button.scroll_into_view_if_needed()
    button.tap()
    options = page.locator("#options")
    if options.is_visible():
        for name, value in fields.items():
            page.locator(f"#options [name='{name}']").fill(str(value))
        page.locator("#options-go").tap()
    page.wait_for_selector(f"[data-slot='{slot}'] > .result[data-action]", timeout=30_000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"), help="where the pictures go")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("Chromium is not installed (apt-get install -y chromium)")
        return 1
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as where:
        target = str(Path(where) / "table.ledger")
        _campaign, gm_secret, players = table(target)
        first = sorted(players)[0]
        with serving(target, 1) as procs, sync_playwright() as pw:
            base = f"http://127.0.0.1:{procs[0].port}"  # type: ignore[attr-defined]
            browser = pw.chromium.launch(executable_path=chromium, args=FLAGS)
            phone = seat(browser, base, players[first], PHONE)
            gm = seat(browser, base, gm_secret, LAPTOP)
            # the player's phone: the sheet, a skill tapped, its result where it was tapped
            shoot(phone, out, "phone-sheet")
            phone.locator("#me button.control").filter(has=phone.locator(".label", has_text="Strength")).tap()
            phone.wait_for_selector("#options:not([hidden])")
            shoot(phone, out, "phone-options")
            phone.locator("#options-go").tap()
            phone.wait_for_selector("[data-slot='headline'] > .result[data-action]", timeout=30_000)
            phone.evaluate("() => window.scrollTo(0, 0)")
            shoot(phone, out, "phone-result")
            # the GM's laptop: the whole table, the invite panel with a seat's QR code
            gm.locator("#invite-box > summary").click()
            gm.select_option("#invite-role", "watcher")
            gm.fill("#invite-label", "the big screen")
            gm.check("#invite-reusable")
            gm.locator("#invite-go").click()
            gm.wait_for_selector("#invited:not([hidden])")
            gm.wait_for_function("() => document.getElementById('invite-qr').naturalWidth > 0")
            shoot(gm, out, "gm-laptop")
            # the GM steps back in time
            gm.locator("#prev-day").click()
            gm.wait_for_function("() => document.body.dataset.at !== ''")
            gm.wait_for_function("() => +document.body.dataset.sheetHead >= 0")
            shoot(gm, out, "gm-time-travel")
            gm.locator("#now").click()
            # a fork at the table: the GM goes there, the phone is offered a seat
            gm.fill("#fork-name", "what if")
            gm.locator("#fork-form button[type=submit]").click()
            phone.wait_for_selector("#offers .offer", timeout=30_000)
            phone.evaluate("() => window.scrollTo(0, 0)")
            shoot(phone, out, "phone-fork-offer")
            gm.wait_for_selector("body[data-ready='1']", timeout=30_000)
            # the GM on a phone: the same page, the GM's bar above the sheet
            shoot(seat(browser, base, gm_secret, PHONE), out, "phone-gm")
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
