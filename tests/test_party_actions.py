"""A party-wide action is the party's, not a character's: time passing, the party entering a
sector, a day of rest for the whole crew. It is recorded under no character, its decision
says it is the party's (and, at the live table, which seat issued it), and the log, the
journal and the report tell it as the party's. An action recorded before the ledger told
them apart (under whoever was acting) reads the same way and keeps its state."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from ledger.errors import TamperError
from ledger.projections import journal, report
from ledger.systems.yearzero import commands as yz
from tests import helpers_forgery as forgery

MUTANT = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3"}
SAMPLES = Path(__file__).parents[1] / "samples"


def evening(db: str) -> None:
    """Two mutants; 12 hours pass and the party enters G7 from the command line; Lucía
    scouts; 2 more hours pass from the GM's seat at the live table."""
    with Ledger(db) as book:
        book.new_campaign("yearzero", "Zone", seed=3)
        book.add_character("Lucía", "Zone", MUTANT)
        book.add_character("Bo", "Zone", MUTANT)
        book.execute(yz.Tick(minutes=720), "Zone")
        book.execute(yz.Enter(sector="G7", rot_level=1), "Zone", actor="Lucía")
        book.execute(yz.Roll(what="scout"), "Zone", actor="Lucía", faces=[6, 2, 3])
        book.execute(yz.Tick(minutes=120), "Zone", actor="Bo", seat="gm")


def run(db: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", db, "-c", "Zone", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_log_tells_the_partys_actions_as_the_partys(tmp_path: Path) -> None:
    db = str(tmp_path / "z.ledger")
    evening(db)
    lines = run(db, "log").splitlines()[3:]
    assert lines == [
        "v4     d0 the party: 12 hours pass (time passes)",
        "v5     d0 the party: the party enters G7 (Rot level 1)",
        "v6     d0 Lucía: Lucía rolls scout: base [6,2,3] skill [-] gear [-] = 1 success",
        "v7     d0 the party (seat gm): 2 hours pass (time passes)",
    ]
    data = json.loads(run(db, "--json", "log"))[3:]
    assert [(e["actor"], e["who"], e["party"], e["seat"]) for e in data] == [
        (None, "the party", True, None),
        (None, "the party", True, None),
        ("Lucía", "Lucía", False, None),
        (None, "the party", True, "gm"),
    ]


def test_the_journal_and_the_report_tell_them_so_too(tmp_path: Path) -> None:
    db = str(tmp_path / "z.ledger")
    evening(db)
    lines = run(db, "journal").splitlines()
    assert lines[2:] == [
        "          the party: 12 hours pass (time passes); the party enters G7 (Rot level 1)",
        "          Lucía rolls scout: base [6,2,3] skill [-] gear [-] = 1 success",
        "          the party (seat gm): 2 hours pass (time passes)",
    ]
    with Ledger(db) as book:
        text = journal.render(book, "Zone", None)
        data = report.build(book, "Zone")
    assert "- **the party**: 12 hours pass (time passes)" in text
    assert "- **the party (seat gm)**: 2 hours pass (time passes)" in text
    assert "- **Lucía**: Lucía rolls scout" in text
    rows = {row["v"]: row["actor"] for row in data["log"]}
    assert rows[4] == rows[5] == "the party" and rows[6] == "Lucía" and rows[7] == "the party (seat gm)"
    steps = {step["v"]: step["actor"] for step in data["steps"]}
    assert steps[4] == "the party" and steps[7] == "the party (seat gm)" and steps[6] == "Lucía"


def test_a_partys_action_is_recorded_under_no_character_and_says_so(tmp_path: Path) -> None:
    db = str(tmp_path / "z.ledger")
    evening(db)
    with Ledger(db) as book:
        c = book.campaign("Zone")
        tick, roll, gm_tick = book.envelope(c, 4), book.envelope(c, 6), book.envelope(c, 7)
        assert tick.actor is None and tick.decision is not None and tick.decision.party
        assert tick.decision.seat is None  # the command line: the GM's tool, no seat
        assert gm_tick.actor is None and gm_tick.decision is not None and gm_tick.decision.seat == "gm"
        assert roll.actor == "Lucía" and roll.decision is not None and not roll.decision.party
        # The party's action is no character's turn: the acting one stays who acted last.
        assert book.state("Zone").core.last_actor == "Lucía"


def export(db: str, target: Path) -> Path:
    with Ledger(db) as book:
        out = io.BytesIO()
        book.export(out, "Zone")
    target.write_bytes(out.getvalue())
    return target


def test_the_partys_action_needs_no_acting_character(tmp_path: Path) -> None:
    """In an imported campaign of two characters none is acting: a character's deed asks
    who acts, the party's does not."""
    db = str(tmp_path / "z.ledger")
    evening(db)
    path = export(db, tmp_path / "zone.jsonl")
    copy = str(tmp_path / "copy.ledger")
    with Ledger(copy) as book, path.open("rb") as data:
        book.import_(data, "Zone")
    refused = CliRunner().invoke(cli, ["--db", copy, "-c", "Zone", "yz", "roll", "scout"])
    assert refused.exit_code != 0 and "--as" in refused.output
    result = CliRunner().invoke(cli, ["--db", copy, "-c", "Zone", "yz", "tick", "6"])
    assert result.exit_code == 0, result.output
    assert "6 hours pass" in result.output


def test_an_export_with_the_partys_actions_imports_and_decides_each_again(tmp_path: Path) -> None:
    db = str(tmp_path / "z.ledger")
    evening(db)
    path = export(db, tmp_path / "zone.jsonl")
    with Ledger(str(tmp_path / "copy.ledger")) as book, path.open("rb") as data:
        c = book.import_(data, "Copy")
        book.verify(c.name)
        assert [e.party for e in book.log(c.name)][3:] == [True, True, False, True]


def test_an_import_refuses_a_characters_deed_claimed_as_the_partys(tmp_path: Path) -> None:
    db = str(tmp_path / "z.ledger")
    evening(db)
    path = export(db, tmp_path / "zone.jsonl")

    def claim(_head: dict[str, object], events: list[dict[str, object]]) -> list[dict[str, object]]:
        roll = events[5]
        roll["decision"]["party"] = True  # type: ignore[index]
        roll["actor"] = None
        return events

    forged = forgery.forge_export(path, tmp_path / "forged.jsonl", claim)
    refusal = r"yearzero\.Roll as the party's action, which is a character's"
    with (
        Ledger(str(tmp_path / "copy.ledger")) as book,
        forged.open("rb") as data,
        pytest.raises(TamperError, match=refusal),
    ):
        book.import_(data, "Copy")


def test_an_old_partys_action_keeps_its_actor_and_reads_as_the_partys(tmp_path: Path) -> None:
    """The golden Year Zero week (with its decisions) was recorded with every action under the acting
    character: it imports as it was, and its log tells the party's actions (those whose
    decision names a command of the party's) as the party's."""
    path = SAMPLES / "yearzero" / "campaign-rules-v1.jsonl"
    stored = [json.loads(line) for line in path.read_bytes().splitlines()[1:]]
    party = {e["action"] for e in stored if e.get("decision") and partys(e["decision"])}
    assert party and not any(e["decision"].get("party") for e in stored if e.get("decision"))
    with Ledger(str(tmp_path / "g.ledger")) as book, path.open("rb") as f:
        c = book.import_(f)
        entries = book.log(c.name, show_all=True)
    told = [e for e in entries if e.action in party]
    assert told and all(e.party and e.actor is not None for e in told)
    assert not any(e.party for e in entries if e.action not in party)


def partys(decision: dict[str, Any]) -> bool:
    """Whether a Year Zero decision is the party's: time passing, the party moving or
    sleeping, or a meal, a drink or warmth for everyone."""
    party = {"yearzero.Tick", "yearzero.Enter", "yearzero.Explore", "yearzero.Sleep", "yearzero.Rest"}
    return decision["command"] in party or decision["args"].get("everyone") is True


def test_a_page_of_the_log_that_begins_inside_the_partys_action_tells_it_so(tmp_path: Path) -> None:
    """The live table reads the log a page at a time: a page that begins on the second event
    of the party's meal still knows whose meal it is, and which seat sent it."""
    from ledger.web.entries import entries_after

    db = str(tmp_path / "z.ledger")
    with Ledger(db) as book:
        book.new_campaign("yearzero", "Zone", seed=3)
        book.add_character("Lucía", "Zone", MUTANT)
        book.add_character("Bo", "Zone", MUTANT)
        meal = book.execute(yz.Eat(everyone=True), "Zone", seat="gm")
        c = book.campaign("Zone")
        first = meal.envelopes[0].v
        page, _head, _more = entries_after(book, c, first)
    assert [(e["who"], e["party"], e["seat"]) for e in page] == [("Bo", True, "gm")]


def test_an_import_refuses_the_partys_mark_where_the_ledger_would_not_have_set_it(tmp_path: Path) -> None:
    """Core rules 3 record the party's action as the party's; an action claiming core rules
    2 with the party's mark, or core rules 3 without it, is none the ledger could have
    recorded."""
    db = str(tmp_path / "z.ledger")
    evening(db)
    path = export(db, tmp_path / "zone.jsonl")

    def older(_head: dict[str, object], events: list[dict[str, object]]) -> list[dict[str, object]]:
        tick = events[3]
        tick["decision"]["rules"] = "core=2 yearzero=1"  # type: ignore[index]
        return events

    def unmarked(_head: dict[str, object], events: list[dict[str, object]]) -> list[dict[str, object]]:
        tick = events[3]
        del tick["decision"]["party"]  # type: ignore[attr-defined]
        tick["actor"] = "Lucía"
        return events

    for edit, said in (
        (older, "under core rules version 2, which recorded none as the party's"),
        (unmarked, "the party's action, as a character's"),
    ):
        forged = forgery.forge_export(path, tmp_path / "forged.jsonl", edit)
        with (
            Ledger(str(tmp_path / f"{edit.__name__}.ledger")) as book,
            forged.open("rb") as data,
            pytest.raises(TamperError, match=said),
        ):
            book.import_(data, "Copy")
