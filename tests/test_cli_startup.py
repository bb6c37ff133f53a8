"""What one `ledger` command imports, in a fresh process as a user runs it.

A command line pays for every module it imports before it answers. A recorded action
loads the campaign's own system only, never every installed one; a command that only
reads imports none of the machinery that records, imports or exports; `ledger --help`
lists every system without importing a system that publishes its help, the campaign
facade, the store, the dice or the read side; a command on a SQLite ledger imports no
PostgreSQL driver.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.cli.main import cli
from ledger.cli.root import CORE
from ledger.cli.systems import SystemGroup, system_group
from ledger.systems import GROUP, HELP_GROUP, SystemHelp, get_system, system_names

PROBE = """
import json, sys
from ledger.cli.main import cli
code = cli.main(sys.argv[1:], prog_name="ledger", standalone_mode=False)
print()
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""
"""Runs one command line and prints, last, its exit code and every module it imported."""

RECORDING = (
    "ledger.trust.admission",
    "ledger.deciding.action",
    "ledger.dice.provable",
    "ledger.trust.integrity",
    "ledger.trust.provenance",
    "ledger.campaign.batch",
    "ledger.dice.legacy",
)
"""What records, imports or exports, and what only an older roll's rules need."""


def probed(
    tmp_path: Path, probe: str, args: tuple[str, ...], env: dict[str, str]
) -> tuple[str, dict[str, Any]]:
    """The output of one command line run under ``probe``, and what the probe saw (its
    last line)."""
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    output, _, last = done.stdout.rstrip("\n").rpartition("\n")
    seen = json.loads(last)
    assert seen["code"] == 0, (args, output, done.stderr)
    return output, seen


def run(tmp_path: Path, *args: str) -> tuple[str, dict[str, Any]]:
    """The command's output, and what the probe saw."""
    env = {**os.environ, "LEDGER_DB": str(tmp_path / "t.ledger")}
    env["LEDGER_WAREHOUSE"] = str(tmp_path / "t.duckdb")
    return probed(tmp_path, PROBE, args, env)


def systems_loaded(modules: list[str]) -> list[str]:
    """The installed systems whose System was imported (its entry point's module)."""
    points = {p.name: p.value.partition(":")[0] for p in metadata.entry_points(group=GROUP)}
    return sorted(name for name, module in points.items() if name in system_names() and module in modules)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """A freeform campaign with a roll and a note, a crawl campaign, and an export."""
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("crawl", "Mine", seed=1)
        book.new_campaign("freeform", "Table")
        book.use("Table")
        book.roll("2d6", "Table", faces=[3, 4])
        book.note("the door creaks", "Table")
        with (tmp_path / "table.jsonl").open("wb") as out:
            book.export(out, "Table")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "system"),
    [
        (["roll", "2d6"], "freeform"),
        (["note", "a new day"], "freeform"),
        (["-c", "Mine", "crawl", "move", "n"], "crawl"),
        (["import", "table.jsonl", "--name", "Copy"], "freeform"),
        (["verify"], "freeform"),
    ],
    ids=["roll", "note", "system command", "import", "verify"],
)
def test_a_command_on_a_campaign_loads_its_system_alone(table: Path, args: list[str], system: str) -> None:
    """Every other installed system stays unimported: an import's and a verify's checks
    of the rolls a system records in its own form are that system's alone."""
    _, seen = run(table, *args)
    assert systems_loaded(seen["modules"]) == [system]


@pytest.mark.parametrize(
    "args",
    [
        ["sheet"],
        ["log", "--all"],
        ["journal"],
        ["status"],
        ["stats"],
        ["query", "SELECT count(*) FROM events"],
    ],
    ids=lambda args: args[0],
)
def test_a_command_that_reads_imports_none_of_the_recording(table: Path, args: list[str]) -> None:
    output, seen = run(table, *args)
    assert output.strip()
    assert [m for m in RECORDING if m in seen["modules"]] == []


@pytest.mark.parametrize("args", [["roll", "2d6"], ["sheet"], ["verify"]], ids=lambda args: args[0])
def test_a_command_on_a_sqlite_ledger_imports_no_postgresql_driver(table: Path, args: list[str]) -> None:
    _, seen = run(table, *args)
    loaded = [m for m in seen["modules"] if m.partition(".")[0] in ("psycopg", "psycopg_pool")]
    assert loaded == [] and "eventsourcing.postgres" not in seen["modules"]


def test_the_help_lists_every_system_without_importing_one(tmp_path: Path) -> None:
    output, seen = run(tmp_path, "--help")
    publishing = [p.name for p in metadata.entry_points(group=HELP_GROUP) if isinstance(p.load(), SystemHelp)]
    assert {"freeform", "crawl", "dicepool", "yearzero", "d100", "d20"} <= set(publishing)
    assert [n for n in systems_loaded(seen["modules"]) if n in publishing] == []
    assert "ledger.campaign" not in seen["modules"] and "ledger.log.store" not in seen["modules"]
    assert [m for m in seen["modules"] if m.startswith(("ledger.dice", "ledger.projections"))] == []
    flat = " ".join(output.split())
    assert "ledger.cli.crawl" not in seen["modules"]  # its walkthrough is published apart
    for name in system_names():
        group = system_group(name)
        if group is not None:
            assert f"{group.name} {group.short_help}" in flat
        if isinstance(group, SystemGroup) and group.walkthrough is not None:
            assert group.walkthrough.title in output
            for command, what in group.walkthrough.steps:
                assert command in output and what in output


def test_the_help_reads_the_same_from_the_systems_themselves(monkeypatch: pytest.MonkeyPatch) -> None:
    """A system that publishes no help is loaded for it: the help says the same."""
    from click.testing import CliRunner

    import ledger.systems as registry
    from ledger.cli.main import cli

    monkeypatch.setattr(registry, "_loaded", {})
    assert isinstance(registry.system_help("crawl"), SystemHelp)
    published = CliRunner().invoke(cli, ["--help"])
    assert published.exit_code == 0
    everything = registry._installed_points()
    unpublished = tuple(p for p in everything if p.group != HELP_GROUP)
    monkeypatch.setattr(registry, "_installed_points", lambda: unpublished)
    monkeypatch.setattr(registry, "_loaded", {})
    assert registry.system_help("crawl") is get_system("crawl")
    assert CliRunner().invoke(cli, ["--help"]).output == published.output


WARM_STATISTICS = [["stats", "--report", "luck"], ["query", "SELECT count(*) FROM events"]]
"""The warm statistics commands the benchmark holds to the dependency floor."""

OTHER_COMMANDS = tuple(sorted(set(CORE.values())))
"""The modules of the core commands (new, roll, log, verify...), none of them a statistics command."""

NEVER_WARM = (
    "eventsourcing",
    "ledger.dice",
    "ledger.deciding",
    "ledger.log.snapshots",
    "ledger.projections.warehouse.export",
    "logging",
    "concurrent.futures",
    *OTHER_COMMANDS,
)
"""What a warm ``stats`` or ``query`` never imports: no eventsourcing (the log's top and its
new events are read on a plain SQLite connection), no dice, nothing that decides, no
snapshot of a fold, no Parquet export, no ``logging`` (which ``concurrent.futures``
brings), and no other command's module."""


def never_warm(modules: list[str]) -> list[str]:
    return [m for m in modules if m.startswith(NEVER_WARM)]


@pytest.mark.parametrize("args", WARM_STATISTICS, ids=lambda args: args[0])
def test_the_statistics_with_nothing_new_load_no_system_no_dice_and_no_logging(
    table: Path, args: list[str]
) -> None:
    run(table, "stats")  # the warehouse, built
    _, seen = run(table, *args)
    assert systems_loaded(seen["modules"]) == []
    assert never_warm(seen["modules"]) == []


@pytest.mark.parametrize("args", WARM_STATISTICS, ids=lambda args: args[0])
def test_the_statistics_after_one_action_load_its_system_alone_and_no_logging(
    table: Path, args: list[str]
) -> None:
    run(table, "stats")
    run(table, "-c", "Mine", "crawl", "move", "n")
    _, seen = run(table, *args)
    assert systems_loaded(seen["modules"]) == ["crawl"]
    assert [
        m
        for m in seen["modules"]
        if m.startswith(("eventsourcing", "logging", "concurrent.futures", *OTHER_COMMANDS))
    ] == []


@pytest.mark.parametrize("args", WARM_STATISTICS, ids=lambda args: args[0])
def test_the_statistics_after_a_note_or_a_roll_load_no_system(table: Path, args: list[str]) -> None:
    run(table, "stats")
    run(table, "-c", "Mine", "note", "the lantern gutters")
    run(table, "-c", "Mine", "roll", "2d6")
    _, seen = run(table, *args)
    assert systems_loaded(seen["modules"]) == []
    assert never_warm(seen["modules"]) == []


def test_every_report_loads_only_the_systems_the_warehouse_holds(table: Path) -> None:
    """``ledger stats`` (every report, the systems' own too) on a ledger of a crawl and a
    freeform campaign loads those two systems' reports, and no other system."""
    run(table, "stats")
    _, seen = run(table, "stats")
    assert set(systems_loaded(seen["modules"])) <= {"crawl", "freeform"}


@pytest.mark.parametrize(
    ("args", "own"), [(["roll", "2d6"], "ledger.cli.play"), (["log"], "ledger.cli.history")]
)
def test_a_core_command_imports_its_own_module_of_commands_alone(
    table: Path, args: list[str], own: str
) -> None:
    _, seen = run(table, *args)
    assert [m for m in OTHER_COMMANDS if m in seen["modules"]] == [own]


def test_every_core_command_is_added_by_the_module_the_root_group_names_for_it() -> None:
    """``CORE`` names, for each core command, the module that adds it to the root group: a
    command it leaves out would be missing from a command line that had not loaded it."""
    for module in OTHER_COMMANDS:
        importlib.import_module(module)
    added = {name: cmd.callback.__module__ for name, cmd in cli.commands.items() if cmd.callback is not None}
    assert {name: m for name, m in added.items() if m in OTHER_COMMANDS} == CORE


CATALOG_PROBE = """
import json, sys
from ledger import i18n
loads = []
load = i18n.Catalog._load
def counted(self, lang):
    loads.append([self.domain, lang])
    return load(self, lang)
i18n.Catalog._load = counted
from ledger.cli.main import cli
code = cli.main(sys.argv[1:], prog_name="ledger", standalone_mode=False)
print()
print(json.dumps({"code": code, "loads": loads, "modules": sorted(sys.modules)}))
"""
"""Runs one command line and prints, last, the catalogs it loaded, each time one was."""


def catalogs_loaded(tmp_path: Path, *args: str, lang: str | None = None) -> tuple[str, dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if k not in ("LEDGER_LANG", "LC_ALL", "LC_MESSAGES", "LANG")}
    env["LEDGER_DB"] = str(tmp_path / "t.ledger")
    if lang is not None:
        env["LEDGER_LANG"] = lang
    return probed(tmp_path, CATALOG_PROBE, args, env)


@pytest.mark.parametrize("how", ["--lang", "LEDGER_LANG"])
def test_the_spanish_help_loads_the_spanish_catalog_once(tmp_path: Path, how: str) -> None:
    args = ("--lang", "es", "--help") if how == "--lang" else ("--help",)
    output, seen = catalogs_loaded(tmp_path, *args, lang="es" if how == "LEDGER_LANG" else None)
    assert "Uso: ledger" in output
    # the ledger's catalog once; an installed plugin's too, once, for its own help line
    assert seen["loads"][0] == ["ledger", "es"]
    assert all(domain != "ledger" and lang == "es" for domain, lang in seen["loads"][1:])
    assert len({tuple(load) for load in seen["loads"]}) == len(seen["loads"])


def test_the_english_help_loads_no_catalog_and_no_babel(tmp_path: Path) -> None:
    output, seen = catalogs_loaded(tmp_path, "--help")
    assert output.startswith("Usage: ledger")
    assert seen["loads"] == []
    assert [m for m in seen["modules"] if m.partition(".")[0] == "babel"] == []


@pytest.mark.parametrize(("lang", "loads"), [(None, []), ("es", [["ledger", "es"]])])
def test_a_recorded_action_loads_one_catalog_at_most(
    table: Path, lang: str | None, loads: list[list[str]]
) -> None:
    _, seen = catalogs_loaded(table, "roll", "2d6", lang=lang)
    assert seen["loads"] == loads
    if lang is None:
        assert [m for m in seen["modules"] if m.partition(".")[0] == "babel"] == []
