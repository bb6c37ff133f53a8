"""`ledger character create NAME ...` makes a character in every system, as its own wizard does."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Session

SEVEN = "6,5,4,3,3,2,1,1,2,6,6,6,4,4,4,5,5,3,2,3,4"
CASES = {
    "freeform": (("character", "add"), ["--attr", "class=rogue"]),
    "yearzero": (
        ("yz", "character"),
        ["--strength", "3", "--agility", "4", "--wits", "2", "--empathy", "3", "--skill", "shoot=2"],
    ),
    "dicepool": (("dicepool", "join"), ["--attr", "body=3", "--attr", "pool.combat=6"]),
    "d100": (
        ("d100", "character"),
        ["TAM=12", "CON=11", "FUE=10", "INT=14", "EDU=15", "DES=9", "CAR=12", "POD=13", "skill.Trepar=40"],
    ),
    "d20": (("d20", "create"), ["--assign", "fue=18,des=15,con=13,int=12,sab=9,car=8", "--faces", SEVEN]),
}


def created(run: Session, campaign: str) -> list[dict[str, object]]:
    return [e for e in json.loads(run("-c", campaign, "log", "--json").output) if e["version"] > 1]


@pytest.mark.parametrize("system", sorted(CASES))
def test_create_records_what_the_system_wizard_records(ledger_cli: Session, system: str) -> None:
    run = ledger_cli
    wizard, options = CASES[system]
    run("new", system, "One", "--seed", "5")
    run("new", system, "Two", "--seed", "5")
    run("-c", "One", "character", "create", "Ana", *options)
    run(*wizard, "Ana", *options, "-c", "Two")
    one, two = created(run, "One"), created(run, "Two")
    assert one and [e["summary"] for e in one] == [e["summary"] for e in two]
    assert "Ana" in run("-c", "One", "sheet").output


def test_create_takes_the_campaign_after_the_name_too(ledger_cli: Session) -> None:
    ledger_cli("new", "yearzero", "Z")
    ledger_cli("new", "freeform", "F")
    ledger_cli("character", "create", "Ana", "-c", "Z", *CASES["yearzero"][1])
    assert created(ledger_cli, "Z") and not created(ledger_cli, "F")


def test_help_shows_the_current_systems_options(ledger_cli: Session) -> None:
    ledger_cli("new", "yearzero", "Z")
    out = ledger_cli("character", "create", "--help").output
    assert " character create [OPTIONS] NAME" in out and "--strength" in out and "--attr" not in out
    assert out.startswith("The yearzero system's options")
    d20 = ledger_cli("new", "d20", "D")
    assert d20.exit_code == 0
    assert "--class" in ledger_cli("character", "create", "-c", "D", "-h").output


def test_help_without_a_campaign_says_to_pass_one(ledger_cli: Session) -> None:
    out = ledger_cli("character", "create", "--help")
    assert out.exit_code == 0 and "-c CAMPAIGN" in out.output
    assert "yearzero" in out.output and "--strength" in out.output


def test_a_solo_crawl_refuses_another_character(ledger_cli: Session) -> None:
    ledger_cli("new", "crawl", "C", "--explorer", "Ada")
    before = ledger_cli("log").output
    for verb in ("create", "add"):
        out = ledger_cli("character", verb, "Bob", ok=False)
        assert out.exit_code != 0 and "crawl is solo" in out.stderr and out.stderr.count("\n") == 1
    assert ledger_cli("log").output == before


def test_create_refuses_the_systems_missing_options(ledger_cli: Session) -> None:
    ledger_cli("new", "yearzero", "Z")
    out = ledger_cli("character", "create", "Ana", "--strength", "3", ok=False)
    assert out.exit_code == 2 and "--agility" in out.output + out.stderr
    assert not created(ledger_cli, "Z")


def test_the_system_wizards_are_the_very_command_create_runs() -> None:
    import click

    from ledger.cli.create import CharacterCreate
    from ledger.cli.main import cli

    root = click.Context(cli)
    character = cli.get_command(root, "character")
    assert isinstance(character, click.Group)
    create = character.get_command(click.Context(character), "create")
    assert isinstance(create, CharacterCreate)
    creator = create.creator
    for system, (group, name) in {
        "yearzero": ("yz", "character"),
        "dicepool": ("dicepool", "join"),
        "d100": ("d100", "character"),
        "d20": ("d20", "create"),
    }.items():
        found = cli.get_command(root, group)
        assert isinstance(found, click.Group)
        assert found.get_command(click.Context(found), name) is creator(system), system
    assert character.get_command(click.Context(character), "add") is creator("freeform")
