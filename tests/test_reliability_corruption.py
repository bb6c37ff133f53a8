"""Damaged, foreign, newer, read-only and full stores: a clear one-line error,
and the user's file is never overwritten or "repaired"."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest

try:
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.errors import StoreError

COMMANDS = (
    ["verify", "--all"],
    ["-c", "Tomb", "note", "a note"],
    ["-c", "Tomb", "log"],
    ["-c", "Tomb", "roll", "1d6"],
    ["-c", "Tomb", "sheet"],
    ["new", "freeform", "Other"],
    ["campaigns"],
)


def build(db: Path, notes: int = 150) -> None:
    with Ledger(str(db)) as book:
        book.new_campaign("freeform", "Tomb")
        for i in range(notes):
            book.note(f"note {i} " + "y" * 100, "Tomb")


def assert_refused_untouched(
    db: Path, commands: tuple[list[str], ...] = COMMANDS, code: int | None = 3
) -> set[str]:
    """Every command refuses in one line and leaves the file's bytes as they were."""
    before = hr.file_digest(db)
    messages = set()
    for args in commands:
        messages.add(hr.assert_one_line_error(hr.invoke(str(db), *args), code=code))
        assert hr.file_digest(db) == before, f"ledger {' '.join(args)} changed the file"
    return messages


@pytest.fixture(scope="module")
def base_ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("base") / "base.ledger"
    build(db)
    return db


# --- truncated files ----------------------------------------------------------------

CUTS: dict[str, Callable[[int], int]] = {
    "header only": lambda size: 100,
    "first page": lambda size: 4096,
    "a tenth": lambda size: size // 10,
    "half": lambda size: size // 2,
    "mid-page": lambda size: size // 2 + 1234,
    "three quarters": lambda size: size * 3 // 4,
    "last page missing": lambda size: size - 4096,
}


@pytest.mark.parametrize("cut", list(CUTS))
def test_truncated_file_is_refused_and_left_alone(tmp_path: Path, base_ledger: Path, cut: str) -> None:
    db = tmp_path / "t.ledger"
    shutil.copy(base_ledger, db)
    with db.open("r+b") as f:
        f.truncate(CUTS[cut](db.stat().st_size))
    messages = assert_refused_untouched(db)
    assert any("damaged" in m or "malformed" in m or "truncated" in m for m in messages), messages


def test_file_missing_part_of_its_last_page_is_refused_untouched(tmp_path: Path, base_ledger: Path) -> None:
    db = tmp_path / "t.ledger"
    shutil.copy(base_ledger, db)
    with db.open("r+b") as f:
        f.truncate(db.stat().st_size - 600)
    assert_refused_untouched(db)


def test_file_one_byte_short_is_refused_in_one_line(tmp_path: Path, base_ledger: Path) -> None:
    db = tmp_path / "t.ledger"
    shutil.copy(base_ledger, db)
    with db.open("r+b") as f:
        f.truncate(db.stat().st_size - 1)
    assert_refused_untouched(db, code=None)


# --- not a ledger ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_random_bytes_file_is_refused(tmp_path: Path, seed: int) -> None:
    db = tmp_path / "t.ledger"
    rng = random.Random(seed)
    db.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20000))))
    messages = assert_refused_untouched(db)
    assert all("not a campaign-ledger file" in m for m in messages), messages


@pytest.mark.parametrize("seed", range(3))
def test_sqlite_header_then_garbage_is_refused(tmp_path: Path, seed: int) -> None:
    db = tmp_path / "t.ledger"
    rng = random.Random(seed)
    db.write_bytes(b"SQLite format 3\x00" + bytes(rng.randrange(256) for _ in range(8192)))
    assert_refused_untouched(db)


def test_text_file_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "notes.txt"
    db.write_text("my campaign notes\nday 1: we found a sword\n")
    assert_refused_untouched(db)


def test_another_applications_sqlite_file_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "contacts.db"
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
        conn.execute("INSERT INTO contacts VALUES ('Ana', '555')")
    conn.close()
    messages = assert_refused_untouched(db)
    assert all("another application's SQLite database" in m for m in messages), messages
    conn = sqlite3.connect(db)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert tables == {"contacts"}


def test_a_folder_as_the_ledger_is_refused(tmp_path: Path) -> None:
    line = hr.assert_one_line_error(hr.invoke(str(tmp_path), "campaigns"), code=3)
    assert "is a folder" in line


def test_missing_folder_is_refused_not_created(tmp_path: Path) -> None:
    where = tmp_path / "no" / "such" / "t.ledger"
    line = hr.assert_one_line_error(hr.invoke(str(where), "new", "freeform", "Tomb"), code=3)
    assert "does not exist" in line
    assert not (tmp_path / "no").exists()


# --- a newer store -------------------------------------------------------------------


def test_store_from_a_newer_format_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    build(db, notes=3)
    conn = sqlite3.connect(db)
    with conn:
        prev = "0" * 64
        for rowid, state in conn.execute(
            "SELECT rowid, state FROM ledger_events WHERE "
            "originator_id='registry' ORDER BY originator_version"
        ).fetchall():
            env = json.loads(state)
            env["prev"], env["hash"] = prev, ""
            if env["event"]["kind"] == "ledger.created":
                env["event"]["format"] = 2
            raw = hr.reseal(json.dumps(env, separators=(",", ":")).encode())
            prev = json.loads(raw)["hash"]
            conn.execute("UPDATE ledger_events SET state=? WHERE rowid=?", (raw, rowid))
    conn.close()
    messages = assert_refused_untouched(db)
    assert all("newer campaign-ledger" in m and "upgrade" in m for m in messages), messages


def test_export_from_a_newer_format_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    build(db, notes=3)
    out = tmp_path / "tomb.jsonl"
    with Ledger(str(db)) as book, out.open("wb") as f:
        book.export(f, "Tomb")
    lines = out.read_bytes().splitlines()
    header = json.loads(lines[0])
    header["version"] = header["version"] + 1
    out.write_bytes(b"\n".join([json.dumps(header).encode(), *lines[1:]]) + b"\n")
    before = hr.store_rows(str(db))
    line = hr.assert_one_line_error(hr.invoke(str(db), "import", str(out), "--name", "Copy"))
    assert "newer format" in line
    assert hr.store_rows(str(db)) == before


# --- read-only files and folders -----------------------------------------------------------


def _mount(args: list[str]) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


def cannot(why: str) -> NoReturn:
    """Skip a test this machine cannot run; under CI=true (where we are root and the
    mounts must work) fail loudly instead, so a full-disk test never passes by skipping."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {why}")
    pytest.skip(why)


@contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A size-limited filesystem (needs mount rights; skipped without them, failed under CI=true)."""
    where.mkdir()
    if shutil.which("mount") is None or not _mount(
        ["-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)]
    ):
        cannot("cannot mount a tmpfs here (no mount rights)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@contextmanager
def read_only(folder: Path, *, also_file: Path | None) -> Iterator[None]:
    """Make a folder (and a file in it) read-only, even for root (a read-only remount)."""
    if os.geteuid() != 0:
        if also_file is not None:
            also_file.chmod(0o444)
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if not _mount(["-o", "remount,ro", str(folder)]):
        cannot("cannot remount read-only here")
    yield


@pytest.fixture
def ro_place(tmp_path: Path) -> Iterator[Path]:
    """A folder that can be made read-only: a tmpfs when root, a plain folder otherwise."""
    if os.geteuid() == 0:
        with small_tmpfs(tmp_path / "mnt", "4m") as where:
            yield where
    else:
        where = tmp_path / "mnt"
        where.mkdir()
        yield where


WRITES = tuple(args for args in COMMANDS if args[-1] in ("a note", "1d6", "Other"))
READS = (
    ["verify", "--all"],
    ["-c", "Tomb", "log"],
    ["-c", "Tomb", "sheet"],
    ["campaigns"],
    ["status"],
    ["-c", "Tomb", "export", "--unsigned"],
)


def test_read_only_ledger_refuses_writes_untouched(ro_place: Path) -> None:
    db = ro_place / "t.ledger"
    build(db, notes=5)
    with read_only(ro_place, also_file=db):
        assert_refused_untouched(db, WRITES)


def test_read_only_ledger_error_says_read_only(ro_place: Path) -> None:
    db = ro_place / "t.ledger"
    build(db, notes=5)
    with read_only(ro_place, also_file=db):
        messages = assert_refused_untouched(db, WRITES)
    assert all("read-only" in m and "damaged" not in m for m in messages), messages


def test_read_only_ledger_can_be_read_listed_verified_and_exported(ro_place: Path) -> None:
    """Read-only media: every reading command works and leaves the folder as it was."""
    db = ro_place / "t.ledger"
    build(db, notes=5)
    before = sorted(p.name for p in ro_place.iterdir())
    digest = hr.file_digest(db)
    with read_only(ro_place, also_file=db):
        for args in READS:
            result = hr.invoke(str(db), *args)
            assert result.exit_code == 0, (args, result.output, result.stderr)
        signed = hr.invoke(str(db), "-c", "Tomb", "export")
    assert signed.exit_code == 0, signed.stderr
    assert "read-only and has no signing key yet" in signed.stderr
    assert '"campaign.started"' in signed.stdout or "campaign.started" in signed.stdout
    assert sorted(p.name for p in ro_place.iterdir()) == before
    assert hr.file_digest(db) == digest


def test_new_ledger_in_a_read_only_folder_is_refused(ro_place: Path) -> None:
    with read_only(ro_place, also_file=None):
        line = hr.assert_one_line_error(
            hr.invoke(str(ro_place / "t.ledger"), "new", "freeform", "Tomb"), code=3
        )
    assert "read-only" in line
    assert not (ro_place / "t.ledger").exists()


# --- full disks ------------------------------------------------------------------------------


def test_full_disk_refuses_cleanly_and_resumes(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "small", "600k") as where:
        db = where / "t.ledger"
        build(db, notes=1)
        filler = where / "filler"
        free = shutil.disk_usage(where).free
        filler.write_bytes(b"\0" * max(0, free - 120_000))
        recorded = 1
        with Ledger(str(db)) as book:
            for i in range(5000):
                try:
                    book.note(f"full {i} " + "z" * 400, "Tomb")
                except StoreError as e:
                    assert "disk is full" in str(e), str(e)
                    break
                recorded += 1
            else:
                pytest.fail("the small disk never filled up")
        line = hr.assert_one_line_error(
            hr.invoke(str(db), "-c", "Tomb", "character", "add", "Bob", "--attr", "bio=" + "z" * 8000), code=3
        )
        assert "disk is full" in line and "nothing was recorded" in line
        assert hr.invoke(str(db), "verify", "--all").exit_code == 0
        notes = [r for r in hr.store_rows(str(db)) if r[2] == "note"]
        assert len(notes) == recorded
        filler.unlink()
        assert hr.invoke(str(db), "-c", "Tomb", "note", "room again").exit_code == 0
        assert hr.invoke(str(db), "verify", "--all").exit_code == 0


FILL = """
import resource, signal, sys
from ledger import Ledger
from ledger.errors import StoreError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
n = 0
with Ledger(sys.argv[1]) as book:
    for i in range(5000):
        try:
            book.note(f"full {i} " + "z" * 400, "Tomb")
        except StoreError as e:
            print(n); print(e); break
        n += 1
"""


def _size_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_size_limited_file_refuses_cleanly_and_resumes(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    build(db, notes=1)
    limit = db.stat().st_size + 60_000
    proc = subprocess.run(
        [sys.executable, "-c", FILL, str(db), str(limit)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=hr.ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    written, message = proc.stdout.strip().splitlines()
    assert "cannot write" in message
    cli = subprocess.run(
        hr.ledger_cmd("--db", str(db), "-c", "Tomb", "note", "x" * 450),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=hr.ROOT,
        preexec_fn=_size_limit(0),
    )
    hr.assert_process_refused(cli, code=3)
    assert hr.run_ledger(str(db), "verify", "--all").returncode == 0
    assert len([r for r in hr.store_rows(str(db)) if r[2] == "note"]) == int(written) + 1
    assert hr.run_ledger(str(db), "-c", "Tomb", "note", "no limit now").returncode == 0
    assert hr.run_ledger(str(db), "verify", "--all").returncode == 0


def test_size_limited_file_error_names_the_space_problem(tmp_path: Path) -> None:
    db = tmp_path / "t.ledger"
    build(db, notes=1)
    limit = db.stat().st_size + 30_000
    proc = subprocess.run(
        [sys.executable, "-c", FILL, str(db), str(limit)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=hr.ROOT,
    )
    message = proc.stdout.strip().splitlines()[-1]
    assert "full" in message or "space" in message, message
