"""A system's commands on the command line: the group its ``campaign_ledger.commands`` entry
point registers, loaded once, when the command line first needs it; a broken one is a
one-line refusal naming the system."""

from __future__ import annotations

from importlib import metadata

import click
import pytest
from click.testing import CliRunner

from ledger.cli import systems as on_cli
from ledger.cli.main import cli
from ledger.cli.systems import SystemGroup, system_group
from ledger.errors import PluginError
from ledger.systems import COMMANDS_GROUP, commands_point


def test_each_system_with_commands_registers_one_system_group_once() -> None:
    for name in ("crawl", "dicepool", "yearzero", "d100", "d20"):
        point = commands_point(name)
        assert point is not None and point.group == COMMANDS_GROUP, name
        group = system_group(name)
        assert isinstance(group, SystemGroup) and system_group(name) is group, name
    assert commands_point("freeform") is None and system_group("freeform") is None


def test_a_system_group_says_how_its_characters_are_made() -> None:
    d20 = system_group("d20")
    assert isinstance(d20, SystemGroup) and d20.create is d20.commands["create"]
    crawl = system_group("crawl")
    assert isinstance(crawl, SystemGroup) and crawl.first_steps and crawl.hints is not None


def _broken(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    point = metadata.EntryPoint(name="crawl", value=value, group=COMMANDS_GROUP)
    monkeypatch.setattr(on_cli, "commands_point", lambda name: point if name == "crawl" else None)
    monkeypatch.setattr(on_cli, "_groups", {})


def test_commands_that_do_not_import_are_a_plugin_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _broken(monkeypatch, "campaign_ledger_nowhere.cli:register")
    with pytest.raises(PluginError, match=r"the system 'crawl' .* its commands do not import"):
        system_group("crawl")


def test_a_registration_of_two_commands_is_a_plugin_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def register(group: click.Group) -> None:
        group.add_command(click.Command("one"))
        group.add_command(click.Command("two"))

    _broken(monkeypatch, "ledger.cli.crawl:register")
    monkeypatch.setattr(metadata.EntryPoint, "load", lambda _self: register)
    with pytest.raises(PluginError, match="it registers 2 commands, not one group"):
        system_group("crawl")


def test_a_broken_group_is_one_line_on_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    _broken(monkeypatch, "campaign_ledger_nowhere.cli:register")
    done = CliRunner().invoke(cli, ["crawl", "move", "n"])
    assert done.exit_code == 1
    assert done.output.startswith(
        "error: the system 'crawl' (campaign_ledger_nowhere.cli:register) is broken"
    )
    assert "Traceback" not in done.output and len(done.output.splitlines()) == 1
