"""One spelling for each thing: redo takes a count, replay takes --at and reads like a sheet."""

from __future__ import annotations

import json

from tests.conftest import Session


def five_rolls(run: Session) -> None:
    run("new", "freeform", "F")
    for face in "12345":
        run("roll", "1d6", "--faces", face)


def test_redo_takes_a_count_like_undo(ledger_cli: Session) -> None:
    run = ledger_cli
    five_rolls(run)
    run("undo", "3")
    out = run("redo", "2").output
    assert out.count("redo:") == 2
    kinds = [e["kind"] for e in json.loads(run("log", "--json").output)]
    assert kinds.count("dice.rolled") == 4
    assert "[4]" in run("log").output and "[5]" not in run("log").output
    refused = run("redo", "2", ok=False)
    assert refused.exit_code != 0 and "only 1 action(s) to redo" in refused.output + refused.stderr
    run("redo", "1")
    assert "[5]" in run("log").output
    run("verify")


def test_redo_refuses_a_count_below_one(ledger_cli: Session) -> None:
    five_rolls(ledger_cli)
    ledger_cli("undo")
    out = ledger_cli("redo", "0", ok=False)
    assert out.exit_code != 0 and "at least 1" in out.stderr
    assert "[5]" not in ledger_cli("log").output


def test_replay_stops_at_with_at_and_keeps_to_with_a_warning(ledger_cli: Session) -> None:
    five_rolls(ledger_cli)
    at = ledger_cli("replay", "--at", "3")
    assert at.output.splitlines()[-3].startswith("v3:") and "v4" not in at.output
    old = ledger_cli("replay", "--to", "3")
    assert old.stdout == at.stdout
    assert "replay --at" in old.stderr


def test_replay_shows_values_as_a_player_reads_them(ledger_cli: Session) -> None:
    ledger_cli("new", "crawl", "C", "--seed", "3")
    ledger_cli("crawl", "move", "n")
    out = ledger_cli("replay").output
    assert "None" not in out and "['" not in out and "{'" not in out, out
    assert "->" in out
