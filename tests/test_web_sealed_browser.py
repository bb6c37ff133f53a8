"""Sealed rolls on the live table's page, in Debian's Chromium (tests/helpers_browser.py),
against a real ``ledger serve``: a player rolls private from the roll-mode choice, the
other player's page holds nothing of its result (its whole DOM), the roller and the GM see
it, the GM's Reveal button shows it to everyone; a whisper is on its recipient's page
and nowhere else."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ledger import Ledger
from ledger.trust.seats import seats_of
from tests.helpers_browser import LIVE, Seat, browser, shots
from tests.helpers_web import serving

__all__ = ["browser"]

TOTAL = "900777"
WHISPER = "the vault code is 4417"


def table(tmp_path: Path) -> tuple[str, dict[str, str]]:
    db = str(tmp_path / "table.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Friday")
        for name in ("Ana", "Bob"):
            book.add_character(name, "Friday")
        friday = book.campaign("Friday")
        seats = seats_of(book)
        secrets = {
            "gm": seats.invite(friday.id, "gm", label="gm-laptop")[1],
            "ana": seats.invite(friday.id, "player", "Ana", label="ana-phone")[1],
            "bob": seats.invite(friday.id, "player", "Bob", label="bob-phone")[1],
            "watch": seats.invite(friday.id, "watch", label="wall")[1],
        }
    return db, secrets


def dom(seat: Seat) -> str:
    return str(seat.page.evaluate("() => document.documentElement.outerHTML"))


def test_a_private_roll_and_a_whisper_show_only_on_the_pages_allowed(browser: Any, tmp_path: Path) -> None:
    db, secrets = table(tmp_path)
    with serving(db) as base:
        gm = Seat(browser, base, secrets["gm"], phone=False, shots=shots(tmp_path))
        ana = Seat(browser, base, secrets["ana"])
        bob = Seat(browser, base, secrets["bob"])
        wall = Seat(browser, base, secrets["watch"], phone=False)
        ana.tab("Sheet")
        ana.page.select_option("#roll-mode", "private")
        ana.real_dice([777])
        ana.roll("1d1000+900000", "stealth")
        for seat in (ana, bob, gm):
            seat.tab("Log")
            seat.seen("sealed (private)")
        for seat in (ana, gm):
            seat.page.locator("#log .sealed-result", has_text=TOTAL).first.wait_for(timeout=LIVE)
        bob.page.wait_for_timeout(500)
        assert TOTAL not in dom(bob)
        assert bob.page.locator("#log button.reveal").count() == 0
        with Ledger(db) as book:
            book.note(WHISPER, "Friday", actor="Bob", to=("Ana",))
        ana.seen("whispered to Ana")
        ana.page.locator("#log .sealed-result", has_text=WHISPER).first.wait_for(timeout=LIVE)
        gm.seen("whispered to Ana")
        bob.seen("whispered to Ana")  # the sender reads their own whisper
        wall.seen("sealed (private)")
        wall.page.wait_for_timeout(500)
        assert WHISPER not in dom(wall) and "whispered to" not in dom(wall) and TOTAL not in dom(wall)
        assert gm.page.locator("#reveal-all").is_visible()
        assert ana.page.locator("#reveal-all").is_hidden()
        gm.press(gm.page.locator("#log button.reveal[data-reveal='4']"))
        for seat in (bob, wall):
            seat.seen(f"revealed v4: rolled stealth: 1d1000+900000 = {TOTAL}")
        gm.page.locator("#reveal-all").wait_for(
            state="hidden", timeout=LIVE
        )  # a whisper is revealed by its version
        assert WHISPER not in dom(wall)
        for seat in (gm, ana, bob, wall):
            seat.clean()


def test_a_tap_on_the_sheet_rolls_blind_from_its_options_and_a_rest_stays_public(
    browser: Any, tmp_path: Path
) -> None:
    """The roll mode is offered where a phone rolls (the sheet of options of a tapped
    check), the header says while it is not public, and it seals only what rolls: a
    command that rolls nothing, sent in that mode, is recorded in public, not refused."""
    from click.testing import CliRunner

    from ledger.cli.main import cli

    db = str(tmp_path / "table.ledger")
    run = CliRunner().invoke
    for args in (
        ["new", "d20", "Mesa"],
        ["character", "create", "Ana"],
        ["d20", "check", "FUE", "--dc", "12"],
    ):
        assert run(cli, ["--db", db, *args]).exit_code == 0
    with Ledger(db) as book:
        mesa = book.campaign("Mesa")
        seats = seats_of(book)
        gm_secret = seats.invite(mesa.id, "gm", label="gm-laptop")[1]
        ana_secret = seats.invite(mesa.id, "player", "Ana", label="ana-phone")[1]
    with serving(db) as base:
        ana = Seat(browser, base, ana_secret)
        gm = Seat(browser, base, gm_secret, phone=False)
        ana.tab("Sheet")
        page = ana.page
        button = page.locator("#me button.control").filter(
            has=page.locator(".label", has_text=re.compile(r"^WIS "))
        )
        slot, before = button.first.get_attribute("data-answer"), None
        ana.press(button.first)
        page.locator("#options").wait_for(state="visible")
        page.locator("#options [name='roll_mode']").select_option("blind")
        assert ana.page.locator("#roll-mode").input_value() == "blind"
        ana.press(ana.page.locator("#options-go"))
        ana.answered(slot, before)
        assert ana.page.locator("#roll-mode-mark").is_visible()
        for seat in (ana, gm):
            seat.tab("Log")
            seat.seen("rolled check SAB, sealed (blind)")
        result = gm.page.locator("#log .sealed-result", has_text="Ana check WIS").first
        result.wait_for(timeout=LIVE)
        told = result.inner_text()
        ana.page.wait_for_timeout(500)
        assert told and told not in dom(ana)
        ana.form("Notes", "Note", text="we hear something behind the door")
        ana.tab("Log")
        ana.seen("we hear something behind the door")
        for seat in (ana, gm):
            seat.clean()
