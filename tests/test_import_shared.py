"""An import or a verify checked by two processes (``ledger.trust.sharing``: a partner
decides most actions again) refuses exactly what one process refuses, word for word and
at the same version, and records nothing; a sound campaign is admitted whole.

The partner runs from MIN_EVENTS events, where a core is idle; here that bound is lowered
(and the machine taken as idle) so that a small seeded table goes through it. Each forgery re-seals the chain (``tests/helpers_forgery``),
so only deciding the action again can find it.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

try:
    from tests import helpers_forgery as forgery
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_forgery as forgery  # type: ignore[no-redef]

from ledger import Ledger
from ledger.deciding.commands import AddCharacter, Note, Roll
from ledger.errors import LedgerError, TamperError
from ledger.trust import sharing

Events = list[dict[str, Any]]


@pytest.fixture
def verdicts(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Share every admission, and record each partner's verdict (True: all as recorded)."""
    monkeypatch.setattr(sharing, "MIN_EVENTS", 0)
    monkeypatch.setattr(sharing, "a_core_is_idle", lambda: True)  # however busy the machine
    if threading.active_count() > 1:  # a partner is forked only where no other thread runs
        pytest.skip(f"other threads run here; {ALONE.__name__} runs this file in a process of its own")
    seen: list[bool] = []
    verdict = sharing.Partner.verdict

    def recorded(self: sharing.Partner) -> None:
        try:
            verdict(self)
        except sharing.Refused:
            seen.append(False)
            raise
        seen.append(True)

    monkeypatch.setattr(sharing.Partner, "verdict", recorded)
    return seen


def alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sharing, "MIN_EVENTS", 10**12)


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """A seeded freeform table: characters, rolls of every shape and notes."""
    rng = random.Random(5)
    with Ledger(str(tmp_path / "source.ledger")) as book:
        book.new_campaign("freeform", "Table", seed=9)
        with book.batch("Table") as batch:
            for name in ("Ana", "Bo", "Cyr"):
                batch.execute(AddCharacter(name=name))
            for _ in range(60):
                who = rng.choice(["Ana", "Bo", "Cyr"])
                if rng.random() < 0.15:
                    batch.execute(Note(text="The door is barred."), actor=who)
                else:
                    notation = rng.choice(["1d20+5", "4d6kh3", "3d6!", "8d6>=5", "2d6"])
                    batch.execute(Roll(notation=notation, label="check"), actor=who)
        path = tmp_path / "table.jsonl"
        with path.open("wb") as out:
            book.export(out, "Table")
    return path


def action_ordinals(events: Events) -> list[int]:
    """The ordinal of each event's action (1 for the first), as the admission counts them."""
    out, count, last = [], 0, None
    for e in events:
        if e["action"] != last:
            count, last = count + 1, e["action"]
        out.append(count)
    return out


def rolled_at(events: Events, *, partner: bool, share: int) -> int:
    """The index of a roll whose action the partner (or the admission itself) decides again."""
    ordinals = action_ordinals(events)
    for i, e in enumerate(events):
        mine = ordinals[i] % share == 0
        if e["event"]["kind"] == "dice.rolled" and i > 20 and mine != partner:
            return i
    raise AssertionError("no such roll")


def forged_total(
    partner: bool, share: int = sharing.IMPORT_SHARE
) -> Callable[[dict[str, Any], Events], Events]:
    def edit(_head: dict[str, Any], events: Events) -> Events:
        i = rolled_at(events, partner=partner, share=share)
        result = events[i]["event"]["result"]
        result["total"] += 1  # the faces and the notation give another total
        result["modifier"] += 1
        return events

    return edit


def refusal(target: Path, data: Path) -> str:
    with Ledger(str(target)) as book:
        with pytest.raises(LedgerError) as caught, data.open("rb") as f:
            book.import_(f, "Copy")
        assert [c.name for c in book.campaigns()] == []  # nothing recorded
    return str(caught.value)


def test_a_shared_import_admits_the_whole_campaign_with_its_partner(
    export: Path, tmp_path: Path, verdicts: list[bool]
) -> None:
    with Ledger(str(tmp_path / "copy.ledger")) as book:
        with export.open("rb") as f:
            copy = book.import_(f, "Copy")
        assert book.head(copy) == len(export.read_bytes().splitlines()) - 1
        book.verify("Copy")
    assert verdicts == [True, True]  # the import's partner, then the verify's


@pytest.mark.parametrize("partner", [True, False], ids=["partner-decides-it", "admission-decides-it"])
def test_a_forged_roll_is_refused_shared_as_one_process_refuses_it(
    export: Path,
    tmp_path: Path,
    verdicts: list[bool],
    monkeypatch: pytest.MonkeyPatch,
    partner: bool,
) -> None:
    forged = forgery.forge_export(export, tmp_path / "forged.jsonl", forged_total(partner))
    shared = refusal(tmp_path / "shared.ledger", forged)
    assert verdicts == ([False] if partner else [])  # the admission refuses before asking
    alone(monkeypatch)
    assert refusal(tmp_path / "alone.ledger", forged) == shared
    assert "but its dice give" in shared


def test_a_bad_line_after_a_forged_roll_names_the_roll_shared_too(
    export: Path, tmp_path: Path, verdicts: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    forged = forgery.forge_export(export, tmp_path / "forged.jsonl", forged_total(True))
    lines = forged.read_bytes().splitlines()
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n".join([*lines[:-5], b"", *lines[-5:]]) + b"\n")
    shared = refusal(tmp_path / "shared.ledger", blank)
    alone(monkeypatch)
    assert refusal(tmp_path / "alone.ledger", blank) == shared
    assert "but its dice give" in shared


def test_a_blank_line_is_refused_where_it_stands_shared_too(
    export: Path, tmp_path: Path, verdicts: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = export.read_bytes().splitlines()
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n".join([*lines[:30], b"", *lines[30:]]) + b"\n")
    shared = refusal(tmp_path / "shared.ledger", blank)
    alone(monkeypatch)
    assert refusal(tmp_path / "alone.ledger", blank) == shared
    assert "line 31 of the import file is blank" in shared


@pytest.mark.parametrize("partner", [True, False], ids=["partner-decides-it", "admission-decides-it"])
def test_a_forged_stored_roll_is_refused_by_a_shared_verify_as_by_one_process(
    export: Path,
    tmp_path: Path,
    verdicts: list[bool],
    monkeypatch: pytest.MonkeyPatch,
    partner: bool,
) -> None:
    db = str(tmp_path / "stored.ledger")
    with Ledger(db) as book, export.open("rb") as f:
        stream = book.import_(f, "Copy").id
    forge = forged_total(partner, sharing.SHARE)  # verify's share
    forgery.forge_store(db, stream, lambda events: forge({}, events) and None)
    with Ledger(db) as book, pytest.raises(TamperError) as shared:
        book.verify("Copy")
    assert verdicts[1:] == ([False] if partner else [])
    alone(monkeypatch)
    with Ledger(db) as book, pytest.raises(TamperError) as one:
        book.verify("Copy")
    assert str(one.value) == str(shared.value)
    assert "but its dice give" in str(shared.value)


def test_the_shared_admission_in_a_process_of_its_own() -> None:
    """Where this file runs beside others, another test has left a thread behind (an ASGI
    client's event loop) and no partner is forked: the file runs again in a fresh
    interpreter, where one is, and every test of it must pass there."""
    if threading.active_count() == 1:
        pytest.skip("no other thread runs here: the tests above fork their partner themselves")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", __file__, "-q", "-p", "no:cacheprovider", "-rs"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "skipped" not in done.stdout.splitlines()[-1], done.stdout[-2000:]


ALONE = test_the_shared_admission_in_a_process_of_its_own
