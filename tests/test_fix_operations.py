"""A refusal's fix is one operation of a closed set with typed arguments (ledger.errors),
and the command line words each one (ledger.cli.fixes): the line a user reads, and the
``fix`` of an error's ``--json``, which is the operation's tag and fields."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from ledger import errors
from ledger.cli import fixes
from ledger.cli.main import cli
from ledger.errors import (
    FIXES,
    AnyFix,
    ChooseActor,
    ChooseCharacter,
    CreateCampaign,
    CreateCharacter,
    DropOption,
    EditTable,
    GiveOption,
    Input,
    LedgerError,
    Other,
    ReadTable,
    RunCommand,
    Setting,
    SystemCommands,
    Undo,
)

EVERY = [
    Undo(text="undo it"),
    ChooseCharacter(text="say who acts", characters=("Ana", "Grit")),
    ChooseActor(text="choose who acts", characters=("Ana",)),
    CreateCharacter(text="create one"),
    CreateCampaign(text="start it", name="Tomb"),
    SystemCommands(text="use its commands", system="d20"),
    RunCommand(text="verify the whole ledger", command="verify", options=(Input("all"),)),
    GiveOption(text="name the weapon", inputs=(Input("weapon", "NAME"),), system="d20"),
    DropOption(text="roll without pushing", inputs=("push",), system="d20"),
    EditTable(text="fix it", table="enemies.rat"),
    ReadTable(text="see it", table="skills"),
    Setting(text="give it", key="wounds"),
    Other(text="fix the syntax"),
]


def test_the_set_is_closed_and_each_operation_has_its_own_tag() -> None:
    assert set(typing.get_args(AnyFix)) == set(FIXES) == {type(f) for f in EVERY}
    tags = [f.action for f in EVERY]
    assert len(set(tags)) == len(tags)


@pytest.mark.parametrize("fix", EVERY, ids=lambda f: f.action)
def test_a_fix_is_data_read_back_as_it_was_written(fix: errors.Fix) -> None:
    assert msgspec.json.decode(msgspec.json.encode(fix), type=AnyFix) == fix


@pytest.mark.parametrize("fix", EVERY, ids=lambda f: f.action)
def test_its_json_is_the_tag_the_typed_fields_and_the_line_to_type(fix: errors.Fix) -> None:
    shown = fixes.as_json(fix)
    assert shown is not None
    fields = {f.encode_name for f in msgspec.structs.fields(fix)}
    assert set(shown) == {"action"} | fields and shown["action"] == fix.action
    assert shown["text"] == fixes.worded(fix) and "{" not in shown["text"]
    assert not {"detail", "verb", "after", "how"} & set(shown)


@pytest.mark.parametrize(
    ("fix", "line"),
    [
        (
            RunCommand(text="verify the whole ledger", command="verify", options=(Input("all"),)),
            "run `ledger verify --all`",
        ),
        (
            RunCommand(
                text="reveal it first with `dice reveal` (it opens the next one)", command="dice reveal"
            ),
            "reveal it first with `ledger dice reveal` (it opens the next one)",
        ),
        (
            RunCommand(
                text="clear it with `unjam`",
                command="unjam",
                options=(Input("weapon", "sawn-off gun"),),
                system="d20",
            ),
            "clear it with `ledger d20 unjam --weapon 'sawn-off gun'`",
        ),
        (
            RunCommand(
                text="check `target`, or start one with `new`", command="new", arguments=("SYSTEM", "NAME")
            ),
            "check --db / LEDGER_DB, or start one with `ledger new SYSTEM NAME`",
        ),
        (GiveOption(text="name the weapon", inputs=(Input("weapon", "NAME"),)), "pass --weapon NAME"),
        (
            GiveOption(text="x", inputs=(Input("gear", "N"), Input("item", "NAME")), exclusive=True),
            "pass --gear N or --item NAME, not both",
        ),
        (
            GiveOption(text="x", inputs=(Input("damage", "CODE"), Input("against", "N")), every=True),
            "pass --damage CODE and --against N",
        ),
        (GiveOption(text="give `db` a file path", inputs=(Input("db"),)), "give --db a file path"),
        (
            GiveOption(text="x", inputs=(Input("target", "CHARACTER"),), system="dicepool"),
            "pass --target CHARACTER",
        ),
        (DropOption(text="x", inputs=("skill", "ins")), "drop --skill or --ins"),
        (
            DropOption(text="x", inputs=("mode", "range", "distance"), every=True),
            "drop --mode, --range and --distance",
        ),
        (DropOption(text="x", inputs=("multi_attack_weapon",), system="d100"), "drop --multi-attack-weapon"),
        (ChooseCharacter(text="x", characters=("Ana",)), "say who acts with --as NAME"),
        (
            EditTable(text="x", table="skills"),
            "fix the [skills] table of the tables file (`ledger new ... --tables FILE`)",
        ),
        (Other(text="fix the syntax"), "fix the syntax"),
    ],
)
def test_the_command_line_words_each_operation(fix: errors.Fix, line: str) -> None:
    assert fixes.worded(fix) == line


@pytest.mark.parametrize(
    ("fix", "line"),
    [
        (
            RunCommand(
                text="choose one with `use` or give `campaign` NAME", command="use", arguments=("NAME",)
            ),
            "choose one with `ledger use NAME` or give -c NAME",
        ),
        (RunCommand(text="see `log`", command="log", options=(Input("all"),)), "see `ledger log --all`"),
        (RunCommand(text="verify the campaign", command="verify"), "run `ledger verify`"),
        (GiveOption(text="use `at` VERSION", inputs=(Input("at", "VERSION"),)), "use --at VERSION"),
        (GiveOption(text="use `day` 0 to 4", inputs=(Input("day", "0 to 4"),)), "use --day 0 to 4"),
        (DropOption(text="drop `settings`", inputs=("settings",)), "drop --setting"),
        (
            GiveOption(text="start a campaign without `seed` for committed dice", inputs=(Input("seed"),)),
            "start a campaign without --seed for committed dice",
        ),
    ],
)
def test_the_ledgers_refusals_word_as_the_command_line_words_them(fix: errors.Fix, line: str) -> None:
    assert fixes.worded(fix) == line


def test_a_message_names_an_operation_the_command_line_spells() -> None:
    refused = LedgerError("`query` is read-only: DELETE statements are refused; use SELECT")
    assert fixes.message(refused) == "ledger query is read-only: DELETE statements are refused; use SELECT"
    assert str(refused).startswith("`query` is read-only")


def test_the_json_of_a_refusal_holds_no_grammar_of_the_command_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--json", "--db", str(tmp_path / "none.ledger"), "status"])
    assert result.exit_code == 3
    fix = json.loads(result.output)["error"]["fix"]
    assert fix == {
        "action": "command",
        "command": "new",
        "arguments": ["SYSTEM", "NAME"],
        "options": [],
        "system": None,
        "text": "check --db / LEDGER_DB, or start one with `ledger new SYSTEM NAME`",
    }


def test_a_hint_quotes_a_name_with_a_space_as_the_shell_reads_it_back(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "q.ledger")

    def invoke(*args: str) -> str:
        result = runner.invoke(cli, ["--db", db, *args])
        return result.output

    invoke("new", "freeform", "La Casa")
    invoke("character", "add", "Ann", "-c", "La Casa")
    assert "(back with `ledger use 'La Casa'`)" in invoke("-c", "La Casa", "fork", "Mi Fork")
    missing = invoke("-c", "La Casa", "roll", "1d6", "--as", "Zed Z")
    assert missing.rstrip("\n").endswith("add one with `ledger character add 'Zed Z'`")
    unknown = invoke("-c", "No Such", "log")
    assert "create it with `ledger new SYSTEM 'No Such'`" in unknown
    plain = invoke("-c", "Nada", "log")
    assert "`ledger new SYSTEM Nada`" in plain  # a name that needs no quotes has none
