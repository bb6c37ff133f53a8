"""The contract every installed system keeps, the ledger's own and any plugin's alike.

Parametrized over :func:`ledger.systems.system_names`, so a system installed beside
the ledger (the sample coin plugin) is held to it too: a system author runs this file
to know the ledger can record, fold, undo, export and import the system's campaigns.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import click
import msgspec
import pytest

from ledger import Ledger
from ledger.cli.systems import SystemGroup, command_name, system_group
from ledger.deciding.authority import Reach, declared
from ledger.deciding.commands import Command, Introduction, Roll, stable_commands
from ledger.dice.sources import Faces
from ledger.errors import LedgerError
from ledger.log.events import CORE_EVENTS
from ledger.systems import GROUP, HELP_GROUP, System, SystemHelp, commands_point, get_system, system_names
from ledger.web import affordances

SYSTEMS = system_names()


class Unheard(Command, frozen=True, kw_only=True):
    """A command no system takes."""


def _point(name: str) -> metadata.EntryPoint:
    (point,) = [p for p in metadata.entry_points(group=GROUP) if p.name == name][:1]
    return point


def test_the_ledgers_own_systems_are_installed() -> None:
    assert {"freeform", "crawl", "dicepool", "yearzero", "d100", "d20"} <= set(SYSTEMS)


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_system_is_well_formed(name: str) -> None:
    system = get_system(name)
    assert isinstance(system, System) and system.name == name
    assert _point(name).load() is system, "the entry point's name is the system's name"
    tags = [kind.__struct_config__.tag for kind in system.rules.events]
    assert len(tags) == len(set(tags)), f"two events share a tag: {tags}"
    core = {kind.__struct_config__.tag for kind in CORE_EVENTS}
    assert not core & set(tags), f"an event takes a core tag: {sorted(core & set(tags))}"
    assert all(isinstance(t, str) and t for t in tags)
    own = [n for n in stable_commands(system) if not n.startswith("core.")]
    assert own == [f"{name}.{kind.__name__}" for kind in system.rules.commands]
    assert len(own) == len(set(own)) == len(system.rules.commands)
    assert all(issubclass(kind, Command) for kind in system.rules.commands)
    if commands_point(name) is not None:
        group = system_group(name)
        assert isinstance(group, click.Command) and group.name == command_name(name)


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_command_declares_who_may_issue_it(name: str) -> None:
    """Each command class says whom it reaches (``Command.authority``, docs/plugins.md):
    the live table lets a player's seat send a character's own deeds only, and a command
    that says nothing is the GM's alone. A field value that widens it names a field of
    the command, with a value that field takes; a command that brings a character in is
    the GM's."""
    system = get_system(name)
    for stable, kind in stable_commands(system).items():
        found = declared(kind)
        assert found is not None, f"{stable} declares no `authority` (ledger.deciding.authority)"
        fields = {f.name: f.type for f in msgspec.structs.fields(kind)}
        for when in found.when:
            assert when.field in fields, f"{stable}: `when` names {when.field!r}, no field of it"
            assert msgspec.convert(when.value, fields[when.field]) == when.value, (stable, when)
            assert when.reach is not None or when.confirm, f"{stable}: a `when` that changes nothing"
        if issubclass(kind, Introduction):
            assert found.reach is Reach.NEWCOMER, f"{stable} brings a character in: the GM's"


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_help_published_beside_the_system_says_what_the_system_says(name: str) -> None:
    """What ``ledger --help`` shows of a system without importing it (its SystemHelp,
    published under HELP_GROUP by the system's distribution) is what its System and its
    command group hold."""
    dist = _point(name).dist
    published = [
        p
        for p in metadata.entry_points(group=HELP_GROUP)
        if p.name == name and dist is not None and p.dist is not None and p.dist.name == dist.name
    ]
    if dist is not None and dist.name == "campaign-ledger":
        assert published, "the ledger's own systems publish their help"
    system, group = get_system(name), system_group(name)
    said = {
        "name": system.name,
        "command": None if group is None else group.name,
        "summary": "" if group is None else group.short_help,
        "walkthrough": group.walkthrough if isinstance(group, SystemGroup) else None,
    }
    for point in published:
        shown = point.load()
        assert isinstance(shown, SystemHelp)
        for field in SystemHelp.__struct_fields__:
            assert getattr(shown, field) == said[field], field


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_systems_library_never_imports_click(name: str) -> None:
    point = _point(name)
    code = (
        "import sys\n"
        "from ledger.systems import get_system\n"
        f"get_system({name!r})\n"
        "loaded = sorted(m for m in sys.modules if m == 'click' or m.startswith('click.'))\n"
        "sys.exit(f'{loaded[0]} is imported' if loaded else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"loading {point.value}: {done.stderr.strip()}"


def _started(book: Ledger, name: str, campaign: str) -> Any:
    book.new_campaign(name, campaign, seed=7)
    return book.state(campaign)


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_new_campaign_folds_to_a_json_sheet_and_refuses_an_unknown_command(
    name: str, tmp_path: Path
) -> None:
    system = get_system(name)
    with Ledger(str(tmp_path / "new.ledger")) as book:
        state = _started(book, name, "Fresh")
        assert state.core.system == name and state.core.version == 1
        sheet = system.read.sheet(state, None)
        assert isinstance(sheet, dict) and json.loads(json.dumps(sheet)) == sheet
        if system.read.render_sheet is not None:
            assert isinstance(system.read.render_sheet(sheet), str)
        with pytest.raises(LedgerError):
            system.rules.decide(state, Unheard(), Faces([1] * 20))
        assert book.head(book.campaign("Fresh")) == 1


def _played(book: Ledger, system: System, campaign: str) -> None:
    """A campaign with actions of the system's own: its simulator, its autoplayer, or (a
    system with neither) core rolls."""
    if system.play.simulate is not None:
        system.play.simulate(book, campaign, 7, 3)
    elif system.play.autoplay is not None:
        book.new_campaign(system.name, campaign, seed=7)
        with book.batch(campaign) as batch:
            system.play.autoplay(batch, campaign, 3)
    else:
        book.new_campaign(system.name, campaign, seed=7)
        for _ in range(3):
            book.execute(Roll(notation="1d20"), campaign)


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_played_campaign_exports_imports_verifies_and_undoes(name: str, tmp_path: Path) -> None:
    system = get_system(name)
    with Ledger(str(tmp_path / "played.ledger")) as book:
        _played(book, system, "Played")
        camp = book.campaign("Played")
        assert book.head(camp) > 1
        book.verify("Played")
        played = book.state("Played")
        sheet = system.read.sheet(played, None)
        assert json.loads(json.dumps(sheet)) == sheet
        out = io.BytesIO()
        book.export(out, "Played", sign=False)
        exported = book.head(camp)

        book.execute(Roll(notation="1d6"), "Played")  # every campaign takes a core roll
        book.undo("Played")
        assert system.read.sheet(book.state("Played"), None) == sheet, "undo brings back the sheet before"
        last = book.undo("Played").events[0]
        before = book.state("Played", at=last.target)  # type: ignore[attr-defined]
        assert system.read.sheet(book.state("Played"), None) == system.read.sheet(before, None)
        book.verify("Played")

    with Ledger(str(tmp_path / "fresh.ledger")) as fresh:
        out.seek(0)
        imported = fresh.import_(out)
        fresh.verify(imported.name)
        assert fresh.head(imported) == exported
        assert system.read.sheet(fresh.state(imported.name), None) == sheet


# --- what a player taps at the live table: the sheet's controls and the forms ----------------


def _fields(kind: type) -> set[str]:
    return {f.name for f in msgspec.structs.fields(kind)} - {"actor"}


def _layout_keys(system: System) -> set[str]:
    layout = system.read.sheet_layout
    if layout is None:
        return set()
    return {f.key for f in (*layout.headline, *(f for s in layout.sections for f in s.fields))}


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_control_and_form_names_a_command_of_the_system_and_its_fields(name: str) -> None:
    system = get_system(name)
    commands = stable_commands(system)
    layout = system.read.sheet_layout
    keys = _layout_keys(system)
    for control in layout.controls if layout is not None else ():
        kind = commands.get(control.command)
        assert kind is not None, f"a control issues {control.command}, no command of {name}"
        fields = _fields(kind)
        assert set(control.args) <= fields, f"{control.command} has no field {set(control.args) - fields}"
        assert {o.field for o in control.options} <= fields, control.command
        if control.on:
            assert control.on in keys, f"a control sits on {control.on!r}, a field the layout does not show"
        else:
            assert control.when, f"{control.command}: a control on no field says when it is offered"
    shown = set()
    for form in (*system.read.forms, *affordances.CORE_FORMS):
        kind = commands.get(form.command)
        assert kind is not None, f"a form issues {form.command}, no command of {name}"
        assert {a.field for a in form.asks} <= _fields(kind), form.command
        assert form.name not in shown, f"two forms are called {form.name!r}"
        shown.add(form.name)
    labels = [f["label"].lower() for f in affordances.forms(name) if not f["sheet"]]
    assert len(labels) == len(set(labels)), f"two of the page's buttons share a label: {sorted(labels)}"


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_command_of_the_system_has_one_name_and_is_offered_at_the_table(name: str) -> None:
    """Each command of the system's own has one form (its name: the command line's), and
    is offered by it or, when the form says so, by the sheet's controls; a creation that
    ``character add`` runs (a system's ``creates`` with ``from_attrs``) may have none."""
    system = get_system(name)
    layout = system.read.sheet_layout
    controlled = {c.command for c in (layout.controls if layout is not None else ())}
    named: dict[str, str] = {}
    for form in system.read.forms:
        assert form.command not in named, (
            f"{form.command} is named twice: {named[form.command]!r}, {form.name!r}"
        )
        named[form.command] = form.name
        if form.sheet:
            assert form.command in controlled, (
                f"{form.command}: the sheet offers it, but no control issues it"
            )
    creates = system.rules.creates
    for stable, kind in stable_commands(system).items():
        if stable.startswith("core.") or (kind is creates and hasattr(kind, "from_attrs")):
            continue
        assert stable in named, f"{stable} has no name at the table (a form of the page)"


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_pages_names_and_choices_are_the_command_lines(name: str) -> None:
    """A form is named as the command line names the command (``yz tick``), each field as
    its option or argument, and a field with fixed choices offers the command line's."""
    system = get_system(name)
    if commands_point(name) is None:
        assert not system.read.forms, "a system with no command line names no form after one"
        return
    for form in system.read.forms:
        command = affordances.cli_command(name, form.name)
        assert command is not None, f"no command `ledger {form.name}` for {form.command}"
        for ask in form.asks:
            param = affordances.cli_param(command, ask.label)
            assert param is not None, f"`ledger {form.name}` has no option or argument {ask.label!r}"
            if isinstance(param.type, click.Choice):
                assert sorted(str(c) for c in ask.choices) == sorted(param.type.choices), (
                    form.name,
                    ask.label,
                )
            if isinstance(param, click.Option) and param.is_flag:  # `--no-armor` asks the opposite
                assert ask.flip == any(o.startswith("--no-") for o in param.opts), (form.name, ask.label)


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_plain_tap_on_every_ready_control_of_a_played_sheet_is_a_command(name: str, tmp_path: Path) -> None:
    """On a played campaign, each control a plain tap sends (its arguments and the defaults
    of its options) decodes into its command, and the sheet offers at least one."""
    system = get_system(name)
    with Ledger(str(tmp_path / "tap.ledger")) as book:
        _played(book, system, "Played")
        state = book.state("Played")
        commands = stable_commands(system)
        who = list(state.core.characters) or [None]
        seen = 0
        for character in who:
            for control in affordances.controls(system, system.read.sheet(state, character), state):
                seen += 1
                if not control["ready"]:
                    continue
                args = {o["field"]: o["default"] for o in control["options"] if o["default"] is not None}
                args.update(control["args"])
                msgspec.convert(args, commands[control["command"]])
        if system.read.sheet_layout is not None and system.read.sheet_layout.controls:
            assert seen, f"a played {name} sheet offers no control"
