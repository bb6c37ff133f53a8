"""The one way the ledger reads an export a user names (to import or verify it).

A regular file is read where it lies, and may be read more than once (the import, then its
header for the summary; ``verify --dice`` a second pass). A stream can be read only once: a
pipe (``cat x.jsonl | ledger import /dev/stdin``, ``ledger import <(...)``, ``-`` for the
standard input), a terminal or another device. It is read exactly as a file is, line by line
within the import's caps, and every byte read is kept in memory, so that reading it again
from its start reads what was kept: the import of a stream checks everything before it
records anything (whole or nothing, like a file), and is refused at the line where the same
file would be, having read no further (plus one block read ahead). A folder or a socket is
refused without being opened (:func:`ledger.trust.outfile.not_a_file`).
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ledger.errors import ImportFileError
from ledger.i18n import _
from ledger.trust import outfile

STDIN = "-"
"""The name that reads the standard input."""


@contextlib.contextmanager
def opened(path: str) -> Iterator[IO[bytes]]:
    """The export at ``path`` (``-``: the standard input), open for reading from its start and
    seekable to its start again: a regular file as it lies, a stream through :class:`Kept`."""
    if path == STDIN:
        yield io.BufferedReader(Kept(sys.stdin.buffer))
        return
    try:
        kind = outfile.not_a_file(Path(path), follow_symlinks=True)
    except OSError as e:
        raise _cannot_read(path, e) from e
    if kind in ("a folder", "a socket"):
        raise ImportFileError(
            _(
                "{path} is {kind}, not an export; give the file `export` wrote, or pipe it in",
                path=path,
                kind=outfile.kind_said(kind),
            )
        )
    try:
        data = open(path, "rb")  # noqa: SIM115 (closed by the with below)
    except OSError as e:
        raise _cannot_read(path, e) from e
    with data:
        yield data if kind is None else io.BufferedReader(Kept(data))


def is_stream(path: str) -> bool:
    """Whether ``path`` names a stream, read once (:func:`opened`), rather than a file that
    can be named again (in a hint to run another command on it)."""
    if path == STDIN:
        return True
    try:
        return outfile.not_a_file(Path(path), follow_symlinks=True) is not None
    except OSError:
        return False


class Kept(io.RawIOBase):
    """A stream read once, each byte kept as it is read: after a seek back, reading reads the
    kept bytes, then the stream on from where it stopped. Only what was read is held."""

    def __init__(self, source: IO[bytes]) -> None:
        super().__init__()
        self._source = source
        self._kept = bytearray()
        self._at = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        want = len(buffer)
        if self._at < len(self._kept):
            chunk = bytes(self._kept[self._at : self._at + want])
        else:
            read1 = getattr(self._source, "read1", None)  # what the stream has now, one read
            chunk = read1(want) if read1 is not None else self._source.read(want)
            self._kept += chunk
        buffer[: len(chunk)] = chunk
        self._at += len(chunk)
        return len(chunk)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._at
        elif whence != io.SEEK_SET:
            raise io.UnsupportedOperation("a stream's end is not known before it is read")
        if not 0 <= offset <= len(self._kept):
            raise io.UnsupportedOperation("a stream is read again only as far as it was read")
        self._at = offset
        return offset

    def tell(self) -> int:
        return self._at


def _cannot_read(path: str, e: OSError) -> ImportFileError:
    return ImportFileError(
        _("cannot read {path}: {value}; check the path and its permissions", path=path, value=e.strerror or e)
    )
