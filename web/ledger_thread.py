"""The one thread that runs every ledger call of a ``ledger serve`` process, in turn.

A ``Ledger`` is used by one thread at a time, so the server hands it every call through a
queue. The calls that are waiting together when the thread comes back for more (five
players acting at once) run one after another as one group whose commits are flushed to
disk once, at its end (:meth:`ledger.log.store.Store.flushed_together`), and no call of
the group is answered before that flush: each action is still its own transaction, whole
or absent, and none is acknowledged before it is durable. A call alone runs as any
command line's does, its commit flushed by itself. Each call runs in a copy of its caller's
context, so it says what it says in the language of the request that asked for it
(``ledger.i18n.using``): two seats in two languages each read their own.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from contextlib import AbstractContextManager
from typing import Any

GROUP = 32
"""The most calls run as one group."""

Call = tuple["Future[Any]", Callable[[], Any]]


class LedgerThread:
    """Runs each submitted call on one thread, in the order given; the calls queued
    together inside ``together()`` (a context whose end makes their commits durable)."""

    def __init__(self, together: Callable[[], AbstractContextManager[None]], name: str = "ledger") -> None:
        self._together = together
        self._name = name
        self._calls: queue.SimpleQueue[Call | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()

    def submit(self, call: Callable[[], Any]) -> Future[Any]:
        """``call()`` on the ledger thread (started again if it was stopped: an app may
        start and stop its lifespan more than once); its future is done once it is durable.
        It runs in a copy of the caller's context (its language, ``ledger.i18n``)."""
        done: Future[Any] = Future()
        call = functools.partial(contextvars.copy_context().run, call)
        with self._starting:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._calls.put((done, call))
        return done

    def stop(self) -> None:
        """End the thread once the calls submitted before are done."""
        with self._starting:
            thread, self._thread = self._thread, None
            if thread is None:
                return
            self._calls.put(None)
        thread.join()

    def _run(self) -> None:
        while True:
            first = self._calls.get()
            if first is None:
                return
            group, stopping = [first], False
            while len(group) < GROUP:
                try:
                    more = self._calls.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                group.append(more)
            self._run_group(group)
            if stopping:
                return

    def _run_group(self, group: list[Call]) -> None:
        outcomes: list[tuple[Future[Any], Any, BaseException | None]] = []
        try:
            with self._together() if len(group) > 1 else contextlib.nullcontext():
                for done, call in group:
                    if not done.set_running_or_notify_cancel():
                        continue
                    try:
                        outcomes.append((done, call(), None))
                    except BaseException as e:  # handed to the caller, as an executor does
                        outcomes.append((done, None, e))
        except BaseException as e:  # the flush failed: no call of the group is durable
            for done, _ in group:
                with contextlib.suppress(InvalidStateError):  # one its caller gave up on
                    done.set_exception(e)
            return
        for done, value, error in outcomes:
            if error is None:
                done.set_result(value)
            else:
                done.set_exception(error)
