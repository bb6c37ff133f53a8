"""Faults while writing output are one line and a storage exit (3), never a traceback, and
leave what was there: a full standard output, a full disk under report -o, export -o,
journal -o and the warehouse, a missing folder, a symlinked Parquet table folder. An import
of blank lines is refused at the first one."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Session


def ledger(db: Path, *args: str, stdout: int | None = None) -> subprocess.CompletedProcess[str]:
    """``ledger`` in a process of its own (a real standard output, which /dev/full can be)."""
    env = {k: v for k, v in os.environ.items() if k != "LEDGER_WAREHOUSE"}
    return subprocess.run(
        [sys.executable, "-m", "ledger.cli.main", "--db", str(db), *args],
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
    )


def one_storage_error(result: subprocess.CompletedProcess[str], words: str) -> None:
    assert result.returncode == 3, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert words in result.stderr, result.stderr


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "b.ledger"
    s = Session(str(path))
    s("new", "freeform", "Tomb", "--seed", "3")
    for _ in range(3):
        s("roll", "2d6")
    s("note", "the gate is shut")
    return path


@pytest.mark.parametrize(
    "args",
    [("log",), ("log", "--json"), ("export",), ("export", "--json"), ("campaigns",)],
    ids=" ".join,
)
def test_a_full_standard_output_is_one_line_and_exit_3(db: Path, args: tuple[str, ...]) -> None:
    with open("/dev/full", "w") as full:
        result = ledger(db, *args, stdout=full.fileno())
    one_storage_error(result, "cannot write the standard output: No space left on device")


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs of its own (:func:`fill` it)."""
    where = tmp_path / "full"
    where.mkdir()
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True, timeout=30
        )
    except (FileNotFoundError, PermissionError):
        pytest.skip("no mount command here (CI runs as root, where a tmpfs is mounted)")
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (CI runs as root): {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


def fill(disk: Path) -> None:
    """Fill the disk to the last byte (removing ``filler`` frees it)."""
    with open(disk / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
        while True:
            filler.write(b"\0" * 4096)


def only(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != "filler")


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("r.html", ("report", "-o")),
        ("e.jsonl", ("export", "--force", "-o")),
        ("j.md", ("journal", "--format", "md", "--force", "-o")),
    ],
)
def test_a_full_disk_keeps_the_old_file_and_leaves_no_temporary_one(
    db: Path, full_disk: Path, name: str, args: tuple[str, ...]
) -> None:
    target = full_disk / name
    target.write_text("the old one\n")
    fill(full_disk)
    result = ledger(db, *args, str(target))
    one_storage_error(
        result, f"cannot write {target}: No space left on device; the old file was left as it is"
    )
    assert target.read_text() == "the old one\n"
    assert only(full_disk) == [name]


def test_report_into_a_missing_folder_is_one_line(db: Path, tmp_path: Path) -> None:
    result = ledger(db, "report", "-o", str(tmp_path / "nowhere" / "r.html"))
    one_storage_error(result, "the folder")
    assert "does not exist" in result.stderr and not (tmp_path / "nowhere").exists()


def test_stats_on_a_full_disk_leaves_no_warehouse_that_later_refuses(db: Path, full_disk: Path) -> None:
    warehouse = full_disk / "w.duckdb"
    fill(full_disk)
    result = ledger(db, "stats", "--warehouse", str(warehouse))
    one_storage_error(result, f"cannot write warehouse {warehouse}")
    assert only(full_disk) == []  # no empty or half-made warehouse, no scratch folder
    (full_disk / "filler").unlink()
    again = ledger(db, "stats", "--warehouse", str(warehouse), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)


def test_a_catch_up_on_a_full_disk_is_one_line_and_the_next_one_finishes(db: Path, full_disk: Path) -> None:
    warehouse = full_disk / "w.duckdb"
    assert ledger(db, "stats", "--warehouse", str(warehouse)).returncode == 0
    s = Session(str(db))
    for _ in range(30):
        s("roll", "8d6")
    fill(full_disk)
    result = ledger(db, "stats", "--warehouse", str(warehouse))
    one_storage_error(result, f"cannot write warehouse {warehouse}")
    (full_disk / "filler").unlink()
    counted = ledger(db, "query", "--json", "SELECT count(*) AS n FROM rolls", "--warehouse", str(warehouse))
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout) == [{"n": 33}]


def test_export_parquet_over_a_symlinked_table_folder_is_refused(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "tables"
    assert ledger(db, "export", "parquet", str(out)).returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("keep me")
    for p in (out / "rolls").rglob("*"):
        if p.is_file():
            p.unlink()
    for p in sorted((out / "rolls").rglob("*"), reverse=True):
        p.rmdir()
    (out / "rolls").rmdir()
    (out / "rolls").symlink_to(elsewhere)
    result = ledger(db, "export", "parquet", str(out))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and "is a symlink" in result.stderr, result.stderr
    assert (out / "rolls").is_symlink() and (elsewhere / "mine.txt").read_text() == "keep me"
    assert (out / "ledger-export.json").is_file()  # the earlier export still says what it holds


def export_of(db: Path) -> bytes:
    result = subprocess.run(
        [sys.executable, "-m", "ledger.cli.main", "--db", str(db), "export"], capture_output=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_an_import_of_blank_lines_is_refused_at_the_first(db: Path, tmp_path: Path) -> None:
    header = export_of(db).split(b"\n", 1)[0]
    file = tmp_path / "blank.jsonl"
    file.write_bytes(header + b"\n" + b"\n" * (4 * 1024 * 1024))
    result = ledger(tmp_path / "other.ledger", "import", str(file))
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1 and "line 2 of the import file is blank" in result.stderr, (
        result.stderr
    )


def test_a_blank_line_between_events_is_refused_naming_it(db: Path, tmp_path: Path) -> None:
    lines = export_of(db).split(b"\n")
    assert lines[-1] == b"" and b"" not in lines[:-1]  # the ledger's own export holds no blank line
    file = tmp_path / "gap.jsonl"
    file.write_bytes(b"\n".join([*lines[:3], b"   ", *lines[3:]]))
    result = ledger(tmp_path / "other.ledger", "import", str(file))
    assert result.returncode == 1, result.stderr
    assert "line 4 of the import file is blank" in result.stderr, result.stderr
    assert "Tomb" not in ledger(tmp_path / "other.ledger", "campaigns").stdout
