"""What the table's page reads beyond the log, and the page's own files, in process: the
map (``GET .../map``) is the report's, the sheet's ``hints`` are the command line's
``next:``, the page is served at ``/t/<campaign>`` and its files run no inline script and
never insert text as HTML."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ledger import Ledger
from ledger.projections import report
from ledger.trust.seats import seats_of
from ledger.web import affordances
from ledger.web.app import create_app
from tests.helpers_web import bearer, head, join

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "web" / "static"
DRAW = ROOT / "projections" / "report_assets" / "draw.js"


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


def test_the_sheets_hints_speak_of_the_pages_own_controls(crawl: tuple[TestClient, str, str, str]) -> None:
    client, _db, _gm, ada = crawl
    move = {"command": "crawl.Move", "args": {"direction": "n"}}
    client.post("/api/c/Mine/actions", json=move, headers=bearer(ada))
    sheet = client.get("/api/c/Mine/sheet", headers=bearer(ada)).json()
    assert sheet["hints"][0] == "Terrain: tap it on the sheet."  # the day's order: terrain next
    assert [c["label"] for c in sheet["controls"]] == ["terrain"]
    assert not any("crawl " in h or "--help" in h for h in sheet["hints"])


def test_a_system_without_a_map_says_so(tmp_path: Path) -> None:
    db = str(tmp_path / "page.ledger")
    gm, _ = seated(db, "freeform", "Friday", "Ana")
    with TestClient(create_app(db)) as client:
        assert client.get("/api/c/Friday", headers=bearer(gm)).json()["map_kind"] is None
        answer = client.get("/api/c/Friday/map", headers=bearer(gm))
        assert answer.status_code == 404
        assert answer.json()["error"]["message"] == "the freeform system draws no map"
        hints = client.get("/api/c/Friday/sheet", headers=bearer(gm)).json()["hints"]
    assert hints == [affordances.WORDS["dice"]]  # nothing to tap: the dice box


def test_a_yearzero_sheet_is_its_controls_and_a_tap_rolls_that_skill(tmp_path: Path) -> None:
    """A mutant's sheet offers each attribute and skill as a control; the page sends what a
    plain tap sends (the control's arguments, its options' defaults), and the roll is of
    that skill, with the item chosen in its options when one is."""
    db = str(tmp_path / "page.ledger")
    with Ledger(db) as book:
        book.new_campaign("yearzero", "Zone")
        book.create_character(
            "Mira",
            "Zone",
            {
                "strength": "4",
                "agility": "3",
                "wits": "2",
                "empathy": "4",
                "skill.fight": "2",
                "gear.club": "1",
            },
        )
        c = book.campaign("Zone")
        mira = seats_of(book).invite(c.id, "player", "Mira", label="mira")[1]
    with TestClient(create_app(db)) as client:
        sheet = client.get("/api/c/Zone/sheet", headers=bearer(mira)).json()
        labels = [c["label"] for c in sheet["controls"]]
        assert labels[:4] == ["Strength", "Agility", "Wits", "Empathy"] and "fight" in labels
        fight = next(c for c in sheet["controls"] if c["label"] == "fight")
        assert fight["ready"] and fight["args"] == {"what": "fight"}
        item = next(o for o in fight["options"] if o["field"] == "item")
        assert item["choices"] == ["club"] and item["label"] == "item"
        assert next(o for o in fight["options"] if o["field"] == "modifier")["help"].startswith(
            "Other modifier"
        )
        args = {o["field"]: o["default"] for o in fight["options"] if o["default"] is not None}
        tap = {
            "command": fight["command"],
            "args": {**args, **fight["args"], "item": "club"},
            "faces": [6, 1, 1, 1, 2, 3, 6],
        }
        done = client.post("/api/c/Zone/actions", json=tap, headers=bearer(mira))
        assert done.status_code == 200, done.text
        rolled = done.json()["events"][0]
        assert (rolled["skill"], rolled["item"], rolled["successes"]) == ("fight", "club", 2)
        after = client.get("/api/c/Zone/sheet", headers=bearer(mira)).json()
        assert [c["label"] for c in after["controls"] if c["on"] == ""] == ["push the roll"]
        assert "Push the roll: tap it on the sheet." in after["hints"]


def test_the_forms_are_the_command_lines_commands_in_its_units_and_words(tmp_path: Path) -> None:
    db = str(tmp_path / "page.ledger")
    gm, _ = seated(db, "yearzero", "Zone", "Mira")
    with TestClient(create_app(db)) as client:
        forms = client.get("/api/c/Zone", headers=bearer(gm)).json()["forms"]
    tick = next(f for f in forms if f["command"] == "yearzero.Tick")
    assert tick["name"] == "yz tick" and tick["label"] == "Tick"
    assert tick["help"].startswith("Let HOURS pass")
    (hours,) = tick["asks"]
    assert (hours["field"], hours["label"], hours["scale"]) == ("minutes", "hours", 60)
    armor = next(f for f in forms if f["command"] == "yearzero.Wear")
    assert armor["name"] == "yz armor"
    assert [a["label"] for a in armor["asks"]] == ["item", "off"]
    assert not any(a["field"] == "what" and not a["choices"] for f in forms for a in f["asks"])
    labels = [f["label"].lower() for f in forms]
    assert len(labels) == len(set(labels))
    assert {f["group"] for f in forms} >= {"Travel", "Food, water and rest", "Harm", "Gear"}


def test_every_sheet_at_once_now_and_at_a_version(tmp_path: Path) -> None:
    db = str(tmp_path / "page.ledger")
    with Ledger(db) as book:
        with (ROOT / "samples" / "d20" / "campaign.jsonl").open("rb") as f:
            c = book.import_(f)
        gm = seats_of(book).invite(c.id, "gm", label="gm")[1]
        player = seats_of(book).invite(c.id, "player", "Parker", label="parker")[1]
        then = book.state(c.name, at=10)
    with TestClient(create_app(db)) as client:
        now = client.get(f"/api/c/{c.name}/sheets", headers=bearer(player)).json()
        assert list(now["sheets"]) == ["Ripley", "Parker", "Bishop"]
        assert now["sheets"]["Bishop"]["view"]["title"].startswith("Bishop")
        past = client.get(f"/api/c/{c.name}/sheets?at=10", headers=bearer(gm)).json()
        assert past["version"] == 10
        assert past["sheets"]["Parker"]["hp"] == {
            "current": then.game.heroes["Parker"].hp,
            "max": then.game.heroes["Parker"].hp_max,
        }
        travel = client.get(f"/api/c/{c.name}/sheets?at=10", headers=bearer(player))
        assert travel.status_code == 403


def test_an_undo_names_the_actions_it_takes_back(crawl: tuple[TestClient, str, str, str]) -> None:
    """The GM's undo carries the version the GM saw: an action recorded since is not undone
    unseen (409, nothing recorded); with the head it saw, it undoes."""
    client, db, gm, ada = crawl
    roll = {"command": "core.Roll", "args": {"notation": "1d6"}}
    seen = client.post("/api/c/Mine/actions", json=roll, headers=bearer(ada)).json()["version"]
    client.post("/api/c/Mine/actions", json=roll, headers=bearer(ada))
    stale = client.post("/api/c/Mine/undo", json={"expected_version": seen}, headers=bearer(gm))
    assert stale.status_code == 409 and "someone acted first" in stale.json()["error"]["message"]
    assert head(db, "Mine") == seen + 1
    done = client.post("/api/c/Mine/undo", json={"expected_version": seen + 1}, headers=bearer(gm))
    assert done.status_code == 200 and done.json()["events"][0]["first"] == seen + 1


def test_the_page_and_the_report_draw_with_one_module(crawl: tuple[TestClient, str, str, str]) -> None:
    client, db, _gm, _ada = crawl
    served = client.get("/static/draw.js")
    assert served.status_code == 200 and served.headers["content-type"].startswith("text/javascript")
    with Ledger(db) as book:
        inlined = report.render(report.build(book, "Mine"))
    assert served.text in inlined
    assert "window.LedgerDraw" in served.text


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


def test_the_page_asks_the_browser_for_its_first_reads_with_its_headers(
    crawl: tuple[TestClient, str, str, str],
) -> None:
    """The page's answer names the seat's sheet and the table's description as preloads,
    each in the path the page's script asks for (a campaign's name as encodeURIComponent
    writes it), so the browser reads them while it builds the page."""
    client, _db, _gm, _ada = crawl
    link = client.get("/t/Mine").headers["link"]
    assert link == (
        "</api/c/Mine/sheet>; rel=preload; as=fetch; crossorigin, </api/c/Mine>; rel=preload; as=fetch; crossorigin"
    )
    odd = client.get("/t/La%20Casa%3E%2C%20%3Cx%3E%0D%0AX-Evil%3A%201").headers["link"]
    assert odd.startswith("</api/c/La%20Casa%3E%2C%20%3Cx%3E%0D%0AX-Evil%3A%201/sheet>;")
    assert "\r" not in odd and "\n" not in odd and odd.count("<") == 2


@pytest.mark.parametrize("path", [STATIC / "table.js", DRAW])
def test_the_pages_scripts_build_text_never_html(path: Path) -> None:
    code = path.read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in code, f"{path.name} uses {sink}"
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
