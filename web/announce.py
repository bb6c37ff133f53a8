"""Where a running ``ledger serve`` listens, for ``ledger table invite`` to link to.

While it runs, the server keeps a small record of the URL it announced (``{"url", "pid",
"host", "started"}``, never a secret, nor the ledger's own address, which may hold a
PostgreSQL password): beside a ledger file as ``<ledger>.serving.json``; for a PostgreSQL
ledger, in the user's runtime folder (``$XDG_RUNTIME_DIR``, else ``~/.cache``) under
``campaign-ledger/``, named by a hash of the ledger's address. It is removed when the
server stops; a record left by a server that was killed names a process that is gone, and
is passed over. This module imports no web framework: the command line reads it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sys
from pathlib import Path

from ledger.log import chain
from ledger.log.store import is_postgres


def record_path(target: str) -> Path:
    """Where the record of a server of ``target`` (a ledger file or a PostgreSQL URL) is kept."""
    if not is_postgres(target):
        ledger = Path(target)
        return ledger.with_name(ledger.name + ".serving.json")
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or Path.home() / ".cache")
    return base / "campaign-ledger" / f"serving-{hashlib.sha256(target.encode()).hexdigest()[:32]}.json"


def announce(target: str, url: str) -> Path:
    """Record that this process serves ``target`` at ``url`` (OSError when it cannot)."""
    path = record_path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"url": url, "pid": os.getpid(), "host": socket.gethostname(), "started": chain.now()}
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w") as out:
        json.dump(record, out)
    os.replace(temporary, path)  # a rename: a link planted at the path is replaced, not followed
    return path


def withdraw(target: str) -> None:
    """Remove this process's record, if the record is still its own."""
    path = record_path(target)
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()


def _alive(pid: int) -> bool:
    if sys.platform == "win32":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def served_url(target: str) -> str | None:
    """The URL a running ``ledger serve`` of ``target`` announced; None when none runs
    (no record, or one left by a process that is gone)."""
    try:
        record = json.loads(record_path(target).read_text())
        url, pid, host = record["url"], record["pid"], record["host"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(url, str) or not url.startswith(("http://", "https://")) or not isinstance(pid, int):
        return None
    if host == socket.gethostname() and not _alive(pid):
        return None
    return url
