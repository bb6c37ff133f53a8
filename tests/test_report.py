"""The campaign report's data (a projection folded once from the log) and its page."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.fixes import command_line
from ledger.cli.main import cli
from ledger.facts import RollFact
from ledger.projections import report

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
EXTERNAL = re.compile(
    r"https?:|//|@import|\bsrc\s*=|url\(\s*['\"]?\s*(?!#)[a-z]+:|<link\b|<iframe\b",
    re.IGNORECASE,
)


def imported(tmp_path: Path, system: str) -> tuple[Ledger, str]:
    book = Ledger(str(tmp_path / "r.ledger"))
    with (SAMPLES / system / "campaign.jsonl").open("rb") as f:
        c = book.import_(f)
    return book, c.name


def canon(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)


@pytest.mark.parametrize("system", ["crawl", "yearzero", "dicepool", "d100", "d20", "freeform"])
def test_every_step_shows_the_library_state_at_that_version(tmp_path: Path, system: str) -> None:
    book, name = imported(tmp_path, system)
    data = report.build(book, name)
    sysdef = book.system(book.campaign(name))
    assert data["steps"], "a sample campaign has steps"
    for step in data["steps"][:: max(1, len(data["steps"]) // 25)] + data["steps"][-1:]:
        state = book.state(name, at=step["v"])
        for who in step["sheets"]:
            shown = report.sheet_at(data, step, who)
            assert canon(shown) == canon(sysdef.read.sheet(state, who or None)), (system, step["v"], who)
            assert list(shown) == list(sysdef.read.sheet(state, who or None)), "the fields keep their order"


def test_each_day_is_the_version_time_travel_gives(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "crawl")
    data = report.build(book, name)
    c = book.campaign(name)
    assert len(data["days"]) > 60
    for day, version in data["days"].items():
        assert version == book.version_at_day(c, int(day))


def test_crawl_map_of_a_day_is_the_map_projection_of_that_day(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "crawl")
    data = report.build(book, name)
    steps = {s["v"]: s for s in data["steps"]}
    hooks = book.system(book.campaign(name)).read.report
    for day in (5, 20, 40):
        step = steps[data["days"][str(day)]]
        hexes = report.map_at(data, step)
        assert hexes == hooks.map(book.state(name, day=day))
        here = [h for h in hexes if h["here"]]
        assert len(here) == 1
    assert data["map_kind"] == "hex"
    assert data["legend"]["terrains"] == list(book.state(name).core.tables["terrain"].values())
    assert "prairie" in data["legend"]["terrains"]


def test_zone_sectors_follow_the_party(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "yearzero")
    data = report.build(book, name)
    first, last = report.map_at(data, data["steps"][1]), report.map_at(data, data["steps"][-1])
    head = book.state(name).game
    assert last["position"] == head.position and last["path"] == list(head.path)
    assert set(last["sectors"]) == set(head.sectors)
    assert len(first["sectors"]) < len(last["sectors"])
    assert all(len(cell) == 2 for cell in last["cells"].values())


def test_luck_index_is_successes_minus_expected_over_the_deviation(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "crawl")
    facts = book.system(book.campaign(name)).read.facts
    rolls = [
        f
        for env in book.effective(book.campaign(name))
        for f in facts(env)
        if isinstance(f, RollFact) and f.p_success is not None and f.success is not None and not f.opponent
    ]
    expected = sum(f.p_success for f in rolls)
    deviation = math.sqrt(sum(f.p_success * (1 - f.p_success) for f in rolls))
    luck = (sum(f.success for f in rolls) - expected) / deviation
    data = report.build(book, name)["rolls"]
    assert len(data["points"]) == len(rolls) > 5
    assert data["luck"] == round(luck, 2)
    assert data["points"][-1]["luck"] == round(luck, 3)
    assert data["successes"] == sum(f.success for f in rolls)


def test_no_roll_with_a_probability_gives_no_luck_index(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "freeform")
    rolls = report.build(book, name)["rolls"]
    assert rolls["points"] == [] and rolls["luck"] is None


def test_undone_actions_resets_and_forks_are_in_the_log(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "crawl")
    book.note("a note that will be taken back", name)
    book.undo(name)
    book.fork(name, "what-if", at=100)
    data = report.build(book, name)
    undone = [r for r in data["log"] if r["status"] == "undone"]
    assert [r["text"] for r in undone] == ["note: a note that will be taken back"]
    assert [r["kind"] for r in data["log"] if r["status"] == "reset"] == ["action.undone"]
    assert [r["forks"] for r in data["log"] if r["forks"]] == [["what-if"]]
    assert any(r["status"] == "fork" for r in data["log"]), "the sample itself is a fork of a first try"
    assert data["steps"][-1]["v"] < data["chain"]["head"], "the undone note is not a step"
    child = report.build(book, "what-if")
    assert child["parent"] == {"name": name, "at": 100}


def test_a_step_before_an_undo_still_shows_the_undone_action(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "u.ledger"))
    book.new_campaign("freeform", "oneshot", seed=3)
    book.add_character("Ines", "oneshot")
    book.note("the door creaks", "oneshot")
    book.undo("oneshot")
    book.note("the door holds", "oneshot")
    data = report.build(book, "oneshot")
    texts = [r["text"] for r in data["log"]]
    assert "note: the door creaks" in texts and "note: the door holds" in texts
    assert [s["v"] for s in data["steps"]] == [1, 2, 5]
    assert data["steps"][-1]["segments"] == [(0, 2), (4, 5)]


def test_chain_footer_names_the_head_hash(tmp_path: Path) -> None:
    book, name = imported(tmp_path, "crawl")
    c = book.campaign(name)
    head = book.head(c)
    chain = report.build(book, name, word=command_line)["chain"]
    assert chain["head"] == head
    assert chain["hash"] == book.envelope(c, head).hash == book.verify(name).heads[name]
    assert chain["verify"] == f"ledger verify -c {name}"


@pytest.mark.parametrize("system", ["crawl", "yearzero", "d20"])
def test_the_page_has_no_external_reference(tmp_path: Path, system: str) -> None:
    book, name = imported(tmp_path, system)
    page = report.render(report.build(book, name))
    found = EXTERNAL.findall(page)
    assert found == [], f"external references in the {system} report: {found[:5]}"
    assert page.count("<script") == 4 and "<script src" not in page  # errors, data, drawing, report


def test_a_hostile_note_cannot_break_out_of_the_embedded_data(tmp_path: Path) -> None:
    book = Ledger(str(tmp_path / "h.ledger"))
    book.new_campaign("freeform", "hostile")
    book.note("</script><script>alert(1)</script> see https://example.org <!--", "hostile")
    page = report.render(report.build(book, "hostile"))
    data = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    assert "</script>" not in data and "<!--" not in data and "//" not in data
    assert "alert(1)" in json.loads(data)["log"][-1]["text"]


def test_cli_writes_the_report(tmp_path: Path) -> None:
    db, out = str(tmp_path / "c.ledger"), tmp_path / "crawl.html"
    runner = CliRunner()
    assert (
        runner.invoke(cli, ["--db", db, "import", str(SAMPLES / "crawl" / "campaign.jsonl")]).exit_code == 0
    )
    result = runner.invoke(cli, ["--db", db, "report", "-c", "crawl-sample", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {out}")
    with Ledger(db) as book:
        last_day = book.state("crawl-sample").game.day
    assert re.search(rf"days 0-{last_day}, \d+ actions, head v\d+ [0-9a-f]{{16}}$", result.output.strip())
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "crawl-sample" in page
    result = runner.invoke(cli, ["--db", db, "report", "-o", str(out), "--json"])
    assert json.loads(result.output)["campaign"] == "crawl-sample"


def test_cli_refuses_a_file_that_is_not_html(tmp_path: Path) -> None:
    db = str(tmp_path / "c.ledger")
    runner = CliRunner()
    runner.invoke(cli, ["--db", db, "new", "freeform", "x"])
    result = runner.invoke(cli, ["--db", db, "report", "-o", str(tmp_path / "x.txt")])
    assert result.exit_code != 0
    assert "ending in .html" in result.output
    assert not (tmp_path / "x.txt").exists()


def test_cli_names_an_unknown_campaign(tmp_path: Path) -> None:
    db = str(tmp_path / "c.ledger")
    runner = CliRunner()
    runner.invoke(cli, ["--db", db, "new", "freeform", "x"])
    result = runner.invoke(cli, ["--db", db, "report", "-c", "nope", "-o", str(tmp_path / "x.html")])
    assert result.exit_code != 0 and "nope" in result.output
    assert not (tmp_path / "x.html").exists()


def test_a_systems_report_hooks_add_tracks_charts_meters_and_a_legend(tmp_path: Path) -> None:
    """What a system draws beyond the sheets comes from its ReportHooks alone: its tracks
    after the sheet's meters, its charts first, its meters and its legend as given."""

    from ledger.systems import ReportHooks, get_system

    hooks = ReportHooks(
        tracks=lambda sheet: {"rolls made": (sheet.get("rolls"), None)},
        charts=lambda tracks: [
            {"title": "Rolls", "series": [i for i, t in enumerate(tracks) if t["name"] == "rolls made"]}
        ],
        meters={"luck": 3},
        legend=lambda tables: {"terrains": ["sea"]},
    )
    freeform = get_system("freeform")
    system = msgspec.structs.replace(freeform, read=msgspec.structs.replace(freeform.read, report=hooks))
    sheet = {"hp": {"current": 4, "max": 9}, "rolls": 2}
    assert report.tracks_of(system, sheet) == {"hp": (4, 9), "rolls made": (2, None)}
    tracks = [
        {"character": "Ana", "name": "hp", "max": 9, "values": [4]},
        {"character": "Ana", "name": "rolls made", "max": None, "values": [2]},
    ]
    assert report.charts(system, tracks) == [
        {"title": "Rolls", "series": [1]},
        {"title": "Ana: hp", "series": [0]},
    ]
    with Ledger(str(tmp_path / "h.ledger")) as book:
        book.new_campaign("freeform", "c")
        book.add_character("Ana", "c")
        book.roll("1d6", "c", faces=[4])
        real = book.system

        def hooked(camp: object) -> object:
            return system if real(camp).name == "freeform" else real(camp)

        book.system = hooked  # type: ignore[method-assign]
        data = report.build(book, "c")
    assert data["meters"] == {"luck": 3} and data["legend"] == {"terrains": ["sea"]}
    assert data["map_kind"] is None and all(step["map"] is None for step in data["steps"])
    assert [c["title"] for c in data["charts"]] == ["Rolls"]
