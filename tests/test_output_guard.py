"""A file a user names for a command to write (export -o, journal -o, report -o) is never
one of the ledger's own files, nor a symlink, a device or a fifo: each is refused in one line,
and the ledger (or the file) is left exactly as it was."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest

from tests.conftest import Session


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Session:
    monkeypatch.delenv("LEDGER_WAREHOUSE", raising=False)
    monkeypatch.chdir(tmp_path)
    s = Session("b.ledger")
    s("new", "freeform", "Tomb", "--seed", "3")
    s("roll", "2d6")
    s("new", "freeform", "Keep", "--seed", "4")
    s("note", "the gate is shut")
    return s


WRITERS: dict[str, tuple[str, ...]] = {
    "export": ("export", "-c", "Tomb", "--force", "-o"),
    "journal": ("journal", "-c", "Tomb", "--format", "md", "--force", "-o"),
    "report": ("report", "-c", "Tomb", "-o"),
}
"""Every command that writes a file the user names, ready for the file's name."""


def refused(session: Session, writer: str, target: str, message: str) -> None:
    result = session(*WRITERS[writer], target, ok=False)
    assert result.exit_code == 1, (writer, result.output, result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert message in result.stderr, result.stderr


def both_campaigns_there(session: Session) -> None:
    assert session("verify", "--all").exit_code == 0
    listed = session("campaigns").output
    assert "Tomb" in listed and "Keep" in listed
    assert "the gate is shut" in session("log", "-c", "Keep").output


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_symlink_to_the_ledger_is_refused(session: Session, writer: str) -> None:
    before = digest(Path("b.ledger"))
    Path("out.html").symlink_to("b.ledger")
    refused(session, writer, "out.html", "would overwrite the ledger file")
    assert Path("out.html").is_symlink() and digest(Path("b.ledger")) == before
    both_campaigns_there(session)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_hard_link_of_the_ledger_is_refused(session: Session, writer: str) -> None:
    before = digest(Path("b.ledger"))
    os.link("b.ledger", "copy.html")
    refused(session, writer, "copy.html", "would overwrite the ledger file")
    assert digest(Path("b.ledger")) == before and os.stat("b.ledger").st_nlink == 2
    both_campaigns_there(session)


def test_export_over_the_ledger_itself_with_force_is_refused(session: Session) -> None:
    before = digest(Path("b.ledger"))
    refused(session, "export", "b.ledger", "would overwrite the ledger file")
    assert digest(Path("b.ledger")) == before
    both_campaigns_there(session)


def test_a_report_under_the_ledgers_own_name_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    s = Session("camp.html")
    s("new", "freeform", "Tomb")
    s("new", "freeform", "Keep")
    before = digest(Path("camp.html"))
    result = s("report", "-c", "Tomb", "-o", "camp.html", ok=False)
    assert result.exit_code == 1 and "would overwrite the ledger file" in result.stderr, result.stderr
    assert digest(Path("camp.html")) == before
    assert "Keep" in s("campaigns").output


@pytest.mark.parametrize("writer", ["export", "journal"])
def test_the_ledgers_journal_and_the_warehouse_are_refused(session: Session, writer: str) -> None:
    session("stats")  # builds b.ledger.duckdb
    warehouse = digest(Path("b.ledger.duckdb"))
    refused(session, writer, "b.ledger-wal", "would overwrite the ledger's wal file")
    refused(session, writer, "b.ledger.duckdb", "would overwrite the warehouse")
    refused(session, writer, "b.ledger.duckdb.wal", "would overwrite the warehouse's write-ahead log")
    assert digest(Path("b.ledger.duckdb")) == warehouse
    both_campaigns_there(session)


@pytest.mark.parametrize("writer", ["export", "journal"])
def test_a_symlink_to_another_file_is_refused_and_both_stay(session: Session, writer: str) -> None:
    Path("notes.md").write_text("my notes\n")
    Path("out.md").symlink_to("notes.md")
    refused(session, writer, "out.md", "is a symlink")
    assert Path("out.md").is_symlink() and Path("notes.md").read_text() == "my notes\n"


@pytest.mark.parametrize("writer", ["export", "journal"])
def test_a_fifo_is_refused_not_replaced(session: Session, writer: str) -> None:
    os.mkfifo("pipe")
    refused(session, writer, "pipe", "is a named pipe (fifo), not a regular file")
    assert stat.S_ISFIFO(os.lstat("pipe").st_mode)


def test_a_device_is_refused_not_replaced(session: Session) -> None:
    try:
        os.mknod("full", stat.S_IFCHR | 0o666, os.makedev(1, 7))  # a copy of /dev/full
    except PermissionError:
        pytest.skip("making a device node needs root (CI runs as root)")
    refused(session, "export", "full", "is a device, not a regular file")
    assert stat.S_ISCHR(os.lstat("full").st_mode)


@pytest.mark.parametrize("writer", ["export", "journal"])
def test_a_replaced_file_keeps_its_permissions(session: Session, writer: str) -> None:
    """A private file (0600) stays private when --force replaces it."""
    Path("private.md").write_text("mine\n")
    os.chmod("private.md", 0o600)
    assert session(*WRITERS[writer], "private.md").exit_code == 0
    assert Path("private.md").read_text() != "mine\n"
    assert stat.S_IMODE(os.stat("private.md").st_mode) == 0o600
