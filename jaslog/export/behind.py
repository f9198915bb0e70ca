"""The export's Parquet writes done behind it, by one writer thread, in the order given.

Arrow encodes and compresses (zstd) a row group, and the file is synced and hashed, with
Python's lock released: one writer thread does the writes of an export
(:class:`jaslog.export.dataset._Writers`) while the exporter builds the next rows, on the
machine's second core. It is wall time won from a second core; the CPU spent stays the same.

One thread doing the jobs in the order they were given writes every file as the exporter
alone would, byte for byte: which rows go into which row group of which file is settled by
the exporter before a job is given (the pending-bytes budget and the row counts, never the
thread's timing), and a file's row groups are written in order.

Memory stays bounded: the jobs given and not yet done hold at most ``most`` bytes of Arrow
tables (one job more is always taken when none is waiting); the exporter waits for the
writer past that. An error of a job (a full disk) is raised in the exporter, the same
exception, at its next job or when it waits for the writes (:meth:`WriteBehind.join`); the
jobs after it are not done. :meth:`WriteBehind.abort` drops the jobs not begun, waits for
the one that runs and joins the thread (the exporter then throws its staging folder away).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable


class WriteBehind:
    """One writer thread running jobs in the order :meth:`put` gives them, with at most
    ``most`` bytes of them waiting or running (one job more when none is). Started by the
    first job."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._cv = threading.Condition()
        self._jobs: deque[tuple[Callable[[], None], int]] = deque()
        self._held = 0  # bytes of the jobs waiting and of the one running
        self._error: BaseException | None = None
        self._stop = False
        self._thread: threading.Thread | None = None

    def put(self, job: Callable[[], None], nbytes: int) -> None:
        """Give the writer ``job`` (holding ``nbytes`` bytes): waits while the jobs held would
        pass the bound; raises the error of an earlier job."""
        with self._cv:
            if self._thread is None:
                self._stop = False
                self._thread = threading.Thread(target=self._run, name="jaslog-parquet-writer",
                                                daemon=True)
                self._thread.start()
            while self._error is None and self._held > 0 and self._held + nbytes > self.most:
                self._cv.wait()
            if self._error is not None:
                raise self._error
            self._jobs.append((job, nbytes))
            self._held += nbytes
            self._cv.notify_all()

    def join(self) -> None:
        """Wait until every job given is done and stop the thread; raises the error of a
        job, if one failed."""
        self._end(drop=False)
        if self._error is not None:
            raise self._error

    def abort(self) -> None:
        """Drop the jobs not begun, wait for the one that runs and stop the thread (an error
        is not raised: the exporter is already stopping)."""
        self._end(drop=True)

    def _end(self, *, drop: bool) -> None:
        with self._cv:
            thread = self._thread
            if thread is None:
                return
            if drop:
                self._held -= sum(n for _job, n in self._jobs)
                self._jobs.clear()
            self._stop = True
            self._cv.notify_all()
        thread.join()
        self._thread = None

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._jobs and not self._stop:
                    self._cv.wait()
                if not self._jobs:
                    return
                job, nbytes = self._jobs.popleft()
            try:
                job()
            except BaseException as err:  # raised in the exporter
                with self._cv:
                    self._error = err
                    self._held = 0
                    self._jobs.clear()
                    self._cv.notify_all()
                return
            del job
            with self._cv:
                self._held -= nbytes
                self._cv.notify_all()
