"""The next batch's statement run on a thread of its own while the caller works on this one.

The bulk readers of a SQLite file (the replay's fold, :meth:`jaslog.store.Store.fold_games`,
and the export, :func:`jaslog.export.stored.store_games`) read a batch of games with one
statement (:func:`jaslog.store.fold_read.read_codes`) and then fold or build it in Python.
SQLite's C code runs the statement with Python's lock released (the ``sqlite3`` module lets
it go around each ``sqlite3_step``), so a second core can run batch N+1's statement while
this thread folds batch N: :class:`ReadAhead` is that reader. It is wall time won from a
second core; the CPU spent stays the same.
While it reads beside the replay's compiled fold, Python's switch interval is lowered
(:func:`quick_handoffs`), or the reader waits up to 5 ms for the lock after each step.

The reader has its OWN connection to the same file, opened through the same ``sqlite3``
module (never a second SQLite library in the process: two copies of SQLite undo each other's
POSIX locks on one file, sqlite.org's "how to corrupt", 2.2.1), read-write but
``query_only`` (it never writes, and never creates a file that is not there). It reads only
the rows up to the position ``until`` the caller took when its read began: events are never
updated nor deleted, so those rows are the caller's snapshot's, and the games' keys
(``games.pos``) never change.

Memory stays bounded: the caller asks for one batch ahead at most (:func:`fetch_codes` of
the next batch once the rows of this one are in), so at most two batches' rows are held.
An error of the reader (its connection, the statement) is raised in the caller when it takes
that batch's rows, the same error (a ``sqlite3`` error, which the caller's
:func:`jaslog.store.engine.read_tx` says as it says its own). A caller that stops early (its
generator closed, an error, Ctrl-C) closes the reader (``with``): the thread finishes the
statement it runs, closes its connection and is joined, so nothing of it is left.
"""

from __future__ import annotations

import queue
import sqlite3
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: What the reader gives for a batch: each game's id by its key, and the statement's rows.
Fetched = tuple[dict[int, str], list[Any]]


class ReadAhead:
    """A reader thread with its own connection to the SQLite file ``path``: :meth:`codes`
    runs a batch's statement there, in the order asked, and gives its future. Started at the
    first batch; :meth:`close` (or leaving ``with``) stops and joins it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._jobs: queue.SimpleQueue[tuple[Future[Fetched], list[str], int] | None] = \
            queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._asked: list[Future[Fetched]] = []

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def codes(self, ids: list[str], until: int) -> Future[Fetched]:
        """The games ``ids`` read up to position ``until`` by the batch statement
        (:func:`jaslog.store.fold_read.fetch_codes`), on the reader's thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="jaslog-read-ahead",
                                            daemon=True)
            self._thread.start()
        fut: Future[Fetched] = Future()
        self._asked = [f for f in self._asked if not f.done()]
        self._asked.append(fut)
        self._jobs.put((fut, ids, until))
        return fut

    def close(self) -> None:
        """Stop the reader once its statement (if any) is done; its connection is closed and
        its thread joined. Batches asked for and not begun are cancelled."""
        if self._thread is None:
            return
        for fut in self._asked:
            fut.cancel()  # (not one that runs: that one is finished)
        self._asked.clear()
        self._jobs.put(None)
        self._thread.join()
        self._thread = None

    def _run(self) -> None:
        from jaslog.store.fold_read import fetch_codes

        conn: sqlite3.Connection | None = None
        try:
            while True:
                job = self._jobs.get()
                if job is None:
                    return
                fut, ids, until = job
                if not fut.set_running_or_notify_cancel():
                    continue
                try:
                    if conn is None:
                        conn = connect(self.path)
                    got = fetch_codes(conn, ids, until)
                except BaseException as err:  # given to the caller, raised where it waits
                    fut.set_exception(err)
                else:
                    fut.set_result(got)
        finally:
            if conn is not None:
                conn.close()


def connect(path: str) -> sqlite3.Connection:
    """A reading connection to the store's file ``path`` (which must be there: it is not
    made), waiting for a writer's lock as the store's own connections do."""
    from jaslog.store.engine import lock_timeout

    uri = Path(path).absolute().as_uri() + "?mode=rw"
    conn = sqlite3.connect(uri, uri=True, timeout=lock_timeout(), isolation_level=None,
                           check_same_thread=True)
    try:
        conn.execute("PRAGMA query_only = 1")
    except BaseException:
        conn.close()
        raise
    return conn


#: The switch interval while a reader works beside a compiled fold (:func:`quick_handoffs`).
HANDOFF_S = 0.0005
_handoffs_lock = threading.Lock()
_handoffs: list[float] = []  # the interval to restore, while any reader works


@contextmanager
def quick_handoffs() -> Iterator[None]:
    """Python's switch interval lowered to :data:`HANDOFF_S` while the block runs (restored
    when the last such block in the process ends).

    A thread that wants Python's lock back (the reader, at the end of each SQLite step)
    waits for the thread holding it to let it go, which a thread running compiled code (the
    fold: no bytecode loop, so no check of the request) does only at the switch interval
    once it runs Python again: 5 ms by default, several times a batch, so the reader fell
    behind and the replay's wall time was its CPU time. At 0.5 ms the statement of the next
    batch runs beside the fold (the replay of 400 games: 0.25 s to 0.19 s of wall time, the
    same CPU).

    >>> before = sys.getswitchinterval()
    >>> with quick_handoffs():
    ...     sys.getswitchinterval() == HANDOFF_S
    True
    >>> sys.getswitchinterval() == before
    True
    """
    with _handoffs_lock:
        if not _handoffs:
            _handoffs.append(sys.getswitchinterval())
            sys.setswitchinterval(HANDOFF_S)
        else:
            _handoffs.append(_handoffs[0])
    try:
        yield
    finally:
        with _handoffs_lock:
            restore = _handoffs.pop()
            if not _handoffs:
                sys.setswitchinterval(restore)
