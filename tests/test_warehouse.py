"""The DuckDB warehouse: typed tables, incremental catch-up exactly once, undo flags, rebuild, Parquet."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import duckdb
import pytest

from ledger import Ledger
from ledger.errors import LedgerError
from ledger.facts import Fact
from ledger.projections.warehouse import loading
from ledger.projections.warehouse.export import export_parquet
from ledger.projections.warehouse.loading import Warehouse
from ledger.projections.warehouse.paths import warehouse_path
from ledger.projections.warehouse.schema import SchemaChanged, tables
from ledger.systems import get_system
from tests.conftest import Session


def _tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted, without wall-clock columns."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        out = {}
        for table in tables():
            cols = [c for c in table.names if c not in ("recorded_at", "registered_at")]
            quoted = ", ".join(f'"{c}"' for c in cols)
            out[table.name] = con.execute(f'SELECT {quoted} FROM "{table.name}" ORDER BY ALL').fetchall()
        return out
    finally:
        con.close()


def _count(wh: Warehouse, sql: str) -> Any:
    con = duckdb.connect(str(wh.path), read_only=True)
    try:
        return con.execute(sql).fetchone()[0]  # type: ignore[index]
    finally:
        con.close()


def _play(book: Ledger, wh: Warehouse, batch: int) -> None:
    """A freeform session with catch-ups between the moves: rolls, physical dice, undo, redo, a fork."""
    book.new_campaign("freeform", "keep", seed=11)
    book.add_character("Ana", "keep")
    book.add_character("Bo", "keep")
    wh.catch_up(batch=batch)
    for i in range(6):
        book.roll("3d6>=5", "keep", actor="Ana" if i % 2 else "Bo")
    book.roll("2d6!", "keep", faces=[6, 6, 2, 3], actor="Ana")
    wh.catch_up(batch=batch)
    book.undo("keep")
    book.roll("4d6kh3", "keep", actor="Bo")
    book.undo("keep", 2)
    wh.catch_up(batch=batch)
    book.redo("keep")
    book.fork("keep", "what-if", at=5)
    book.roll("1d20>=11", "what-if", actor="Ana")
    book.undo("what-if")
    book.note("the bridge holds", "keep")
    wh.catch_up(batch=batch)


def test_rebuild_equals_incremental_table_by_table(book: Ledger, tmp_path: Path) -> None:
    inc = Warehouse(book, tmp_path / "inc.duckdb")
    _play(book, inc, batch=3)
    assert inc.position() == book.store.max_notification_id()
    fresh = Warehouse(book, tmp_path / "fresh.duckdb")
    fresh.rebuild()
    a, b = _tables(inc.path), _tables(fresh.path)
    for table in tables():
        assert a[table.name] == b[table.name], table.name
    assert len(a["rolls"]) == 9
    assert len(a["campaigns"]) == 2


def test_undone_flags_match_the_log(book: Ledger, tmp_path: Path) -> None:
    wh = Warehouse(book, tmp_path / "w.duckdb")
    _play(book, wh, batch=5)
    con = duckdb.connect(str(wh.path), read_only=True)
    for name in ("keep", "what-if"):
        camp = book.campaign(name)
        fork_point = camp.parent_version or 0
        expected = {e.version: e.undone for e in book.log(name, show_all=True) if e.version > fork_point}
        got = dict(con.execute("SELECT version, undone FROM events WHERE campaign = ?", [name]).fetchall())
        assert got == expected, name
    con.close()


def test_undoing_a_roll_marks_it_undone_on_the_next_catch_up(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "u.ledger")) as book:
        book.new_campaign("freeform", "c")
        book.roll("1d20>=11", "c", faces=[4])
        wh = Warehouse(book)
        wh.catch_up()
        assert _count(wh, "SELECT count(*) FROM rolls WHERE NOT undone") == 1
        book.undo("c")
        assert _count(wh, "SELECT count(*) FROM rolls WHERE undone") == 0  # not caught up yet
        wh.catch_up()
        assert _count(wh, "SELECT count(*) FROM rolls WHERE undone") == 1
        assert _count(wh, "SELECT count(*) FROM dice JOIN rolls USING (roll_id) WHERE undone") == 1
        assert _count(wh, "SELECT bool_and(undone) FROM actions WHERE kinds = 'dice.rolled'") is True
        book.redo("c")
        wh.catch_up()
        assert _count(wh, "SELECT count(*) FROM rolls WHERE undone") == 0


def test_catch_up_applies_each_event_exactly_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Ledger(str(tmp_path / "x.ledger")) as book:
        book.new_campaign("freeform", "c", seed=2)
        for _ in range(5):
            book.roll("2d6", "c")
        wh = Warehouse(book)
        assert wh.catch_up() == book.store.max_notification_id()
        assert wh.catch_up() == 0
        before = _tables(wh.path)
        book.roll("1d6>=4", "c")
        book.undo("c")

        def crash(*_args: Any) -> None:
            raise RuntimeError("power cut")

        monkeypatch.setattr(Warehouse, "_flag_undone", crash)
        with pytest.raises(RuntimeError):
            wh.catch_up()
        assert _tables(wh.path) == before  # the half-applied batch left nothing behind
        monkeypatch.undo()
        wh.catch_up()
        wh.catch_up()
        fresh = Warehouse(book, tmp_path / "fresh.duckdb")
        fresh.rebuild()
        assert _tables(wh.path) == _tables(fresh.path)
        assert _count(wh, "SELECT count(*) FROM rolls") == 6


def test_roll_rows_carry_dice_and_exact_probability(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "r.ledger")) as book:
        book.new_campaign("freeform", "c")
        book.roll("3d6>=5", "c", faces=[1, 5, 2])
        book.roll("2d6!+1", "c", faces=[6, 4, 3])
        book.roll("4d6kh3", "c", faces=[2, 6, 5, 4])
        wh = Warehouse(book)
        wh.catch_up()
        con = duckdb.connect(str(wh.path), read_only=True)
        rolls = con.execute(
            "SELECT purpose, dice_count, outcome, successes, success, manual, p_success "
            "FROM rolls ORDER BY position"
        ).fetchall()
        assert rolls[0][:6] == ("roll", 3, "success", 1, True, True)
        assert rolls[0][6] == pytest.approx(1 - (4 / 6) ** 3)
        assert rolls[1][:3] == ("roll", 3, "14")  # 6 explodes into 4, plus 3, plus 1
        assert rolls[1][6] is None
        dice = con.execute(
            "SELECT idx, size, face, kept, reroll_of FROM dice ORDER BY roll_id, idx"
        ).fetchall()
        assert dice[3:6] == [(0, 6, 6, True, None), (1, 6, 4, True, 0), (2, 6, 3, True, None)]
        assert [d[3] for d in dice[6:]] == [False, True, True, True]
        con.close()


def test_fork_rows_belong_to_the_branch_that_recorded_them(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "f.ledger")) as book:
        book.new_campaign("freeform", "main")
        book.roll("1d6", "main")
        book.roll("1d6", "main")
        book.fork("main", "alt", at=2)
        book.roll("1d6", "alt")
        wh = Warehouse(book)
        wh.catch_up()
        con = duckdb.connect(str(wh.path), read_only=True)
        assert con.execute(
            "SELECT campaign, parent_campaign, parent_version FROM campaigns ORDER BY position"
        ).fetchall() == [("main", None, None), ("alt", "main", 2)]
        assert con.execute("SELECT campaign, count(*) FROM rolls GROUP BY ALL ORDER BY ALL").fetchall() == [
            ("alt", 1),
            ("main", 2),
        ]
        con.close()


def test_warehouse_path_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEDGER_WAREHOUSE", raising=False)
    with Ledger(str(tmp_path / "p.ledger")) as book:
        assert warehouse_path(book) == Path(str(tmp_path / "p.ledger") + ".duckdb")
        assert warehouse_path(book, "elsewhere.duckdb") == Path("elsewhere.duckdb")
        monkeypatch.setenv("LEDGER_WAREHOUSE", str(tmp_path / "env.duckdb"))
        assert warehouse_path(book) == tmp_path / "env.duckdb"


@pytest.mark.postgres
def test_postgres_default_warehouse_path(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEDGER_WAREHOUSE", raising=False)
    with Ledger(pg_url) as book:
        assert warehouse_path(book) == Path("ledger-warehouse.duckdb")


def test_parquet_export_is_partitioned_by_system_and_readable(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "q.ledger")) as book:
        book.new_campaign("freeform", "c", seed=4)
        book.add_character("Ana", "c")
        for _ in range(4):
            book.roll("2d6>=4", "c")
        files = export_parquet(book, str(tmp_path / "pq"))
    assert any("/rolls/system=freeform/" in f for f in files)
    assert all(f.endswith(".parquet") for f in files)
    con = duckdb.connect()
    rows = con.execute(
        f"SELECT system, count(*) FROM read_parquet('{tmp_path}/pq/rolls/**/*.parquet', "
        "hive_partitioning=true) GROUP BY system"
    ).fetchall()
    assert rows == [("freeform", 4)]


def _rolled(path: Path, rolls: int) -> Ledger:
    book = Ledger(str(path))
    book.new_campaign("freeform", "c", seed=4)
    for _ in range(rolls):
        book.roll("2d6", "c")
    return book


def test_parquet_export_never_touches_a_folder_that_holds_other_files(tmp_path: Path) -> None:
    """A folder named like a table, in a folder that is no export, is the user's."""
    mine = tmp_path / "stats" / "events"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("session zero")
    with (
        _rolled(tmp_path / "q.ledger", 2) as book,
        pytest.raises(LedgerError, match="is not empty and holds no"),
    ):
        export_parquet(book, str(tmp_path / "stats"))
    assert sorted(p.name for p in (tmp_path / "stats").rglob("*")) == ["events", "notes.txt"]


def test_parquet_export_again_replaces_its_own_tables_and_nothing_else(tmp_path: Path) -> None:
    out = tmp_path / "pq"
    with _rolled(tmp_path / "q.ledger", 2) as book:
        export_parquet(book, str(out))
        (out / "README.txt").write_text("ours")
        book.roll("2d6", "c")
        files = export_parquet(book, str(out))
    assert (out / "README.txt").read_text() == "ours"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no scratch folder left
    assert all(Path(f).is_relative_to(out) for f in files)
    found = duckdb.connect().execute(
        f"SELECT count(*) FROM read_parquet('{out}/rolls/**/*.parquet', hive_partitioning=true)"
    )
    assert found.fetchone() == (3,)


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_parquet_export_again_keeps_a_file_put_in_one_of_its_table_folders(tmp_path: Path) -> None:
    """An export removes only the files it wrote: a file of the user's inside a table folder
    stops it, and nothing in the folder is removed."""
    out = tmp_path / "pq"
    with _rolled(tmp_path / "q.ledger", 2) as book:
        export_parquet(book, str(out))
        (out / "rolls" / "notes.txt").write_text("session zero")
        before = _files(out)
        book.roll("2d6", "c")
        with pytest.raises(
            LedgerError, match=r"rolls/notes\.txt was not written by an export of this ledger"
        ):
            export_parquet(book, str(out))
    assert _files(out) == before


def test_parquet_export_again_keeps_a_file_changed_since_it_wrote_it(tmp_path: Path) -> None:
    out = tmp_path / "pq"
    with _rolled(tmp_path / "q.ledger", 2) as book:
        export_parquet(book, str(out))
        ours = next((out / "rolls").rglob("*.parquet"))
        ours.write_bytes(b"the user's own table, saved over the export's")
        before = _files(out)
        with pytest.raises(LedgerError, match="or was changed since"):
            export_parquet(book, str(out))
    assert _files(out) == before


def test_parquet_export_refuses_a_folder_whose_table_folder_holds_the_ledger(tmp_path: Path) -> None:
    out = tmp_path / "pq"
    with _rolled(tmp_path / "q.ledger", 2) as book:
        export_parquet(book, str(out))
    (tmp_path / "q.ledger").rename(out / "rolls" / "q.ledger")
    db = out / "rolls" / "q.ledger"
    with Ledger(str(db)) as book:
        book.roll("2d6", "c")
        with pytest.raises(
            LedgerError, match=re.escape(f"{out} holds the ledger file {db}; it was left as it is")
        ):
            export_parquet(book, str(out))
    with Ledger(str(db)) as book:
        assert book.verify(None, every=True).checked["c"] == 4


def test_parquet_export_refuses_a_folder_that_holds_the_warehouse(tmp_path: Path) -> None:
    out = tmp_path / "pq"
    with _rolled(tmp_path / "q.ledger", 2) as book:
        export_parquet(book, str(out))
        warehouse = out / "stats.duckdb"
        export_parquet(book, str(tmp_path / "other"), warehouse=str(warehouse))  # the warehouse, built there
        before = _files(out)
        with pytest.raises(LedgerError, match=re.escape(f"{out} holds the warehouse {warehouse}")):
            export_parquet(book, str(out), warehouse=str(warehouse))
    assert _files(out) == before


def test_parquet_export_again_replaces_an_export_whose_mark_lists_no_files(tmp_path: Path) -> None:
    """An export written before its mark listed its files is replaced by its layout alone."""
    out = tmp_path / "pq"
    with _rolled(tmp_path / "q.ledger", 2) as book:
        export_parquet(book, str(out))
        mark = json.loads((out / "ledger-export.json").read_text())
        del mark["files"]
        (out / "ledger-export.json").write_text(json.dumps(mark))
        book.roll("2d6", "c")
        export_parquet(book, str(out))
        (out / "rolls" / "system=freeform" / "keep.txt").write_text("mine")
        book.roll("2d6", "c")
        with pytest.raises(LedgerError, match=r"keep\.txt was not written by an export"):
            export_parquet(book, str(out))
    found = duckdb.connect().execute(
        f"SELECT count(*) FROM read_parquet('{out}/rolls/**/*.parquet', hive_partitioning=true)"
    )
    assert found.fetchone() == (3,)


def test_parquet_export_refuses_another_ledgers_export(tmp_path: Path) -> None:
    out = tmp_path / "pq"
    with _rolled(tmp_path / "a.ledger", 1) as book:
        export_parquet(book, str(out))
    before = sorted(str(p) for p in out.rglob("*"))
    with (
        _rolled(tmp_path / "b.ledger", 1) as other,
        pytest.raises(LedgerError, match="another ledger's Parquet"),
    ):
        export_parquet(other, str(out))
    assert sorted(str(p) for p in out.rglob("*")) == before


def test_cli_parquet_export_refusal_is_one_line(ledger_cli: Session, db: str, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "c")
    ledger_cli("roll", "2d6")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("x")
    result = ledger_cli("export", "parquet", str(tmp_path / "busy"), ok=False)
    assert result.exit_code != 0
    assert "is not empty and holds no Parquet export" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert (tmp_path / "busy" / "keep.txt").read_text() == "x"


def test_cli_parquet_export_over_a_table_folder_holding_the_ledger_is_one_line_and_keeps_it(
    tmp_path: Path,
) -> None:
    out = tmp_path / "pq"
    first = Session(str(tmp_path / "q.ledger"))
    first("new", "freeform", "c")
    first("roll", "2d6")
    first("export", "parquet", str(out))
    (tmp_path / "q.ledger").rename(out / "rolls" / "q.ledger")
    moved = Session(str(out / "rolls" / "q.ledger"))
    result = moved("export", "parquet", str(out), ok=False)
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and "holds the ledger file" in result.stderr, result.stderr
    assert "give the Parquet export a folder of its own" in result.stderr
    assert moved("verify", "--all").exit_code == 0
    assert "rolled 2d6" in moved("log").output


def test_cli_warehouse_status_and_rebuild(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "c")
    ledger_cli("roll", "2d6")
    status = ledger_cli("warehouse", "status").output
    assert "no warehouse" in status
    out = ledger_cli("warehouse", "rebuild").output
    assert out.startswith(f"rebuilt {db}.duckdb from 4 events")
    status = ledger_cli("warehouse", "status").output
    assert "applied up to event 4 of 4 (0 behind)" in status
    assert re.search(r"^  rolls +1$", status, re.M)


def _header_checksum(block: bytes | bytearray) -> int:
    """DuckDB's checksum of its main header (after the checksum's own 8 bytes): 5381, xor
    each little-endian 64-bit word times 0xbf58476d1ce4e5b9."""
    result = 5381
    for (word,) in struct.iter_unpack("<Q", block):
        result ^= (word * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    return result


def test_a_warehouse_another_duckdb_wrote_is_refused_naming_the_way_back(
    ledger_cli: Session, db: str
) -> None:
    ledger_cli("new", "freeform", "c")
    ledger_cli("roll", "1d6")
    ledger_cli("stats")  # the warehouse, written by the DuckDB installed
    path = Path(db + ".duckdb")
    data = bytearray(path.read_bytes())
    assert data[8:12] == b"DUCK"
    data[12:20] = (5000).to_bytes(8, "little")  # the storage version of a DuckDB to come
    data[0:8] = _header_checksum(data[8:4096]).to_bytes(8, "little")  # sealed as DuckDB seals it
    path.write_bytes(bytes(data))
    for command in (("stats",), ("warehouse", "rebuild"), ("warehouse", "status")):
        result = ledger_cli(*command, ok=False)
        assert result.exit_code == 1
        assert result.stderr.count("\n") == 1
        assert "was written by another version of DuckDB" in result.stderr
        assert "or remove the file and rebuild it; run `ledger warehouse rebuild`" in result.stderr
    assert path.read_bytes() == bytes(data)  # nothing replaced what it cannot read
    path.unlink()
    assert ledger_cli("warehouse", "rebuild").output.startswith(f"rebuilt {db}.duckdb from 4 events")


def test_a_damaged_warehouse_file_is_refused_in_one_line(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "c")
    Path(db + ".duckdb").write_text("not a database")
    for command in (("stats",), ("warehouse", "rebuild"), ("warehouse", "status")):
        result = ledger_cli(*command, ok=False)
        assert result.exit_code == 1
        assert result.stderr.count("\n") == 1
        assert "is not a DuckDB database" in result.stderr and "remove the file" in result.stderr
    assert Path(db + ".duckdb").read_text() == "not a database"


def test_duckdb_is_imported_only_by_commands_that_need_it() -> None:
    code = (
        "import sys, ledger.cli.main, ledger.cli.stats, ledger.projections.stats.reports, ledger.projections.warehouse; "
        "from click.testing import CliRunner; CliRunner().invoke(ledger.cli.main.cli, ['--help']); "
        "print('duckdb' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_failing_facts_hook_is_reported_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ledger.projections.warehouse.loading as wmod

    def broken(_env: Any) -> list[Any]:
        raise KeyError("enemy")

    monkeypatch.setattr(wmod, "_python_hook", lambda system: broken)
    monkeypatch.setattr(wmod, "_CORE_TYPES", frozenset())
    monkeypatch.setattr(wmod, "_CORE_KINDS", frozenset())
    with Ledger(str(tmp_path / "h.ledger")) as book:
        book.new_campaign("freeform", "c")
        book.note("hello", "c")
        wh = Warehouse(book)
        with pytest.raises(
            wmod.WarehouseError, match=r"freeform system cannot turn event 1 \(campaign.started\)"
        ):
            wh.catch_up()
        assert wh.position() == 0


@pytest.mark.postgres
def test_stats_from_a_postgres_ledger_use_their_own_warehouse(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEDGER_WAREHOUSE", str(tmp_path / "pg.duckdb"))
    session = Session(pg_url)
    session("simulate", "freeform", "--campaigns", "3", "--seed", "2")
    data = json.loads(session("stats", "--simulated", "--json").output)
    assert data["overview"]["campaigns"] == 3
    assert (tmp_path / "pg.duckdb").exists()
    status = json.loads(session("warehouse", "status", "--json").output)
    assert status["behind"] == 0 and status["store"].startswith("PostgreSQL database")


def _mark(wh: Warehouse, key: str, value: str) -> None:
    """Write one entry of a closed warehouse's marker, as another version of the code left it."""
    con = duckdb.connect(str(wh.path))
    try:
        con.execute("UPDATE warehouse_meta SET value = ? WHERE key = ?", [value, key])
    finally:
        con.close()


@pytest.mark.parametrize("key", ["schema", "systems"])
def test_a_warehouse_of_an_older_layout_is_rebuilt(tmp_path: Path, key: str) -> None:
    """The shared layout changed, or a system was installed or removed since it was built."""
    with Ledger(str(tmp_path / "o.ledger")) as book:
        book.new_campaign("freeform", "c")
        book.roll("2d6", "c")
        wh = Warehouse(book)
        wh.catch_up()
        kept = _count(wh, f"SELECT value FROM warehouse_meta WHERE key = '{key}'")
        _mark(wh, key, "another-layout")
        assert wh.status()["outdated"] is True
        assert wh.catch_up() == book.store.max_notification_id()  # rebuilt from the whole log
        assert _count(wh, f"SELECT value FROM warehouse_meta WHERE key = '{key}'") == kept
        assert _count(wh, "SELECT count(*) FROM rolls") == 1


def test_a_systems_changed_facts_rebuild_the_warehouse_once_its_events_come(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A system's own layout is checked when a page holds its events: a crawl campaign's new
    crawl event finds the crawl tables laid out for another revision and rebuilds, on the
    catch-up of its own and on the one `ledger stats` runs on its connection. A core event
    of a crawl campaign (a note) writes no crawl table, and loads no crawl system."""
    from ledger.systems.crawl.order import Move, Terrain

    with Ledger(str(tmp_path / "s.ledger")) as book:
        book.new_campaign("freeform", "f")
        book.new_campaign("crawl", "k", seed=1)
        wh = Warehouse(book)
        wh.catch_up()
        _mark(wh, "system crawl", "older")
        book.note("hello", "f")
        assert wh.catch_up() == 1  # the freeform event alone: crawl's tables are not read
        book.note("by the fire", "k")
        assert wh.catch_up() == 1  # a core event of the crawl campaign: nor are they here
        assert _count(wh, "SELECT value FROM warehouse_meta WHERE key = 'system crawl'") == "older"
        assert wh.status()["outdated"] is True
        book.execute(Move(direction="n"), "k")
        assert wh.catch_up() == book.store.max_notification_id()  # rebuilt from the whole log
        assert _count(wh, "SELECT value FROM warehouse_meta WHERE key = 'system crawl'") != "older"
        assert wh.status().get("outdated") is None
        _mark(wh, "system crawl", "older")
        book.execute(Terrain(), "k")
        con = wh.connect()
        with pytest.raises(SchemaChanged):
            wh.catch_up(con=con)
        wh.close(con)
    session = Session(str(tmp_path / "s.ledger"))
    out = json.loads(session("stats", "-c", "k", "--report", "overview", "--json").output)
    assert out["overview"]["campaigns"] == 1
    assert _count(wh, "SELECT value FROM warehouse_meta WHERE key = 'system crawl'") != "older"


def test_a_warehouse_of_another_ledger_is_refused(ledger_cli: Session, db: str, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "c")
    ledger_cli("stats")
    other = Session(str(tmp_path / "other.ledger"))
    other("new", "freeform", "d")
    result = other("stats", "--warehouse", db + ".duckdb", ok=False)
    assert result.exit_code == 1
    assert "was built from another ledger" in result.stderr and result.stderr.count("\n") == 1


def test_roll_rows_equal_the_python_roll_facts(tmp_path: Path) -> None:
    """The SQL that turns ``ledger roll`` into rows gives what ``rolled_fact`` gives (the sheet's luck
    index reads the latter), dice by dice, for every shape of notation."""
    from ledger.facts import rolled_fact
    from ledger.log.events import Rolled

    notations = (
        "3d6>=5",
        "2d6!+1d4!+2",
        "4d6kh3",
        "1d20-1d4",
        "(8d6>=5)+(2d10>=9)",
        "1d100",
        "3d8kl1!",
        "1d20+5>=15",
        "4d6r1!kh3",
        "4dF",
    )
    with Ledger(str(tmp_path / "r.ledger")) as book:
        book.new_campaign("freeform", "c", seed=3)
        book.add_character("Ana", "c")
        for notation in notations * 5:
            book.roll(notation, "c", actor="Ana")
        wh = Warehouse(book)
        wh.catch_up()
        want = []
        for env in book.effective(book.campaign("c")):
            if isinstance(env.event, Rolled):
                f = rolled_fact(env.event)
                dice = [(d.size, d.face, d.kept, d.reroll_of) for d in f.dice]
                want.append((f.outcome, f.successes, f.success, f.manual, f.p_success, dice))
        con = duckdb.connect(str(wh.path), read_only=True)
        got = []
        for roll_id, *row in con.execute(
            "SELECT roll_id, outcome, successes, success, manual, p_success FROM rolls ORDER BY roll_id"
        ).fetchall():
            dice = con.execute(
                "SELECT size, face, kept, reroll_of FROM dice WHERE roll_id = ? ORDER BY idx", [roll_id]
            ).fetchall()
            got.append((*row, dice))
        con.close()
    assert len(want) == len(notations) * 5
    assert got == want
    assert any(
        d[3] is not None and d[3] >= 2 for *_, dice in want for d in dice
    )  # an explosion in a later group


def test_gaps_in_the_notification_ids_keep_every_row_in_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL leaves gaps where a transaction rolled back: positions still name the right events."""
    from ledger.log.store import Store

    with Ledger(str(tmp_path / "g.ledger")) as book:
        book.new_campaign("freeform", "c", seed=5)
        book.add_character("Ana", "c")
        for _ in range(30):
            book.roll("1d20>=11", "c", actor="Ana")
        real = Store.states_after
        dropped = {7, 8, 15, 22}

        def with_gaps(self: Store, position: int, limit: int) -> list[tuple[int, str, bytes]]:
            return [r for r in real(self, position, limit) if r[0] not in dropped]

        monkeypatch.setattr(Store, "states_after", with_gaps)
        wh = Warehouse(book)
        wh.catch_up(batch=10)
        con = duckdb.connect(str(wh.path), read_only=True)
        rows = con.execute("SELECT position, stream, version FROM events ORDER BY position").fetchall()
        con.close()
        stored = {n.id: n for n in book.store.notifications(1, 100)}
        assert [r[0] for r in rows] == [i for i in sorted(stored) if i not in dropped and i > 2]
        for position, stream, version in rows:
            assert (str(stored[position].originator_id), stored[position].originator_version) == (
                stream,
                version,
            )


def test_a_system_with_python_facts_only_fills_the_same_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A system of one's own may declare only ``extra["facts"]``: the warehouse then runs it
    event by event, and the tables come out as the SQL queries make them."""
    import ledger.projections.warehouse.loading as wmod
    from tests.helpers_facts import play

    with Ledger(str(tmp_path / "all.ledger")) as book:
        for system in ("crawl", "dicepool", "yearzero", "d100", "d20"):
            play(book, system, campaigns=2, days=15, prefix=f"{system}-")
        sql = Warehouse(book, tmp_path / "sql.duckdb")
        sql.rebuild()
        monkeypatch.setattr(wmod, "_fact_queries", lambda _system: ())
        monkeypatch.setattr(wmod, "_python_hook", lambda system: get_system(system).read.facts)
        python = Warehouse(book, tmp_path / "python.duckdb")
        python.rebuild()
    a, b = _tables(sql.path), _tables(python.path)
    for table in tables():
        assert a[table.name] == b[table.name], table.name
    assert len(a["rolls"]) > 500 and len(a["wounds"]) > 100


class CoinFact(Fact, frozen=True):
    """A plugin's fact of its own."""

    table: ClassVar[str] = "coin_streaks"
    streak: int
    face: str = "heads"


class Rolls(Fact, frozen=True):
    """A fact class that takes a shared table."""

    table: ClassVar[str] = "rolls"


def test_a_systems_own_fact_types_become_tables_of_their_own() -> None:
    """A plugin adds a table by declaring its fact class: the layout has it, with the common
    columns first, and the layout's fingerprint changes with it (so a warehouse is rebuilt)."""
    from ledger.projections.warehouse.schema import build_schema

    plain = build_schema([("coin", 0, ())])
    added = build_schema([("coin", 0, (CoinFact,))])
    table = added.by_name["coin_streaks"]
    assert "coin_streaks" not in plain.by_name and {"streak", "face", "character"} <= set(table.names)
    assert {"campaign", "system", "undone", "fact_id"} <= set(table.names)
    assert "coin_streaks" in added.event_tables and added.layouts[CoinFact].table is table
    assert len({plain.fingerprint, added.fingerprint, build_schema([("coin", 1, ())]).fingerprint}) == 3


def test_a_fact_type_that_takes_another_table_is_refused() -> None:
    from ledger.errors import LedgerError
    from ledger.projections.warehouse.schema import build_schema

    with pytest.raises(
        LedgerError, match="the coin system's Rolls writes table 'rolls', which the shared facts"
    ):
        build_schema([("coin", 0, (Rolls,))])
    with pytest.raises(LedgerError, match="no Fact with a table"):
        build_schema([("coin", 0, (dict,))])  # type: ignore[list-item]


def test_the_installed_systems_own_tables_are_in_the_warehouse(book: Ledger, tmp_path: Path) -> None:
    from ledger.projections.warehouse.schema import schema
    from ledger.systems import installed

    own = {cls.table for system in installed() for cls in system.read.fact_types}
    assert own <= {t.name for t in tables()}
    wh = Warehouse(book, tmp_path / "w.duckdb")
    book.new_campaign("freeform", "c")
    wh.catch_up()
    con = duckdb.connect(str(wh.path), read_only=True)
    try:
        found = {name for (name,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    finally:
        con.close()
    assert {t.name for t in schema().tables} <= found


@pytest.mark.parametrize("small_page", [1_000, 0], ids=["read back whole", "summed up in SQL"])
@pytest.mark.parametrize(
    ("edit", "words"),
    [
        ("UPDATE batch SET version = version + 1", "was staged out of place"),
        ("DELETE FROM batch WHERE position = (SELECT max(position) FROM batch)", "another number of events"),
    ],
    ids=["moved", "lost"],
)
def test_a_page_staged_other_than_it_is_stored_is_refused_and_not_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_page: int, edit: str, words: str
) -> None:
    """A page's events are checked against the store once DuckDB has staged them, whether a
    small page's rows are read back whole or a larger one's are summed up in SQL."""
    with _rolled(tmp_path / "q.ledger", 2) as book:
        wh = Warehouse(book, tmp_path / "w.duckdb")
        wh.catch_up()
        before = wh.position()
        book.roll("2d6", "c")
        monkeypatch.setattr(loading, "SMALL_PAGE", small_page)
        check = Warehouse._check_staged

        def edited(self: Warehouse, con: Any, rows: Any) -> Any:
            con.execute(edit)
            return check(self, con, rows)

        monkeypatch.setattr(Warehouse, "_check_staged", edited)
        with pytest.raises(LedgerError, match=words):
            wh.catch_up()
        assert wh.position() == before
