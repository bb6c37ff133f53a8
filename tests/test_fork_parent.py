"""A fork's parent is named only when the ledger holds it.

A fork's ``branch.forked`` event records its parent's id and name. Imported into
another ledger, that name is only a claim (and a forger can write any name): the log,
the replay and the report name the parent the ledger holds under the recorded id, and
when it holds none they say so, quoting the recorded name as recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

try:
    from tests import helpers_forgery as forgery
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_forgery as forgery  # type: ignore[no-redef]
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.projections import report

Events = list[dict[str, Any]]
ELSEWHERE = "forked 'Branch' at version 3 from a campaign this ledger does not hold (recorded as 'Existing')"


def forked(tmp_path: Path, parent: str = "Existing") -> tuple[str, Path]:
    """A ledger where ``parent`` (a character, a roll) was forked as 'Branch' at version 3,
    and Branch's export."""
    db = str(tmp_path / "home.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", parent, seed=3)
        book.add_character("Ana", parent)
        book.roll("1d6", parent, faces=[4])
        book.fork(parent, "Branch", at=3)
        out = tmp_path / "branch.jsonl"
        with out.open("wb") as f:
            book.export(f, "Branch")
    return db, out


def fork_lines(db: str, campaign: str) -> list[str]:
    result = hr.invoke(db, "log", "-c", campaign)
    assert result.exit_code == 0, result.stderr
    return [line for line in result.output.splitlines() if "forked" in line]


def test_an_imported_fork_whose_parent_is_elsewhere_does_not_claim_a_namesake_as_its_parent(
    tmp_path: Path,
) -> None:
    home, out = forked(tmp_path)
    assert fork_lines(home, "Branch") == ["v4     forked 'Branch' from 'Existing' at version 3"]
    away = str(tmp_path / "away.ledger")
    with Ledger(away) as book:
        book.new_campaign("freeform", "Existing", seed=9)  # a namesake, another campaign
    assert hr.invoke(away, "import", str(out)).exit_code == 0
    assert fork_lines(away, "Branch") == [f"v4     {ELSEWHERE}"]
    replay = hr.invoke(away, "replay", "-c", "Branch")
    assert replay.exit_code == 0, replay.stderr
    assert f"v4: {ELSEWHERE}" in replay.output.splitlines(), replay.output
    with Ledger(away) as book:
        data = report.build(book, "Branch")
    assert [row["text"] for row in data["log"] if row["status"] == "fork"] == [ELSEWHERE]
    assert ELSEWHERE in [step["what"] for step in data["steps"]]
    assert "from 'Existing'" not in str(data)


def test_a_forged_parent_name_is_never_printed_over_the_campaign_the_ledger_holds(
    tmp_path: Path,
) -> None:
    home, out = forked(tmp_path, parent="Real")
    with Ledger(home) as book:
        book.new_campaign("freeform", "Existing", seed=9)

    def edit(_h: dict[str, Any], events: Events) -> Events:
        fork = next(e for e in events if e["event"]["kind"] == "branch.forked")
        fork["event"]["parent_name"] = "Existing"
        return events

    forged = forgery.forge_export(out, tmp_path / "f.jsonl", edit)
    assert hr.invoke(home, "import", str(forged), "--name", "Copy").exit_code == 0
    assert fork_lines(home, "Copy") == [
        "v4     forked 'Branch' from 'Real' at version 3",
        "v5     forked 'Copy' from 'Branch' at version 4",  # a copy gets a branch of its own
    ]


def test_a_forged_fork_naming_a_held_campaign_that_shares_nothing_with_it_is_refused(
    tmp_path: Path,
) -> None:
    """A fork's parent is the campaign whose history comes before it in the file: one that
    names a campaign this ledger holds, which never held that history, is refused (the log
    would otherwise tell 'forked from Home' of a stranger)."""
    _away, out = forked(tmp_path, parent="Real")
    home = str(tmp_path / "other.ledger")
    with Ledger(home) as book:
        held = book.new_campaign("freeform", "Home", seed=9)
        book.add_character("Bo", "Home")
        book.roll("1d6", "Home", faces=[2])

    def edit(_h: dict[str, Any], events: Events) -> Events:
        fork = next(e for e in events if e["event"]["kind"] == "branch.forked")
        fork["event"]["parent_id"] = held.id
        fork["event"]["parent_name"] = "Home"
        return events

    forged = forgery.forge_export(out, tmp_path / "f.jsonl", edit)
    before = hr.store_rows(home)
    result = hr.invoke(home, "import", str(forged), "--name", "Gf")
    line = hr.assert_one_line_error(result)
    assert "at version 4" in line and "names as its parent campaign 'Home'" in line, line
    checked = hr.assert_one_line_error(hr.invoke(home, "verify", str(forged)))
    assert "names as its parent campaign 'Home'" in checked, checked
    assert hr.store_rows(home) == before


def test_a_fork_of_a_fork_taken_before_the_middle_one_began_still_imports(tmp_path: Path) -> None:
    """Its parent's history is not in the file (the file holds the grandparent's up to the
    fork): held with that history, or not held at all, the fork is what the ledger wrote."""
    db = str(tmp_path / "home.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Real", seed=3)
        book.add_character("Ana", "Real")
        book.roll("1d6", "Real", faces=[4])
        book.fork("Real", "Mid", at=3)
        book.note("in the middle", "Mid")
        book.fork("Mid", "Late", at=2)
        out = tmp_path / "late.jsonl"
        with out.open("wb") as f:
            book.export(f, "Late")
    assert hr.invoke(db, "import", str(out), "--name", "Again").exit_code == 0
    assert hr.invoke(db, "verify", "--all").exit_code == 0
    assert fork_lines(db, "Again")[0] == "v3     forked 'Late' from 'Mid' at version 2"
    away = str(tmp_path / "away.ledger")
    assert hr.invoke(away, "import", str(out)).exit_code == 0


def test_a_stored_fork_naming_a_held_stranger_as_its_parent_fails_verify(tmp_path: Path) -> None:
    """What an import let in before it checked the parent is found by ``verify --all``."""
    _away, out = forked(tmp_path, parent="Real")
    home = str(tmp_path / "other.ledger")
    with Ledger(home) as book:
        held = book.new_campaign("freeform", "Home", seed=9)
    assert hr.invoke(home, "import", str(out), "--name", "Gf").exit_code == 0
    with Ledger(home) as book:
        stream = book.campaign("Gf").lineage[-1][0]

    def edit(events: Events) -> None:
        fork = next(e for e in events if e["event"]["kind"] == "branch.forked")
        fork["event"]["parent_id"] = held.id

    forgery.forge_store(home, stream, edit)
    line = hr.assert_one_line_error(hr.invoke(home, "verify", "--all"))
    assert "'Gf' fails verification at version 4" in line and "campaign 'Home'" in line, line
