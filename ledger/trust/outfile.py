"""The one way the ledger writes a file a user names (an export, a journal, a report).

A user-named file is never one of the ledger's own files: the SQLite file and its
``-wal``, ``-shm`` and ``-journal`` files, the warehouse and its ``.wal`` and ``.tmp``
(by path, through a symlink or as a hard link). The target itself is never a symlink, a
folder, a device, a fifo or a socket: only a regular file is replaced. The new contents
are written to a temporary file in the same folder, flushed to disk and renamed over the
target, so that a full disk or an I/O error leaves the old file as it was (and no empty
or partial file): :class:`ledger.errors.OutputWriteError`, a storage error.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar

from ledger.errors import OutputExistsError, OutputPathError, OutputWriteError
from ledger.i18n import _

if TYPE_CHECKING:
    from ledger.log.store import Store

T = TypeVar("T")

DEFAULT_PG_WAREHOUSE = "ledger-warehouse.duckdb"
"""The warehouse of a PostgreSQL ledger, in the working folder, unless one is named."""

WAREHOUSE_ENV = "LEDGER_WAREHOUSE"
"""The environment variable that names the warehouse."""

STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EROFS})
"""What a device says when it cannot take the bytes: a storage fault, not a bad input."""


def ledger_files(store: Store) -> dict[Path, str]:
    """The files a SQLite ledger lives in (none for PostgreSQL), with what each is."""
    if store.kind != "sqlite":
        return {}
    main = Path(store.target)
    files = {main: _("the ledger file")}
    for suffix in ("-wal", "-shm", "-journal"):
        files[main.with_name(main.name + suffix)] = _("the ledger's {kind} file", kind=suffix[1:])
    return files


def default_warehouse(store: Store) -> Path:
    """``LEDGER_WAREHOUSE``, else ``<ledger file>.duckdb`` for SQLite or
    ``./ledger-warehouse.duckdb`` for PostgreSQL."""
    chosen = os.environ.get(WAREHOUSE_ENV)
    if chosen:
        return Path(chosen)
    if store.kind == "sqlite":
        return Path(store.target + ".duckdb")
    return Path(DEFAULT_PG_WAREHOUSE)


def warehouse_files(path: Path) -> dict[Path, str]:
    """A warehouse's file, its write-ahead log and its spill folder, with what each is."""
    return {
        path: _("the warehouse"),
        path.with_name(path.name + ".wal"): _("the warehouse's write-ahead log"),
        path.with_name(path.name + ".tmp"): _("the warehouse's spill folder"),
    }


def own_files(store: Store, warehouses: Iterable[Path] = ()) -> dict[Path, str]:
    """Every file the ledger keeps: its own, and those of its default warehouse and of each
    of ``warehouses``."""
    files = ledger_files(store)
    for path in (default_warehouse(store), *warehouses):
        for file, what in warehouse_files(path).items():
            files.setdefault(file, what)
    return files


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same after resolving symlinks and relative
    parts, or hard links of each other."""
    try:
        if a.resolve() == b.resolve():
            return True
    except (OSError, RuntimeError):  # a symlink loop
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def clash(path: Path, protected: Mapping[Path, str]) -> tuple[Path, str] | None:
    """The protected file ``path`` would overwrite, with what it is, or None."""
    for file, what in protected.items():
        if same_file(path, file):
            return file, what
    return None


def not_a_file(path: Path, *, follow_symlinks: bool = False) -> str | None:
    """What ``path`` is, in words, when it is there but is no regular file: ``a folder``,
    ``a symlink`` (only without ``follow_symlinks``), ``a named pipe (fifo)``, ``a socket``,
    ``a device``; None for a regular file or a missing path. It only looks (``stat``), never
    opens: opening a named pipe waits for a writer, reading a device may never end. The one
    check of every path a user names for the ledger, its warehouse or a file it writes.
    Raises the :class:`OSError` of a path that cannot be looked at."""
    try:
        mode = os.stat(path).st_mode if follow_symlinks else os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (fifo)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def kind_said(kind: str) -> str:
    """What :func:`not_a_file` found (``a folder``), in the language of the moment."""
    words = {
        "a symlink": _("a symlink"),
        "a folder": _("a folder"),
        "a named pipe (fifo)": _("a named pipe (fifo)"),
        "a socket": _("a socket"),
        "a device": _("a device"),
    }
    return words.get(kind, kind)


def check_target(path: Path, protected: Mapping[Path, str], *, field: str = "output") -> None:
    """Refuse a target that is one of ``protected``, a symlink, or anything but a regular
    file (a folder, a device, a fifo, a socket: :func:`not_a_file`); a missing file is fine."""
    found = clash(path, protected)
    if found is not None:
        raise OutputPathError(
            _(
                "{path} would overwrite {what} {file}; it was left as it is: write to another file",
                path=path,
                what=found[1],
                file=found[0],
            ),
            str(path),
            field=field,
        )
    try:
        kind = not_a_file(path)
    except OSError as e:
        raise OutputWriteError(
            _("cannot look at {path}: {reason}; choose another file", path=path, reason=e.strerror), str(path)
        ) from e
    if kind == "a symlink":
        raise OutputPathError(
            _("{path} is a symlink; it was left as it is: give the file itself, or another file", path=path),
            str(path),
            field=field,
        )
    if kind is not None:
        raise OutputPathError(
            _(
                "{path} is {kind}, not a regular file; it was left as it is: give a file's name",
                path=path,
                kind=kind_said(kind),
            ),
            str(path),
            field=field,
        )


def write_file(
    path: str | Path,
    write: Callable[[IO[bytes]], T],
    *,
    protected: Mapping[Path, str],
    replace: bool = False,
    field: str = "output",
) -> T:
    """Write ``path`` through ``write`` (given the open file; its result is returned), after
    :func:`check_target`: into a temporary file beside it, flushed to disk, then renamed over
    it. An existing file is replaced only with ``replace``. Any failure leaves the old file
    (or none) and no temporary file behind."""
    target = Path(path)
    check_target(target, protected, field=field)
    if not replace and os.path.lexists(target):
        raise OutputExistsError(
            _(
                "{target} exists; it was left as it is: allow replacing it, or choose another file",
                target=target,
            ),
            str(target),
        )
    folder = target.parent
    if not folder.is_dir():
        raise OutputWriteError(
            _(
                "cannot write {target}: the folder {folder} does not exist; create it or choose another file",
                target=target,
                folder=folder,
            ),
            str(target),
        )
    tmp = folder / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as e:
        raise _cannot_write(target, e) from e
    try:
        with os.fdopen(fd, "wb") as out:
            with contextlib.suppress(FileNotFoundError):  # a file replaced keeps its permissions
                os.fchmod(out.fileno(), stat.S_IMODE(os.stat(target).st_mode))
            result = write(out)
            out.flush()
            os.fsync(out.fileno())
        check_target(target, protected, field=field)  # nothing swapped in while writing
        os.replace(tmp, target)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise _cannot_write(target, e) from e
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_folder(folder)
    return result


def write_text(path: str | Path, text: str, *, protected: Mapping[Path, str], replace: bool = False) -> None:
    """:func:`write_file` of ``text`` as UTF-8."""
    data = text.encode("utf-8")
    write_file(path, lambda out: out.write(data), protected=protected, replace=replace)


def _cannot_write(target: Path, e: OSError) -> OutputWriteError:
    reason = e.strerror or str(e)
    kept = _("the old file was left as it is") if target.exists() else _("nothing was written")
    fix = (
        _("free some space or choose another file") if e.errno in STORAGE_ERRNOS else _("choose another file")
    )
    return OutputWriteError(
        _("cannot write {path}: {reason}; {kept}: {fix}", path=target, reason=reason, kept=kept, fix=fix),
        str(target),
    )


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (where the system lets a folder be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
