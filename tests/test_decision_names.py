"""A stored decision names its command by a stable name (``core.Roll``, ``d20.Check``),
never by the module its class lives in: moving a system's modules must not stop an
import from deciding its actions again."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from ledger import Ledger
from ledger.deciding import commands
from ledger.deciding.commands import AddCharacter, Command, Note, Roll, command_name, stable_commands
from ledger.systems import get_system, system_names
from ledger.systems.d20.commands import Check, Create
from ledger.trust import admission

SEVEN = [6, 5, 4, 3, 3, 2, 1, 1, 2, 6, 6, 6, 4, 4, 4, 5, 5, 3, 2, 3, 4]
ASSIGN = {"fue": 18, "des": 15, "con": 13, "int": 12, "sab": 9, "car": 8}


def d20_export(db: str) -> bytes:
    """A d20 campaign: a character created on physical dice, a check, a free roll, a note."""
    with Ledger(db) as book:
        book.new_campaign("d20", "Station")
        book.execute(Create(name="Ripley", assign=ASSIGN), "Station", faces=SEVEN)
        book.execute(Check(attribute="des", dc="hard"), "Station", faces=[3])
        book.roll("1d20+2", "Station", faces=[11])
        book.note("the airlock hisses", "Station")
        out = io.BytesIO()
        book.export(out, "Station")
    return out.getvalue()


def decisions(export: bytes) -> list[str]:
    found = []
    for line in export.splitlines()[1:]:
        event = json.loads(line)
        if event.get("decision"):
            found.append(event["decision"]["command"])
    return found


def admitted(export: bytes) -> admission.Admission:
    """Every event of an export admitted in order, as ``ledger import`` does."""
    data = io.BytesIO(export)
    header, _fields = admission.read_header(data)
    admit = admission.Admission("Copy", get_system(header.system))
    for raw in admission.lines(data):
        admit.admit(raw)
    admit.check_head(header)
    admit.finish()
    return admit


def test_a_decision_stores_the_system_and_class_name_without_a_module(tmp_path: Any) -> None:
    export = d20_export(str(tmp_path / "t.ledger"))
    assert decisions(export) == ["d20.Create", "d20.Check", "core.Roll", "core.Note"]
    assert admitted(export).redecided == 4


def test_a_command_resolves_by_its_stable_name_when_its_class_lives_in_another_module(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As after the d20 rules move to a package of their own: the classes report another
    module, the registry is built afresh, and the actions are recorded, named and
    decided again exactly as before."""
    for kind in (Create, Check, Roll, Note):
        monkeypatch.setattr(kind, "__module__", f"ledger.systems.d20.moved_{kind.__name__.lower()}")
    monkeypatch.setattr(commands, "_commands", {})
    export = d20_export(str(tmp_path / "t.ledger"))
    assert decisions(export) == ["d20.Create", "d20.Check", "core.Roll", "core.Note"]
    assert admitted(export).redecided == 4
    db = str(tmp_path / "copy.ledger")
    with Ledger(db) as book:
        book.import_(io.BytesIO(export), "Copy")
        book.verify("Copy")


@pytest.mark.parametrize(
    "name", ["crawl.Attack", "d20.Command", "d20.__class__", "ledger.systems.d20.system.Check"]
)
def test_a_name_outside_the_campaign_systems_commands_resolves_to_nothing(name: str) -> None:
    assert admission.command_class(name, get_system("d20")) is None


def _subclasses(kind: type) -> list[type]:
    found = []
    for sub in kind.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_every_command_class_is_named_by_exactly_one_system_or_the_core() -> None:
    """Each system's commands are those its decider dispatches on; a command class no
    system lists could be recorded but never decided again."""
    loaded = [get_system(name) for name in system_names()]
    core = {Roll, Note, AddCharacter}
    for kind in _subclasses(Command):
        if kind.__name__ == "Introduction" or kind.__module__.startswith(("tests", "test_")):
            continue
        owners = [s.name for s in loaded if kind not in core and kind in stable_commands(s).values()]
        assert kind in core or len(owners) == 1, (kind, owners)
    for system in loaded:
        for kind in core:
            assert command_name(system, kind) == f"core.{kind.__name__}"
