"""The crawl report shows the divine chapters' icons: the map of a day carries the
sign of that day's chapter, and the legend names each chapter by its number."""

from __future__ import annotations

import html
import re
from pathlib import Path

from ledger import Ledger
from ledger.projections import report
from tests.test_report_browser import browse, errors, hexes

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "crawl" / "campaign.jsonl"


def sample(tmp_path: Path) -> tuple[Ledger, str]:
    book = Ledger(str(tmp_path / "r.ledger"))
    with SAMPLE.open("rb") as f:
        return book, book.import_(f).name


def chapter_hexes(book: Ledger, name: str, day: int) -> list[dict[str, object]]:
    entries = book.system(book.campaign(name)).read.report.map(book.state(name, day=day))
    return [e for e in entries if e["icon"] in ("divine", "god")]


def test_the_sample_keeps_a_sign_on_the_hex_of_each_chapters_day(tmp_path: Path) -> None:
    book, name = sample(tmp_path)
    for day, icon, number in ((3, "divine", 1), (15, "divine", 2), (25, "god", None), (40, "divine", 4)):
        state = book.state(name, day=day)
        here = [e for e in chapter_hexes(book, name, day) if (e["q"], e["r"]) == (state.game.q, state.game.r)]
        assert [(e["icon"], e["number"]) for e in here] == [(icon, number)], day
    data = report.build(book, name)
    assert data["legend"]["divine_signs"] == {
        "1": "the Sleepers",
        "2": "the Warehouse",
        "4": "the Radio Tower",
        "5": "the Power Supply",
    }


def test_the_page_draws_the_signs_and_names_their_chapters_in_the_legend(tmp_path: Path) -> None:
    book, name = sample(tmp_path)
    page = tmp_path / "crawl.html"
    report.write(book, name, page)
    dom = browse(page, "day=3")
    assert errors(dom) == ""
    state = book.state(name, day=3)
    drawn = {(int(h["q"]), int(h["r"])): h.get("icon", "") for h in hexes(dom)}
    assert drawn[(state.game.q, state.game.r)] == "divine"
    assert dom.count('href="#icon-divine"') == len(
        [e for e in chapter_hexes(book, name, 3) if e["icon"] == "divine"]
    )
    legend = re.search(r'<div id="legend" class="legend">(.*?)</div>', dom, re.S)
    assert legend is not None
    signs = [
        html.unescape(re.sub(r"<[^>]+>", "", s))
        for s in re.findall(r'<span class="sign">(.*?)</span>', legend.group(1), re.S)
    ]
    assert signs == ["1 the Sleepers", "2 the Warehouse", "4 the Radio Tower", "5 the Power Supply"]
