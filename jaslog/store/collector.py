"""Python's cycle collector paused while the store reads or writes in bulk.

>>> import gc
>>> with collector_paused():
...     gc.isenabled()
False
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's automatic cycle collector while a bulk read or import runs (and turn it
    back on after, if it was on); an import collects the young generations itself, right
    after a batch is written (:meth:`jaslog.store.importer.Validator.flush`).

    A bulk read or import makes millions of short-lived objects (events, rows, states, a
    batch's codes) that the collector would otherwise scan again and again, for nothing:
    they hold no reference cycles (a fold holds none, see :class:`jaslog.play.fold.GameFold`),
    so reference counting frees them. In an import, the collection of the young generations
    is a safety net that stays cheap: it never scans what survived an earlier one, and it
    comes when a batch's rows and folds were just let go of, not while they are held (a
    collection in the middle of a batch scanned every event of it: about 0.1 s of CPU a batch
    of 300 games).
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
