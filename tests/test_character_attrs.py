"""`character add` checks its attributes as `character create` does, in every system:
what the creation refuses, adding refuses too, nothing is recorded, and the error names
the checked creation."""

from __future__ import annotations

from tests.conftest import Session

D100 = ("TAM=50", "CON=10", "FUE=10", "INT=10", "EDU=10", "DES=10", "CAR=10", "POD=10")


def refused(s: Session, *args: str) -> str:
    before = s("log").output
    out = s(*args, ok=False)
    assert out.exit_code == 1 and out.stderr.count("\n") == 1
    assert s("log").output == before
    return out.stderr


def test_d100_add_refuses_a_characteristic_the_creation_refuses(ledger_cli: Session) -> None:
    ledger_cli("new", "d100", "Cthulhu")
    attrs = [a for kv in ("TAM=5000", *D100[1:]) for a in ("--attr", kv)]
    err = refused(ledger_cli, "character", "add", "Carla", *attrs)
    assert "TAM" in err and "5000" in err


def test_d100_add_refuses_an_unknown_key(ledger_cli: Session) -> None:
    ledger_cli("new", "d100", "Cthulhu")
    attrs = [a for kv in (*D100, "foo=bar") for a in ("--attr", kv)]
    err = refused(ledger_cli, "character", "add", "Carla", *attrs)
    assert err == "error: foo='bar' is not KEY=NUMBER; e.g. DES=12 or skill.Trepar=40\n"


def test_dicepool_refuses_a_skill_its_table_does_not_have(ledger_cli: Session) -> None:
    ledger_cli("new", "dicepool", "Seattle")
    for verb in ("add", "create"):
        err = refused(ledger_cli, "character", verb, "Troll", "--attr", "body=6", "--attr", "skill.unarmed=4")
        assert err == (
            "error: no skill 'unarmed' in the campaign's skills table (did you mean unarmed_combat?); "
            "see `ledger tables skills`\n"
        )
    ledger_cli("character", "add", "Troll", "--attr", "body=6", "--attr", "skill.unarmed_combat=4")


def test_yearzero_refuses_an_attribute_above_five(ledger_cli: Session) -> None:
    ledger_cli("new", "yearzero", "Ark")
    fix = "create it with `ledger character create NAME --strength N --agility N --wits N --empathy N`\n"
    err = refused(
        ledger_cli,
        "character",
        "create",
        "Ana",
        "--strength",
        "9",
        "--agility",
        "3",
        "--wits",
        "3",
        "--empathy",
        "3",
    )
    assert err.startswith(
        "error: cannot read strength=9; use strength/agility/wits/empathy=1..5"
    ) and err.endswith(fix)
    attrs = ("--attr", "strength=9", "--attr", "agility=3", "--attr", "wits=3", "--attr", "empathy=3")
    assert refused(ledger_cli, "character", "add", "Ana", *attrs) == err
    signed = ("--attr", "strength=+7", "--attr", "agility=3", "--attr", "wits=3", "--attr", "empathy=3")
    assert refused(ledger_cli, "character", "add", "Cy", *signed).startswith(
        "error: cannot read strength=+7; use strength/agility/wits/empathy=1..5"
    ), "a sign does not get a value past the maximum"
    err = refused(ledger_cli, "character", "add", "Bo", "--attr", "strength=4")
    assert err == f"error: give every attribute; missing agility, wits, empathy; {fix}"


def test_a_system_whose_creation_takes_no_attributes_refuses_them_on_add(ledger_cli: Session) -> None:
    ledger_cli("new", "d20", "Nostromo")
    err = refused(ledger_cli, "character", "add", "Zed", "--attr", "foo=bar")
    assert err == (
        "error: a d20 character takes no attributes (foo given): its creation gives them; "
        "create it with `ledger character create Zed`\n"
    )
    ledger_cli("new", "crawl", "Mine")
    err = refused(ledger_cli, "character", "add", "Ada", "--attr", "foo=bar")
    assert (
        err == "error: crawl's character has no attributes (foo given); run `ledger character create Ada`\n"
    )
