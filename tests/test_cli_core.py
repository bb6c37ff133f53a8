"""The core commands, driven like a terminal session."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.conftest import Session


def roll_lines(out: str) -> list[str]:
    return [
        line for line in out.splitlines() if " rolled " in line and not (" undo " in line or " redo" in line)
    ]


def test_freeform_session_with_undo_and_redo(ledger_cli: Session) -> None:
    run = ledger_cli
    run("new", "freeform", "Friday")
    for faces in ("1,1", "2,2", "3,3", "4,4", "5,5"):
        run("roll", "2d6", "--faces", faces)
    run("undo", "2")
    run("redo")
    effective = run("log").output
    assert len(roll_lines(effective)) == 4
    assert "[undone]" not in effective
    everything = run("log", "--all").output
    lines = roll_lines(everything)
    assert len(lines) == 5
    assert [line for line in lines if "[undone]" in line] == [line for line in lines if "[5,5]" in line]
    data = json.loads(run("--json", "log", "--all").output)
    assert [e["undone"] for e in data if e["kind"] == "dice.rolled"] == [False, False, False, False, True]
    sheet = json.loads(run("sheet", "--json").output)
    assert sheet["rolls"] == 4


def test_roll_output_shows_every_face(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "F")
    out = ledger_cli("roll", "4d6kh3", "--faces", "6,5,2,3", "--label", "STR").output
    assert out.strip() == "STR: 4d6kh3 = 14  [6, 5, ~2, 3]"
    out = ledger_cli("roll", "3d6!", "--faces", "6,2,3,4").output
    assert out.strip() == "3d6! = 15  [6, 2!, 3, 4]"
    out = ledger_cli("roll", "8d6>=5", "--faces", "1,2,3,4,5,6,5,5").output
    assert out.strip().startswith("8d6>=5 = 4 successes")


def test_fork_at_version_three(ledger_cli: Session) -> None:
    run = ledger_cli
    run("new", "freeform", "Main")
    run("roll", "1d6", "--faces", "1")
    run("roll", "1d6", "--faces", "2")
    run("roll", "1d6", "--faces", "3")
    run("fork", "Alt", "--at", "3")
    run("-c", "Alt", "roll", "1d6", "--faces", "6")
    run("-c", "Main", "roll", "1d6", "--faces", "5")
    main = json.loads(run("--json", "-c", "Main", "log").output)
    alt = json.loads(run("--json", "-c", "Alt", "log").output)
    totals = lambda log: [e["summary"].split("= ")[1][0] for e in log if e["kind"] == "dice.rolled"]  # noqa: E731
    assert totals(main) == ["1", "2", "3", "5"]
    assert totals(alt) == ["1", "2", "6"]
    run("-c", "Alt", "fork", "Alt2")
    run("-c", "Alt2", "roll", "1d6", "--faces", "4")
    assert totals(json.loads(run("--json", "-c", "Alt", "log").output)) == ["1", "2", "6"]
    out = run("verify", "--all").output
    assert "ok  Main" in out and "ok  Alt2" in out
    names = [c["name"] for c in json.loads(run("--json", "campaigns").output)]
    assert names == ["Main", "Alt", "Alt2"]


def _store(db: str) -> sqlite3.Connection:
    return sqlite3.connect(db)


def test_edited_payload_byte_is_caught(ledger_cli: Session, db: str) -> None:
    run = ledger_cli
    run("new", "freeform", "T")
    run("roll", "2d6", "--faces", "3,4")
    run("roll", "2d6", "--faces", "5,6")
    with _store(db) as conn:
        conn.execute(
            "UPDATE ledger_events SET state = CAST(replace(CAST(state AS TEXT), '\"face\":5', '\"face\":6') AS BLOB)"
            " WHERE originator_version = 3 AND topic = 'dice.rolled'"
        )
    result = run("verify", ok=False)
    assert result.exit_code == 4
    assert "campaign 'T' fails verification at version 3" in result.output


def test_deleted_row_is_caught(ledger_cli: Session, db: str) -> None:
    run = ledger_cli
    run("new", "freeform", "T")
    for face in ("1", "2", "3"):
        run("roll", "1d6", "--faces", face)
    with _store(db) as conn:
        conn.execute("DELETE FROM ledger_events WHERE originator_version = 2 AND topic = 'dice.rolled'")
    result = run("verify", ok=False)
    assert result.exit_code == 4
    assert "at version 2: the event is missing" in result.output


def test_bad_input_is_one_line_and_records_nothing(ledger_cli: Session, db: str, tmp_path: Path) -> None:
    run = ledger_cli
    run("new", "freeform", "F")
    run("roll", "1d6", "--faces", "4")
    before = run("--json", "log", "--all").output
    cases = [
        (("-c", "Nope", "roll", "1d6"), "no campaign named 'Nope'"),
        (("new", "chess", "G"), "unknown system 'chess'"),
        (("roll", "2d6+"), "bad dice notation '2d6+'"),
        (("roll", "2d6", "--faces", "7,1"), "face 7 (position 1) is not on a d6"),
        (("roll", "2d6", "--faces", "1"), "too few faces"),
        (("roll", "2d6", "--faces", "1,2,3"), "too many faces"),
        (("roll", "2d6", "--faces", "a,b"), "not a whole number"),
        (("fork", "Later", "--at", "99"), "head is version 2"),
        (("roll", "1000000d6"), "above the limit"),
        (("roll", "3d1!"), "explode forever"),
    ]
    for args, message in cases:
        result = run(*args, ok=False)
        assert result.exit_code != 0, args
        assert message in result.stderr, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "Traceback" not in result.output
    run("new", "freeform", "Empty")
    result = run("-c", "Empty", "undo", ok=False)
    assert "nothing to undo in 'Empty'" in result.stderr
    assert run("--json", "-c", "F", "log", "--all").output == before


def test_not_a_ledger_files_are_refused_untouched(tmp_path: Path) -> None:
    junk = tmp_path / "junk.ledger"
    junk.write_bytes(b"\x00\x01not a database at all" * 50)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    other_bytes = other.read_bytes()
    for path, message in (
        (junk, "not a campaign-ledger file"),
        (other, "another application's SQLite database"),
    ):
        before = path.read_bytes()
        result = Session(str(path))("campaigns", ok=False)
        assert result.exit_code == 3
        assert message in result.stderr
        assert path.read_bytes() == before
    assert other.read_bytes() == other_bytes


def test_unreachable_postgres_is_a_clear_error() -> None:
    result = Session("postgresql://postgres@127.0.0.1:1/test")("campaigns", ok=False)
    assert result.exit_code == 3
    assert "cannot reach PostgreSQL database test at 127.0.0.1:1" in result.stderr
    assert "start the server or fix --db" in result.stderr


def test_every_command_has_help(ledger_cli: Session) -> None:
    import click

    from ledger.cli.main import cli

    ctx = click.Context(cli)

    def walk(group: click.Group, path: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            assert command.help, f"ledger {' '.join([*path, name])} has no help text"
            if isinstance(command, click.Group):
                walk(command, [*path, name])

    walk(cli, [])
    assert "Keep a tabletop campaign" in ledger_cli("--help").output


def test_export_and_import_through_the_cli(ledger_cli: Session, tmp_path: Path) -> None:
    run = ledger_cli
    run("new", "freeform", "E")
    run("roll", "1d20", "--faces", "20")
    out = tmp_path / "e.jsonl"
    run("export", "-o", str(out))
    run("import", str(out), "--name", "E-copy")
    assert "chain verified" in run("import", str(out), "--name", "E-copy2").output
    text = out.read_text().replace('"face":20', '"face":19')
    edited = tmp_path / "edited.jsonl"
    edited.write_text(text)
    result = run("import", str(edited), "--name", "E-bad", ok=False)
    assert result.exit_code == 4 and "import refused" in result.stderr


def test_the_sheet_shows_luck_against_expectation(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "L")
    ledger_cli("roll", "4d6>=6", "--faces", "6,6,1,2")
    ledger_cli("roll", "4d6>=6", "--faces", "6,5,1,2")
    luck = json.loads(ledger_cli("--json", "sheet").output)["luck_index"]
    assert luck["judged"] == 2 and luck["successes"] == 2
    assert luck["expected"] == round(2 * (1 - (5 / 6) ** 4), 2)
    assert luck["luck"] > 0
    early = json.loads(ledger_cli("--json", "sheet", "--at", "2").output)["luck_index"]
    assert early["judged"] == 1
