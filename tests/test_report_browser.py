"""The report in headless Chromium: the slider moves the sheet and the map to the
state of the chosen day, the console stays clean, and a screenshot is kept in
``artifacts/``.

Chromium comes from the Debian package (``apt-get install -y chromium``). Without
it these tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.projections import report

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
ARTIFACTS = ROOT / "artifacts"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--proxy-server=127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        why = "Chromium is not installed (apt-get install -y chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {why}")
        pytest.skip(why)
    return found


def browse(page: Path, fragment: str, *, screenshot: Path | None = None) -> str:
    """The DOM after the page's script ran, its scripts left out (or a screenshot)."""
    with tempfile.TemporaryDirectory() as profile:
        what = [f"--screenshot={screenshot}", "--window-size=1400,2300"] if screenshot else ["--dump-dom"]
        done = subprocess.run(
            [
                chromium(),
                *FLAGS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=5000",
                *what,
                f"{page.as_uri()}#{fragment}",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return re.sub(r"<script\b.*?</script>", "", done.stdout, flags=re.S)  # what is drawn, not the code


def body(dom: str) -> dict[str, str]:
    tag = re.search(r"<body([^>]*)>", dom)
    assert tag is not None, dom[:500]
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag.group(1)))


def errors(dom: str) -> str:
    found = re.search(r'<pre id="report-errors"[^>]*>(.*?)</pre>', dom, re.S)
    assert found is not None
    return html.unescape(found.group(1))


def sheet_value(dom: str, key: str) -> str:
    """The text shown for one field of the sheet (``data-key``)."""
    found = re.search(
        rf'data-key="{re.escape(key)}"><span class="k">[^<]*</span><span>(.*?)</span></div>', dom, re.S
    )
    assert found is not None, f"no {key!r} on the sheet"
    val = re.search(r'class="val">([^<]*)<', found.group(1))
    return html.unescape(val.group(1) if val else re.sub(r"<[^>]+>", "", found.group(1)))


def sheet_title(dom: str) -> str:
    found = re.search(r'<div class="sheet-title">([^<]*)</div>', dom)
    assert found is not None, "the sheet has no title"
    return html.unescape(found.group(1))


def hexes(dom: str) -> list[dict[str, str]]:
    return [
        dict(re.findall(r'data-([\w-]+)="([^"]*)"', tag))
        for tag in re.findall(r"<polygon class=\"hex[^>]*>", dom)
    ]


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> tuple[Ledger, str, Path]:
    chromium()
    where = tmp_path_factory.mktemp("crawl")
    book = Ledger(str(where / "r.ledger"))
    with (SAMPLES / "crawl" / "campaign.jsonl").open("rb") as f:
        name = book.import_(f).name
    page = where / "crawl.html"
    report.write(book, name, page)
    return book, name, page


def expect_day(dom: str, book: Ledger, name: str, day: int) -> None:
    state = book.state(name, day=day)
    sheet: dict[str, Any] = book.system(book.campaign(name)).read.sheet(state, None)
    assert body(dom)["data-version"] == str(state.core.version)
    assert f"day {sheet['day']}:" in sheet_title(dom)
    for key in ("health", "energy", "bits", "arrows"):
        assert sheet_value(dom, key) == str(sheet[key]), key
    assert sheet_value(dom, "attack") == f"{sheet['weapon']['attack']} with {sheet['weapon']['name']}"
    pos = sheet["position"]
    assert sheet_value(dom, "position") == f"({pos['q']}, {pos['r']}) {pos['terrain'] or ''}".strip()
    drawn = hexes(dom)
    assert len(drawn) == len(book.system(book.campaign(name)).read.report.map(state))
    here = [h for h in drawn if h.get("here") == "1"]
    assert [(int(h["q"]), int(h["r"])) for h in here] == [(sheet["position"]["q"], sheet["position"]["r"])]


def test_moving_the_slider_shows_that_days_sheet_and_map(crawl: tuple[Ledger, str, Path]) -> None:
    book, name, page = crawl
    dom = browse(page, "day=6&go=31")
    assert errors(dom) == ""
    state = body(dom)
    assert state["data-ready"] == "1"
    assert state["data-moved-from"] != state["data-step"], "the slider moved"
    expect_day(dom, book, name, 31)
    assert "walked" in dom and 'id="here"' in dom


def test_the_first_days_differ_from_the_last(crawl: tuple[Ledger, str, Path]) -> None:
    book, name, page = crawl
    early, late = browse(page, "day=6"), browse(page, "")
    assert errors(early) == "" and errors(late) == ""
    expect_day(early, book, name, 6)
    assert len(hexes(early)) < len(hexes(late))
    assert body(late)["data-version"] == str(book.state(name).core.version)


def test_screenshot_of_the_crawl_report(crawl: tuple[Ledger, str, Path]) -> None:
    _, _, page = crawl
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report-crawl-day31.png"
    shot.unlink(missing_ok=True)
    browse(page, "day=31", screenshot=shot)
    assert shot.stat().st_size > 50_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("system", ["yearzero", "d100", "dicepool"])
def test_other_systems_render_without_errors(tmp_path: Path, system: str) -> None:
    chromium()
    book = Ledger(str(tmp_path / "r.ledger"))
    with (SAMPLES / system / "campaign.jsonl").open("rb") as f:
        name = book.import_(f).name
    page = tmp_path / f"{system}.html"
    focus = book.state(name).core.characters[1]
    data = report.write(book, name, page, focus=focus)
    middle = data["steps"][len(data["steps"]) // 2]
    dom = browse(page, f"v=1&gov={middle['v']}")
    assert errors(dom) == ""
    assert body(dom)["data-version"] == str(middle["v"])
    assert body(dom)["data-who"] == focus, "the page opens on the character asked for"
    sheet = book.system(book.campaign(name)).read.sheet(book.state(name, at=middle["v"]), focus)
    assert sheet_title(dom).startswith(sheet["name"])
    undone = [r["v"] for r in data["log"] if r["status"] == "undone"]
    struck = re.findall(r'<div data-v="(\d+)" class="row undone', dom)
    assert struck == [
        str(v) for v in undone if v in {int(x) for x in re.findall(r'<div data-v="(\d+)"', dom)}
    ]
    if system == "dicepool":
        assert struck, "the sample's undone action is struck through in the log"
    if system == "yearzero":
        zone = book.state(name, at=middle["v"]).game
        rects = [
            dict(re.findall(r'data-([\w-]+)="([^"]*)"', t))
            for t in re.findall(r"<rect class=\"sector[^>]*>", dom)
        ]
        assert {r["sector"] for r in rects} == set(zone.sectors)
        assert [r["sector"] for r in rects if r.get("here") == "1"] == [zone.position]
        assert {r["sector"]: int(r["rot"]) for r in rects} == {
            n: s.rot_level for n, s in zone.sectors.items()
        }
        assert sheet_value(dom, "strength") == str(sheet["strength"]["current"])
    ARTIFACTS.mkdir(exist_ok=True)
    browse(page, f"v={middle['v']}", screenshot=ARTIFACTS / f"report-{system}.png")
