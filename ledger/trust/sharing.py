"""Two processes for one admission: a partner decides most actions again while the
admission checks everything else.

Deciding every action again is most of what an import or ``verify`` costs
(``ledger.trust.admission``). An action is decided on the state before it, which only
the fold of the events before it gives: a second process (forked, so it starts in a few
milliseconds with everything loaded) is sent each event the admission reads, folds them
as the admission does, and decides again every action but one in :data:`SHARE`, which
the admission decides itself. Its verdict is its exit status.

Nothing is weakened: every action is still decided again, on the very state the
admission folds (the partner folds the same events with the same code), and the
admission checks every event as before. Nothing is trusted either: when anything is
refused, by either process, the caller checks the same events again in one process
(:func:`shared_or_alone`), so the refusal is the one a single process gives, word for word,
named at the same first bad event.

A partner is used only where it can pay: on Linux and other systems with ``fork``, with
at least :data:`MIN_EVENTS` events, no other thread running (a forked thread-holding
process is not safe to run Python in), and a core to spare (:func:`a_core_is_idle`). On
a machine whose cores are all busy with other work the partner would not run beside the
admission but in its place: the scheduler shares the machine between sessions, not
processes (Linux's autogroups), so two processes get one's time, and the partner's own
fold and the pipe make the whole slower (about 20% on two busy cores).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, TypeVar

from ledger.i18n import _

if TYPE_CHECKING:
    from ledger.trust.admission import Admission

T = TypeVar("T")

SHARE = 10
"""The admission decides again one action in ``SHARE`` (the actions whose ordinal is a
multiple of it), the partner the others: ``verify``'s other checks of an event cost about
as much as deciding nine actions in ten again plus the partner's own fold, so that both
processes end together."""

IMPORT_SHARE = 20
"""An import's :data:`SHARE`: it also reads the file and appends the events."""

MIN_EVENTS = 4000
"""Fewer events than this are checked in one process: a fork and its pipe cost a few
milliseconds."""

PIPE_SIZE = 1 << 20
"""The pipe's buffer where the system allows it (Linux: up to ``/proc/sys/fs/pipe-max-size``,
1 MiB by default): the admission runs up to that far ahead of its partner, so that
neither waits on the other at every turn of a busy machine's scheduler."""

_FRAME = 4
"""Each event is sent as its length (4 bytes, little-endian), then its bytes."""


class Refused(Exception):
    """The partner refused an action (or could not run): check again in one process."""


def a_core_is_idle() -> bool:
    """Whether the machine has a core to spare: two cores or more, and a load average
    over the last minute that leaves one free (this process's own included)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return False
    return cores >= 2 and load <= cores - 1


def available(events: int) -> bool:
    """Whether an admission of about ``events`` events is worth sharing, and safe to."""
    return events >= MIN_EVENTS and hasattr(os, "fork") and threading.active_count() == 1 and a_core_is_idle()


class Partner:
    """The second process of one admission: :meth:`send` each event as it is read,
    :meth:`verdict` once the last is; :meth:`stop` in any case (a ``finally``)."""

    def __init__(self, follower: Callable[[], Admission]) -> None:
        import fcntl  # lazy: only where there is fork (no fcntl on Windows, and no partner)

        read_end, write_end = os.pipe()
        with contextlib.suppress(OSError, AttributeError):  # Linux: the admission runs ahead
            fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        try:
            pid = os.fork()
        except OSError:  # no process to spare: the caller checks in one process
            os.close(read_end)
            os.close(write_end)
            raise
        if pid == 0:  # the partner: it never returns
            status = 1
            try:
                os.close(write_end)
                status = _follow(follower(), os.fdopen(read_end, "rb", buffering=1 << 16))
            finally:
                os._exit(status)  # no cleanup of the parent's objects (its store, its files)
        os.close(read_end)
        self.pid = pid
        self.out: IO[bytes] | None = os.fdopen(write_end, "wb", buffering=1 << 16)
        self.broken = False

    def send(self, raw: bytes) -> None:
        out = self.out
        if out is None or self.broken:
            return
        try:
            out.write(len(raw).to_bytes(_FRAME, "little"))
            out.write(raw)
        except OSError:  # the partner is gone (ended from outside): its verdict says so
            self.broken = True

    def verdict(self) -> None:
        """Wait for the partner; raise :class:`Refused` unless it found every action it
        decided again as recorded."""
        status = self._close()
        if status != 0 or self.broken:
            raise Refused

    def stop(self) -> None:
        """End the partner if it still runs (an admission refused early)."""
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self._close()

    def _close(self) -> int:
        out, self.out = self.out, None
        if out is not None:
            try:
                out.close()
            except OSError:
                self.broken = True
        if not self.pid:
            return 1
        pid, self.pid = self.pid, 0
        __, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)


def _follow(admission: Admission, stream: IO[bytes]) -> int:
    """The partner's loop: every event sent, then the last action closed; 0 when every
    action it decided again is as recorded."""
    try:
        for raw in _frames(stream):
            admission.follow(raw)
        admission.follow_end()
    except BaseException:
        with contextlib.suppress(BaseException):  # read on to the end: the admission never
            while stream.read(1 << 16):  # writes into a closed pipe (SIGPIPE, where a
                pass  # program has not ignored it as Python does)
        return 1
    return 0


def _frames(stream: IO[bytes]) -> Iterator[bytes]:
    read = stream.read
    while True:
        head = read(_FRAME)
        if not head:
            return
        if len(head) < _FRAME:
            raise EOFError(_("the admission stopped in the middle of an event"))
        size = int.from_bytes(head, "little")
        raw = read(size)
        if len(raw) < size:
            raise EOFError(_("the admission stopped in the middle of an event"))
        yield raw


def shared_or_alone(run: Callable[[bool], T], events: int) -> T:
    """``run(shared)``: with a partner where one pays (:func:`available`); when that run
    refuses anything (or its partner does), ``run(False)``, whose refusal is the one a
    single process gives. ``run`` must be able to read its events a second time."""
    if not available(events):
        return run(False)
    try:
        return run(True)
    except Exception:
        return run(False)
