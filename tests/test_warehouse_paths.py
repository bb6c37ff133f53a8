"""A warehouse path may only ever be a warehouse: no command writes the ledger, or any file
that is not a warehouse of this ledger, wherever the path comes from (--warehouse,
LEDGER_WAREHOUSE, relative paths, symlinks, hard links)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import duckdb
import pytest

from ledger import Ledger
from ledger.projections.warehouse import loading as wmod
from ledger.projections.warehouse.loading import Warehouse
from tests.conftest import Session

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("warehouse", "rebuild"),
    ("stats",),
    ("query", "SELECT count(*) FROM rolls"),
    ("warehouse", "status"),
)
"""Every command that opens the warehouse, each given the path with --warehouse."""


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Session:
    monkeypatch.delenv("LEDGER_WAREHOUSE", raising=False)
    monkeypatch.chdir(tmp_path)
    s = Session("b.ledger")
    s("new", "freeform", "Tomb", "--seed", "3")
    s("roll", "2d6")
    return s


def refused_everywhere(session: Session, warehouse: str, message: str, *, env: bool = False) -> None:
    """Each command, given ``warehouse``, refuses in one line and exits non-zero."""
    for command in COMMANDS:
        args = command if env else (*command, "--warehouse", warehouse)
        result = session(*args, ok=False)
        assert result.exit_code != 0, (command, result.output)
        assert isinstance(result.exception, SystemExit), (command, result.exception)
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), (
            command,
            result.stderr,
        )
        assert message in result.stderr, (command, result.stderr)


def ledger_intact(session: Session, before: str) -> None:
    assert digest(Path("b.ledger")) == before
    assert session("verify", "--all").exit_code == 0
    assert session("log", "-c", "Tomb").output.count("2d6") == 1


def test_the_ledger_file_itself_is_refused_as_a_warehouse(session: Session) -> None:
    before = digest(Path("b.ledger"))
    refused_everywhere(session, "b.ledger", "would overwrite the ledger file")
    ledger_intact(session, before)


def test_the_ledger_through_a_relative_path_a_symlink_or_a_hard_link_is_refused(
    session: Session, tmp_path: Path
) -> None:
    before = digest(Path("b.ledger"))
    (tmp_path / "sub").mkdir()
    os.symlink(tmp_path / "b.ledger", tmp_path / "link.duckdb")
    os.link(tmp_path / "b.ledger", tmp_path / "hard.duckdb")
    for path in ("./sub/../b.ledger", str(tmp_path / "b.ledger"), "link.duckdb", "hard.duckdb"):
        refused_everywhere(session, path, "would overwrite the ledger file")
    ledger_intact(session, before)


def test_the_ledger_named_by_ledger_warehouse_is_refused(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = digest(Path("b.ledger"))
    monkeypatch.setenv("LEDGER_WAREHOUSE", "b.ledger")
    refused_everywhere(session, "b.ledger", "would overwrite the ledger file", env=True)
    ledger_intact(session, before)


def test_the_ledgers_journal_files_are_refused_even_before_they_exist(session: Session) -> None:
    for suffix in ("-wal", "-shm", "-journal"):
        refused_everywhere(session, f"b.ledger{suffix}", f"would overwrite the ledger's {suffix[1:]} file")
        sidecar = Path(f"b.ledger{suffix}")
        assert not sidecar.exists() or sidecar.read_bytes()[8:12] != b"DUCK"
    ledger_intact(session, digest(Path("b.ledger")))


def test_a_warehouse_whose_log_would_land_on_the_ledger_is_refused(session: Session) -> None:
    other = Session("w.duckdb.wal")
    other("new", "freeform", "Other")
    before = digest(Path("w.duckdb.wal"))
    refused_everywhere(other, "w.duckdb", "would overwrite the ledger file")
    assert digest(Path("w.duckdb.wal")) == before and not Path("w.duckdb").exists()


def test_an_existing_file_that_is_not_a_database_is_left_as_it_is(session: Session) -> None:
    for name, content in (("notes.txt", b"my campaign notes\n"), ("empty.duckdb", b"")):
        Path(name).write_bytes(content)
        refused_everywhere(session, name, "is not a DuckDB database")
        assert Path(name).read_bytes() == content
    os.mkdir("folder.duckdb")
    refused_everywhere(session, "folder.duckdb", "is a folder, not a file")


def test_another_ledger_is_not_a_warehouse_and_duckdb_fetches_no_sqlite_scanner(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``query --warehouse other.ledger`` is refused by the path rule before DuckDB opens it;
    and were DuckDB to open it, it would not try to install its SQLite scanner."""
    with Ledger("other.ledger") as other:
        other.new_campaign("freeform", "Elsewhere")
    before = digest(Path("other.ledger"))
    result = session("query", "SELECT 1", "--warehouse", "other.ledger", ok=False)
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "other.ledger is not a DuckDB database" in result.stderr
    refused_everywhere(session, "other.ledger", "is not a DuckDB database")
    assert digest(Path("other.ledger")) == before
    with sqlite3.connect("other.ledger") as con:  # still a ledger
        assert con.execute("SELECT count(*) FROM ledger_events").fetchone()[0] >= 3

    # Without the path rule, DuckDB itself is told not to fetch or load extensions.
    monkeypatch.setattr(wmod, "check_warehouse_path", lambda *_: None)
    with Ledger("b.ledger") as book, pytest.raises(wmod.WarehouseError) as refused:
        Warehouse(book, "other.ledger").catch_up()
    message = str(refused.value)
    assert "sqlite" in message.lower() and "download" not in message.lower(), message
    assert digest(Path("other.ledger")) == before


def test_a_duckdb_database_that_is_no_warehouse_is_left_as_it_is(session: Session) -> None:
    con = duckdb.connect("mine.duckdb")
    con.execute("CREATE TABLE budget AS SELECT 42 AS gold")
    con.close()
    before = digest(Path("mine.duckdb"))
    refused_everywhere(session, "mine.duckdb", "is a DuckDB database but not a ledger warehouse")
    assert digest(Path("mine.duckdb")) == before
    con = duckdb.connect("mine.duckdb", read_only=True)
    assert con.execute("SELECT * FROM information_schema.tables").fetchall()[0][2] == "budget"
    con.close()


def test_a_warehouse_of_another_ledger_is_never_rebuilt_over(session: Session) -> None:
    other = Session("other.ledger")
    other("new", "freeform", "Elsewhere")
    other("roll", "1d20")
    other("warehouse", "rebuild", "--warehouse", "theirs.duckdb")
    before = digest(Path("theirs.duckdb"))
    refused_everywhere(session, "theirs.duckdb", "was built from another ledger")
    assert digest(Path("theirs.duckdb")) == before
    theirs = other("query", "SELECT count(*) AS n FROM rolls", "--warehouse", "theirs.duckdb", "--json")
    assert '"n": 1' in theirs.output  # still theirs, and still answering


def test_a_missing_path_becomes_a_warehouse_and_its_own_is_rebuilt(session: Session) -> None:
    for command in COMMANDS[:3]:
        Path("fresh.duckdb").unlink(missing_ok=True)
        session(*command, "--warehouse", "fresh.duckdb")
        assert Path("fresh.duckdb").exists()
    out = session("warehouse", "rebuild", "--warehouse", "fresh.duckdb").output
    assert out.startswith("rebuilt fresh.duckdb from")
    assert (
        '"n": 1'
        in session("query", "SELECT count(*) AS n FROM rolls", "--warehouse", "fresh.duckdb", "--json").output
    )
    leftovers = sorted(p.name for p in Path(".").iterdir() if "rebuild" in p.name)
    assert leftovers == []


def test_an_empty_duckdb_database_is_taken_for_a_warehouse(session: Session) -> None:
    """A DuckDB file with nothing in it (a warehouse killed as it was created) holds nothing to lose."""
    duckdb.connect("blank.duckdb").close()
    session("stats", "--warehouse", "blank.duckdb")
    assert (
        '"n": 1'
        in session("query", "SELECT count(*) AS n FROM rolls", "--warehouse", "blank.duckdb", "--json").output
    )


def test_every_warehouse_connection_fetches_and_loads_no_extension(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "x.ledger")) as book:
        book.new_campaign("freeform", "c")
        wh = Warehouse(book)
        wh.catch_up()
        settings = (
            "SELECT current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions'), "
            "current_setting('allow_community_extensions')"
        )
        for connect in (wh._connect, wh.connect_read_only):
            con = connect()
            try:
                assert con.execute(settings).fetchone() == (False, False, False)
            finally:
                con.close()


def test_a_killed_rebuild_leaves_a_folder_the_next_rebuild_removes(session: Session) -> None:
    import subprocess
    import sys

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = Path(f".w.duckdb.rebuild-{gone.stdout.strip()}-x1")
    alive = Path(".w.duckdb.rebuild-1-x2")  # pid 1 always runs
    for folder in (dead, alive):
        folder.mkdir()
        (folder / "warehouse.duckdb").write_bytes(b"half a rebuild")
    session("warehouse", "rebuild", "--warehouse", "w.duckdb")
    assert not dead.exists() and alive.exists()
