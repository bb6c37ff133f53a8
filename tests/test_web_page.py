"""What the table's page reads beyond the log, and the page's own files, in process: the
map (``GET .../map``) is the report's, the sheet's ``hints`` are the command line's
``next:``, the page is served at ``/t/<campaign>`` and its files run no inline script and
never insert text as HTML."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from ledger import Ledger
from ledger.cli.main import cli
from ledger.trust.seats import seats_of
from ledger.web.app import create_app
from tests.helpers_web import bearer, join

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "web" / "static"


def seated(db: str, system: str, name: str, character: str) -> tuple[str, str]:
    """A campaign ``name`` of ``system`` with ``character``: the GM's secret and theirs."""
    with Ledger(db) as book:
        book.new_campaign(system, name)
        book.add_character(character, name)
        c = book.campaign(name)
        seats = seats_of(book)
        return seats.invite(c.id, "gm", label="gm")[1], seats.invite(c.id, "player", character, label="p")[1]


@pytest.fixture
def crawl(tmp_path: Path) -> Iterator[tuple[TestClient, str, str, str]]:
    db = str(tmp_path / "page.ledger")
    gm, ada = seated(db, "crawl", "Mine", "Ada")
    with TestClient(create_app(db)) as client:
        yield client, db, gm, ada


def test_the_map_is_the_reports_hexes_now_and_on_a_day(crawl: tuple[TestClient, str, str, str]) -> None:
    client, _db, gm, ada = crawl
    table = client.get("/api/c/Mine", headers=bearer(ada)).json()
    assert table["map_kind"] == "hex"

    def here(answer: dict[str, object]) -> list[tuple[int, int]]:
        return [(h["q"], h["r"]) for h in answer["map"] if h["here"]]  # type: ignore[attr-defined, index]

    before = client.get("/api/c/Mine/map", headers=bearer(ada))
    assert before.status_code == 200 and here(before.json()) == [(0, 0)]  # the start, no day yet
    move = {"command": "crawl.Move", "args": {"direction": "n"}}
    assert client.post("/api/c/Mine/actions", json=move, headers=bearer(ada)).status_code == 200
    drawn = client.get("/api/c/Mine/map", headers=bearer(ada)).json()
    assert drawn["kind"] == "hex"
    assert here(drawn) == [(0, -1)]
    assert drawn["legend"]["terrains"]
    assert here(client.get("/api/c/Mine/map?day=0", headers=bearer(gm)).json()) == [(0, 0)]
    travel = client.get("/api/c/Mine/map?day=0", headers=bearer(ada))
    assert travel.status_code == 403 and "travel in time" in travel.json()["error"]["message"]
    bad = client.get("/api/c/Mine/map?day=x", headers=bearer(gm))
    assert bad.status_code == 400 and "day is a version" in bad.json()["error"]["message"]


def test_the_sheets_hints_are_the_command_lines_next_steps(crawl: tuple[TestClient, str, str, str]) -> None:
    client, db, _gm, ada = crawl
    move = {"command": "crawl.Move", "args": {"direction": "n"}}
    client.post("/api/c/Mine/actions", json=move, headers=bearer(ada))
    sheet = client.get("/api/c/Mine/sheet", headers=bearer(ada)).json()
    status = CliRunner().invoke(cli, ["--db", db, "-c", "Mine", "--json", "status"])
    assert status.exit_code == 0, status.output
    assert sheet["hints"] == json.loads(status.output)["next"] == ["crawl terrain"]


def test_a_system_without_a_map_says_so(tmp_path: Path) -> None:
    db = str(tmp_path / "page.ledger")
    gm, _ = seated(db, "freeform", "Friday", "Ana")
    with TestClient(create_app(db)) as client:
        assert client.get("/api/c/Friday", headers=bearer(gm)).json()["map_kind"] is None
        answer = client.get("/api/c/Friday/map", headers=bearer(gm))
        assert answer.status_code == 404
        assert answer.json()["error"]["message"] == "the freeform system draws no map"
        hints = client.get("/api/c/Friday/sheet", headers=bearer(gm)).json()["hints"]
    status = CliRunner().invoke(cli, ["--db", db, "-c", "Friday", "--json", "status"])
    assert hints == json.loads(status.output)["next"] == ["roll NOTATION", "note TEXT"]


def test_a_zone_is_drawn_from_its_sectors(tmp_path: Path) -> None:
    db = str(tmp_path / "page.ledger")
    with Ledger(db) as book:
        with (ROOT / "samples" / "yearzero" / "campaign.jsonl").open("rb") as f:
            c = book.import_(f)
        gm = seats_of(book).invite(c.id, "gm", label="gm")[1]
    with TestClient(create_app(db)) as client:
        zone = client.get(f"/api/c/{c.name}/map", headers=bearer(gm)).json()
    assert zone["kind"] == "zone"
    assert set(zone["map"]["cells"]) == set(zone["map"]["sectors"])
    assert zone["map"]["position"] in zone["map"]["cells"]


def test_the_page_is_served_with_its_files_and_no_inline_script(
    crawl: tuple[TestClient, str, str, str],
) -> None:
    client, _db, _gm, ada = crawl
    joined = join(client, ada)
    assert joined.status_code == 303 and joined.headers["location"] == "/t/Mine"
    page = client.get("/t/Mine")
    assert page.status_code == 200
    assert "script-src 'self'" in page.headers["content-security-policy"]
    html = page.text
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all('src="/static/' in attrs and not body.strip() for attrs, body in scripts)
    assert not re.search(r"\son\w+\s*=", html), "an inline event handler"
    assert not re.search(r"\sstyle\s*=", html) and "<style" not in html
    for name in re.findall(r'(?:src|href)="/static/([^"]+)"', html):
        assert client.get(f"/static/{name}").status_code == 200, name


@pytest.mark.parametrize("name", ["table.js", "draw.js"])
def test_the_pages_scripts_build_text_never_html(name: str) -> None:
    code = (STATIC / name).read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in code, f"{name} uses {sink}"
    assert "http://" not in code.replace("http://www.w3.org/2000/svg", "") and "https://" not in code


def test_a_player_gives_the_players_seed_before_the_first_die(
    crawl: tuple[TestClient, str, str, str],
) -> None:
    client, db, _gm, ada = crawl
    with Ledger(db) as book:
        watch = seats_of(book).invite(book.campaign("Mine").id, "watch", label="w")[1]
    refused = client.post("/api/c/Mine/dice/seed", json={"client_seed": "ours"}, headers=bearer(watch))
    assert refused.status_code == 403
    seeded = client.post("/api/c/Mine/dice/seed", json={"client_seed": "ours"}, headers=bearer(ada))
    assert seeded.status_code == 200, seeded.text
    assert [e["kind"] for e in seeded.json()["events"]] == ["dice.seeded"]
    with Ledger(db) as book:
        assert book.dice_status("Mine")["client_seed"] == "ours"
    roll = {"command": "core.Roll", "args": {"notation": "1d6"}}
    assert client.post("/api/c/Mine/actions", json=roll, headers=bearer(ada)).status_code == 200
    late = client.post("/api/c/Mine/dice/seed", json={"client_seed": "later"}, headers=bearer(ada))
    assert late.status_code == 422, late.text
