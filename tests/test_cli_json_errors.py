"""Output a script can trust: with --json every error is one JSON object on stdout with
the exit code; Ctrl-C exits 130 in one line; reading never creates a file; an export
never overwrites a file unasked."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ledger.cli.main import EXIT_CODES
from tests.conftest import Session

ROOT = Path(__file__).parents[1]


def error_of(result: object) -> dict[str, object]:
    """The one JSON error object a --json refusal prints, checked for its shape."""
    stdout: str = result.stdout  # type: ignore[attr-defined]
    body = json.loads(stdout)
    assert list(body) == ["error"], body
    error = body["error"]
    assert {"type", "message", "exit_code"} <= set(error), error
    assert error["exit_code"] == result.exit_code != 0  # type: ignore[attr-defined]
    assert result.stderr == ""  # type: ignore[attr-defined]
    return error  # type: ignore[no-any-return]


def test_a_refusal_is_one_json_object_with_its_fields(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Here")
    error = error_of(ledger_cli("--json", "-c", "There", "note", "x", ok=False))
    assert error["type"] == "UnknownCampaignError" and error["exit_code"] == 1
    assert error["name"] == "There" and error["known"] == ["Here"]
    assert "no campaign named 'There'" in str(error["message"])


def test_json_after_the_command_also_gives_json_errors(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Here")
    error = error_of(ledger_cli("roll", "2d", "--json", ok=False))
    assert error["type"] == "NotationError" and error["notation"] == "2d"


@pytest.mark.parametrize(
    ("args", "kind", "param"),
    [
        (["--json", "nosuch"], "NoSuchCommand", None),
        (["--json", "note"], "MissingParameter", "text"),
        (["--json", "roll", "1d6", "--bogus"], "NoSuchOption", None),
        (["--json", "undo", "many"], "BadParameter", "count"),
    ],
)
def test_a_usage_error_is_json_with_exit_2(
    ledger_cli: Session, args: list[str], kind: str, param: str | None
) -> None:
    ledger_cli("new", "freeform", "Here")
    error = error_of(ledger_cli(*args, ok=False))
    assert error["type"] == kind and error["exit_code"] == 2
    if param is not None:
        assert error["param"] == param


def test_without_json_a_usage_error_stays_click_text(ledger_cli: Session) -> None:
    result = ledger_cli("nosuch", ok=False)
    assert result.exit_code == 2 and result.stdout == ""
    assert "No such command 'nosuch'" in result.stderr


def test_a_storage_error_is_json_with_exit_3_and_the_path(tmp_path: Path) -> None:
    typo = tmp_path / "typo.ledger"
    error = error_of(Session(str(typo))("--json", "campaigns", ok=False))
    assert error["type"] == "StoreError" and error["exit_code"] == 3
    assert error["path"] == str(typo)


def test_a_tampered_log_is_json_with_exit_4(ledger_cli: Session) -> None:
    import sqlite3

    ledger_cli("new", "freeform", "T")
    ledger_cli("note", "hello")
    with sqlite3.connect(ledger_cli.db) as conn:
        for rowid, state in conn.execute("SELECT rowid, state FROM ledger_events").fetchall():
            if b"hello" in bytes(state):
                edited = bytes(state).replace(b"hello", b"jello")
                conn.execute("UPDATE ledger_events SET state = ? WHERE rowid = ?", (edited, rowid))
    error = error_of(ledger_cli("--json", "verify", ok=False))
    assert error["type"] == "TamperError" and error["exit_code"] == 4
    assert error["campaign"] == "T" and error["version"] == 2


def test_the_readme_documents_every_exit_code() -> None:
    readme = (ROOT / "README.md").read_text()
    for code, meaning in EXIT_CODES.items():
        assert f"| {code} | {meaning} |" in readme, code


# --- reading never writes ---------------------------------------------------------------


@pytest.mark.parametrize(
    "args", [["campaigns"], ["status"], ["log"], ["sheet"], ["verify", "--all"], ["note", "x"]]
)
def test_a_missing_ledger_is_an_error_naming_it_and_no_file_is_made(tmp_path: Path, args: list[str]) -> None:
    typo = tmp_path / "typo.ledger"
    result = Session(str(typo))(*args, ok=False)
    assert result.exit_code == 3
    assert result.stderr.strip() == (
        f"error: no ledger at {typo}; check --db / LEDGER_DB, or start one with `ledger new SYSTEM NAME`"
    )
    assert list(tmp_path.iterdir()) == []


def test_new_still_makes_the_ledger(tmp_path: Path) -> None:
    Session(str(tmp_path / "fresh.ledger"))("new", "freeform", "First")
    assert (tmp_path / "fresh.ledger").exists()


def test_read_only_file_and_folder_can_be_listed_shown_verified_and_exported(tmp_path: Path) -> None:
    """chmod a-w on the ledger and its folder: reads work and leave the folder as it
    was; writes are refused with exit 3 (unless we are root, whom modes do not stop)."""
    place = tmp_path / "ro"
    place.mkdir()
    db = place / "t.ledger"
    s = Session(str(db))
    s("new", "freeform", "Tomb")
    s("note", "sealed")
    s("key", "show")  # the key exists: the export is signed
    db.chmod(0o444)
    place.chmod(0o555)
    try:
        names = sorted(p.name for p in place.iterdir())
        assert "Tomb" in s("campaigns").stdout
        assert "sealed" in s("log").stdout
        assert s("sheet").stdout.startswith("Tomb (freeform)\n")
        assert s("verify", "--all").stdout.startswith("ok")
        exported = json.loads(s("--json", "export").stdout)
        assert exported["signed"] is True and exported["events"] == 2
        assert sorted(p.name for p in place.iterdir()) == names
        if os.geteuid() != 0:  # root may write whatever the modes say
            refused = s("note", "more", ok=False)
            assert refused.exit_code == 3 and "read-only" in refused.stderr
    finally:
        place.chmod(0o755)
        db.chmod(0o644)


# --- export ---------------------------------------------------------------------------------


def test_export_refuses_an_existing_file_unless_forced(ledger_cli: Session, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "Here")
    out = tmp_path / "here.jsonl"
    out.write_text("precious\n")
    refused = ledger_cli("export", "-o", str(out), ok=False)
    assert refused.exit_code == 1
    assert refused.stderr.strip() == f"error: {out} exists; give --force to replace it, or another -o FILE"
    assert out.read_text() == "precious\n"
    assert ledger_cli("export", "-o", str(out), "--force").stdout.startswith("exported 1 event ")
    assert '"campaign-ledger-export"' in out.read_text()
    assert not (tmp_path / "here.jsonl.part").exists()


def test_export_json_is_one_object_whose_lines_are_the_file(ledger_cli: Session, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "Here")
    ledger_cli("note", "kept")
    data = json.loads(ledger_cli("--json", "export", "--unsigned").stdout)
    assert data["campaign"] == "Here" and data["events"] == 2 and data["signed"] is False
    path = tmp_path / "from-json.jsonl"
    path.write_text("\n".join(data["lines"]) + "\n")
    assert ledger_cli("import", str(path), "--name", "Again").stdout.startswith("imported 'Again'")


# --- Ctrl-C and the terminal -------------------------------------------------------------------


def _ledger_process(args: list[str], cwd: Path, **kw: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEDGER_DB", None)
    return subprocess.Popen(
        [sys.executable, "-m", "ledger.cli.main", *args],
        cwd=cwd,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_ctrl_c_exits_130_in_one_line(tmp_path: Path, json_flag: list[str]) -> None:
    proc = _ledger_process(
        [*json_flag, "simulate", "freeform", "--campaigns", "100000", "--seed", "1"], tmp_path
    )
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "Aborted!" not in err and "Traceback" not in err
    if json_flag:
        assert json.loads(out)["error"]["exit_code"] == 130
        assert err.strip() == ""
    else:
        lines = [ln for ln in err.replace("\r", "\n").splitlines() if ln.strip()]
        assert lines[-1].startswith("error: interrupted"), err
        assert [ln for ln in lines if ln.startswith("error")] == [lines[-1]]


def test_simulate_shows_a_progress_bar_with_an_eta_on_a_terminal(tmp_path: Path) -> None:
    import pty

    main, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEDGER_DB", None)
    # Enough work for several seconds on a fast machine: the bar gives the time left only
    # once a second has passed (click computes it no sooner).
    args = ["simulate", "freeform", "--campaigns", "400", "--days", "20", "--seed", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ledger.cli.main", *args],
        cwd=tmp_path,
        env=env,
        stdin=child,
        stdout=child,
        stderr=child,
    )
    os.close(child)
    shown = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed: the process ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    assert proc.wait(timeout=300) == 0
    text = shown.decode()
    assert "simulating freeform (seed 2)  [" in text and "100%" in text
    etas = re.findall(r"%  (\d\d:\d\d:\d\d)", text)
    assert etas, text[-500:]  # the time left, hh:mm:ss


def test_simulate_draws_no_bar_when_not_on_a_terminal(tmp_path: Path) -> None:
    proc = _ledger_process(
        ["simulate", "freeform", "--campaigns", "5", "--days", "2", "--seed", "2"], tmp_path
    )
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "%" not in err and "#" not in err


def test_demo_json_is_one_object_of_sections(tmp_path: Path) -> None:
    proc = _ledger_process(["--json", "demo", "--db", str(tmp_path / "demo.ledger")], tmp_path)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    data = json.loads(out)
    assert data["ledger"] == str(tmp_path / "demo.ledger")
    titles = [section["title"] for section in data["sections"]]
    assert titles[0].startswith("freeform") and titles[-1].startswith("verify")
    assert any(line.strip().startswith("ok  demo-freeform:") for line in data["sections"][-1]["lines"])


def test_tail_check_warns_naming_the_version_and_still_records(ledger_cli: Session) -> None:
    import sqlite3

    ledger_cli("new", "freeform", "T")
    ledger_cli("note", "hello")
    ledger_cli("note", "world")
    with sqlite3.connect(ledger_cli.db) as conn:
        for rowid, state in conn.execute("SELECT rowid, state FROM ledger_events").fetchall():
            if b"hello" in bytes(state):
                edited = bytes(state).replace(b"hello", b"jello")
                conn.execute("UPDATE ledger_events SET state = ? WHERE rowid = ?", (edited, rowid))
    result = ledger_cli("--json", "note", "again")
    assert json.loads(result.stdout)["version"] == 4
    assert result.stderr.splitlines() == [
        "warning: campaign 'T' fails verification at version 2: hash does not match the stored bytes "
        "(the event was edited); recording anyway, run `ledger verify` and restore from a backup or export"
    ]
    clean = Session(ledger_cli.db)("-c", "T", "note", "more")
    assert "warning" in clean.stderr  # every new process warns again


@pytest.mark.postgres
def test_a_mistyped_postgres_schema_is_refused_and_not_created(pg_url: str) -> None:
    import psycopg

    from tests.conftest import PG_URL

    schema = pg_url.rsplit("schema=", 1)[1]
    for args in (["campaigns"], ["status"], ["note", "x"]):
        result = Session(pg_url)(*args, ok=False)
        assert result.exit_code == 3, result.stderr
        assert f"no ledger in PostgreSQL database test at 127.0.0.1:5432 (schema {schema})" in result.stderr
    with psycopg.connect(PG_URL) as conn:
        row = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()
    assert row is None
    s = Session(pg_url)
    s("new", "freeform", "Made")
    assert "Made" in s("campaigns").stdout
    assert s("verify", "--all").stdout.startswith("ok")
