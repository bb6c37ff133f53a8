"""The ledger's contract, run against every store (SQLite and PostgreSQL)."""

from __future__ import annotations

import io

import pytest

from ledger import Ledger
from ledger.deciding.commands import AddCharacter
from ledger.errors import (
    DuplicateNameError,
    FacesError,
    NothingToUndoError,
    TamperError,
    UnknownCampaignError,
    UnknownSystemError,
    VersionError,
)


def rolls(book: Ledger, name: str, *, show_all: bool = False) -> list[tuple[int, bool]]:
    return [
        (e.event.result.total, e.undone) for e in book.log(name, show_all=show_all) if e.kind == "dice.rolled"
    ]


def test_rolls_undo_redo(book: Ledger) -> None:
    book.new_campaign("freeform", "Friday")
    for faces in ([1, 1], [1, 2], [1, 3], [1, 4], [1, 5]):
        book.roll("2d6", "Friday", faces=faces)
    book.undo("Friday", 2)
    book.redo("Friday")
    assert rolls(book, "Friday") == [(2, False), (3, False), (4, False), (5, False)]
    assert rolls(book, "Friday", show_all=True) == [(2, False), (3, False), (4, False), (5, False), (6, True)]
    assert book.state("Friday").game.rolls == 4


def test_adding_a_character_is_recorded_under_the_newcomer(book: Ledger) -> None:
    book.new_campaign("freeform", "Friday")
    book.add_character("Ana", "Friday")
    book.roll("1d6", "Friday", actor="Ana")
    book.add_character("Bo", "Friday")
    book.execute(AddCharacter(name="Cy"), "Friday", actor="Ana")  # Ana's player types it
    assert [e.actor for e in book.log("Friday")[-3:]] == ["Ana", "Bo", "Cy"]


def test_redo_only_until_something_new_is_recorded(book: Ledger) -> None:
    book.new_campaign("freeform", "F")
    book.roll("1d6", "F", faces=[4])
    book.undo("F")
    book.roll("1d6", "F", faces=[2])
    with pytest.raises(NothingToUndoError, match="nothing to redo"):
        book.redo("F")


def test_undo_refuses_more_than_there_is(book: Ledger) -> None:
    book.new_campaign("freeform", "F")
    with pytest.raises(NothingToUndoError, match="nothing to undo in 'F'"):
        book.undo("F")
    book.roll("1d6", "F", faces=[4])
    head = book.head(book.campaign("F"))
    with pytest.raises(NothingToUndoError, match="only 1 action"):
        book.undo("F", 2)
    assert book.head(book.campaign("F")) == head


def test_undo_redo_nest(book: Ledger) -> None:
    book.new_campaign("freeform", "F")
    for face in (1, 2, 3):
        book.roll("1d6", "F", faces=[face])
    book.undo("F")
    book.undo("F")
    assert [t for t, _ in rolls(book, "F")] == [1]
    book.redo("F")
    assert [t for t, _ in rolls(book, "F")] == [1, 2]
    book.redo("F")
    assert [t for t, _ in rolls(book, "F")] == [1, 2, 3]
    with pytest.raises(NothingToUndoError):
        book.redo("F")


def test_fork_shares_history_and_leaves_parent_alone(book: Ledger) -> None:
    book.new_campaign("freeform", "Main")
    for face in (1, 2, 3, 4):
        book.roll("1d6", "Main", faces=[face])
    book.fork("Main", "WhatIf", at=3)
    book.roll("1d6", "WhatIf", faces=[6])
    book.roll("1d6", "Main", faces=[5])
    assert [t for t, _ in rolls(book, "Main")] == [1, 2, 3, 4, 5]
    assert [t for t, _ in rolls(book, "WhatIf")] == [1, 2, 6]
    book.fork("WhatIf", "Deeper", at=4)
    book.roll("1d6", "Deeper", faces=[1])
    assert [t for t, _ in rolls(book, "Deeper")] == [1, 2, 1]
    assert [t for t, _ in rolls(book, "WhatIf")] == [1, 2, 6]
    report = book.verify(every=True)
    assert set(report.checked) >= {"Main", "WhatIf", "Deeper"}


def test_fork_can_undo_into_the_shared_history(book: Ledger) -> None:
    book.new_campaign("freeform", "Main")
    book.roll("1d6", "Main", faces=[1])
    book.roll("1d6", "Main", faces=[2])
    book.fork("Main", "B")
    book.undo("B")
    assert [t for t, _ in rolls(book, "B")] == [1]
    assert [t for t, _ in rolls(book, "Main")] == [1, 2]


def test_fork_beyond_head_is_refused(book: Ledger) -> None:
    book.new_campaign("freeform", "Main")
    with pytest.raises(VersionError, match="head is version 1"):
        book.fork("Main", "Nope", at=7)
    assert [c.name for c in book.campaigns()] == ["Main"]


def test_time_travel(book: Ledger) -> None:
    book.new_campaign("freeform", "T")
    for face in (1, 2, 3):
        book.roll("1d6", "T", faces=[face])
    assert book.state("T", at=2).game.rolls == 1
    assert book.state("T", at=4).game.rolls == 3
    with pytest.raises(VersionError, match="versions 1 to 4"):
        book.state("T", at=9)


def test_replay_steps_through_actions(book: Ledger) -> None:
    book.new_campaign("freeform", "R")
    book.roll("1d6", "R", faces=[3])
    book.note("the door creaks", "R")
    steps = list(book.replay("R"))
    assert [s[0][0].event.kind for s in steps] == ["campaign.started", "dice.rolled", "note"]
    assert steps[1][2].game.rolls == 1 and steps[1][1].game.rolls == 0


def test_seeded_campaigns_roll_the_same(book: Ledger) -> None:
    for name in ("A", "B"):
        book.new_campaign("freeform", name, seed=42)
        for _ in range(5):
            book.roll("3d6", name)
    a = [e.event.result.faces() for e in book.log("A") if e.kind == "dice.rolled"]
    b = [e.event.result.faces() for e in book.log("B") if e.kind == "dice.rolled"]
    assert a == b


def test_wrong_faces_record_nothing(book: Ledger) -> None:
    book.new_campaign("freeform", "F")
    for faces, match in (([7, 1], "not on a d6"), ([1], "too few"), ([1, 2, 3], "too many")):
        with pytest.raises(FacesError, match=match):
            book.roll("2d6", "F", faces=faces)
    assert book.head(book.campaign("F")) == 1


def test_names_and_systems_are_checked(book: Ledger) -> None:
    with pytest.raises(UnknownSystemError, match="unknown system 'chess'"):
        book.new_campaign("chess", "X")
    book.new_campaign("freeform", "X")
    with pytest.raises(DuplicateNameError):
        book.new_campaign("freeform", "X")
    with pytest.raises(UnknownCampaignError, match="no campaign named 'Y'"):
        book.state("Y")


def test_characters_and_default_actor(book: Ledger) -> None:
    book.new_campaign("freeform", "P")
    book.add_character("Ana", "P", {"str": "14"})
    rec = book.roll("1d20", "P", faces=[12])
    assert rec.envelopes[0].actor == "Ana"
    book.add_character("Bo", "P")
    rec = book.roll("1d20", "P", faces=[3], actor="Ana")
    assert rec.envelopes[0].actor == "Ana"
    rec = book.roll("1d20", "P", faces=[4])
    assert rec.envelopes[0].actor == "Ana"  # the last-used character


def test_export_import_round_trip_and_tamper(book: Ledger) -> None:
    book.new_campaign("freeform", "E")
    book.roll("2d6", "E", faces=[6, 6])
    book.note("crit!", "E")
    out = io.BytesIO()
    assert book.export(out, "E") == 3
    data = out.getvalue()
    copy = book.import_(io.BytesIO(data), "E2")
    # a copy of a campaign the ledger holds: the same history, then the fork giving it its own id
    assert [e.summary for e in book.log("E2")] == [
        *(e.summary for e in book.log("E")),
        "forked 'E2' from 'E' at version 3",
    ]
    assert copy.id != book.campaign("E").id
    book.verify("E2")
    edited = data.replace(b"crit!", b"crit?")
    with pytest.raises(TamperError, match="version 3"):
        book.import_(io.BytesIO(edited), "E3")
    truncated = b"\n".join(data.split(b"\n")[:-2]) + b"\n"
    with pytest.raises(TamperError, match="truncated"):
        book.import_(io.BytesIO(truncated), "E4")
    assert "E3" not in [c.name for c in book.campaigns()] and copy.name == "E2"
