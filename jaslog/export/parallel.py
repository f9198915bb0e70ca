"""Exporting with the folding shared out among worker processes.

From a store, the games to export are listed first (their ids, in the store's order, a
chunk's worth to a list). Each worker opens the store itself, reads the games of a chunk up
to the export's cursor, folds them and builds the chunk's Arrow tables
(:func:`jaslog.export.dataset.build_chunks`, exactly as one process does). From log files,
this process reads the lines game by game (:class:`jaslog.logs.LogFiles`) and sends
a chunk's games as their lines, which the worker parses, folds and builds; a few chunks at a
time are in flight, so memory stays bounded. Either way this process takes the chunks back
in order and writes them. The same chunks in the same order make the same files: an export is
byte for byte the same with or without workers (``tests/export/test_parallel.py``). Whether
the analysis columns are computed (``par``) goes to the workers with each chunk.

Workers are forked where that is safe, else spawned (see :func:`jaslog.store.parallel.start_method`),
and on Linux they are killed with their parent.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

from jaslog.export.dataset import Chunk, build_chunks
from jaslog.export.sources import game_lines, parse_game
from jaslog.logs import line_game

if TYPE_CHECKING:
    from jaslog.logs import LogFiles, RawLine
    from jaslog.store import Store

#: Below this many chunks an export runs in one process (starting workers costs more).
MIN_CHUNKS = 4
#: ...unless it solves every round (``par``): a chunk is then worth a worker from two on.
MIN_CHUNKS_PAR = 2

_store: Any = None
_until: int | None = None


def auto_workers(chunks: int, par: bool = False) -> int:
    """How many workers an export of ``chunks`` chunks deserves (0: none): one per CPU, at
    most 8, when there are two CPUs or more and enough chunks to share (fewer when every
    round is solved, ``par``: the solving far outweighs starting the workers)."""
    cpus = os.cpu_count() or 1
    if cpus < 2 or chunks < (MIN_CHUNKS_PAR if par else MIN_CHUNKS):
        return 0
    return min(cpus, 8, chunks)


def _init(url: str, until: int | None, parent: int) -> None:
    # deferred: the store (SQLAlchemy) loads in a worker that reads one, not with the export
    from jaslog.store import open_store
    from jaslog.store.parallel import die_with_parent

    global _store, _until
    die_with_parent(parent)
    _store = open_store(url)
    _until = until


def _build(task: tuple[list[str], dict[str, int], bool]) -> Chunk:
    """One chunk: the games of ``ids`` read, folded and built (``known``: their last seq in
    the previous snapshot, for those that are in it; ``par``: with the analysis columns)."""
    ids, known, par = task
    unreadable: list[str] = []  # a game no reader can read is left out, and said
    games: Iterable[Any]
    if par:
        games = (events for _gid, events in _store.games_by_id(
            ids, until=_until, fast=True, unreadable=lambda e: unreadable.append(str(e))))
    else:  # read as columns (:mod:`jaslog.export.stored`)
        from jaslog.export.stored import batch_games  # deferred: the store (SQLAlchemy)

        games = batch_games(_store, ids, _until, lambda e: unreadable.append(str(e)))
    pars = _store.stored_pars(ids) if par else {}  # the rounds solved before: not again
    [chunk] = build_chunks(games, known, chunk_games=len(ids) + 1,  # all of it: one chunk
                           par=par, known_pars=pars.get)
    chunk.unreadable = unreadable
    return chunk


def store_chunks(store: Store, batches: list[list[str]], index: dict[str, int],
                 until: int | None, workers: int, *, par: bool = False) -> Iterator[Chunk]:
    """The chunks of ``batches`` (lists of game ids), built by ``workers`` processes, in order
    (``par``: with the analysis columns)."""
    from jaslog.store.parallel import start_method  # deferred: the store (SQLAlchemy)

    ctx: Any = mp.get_context(start_method())
    tasks = ((ids, {g: index[g] for g in ids if g in index}, par) for ids in batches)
    with ctx.Pool(workers, initializer=_init, initargs=(store.url, until, os.getpid())) as pool:
        yield from pool.imap(_build, tasks)


def _init_files(parent: int) -> None:
    from jaslog.store.parallel import die_with_parent  # deferred: the store (SQLAlchemy)

    die_with_parent(parent)


def _build_files(task: tuple[list[list[RawLine]], dict[str, int], bool]) -> Chunk:
    """One chunk from log files: its games' lines parsed, folded and built."""

    games_lines, known, par = task
    games = (parse_game(lines) for lines in games_lines)
    [chunk] = build_chunks(games, known, chunk_games=len(games_lines) + 1, par=par)
    return chunk


def file_chunks(log: LogFiles, index: dict[str, int], chunk_games: int,
                workers: int, *, par: bool = False) -> Iterator[Chunk]:
    """The chunks of the games of ``log``, ``chunk_games`` games each, built by ``workers``
    processes, in order; at most two chunks per worker are read ahead (``par``: with the
    analysis columns)."""
    from jaslog.store.parallel import start_method  # deferred: the store (SQLAlchemy)

    ctx: Any = mp.get_context(start_method())
    games = game_lines(log)
    with ctx.Pool(workers, initializer=_init_files, initargs=(os.getpid(),)) as pool:
        ahead: deque[Any] = deque()
        while batch := list(islice(games, chunk_games)):
            ids = (line_game(lines[0][2]) for lines in batch)
            known = {g: index[g] for g in ids if g is not None and g in index}
            ahead.append(pool.apply_async(_build_files, ((batch, known, par),)))
            if len(ahead) >= 2 * workers:
                yield ahead.popleft().get()
        while ahead:
            yield ahead.popleft().get()
