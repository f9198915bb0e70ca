"""Exporting a store with the folding shared out among worker processes.

The games to export are listed first (their ids, in the store's order, a chunk's worth to a
list). Each worker opens the store itself, reads the games of a chunk up to the export's
cursor, folds them and builds the chunk's Arrow tables (:func:`jaslog.export.dataset.build_chunks`,
exactly as one process does); this process takes the chunks back in order and writes them.
The same chunks in the same order make the same files: a full export is byte for byte the
same with or without workers (``tests/export/test_parallel.py``).

Workers are forked where that is safe, else spawned (see :func:`jaslog.store.parallel.start_method`),
and on Linux they are killed with their parent.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from jaslog.export.dataset import Chunk, build_chunks

if TYPE_CHECKING:
    from jaslog.store import Store

#: Below this many chunks an export runs in one process (starting workers costs more).
MIN_CHUNKS = 4

_store: Any = None
_until: int | None = None


def auto_workers(chunks: int) -> int:
    """How many workers an export of ``chunks`` chunks deserves (0: none): one per CPU, at
    most 8, when there are two CPUs or more and enough chunks to share."""
    cpus = os.cpu_count() or 1
    if cpus < 2 or chunks < MIN_CHUNKS:
        return 0
    return min(cpus, 8, chunks)


def _init(url: str, until: int | None, parent: int) -> None:
    from jaslog.store import open_store
    from jaslog.store.parallel import die_with_parent

    global _store, _until
    die_with_parent(parent)
    _store = open_store(url)
    _until = until


def _build(task: tuple[list[str], dict[str, int]]) -> Chunk:
    """One chunk: the games of ``ids`` read, folded and built (``known``: their last seq in
    the previous snapshot, for those that are in it)."""
    ids, known = task
    games = (events for _gid, events in _store.games_by_id(ids, until=_until, fast=True))
    [chunk] = build_chunks(games, known, chunk_games=len(ids) + 1)  # all of it: one chunk
    return chunk


def store_chunks(store: Store, batches: list[list[str]], index: dict[str, int],
                 until: int | None, workers: int) -> Iterator[Chunk]:
    """The chunks of ``batches`` (lists of game ids), built by ``workers`` processes, in order."""
    from jaslog.store.parallel import start_method

    ctx: Any = mp.get_context(start_method())
    tasks = ((ids, {g: index[g] for g in ids if g in index}) for ids in batches)
    with ctx.Pool(workers, initializer=_init, initargs=(store.url, until, os.getpid())) as pool:
        yield from pool.imap(_build, tasks)
