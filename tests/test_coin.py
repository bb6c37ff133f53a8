"""The sample plugin ``campaign-ledger-coin``, installed beside the ledger: the coin system
through the command line and the library, using nothing of the ledger but its contract."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from ledger import Ledger
from ledger.errors import RuleError
from ledger.systems import get_system, system_names
from tests.conftest import Session

if "coin" not in system_names():
    WHY = "the coin plugin is not installed (pip install -e samples/plugin-coin)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {WHY}", pytrace=False)
    pytest.skip(WHY, allow_module_level=True)

from campaign_ledger_coin.commands import Flip  # once the plugin is known to be installed
from campaign_ledger_coin.events import Flipped
from campaign_ledger_coin.state import facts

HEADS, TAILS = [1], [2]


@pytest.fixture
def coin(db: str) -> Session:
    session = Session(db)
    session("new", "coin", "Toss")
    return session


def flip(session: Session, call: str, face: str | None = None, *more: str) -> dict[str, object]:
    args = ["coin", "flip", "--call", call, *(["--faces", face] if face else []), *more, "--json"]
    found: dict[str, object] = json.loads(session(*args).output)
    return found


def sheet(session: Session, *more: str) -> dict[str, object]:
    found: dict[str, object] = json.loads(session("sheet", "--json", *more).output)
    return found


def test_a_new_coin_campaign_says_what_to_do_first(db: str) -> None:
    out = Session(db)("new", "coin", "Toss").output
    assert out == "campaign 'Toss' started (coin)\nnext: coin flip --call heads|tails\n"
    assert sheet(Session(db))["flips"] == 0


def test_a_physical_flip_wins_when_the_call_names_the_face(coin: Session) -> None:
    won = coin("coin", "flip", "--call", "heads", "--faces", "heads").output
    assert won == "flip: called heads, heads: won (physical coin)\nstreak: 1 heads in a row\n"
    lost = flip(coin, "heads", "tails")
    assert lost["events"] == [{"kind": "coin.flipped", "call": "heads", "face": "tails", "manual": True}]
    assert (lost["streak"], lost["streak_face"]) == (1, "tails")
    assert "v3     flip: called heads, tails: lost (physical coin)" in coin("log").output


def test_a_virtual_flip_is_a_d2_of_the_campaigns_dice_commitment(coin: Session, db: str) -> None:
    recorded = flip(coin, "tails")
    (event,) = recorded["events"]  # type: ignore[misc]
    assert event["manual"] is False and event["face"] in ("heads", "tails")
    with Ledger(db) as book:
        how = book.envelope(book.campaign("Toss"), 2).decision
    assert how is not None and how.command == "coin.Flip" and how.sides == (2,)
    assert how.commitment is not None and not how.manual
    assert how.faces == ((1,) if event["face"] == "heads" else (2,))
    coin("dice", "reveal")
    assert "dice  Toss: 1 die proven" in coin("verify", "--dice").output


def test_a_seeded_campaign_flips_the_same_coins(tmp_path: Path) -> None:
    faces = []
    for n in range(2):
        session = Session(str(tmp_path / f"seeded{n}.ledger"))
        session("new", "coin", "Toss", "--seed", "11")
        faces.append([flip(session, "heads")["events"][0]["face"] for _ in range(8)])  # type: ignore[index]
    assert faces[0] == faces[1] and set(faces[0]) == {"heads", "tails"}


def test_the_sheet_counts_effective_flips_and_the_current_streak(coin: Session) -> None:
    for call, face in (("heads", "heads"), ("heads", "tails"), ("tails", "tails"), ("heads", "tails")):
        flip(coin, call, face)
    now = sheet(coin)
    assert {k: now[k] for k in ("flips", "streak", "streak_face", "heads", "tails", "won")} == {
        "flips": 4,
        "streak": 3,
        "streak_face": "tails",
        "heads": 1,
        "tails": 3,
        "won": 2,
    }
    assert now["luck_index"] == {"judged": 4, "successes": 2, "expected": 2.0, "luck": 0.0}
    coin("undo")
    after = sheet(coin)
    assert (after["flips"], after["streak"], after["won"]) == (3, 2, 2)
    flip(coin, "heads", "heads")
    assert (sheet(coin)["flips"], sheet(coin)["streak"], sheet(coin)["streak_face"]) == (4, 1, "heads")
    text = coin("sheet").output
    assert text.startswith(
        "Toss (coin): flips 4, calls won 3\nflips 4  calls won 3/4  streak 1 heads in a row\n"
        "Call: heads, tails\nFaces: heads 2   tails 2\n"
    )


def test_time_travel_shows_the_sheet_as_it_was(coin: Session) -> None:
    for face in ("tails", "tails", "heads"):
        flip(coin, "tails", face)
    then = sheet(coin, "--at", "3")
    assert (then["flips"], then["streak"], then["streak_face"]) == (2, 2, "tails")
    replay = json.loads(coin("replay", "--json").output)
    assert replay[-1]["changed"]["streak"] == [2, 1]


def test_a_fork_flips_on_without_touching_its_parent(coin: Session) -> None:
    flip(coin, "heads", "heads")
    flip(coin, "heads", "heads")
    coin("fork", "Toss-what-if", "--at", "2")
    flip(coin, "tails", "tails")
    fork = sheet(coin)
    assert (fork["campaign"], fork["flips"], fork["streak_face"], fork["won"]) == (
        "Toss-what-if",
        2,
        "tails",
        2,
    )
    parent = sheet(coin, "-c", "Toss")
    assert (parent["flips"], parent["streak"], parent["streak_face"]) == (2, 2, "heads")


def test_export_import_and_verify_in_a_fresh_ledger(coin: Session, tmp_path: Path) -> None:
    for call, face in (("heads", "tails"), ("tails", None), ("heads", "heads")):
        flip(coin, call, face)
    coin("undo")
    out = tmp_path / "toss.jsonl"
    coin("export", "-o", str(out))
    fresh = Session(str(tmp_path / "fresh.ledger"))
    assert "imported 'Toss' (coin, 5 events, chain verified)" in fresh("import", str(out)).output
    # the 5 exported events and the dice commitment the import opened here
    assert "ok  Toss: 6 events" in fresh("verify", "--all").output
    mine, theirs = sheet(coin), sheet(fresh, "-c", "Toss")
    assert mine == theirs and mine["flips"] == 2


def test_an_edited_flip_is_refused_on_import(coin: Session, tmp_path: Path) -> None:
    flip(coin, "heads", "tails")
    out = tmp_path / "toss.jsonl"
    coin("export", "--unsigned", "-o", str(out))
    text = out.read_text()
    assert '"face":"tails"' in text
    forged = tmp_path / "forged.jsonl"
    forged.write_text(text.replace('"face":"tails"', '"face":"heads"'))
    refused = Session(str(tmp_path / "fresh.ledger"))("import", str(forged), ok=False)
    assert refused.exit_code == 4 and "'Toss' fails verification at version 2" in refused.stderr


def test_the_warehouse_has_each_flip_as_a_roll_of_the_coin_system(coin: Session) -> None:
    for call, face in (("heads", "heads"), ("tails", "heads"), ("tails", "tails")):
        flip(coin, call, face)
    flip(coin, "heads")
    coin("undo")
    rows = json.loads(
        coin(
            "query",
            "select purpose, outcome, success, p_success, r.manual, undone, dice_count, size, face "
            "from rolls r join dice d using (roll_id) where system = 'coin' order by version",
            "--json",
        ).output
    )
    assert [(r["outcome"], r["success"], r["face"], r["undone"]) for r in rows] == [
        ("heads", True, 1, False),
        ("heads", False, 1, False),
        ("tails", True, 2, False),
        (rows[3]["outcome"], rows[3]["success"], rows[3]["face"], True),
    ]
    assert {(r["purpose"], r["p_success"], r["dice_count"], r["size"]) for r in rows} == {("flip", 0.5, 1, 2)}
    assert [r["manual"] for r in rows] == [True, True, True, False]
    stats = json.loads(coin("stats", "--json").output)
    (coin_rolls,) = [r for r in stats["rolls"] if r["system"] == "coin"]
    # The undone flip's coin was tossed all the same: its rate and luck count every coin thrown.
    assert (coin_rolls["rolls"], coin_rolls["undone"]) == (3, 1)
    thrown = (coin_rolls["judged"], coin_rolls["successes"], coin_rolls["expected"])
    assert thrown == (4, 2 + int(rows[3]["success"]), 2.0)


def test_the_report_draws_every_step_and_every_call(coin: Session, tmp_path: Path) -> None:
    from ledger.projections.report import build, sheet_at

    for call, face in (("heads", "heads"), ("heads", "heads"), ("tails", "heads")):
        flip(coin, call, face)
    out = tmp_path / "toss.html"
    assert "wrote" in coin("report", "-o", str(out)).output and out.stat().st_size > 1000
    with Ledger(coin.db) as book:
        data = build(book, "Toss")
    streaks = [sheet_at(data, step, "")["streak"] for step in data["steps"]]
    assert streaks == [0, 1, 2, 3]
    assert [(p["p"], p["ok"]) for p in data["rolls"]["points"]] == [(0.5, True), (0.5, True), (0.5, False)]


def test_simulate_plays_coin_campaigns(db: str) -> None:
    session = Session(db)
    assert (
        "simulated 2 coin campaigns" in session("simulate", "coin", "--campaigns", "2", "--seed", "3").output
    )
    rows = json.loads(
        session("query", "select count(*) as n from rolls where system = 'coin'", "--json").output
    )
    assert rows[0]["n"] > 0


def test_a_bad_call_is_refused_and_records_nothing(coin: Session, db: str) -> None:
    refused = coin("coin", "flip", "--call", "edge", ok=False)
    assert refused.exit_code == 2 and "'edge' is not one of 'heads', 'tails'" in refused.output
    refused = coin("coin", "flip", "--call", "heads", "--faces", "1", ok=False)
    assert refused.exit_code == 2
    with Ledger(db) as book:
        with pytest.raises(RuleError) as error:
            book.execute(Flip(call="Heads"), "Toss")
        assert error.value.message == "a call is heads or tails, not 'Heads'"
        assert error.value.fix is not None and error.value.fix.action == "option"
        assert book.head(book.campaign("Toss")) == 1


def test_the_library_decides_a_flip_and_its_fact(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "lib.ledger")) as book:
        book.new_campaign("coin", "Toss")
        won = book.execute(Flip(call="tails"), "Toss", faces=TAILS)
        lost = book.execute(Flip(call="tails"), "Toss", faces=HEADS)
        assert [e.event for e in won.envelopes] == [Flipped(call="tails", face="tails", manual=True)]
        (fact,) = facts(lost.envelopes[0])
        assert (fact.table, fact.purpose, fact.outcome, fact.success, fact.p_success) == (
            "rolls",
            "flip",
            "heads",
            False,
            0.5,
        )
        assert (lost.state.game.flips, lost.state.game.streak, lost.state.game.won) == (2, 1, 1)
        system = get_system("coin")
        assert system.read.sheet(lost.state, None)["streak_face"] == "heads"
        export = io.BytesIO()
        book.export(export, "Toss", sign=False)
    with Ledger(str(tmp_path / "other.ledger")) as other:
        export.seek(0)
        other.import_(export)
        assert other.state("Toss").game == lost.state.game
