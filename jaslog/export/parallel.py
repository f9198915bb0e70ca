"""Exporting with the folding shared out among worker processes.

From a store, the games to export are listed first (their ids, in the store's order, a
chunk's worth to a list). Each worker opens the store itself, reads the games of a chunk up
to the export's cursor, folds them and builds the chunk's Arrow tables
(:func:`jaslog.export.dataset.build_chunks`, exactly as one process does). From log files,
this process reads the lines game by game (:class:`jaslog.logs.LogFiles`) and sends
a chunk's games as their lines, which the worker parses, folds and builds. Either way at most
:data:`AHEAD` chunks per worker are built ahead of the one being written, so memory stays
bounded, and this process takes the chunks back in order and writes them. The same chunks in
the same order make the same files: an export is byte for byte the same with or without
workers (``tests/export/test_parallel.py``). Whether the analysis columns are computed
(``par``) goes to the workers with each chunk.

A worker hands its chunk's tables back as Arrow IPC streams in a file of a folder beside the
export's staging folder (:func:`passed_on`), which this process maps into memory and deletes
(:func:`taken_back`): a chunk of 200 games is some 30 MiB of tables, and sending them
pickled through the pool's pipe cost this process about 0.2 s of CPU a chunk (the pipe read
64 KiB at a time, copied and unpickled), the worker 0.1 s, where the file costs about a tenth
of that; its large tables written from the file's pages rather than a copy save most of the
rest (the copy, and the kernel's work to give the copy fresh pages). The folder is named as a
staging folder is (``.staging-chunks-*``), so an export killed midway leaves nothing the
next one does not sweep away.

A worker reading the store allocates its Arrow memory with the C library's allocator
(``pyarrow.system_memory_pool``), where Arrow's default, mimalloc, gave each batch's freed
columns back to the kernel and faulted as much in again for the next; the exporting process
keeps the default.

Workers are forked where that is safe, else spawned (see :func:`jaslog.store.parallel.start_method`),
and on Linux they are killed with their parent.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

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
#: Chunks per worker built (or being built) ahead of the one this process writes.
AHEAD = 2
#: A table taken back is read in place (memory-mapped) when it is at least one
#: ``IN_PLACE``-th of its chunk's file (:func:`taken_back`), so a file is kept by tables
#: waiting to be written of at least that share of it.
IN_PLACE = 8

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


@dataclass
class PassedOn:
    """A chunk handed back by a worker: its counts and games (:class:`Chunk` without its
    tables), and where its tables wait, one Arrow IPC stream each, in order."""

    chunk: Chunk
    tables: list[tuple[str, str]]  # (table, partition) of each stream
    path: str


def passed_on(chunk: Chunk, folder: str) -> PassedOn:
    """``chunk`` with its tables written to a new file in ``folder`` (read back, and the file
    deleted, by :func:`taken_back`)."""
    fd, path = tempfile.mkstemp(dir=folder, suffix=".arrows")
    os.close(fd)
    names = []
    with pa.OSFile(path, "wb") as f:
        for table, part, t in chunk.tables:
            with pa.ipc.new_stream(f, t.schema) as w:
                w.write_table(t)
            names.append((table, part))
    chunk.tables = []
    return PassedOn(chunk, names, path)


def taken_back(sent: PassedOn) -> Chunk:
    """The chunk :func:`passed_on` wrote, its tables read back, and the file deleted.

    The file is memory-mapped and its large tables (:data:`IN_PLACE`) are read in place, not
    copied: their buffers are the file's pages, which stay (the file deleted but mapped)
    until the last of them is written and dropped. The smaller tables are copied out: they
    wait for many chunks' rows before they make a row group, and would hold their whole
    chunk's file meanwhile.

    >>> import tempfile
    >>> t = pa.table({"game": ["g-1", "g-2"]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     sent = passed_on(Chunk(tables=[("games", "ruleset=amsterdam/year=2026", t)],
    ...                            added=2), folder)
    ...     chunk = taken_back(sent)
    ...     os.listdir(folder)
    []
    >>> chunk.added, chunk.tables == [("games", "ruleset=amsterdam/year=2026", t)]
    (2, True)
    """
    try:
        with pa.memory_map(sent.path) as mapped, pa.OSFile(sent.path) as f:
            size = mapped.size()
            tables = []
            for table, part in sent.tables:
                start = mapped.tell()
                t = pa.ipc.open_stream(mapped).read_all()
                if t.nbytes * IN_PLACE < size:  # copied: read again, into memory
                    f.seek(start)
                    t = pa.ipc.open_stream(f).read_all()
                tables.append((table, part, t))
            sent.chunk.tables = tables
    finally:
        os.unlink(sent.path)
    return sent.chunk


def _init(url: str, until: int | None, parent: int) -> None:
    # deferred: the store (SQLAlchemy) loads in a worker that reads one, not with the export
    from jaslog.store import open_store
    from jaslog.store.parallel import die_with_parent

    global _store, _until
    die_with_parent(parent)
    # the C library's allocator for this process's Arrow memory, not Arrow's default
    # (mimalloc), which hands a batch's freed columns back to the kernel and takes as much
    # again for the next: about 0.5 s more of the two workers' system time at 2,000 games
    pa.set_memory_pool(pa.system_memory_pool())
    _store = open_store(url)
    _until = until


def _build(task: tuple[list[str], dict[str, int], bool], folder: str) -> PassedOn:
    """One chunk: the games of ``ids`` read, folded and built (``known``: their last seq in
    the previous snapshot, for those that are in it; ``par``: with the analysis columns),
    passed on through ``folder``."""
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
    return passed_on(chunk, folder)


def in_order(start: Callable[[Any], Any], tasks: Iterable[Any], ahead: int) -> Iterator[Any]:
    """The results of ``tasks``, in order, each started by ``start(task)`` (which gives what
    ``.get()`` waits for), at most ``ahead`` of them started and not yet taken.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> started = []
    >>> with ThreadPoolExecutor(2) as pool:
    ...     def start(n):
    ...         started.append(n)
    ...         f = pool.submit(lambda: n * n)
    ...         f.get = f.result
    ...         return f
    ...     squares = in_order(start, range(10), ahead=3)
    ...     first = next(squares)
    ...     len(started), first, list(squares)
    (3, 0, [1, 4, 9, 16, 25, 36, 49, 64, 81])
    """
    running: deque[Any] = deque()
    for task in tasks:
        if len(running) >= ahead:
            yield running.popleft().get()
        running.append(start(task))
    while running:
        yield running.popleft().get()


def _chunks_of(pool: Any, build: Callable[..., PassedOn], tasks: Iterable[Any], folder: Path,
               workers: int) -> Iterator[Chunk]:
    """The chunks of ``tasks`` built by ``build(task, spill)`` on ``pool``'s ``workers``, in
    order, passed on through a folder of ``folder`` (deleted when they are all taken back, or
    when the export stops). Once the last task is handed out the pool is closed: each worker
    ends when it has no more to build, while this process still writes the last chunks,
    rather than when the export is over."""
    def handed_out() -> Iterator[Any]:
        yield from tasks
        pool.close()

    spill = tempfile.mkdtemp(prefix=".staging-chunks-", dir=folder)
    try:
        for sent in in_order(lambda task: pool.apply_async(build, (task, spill)), handed_out(),
                             AHEAD * workers):
            yield taken_back(sent)
    finally:
        shutil.rmtree(spill, ignore_errors=True)


def store_chunks(store: Store, batches: list[list[str]], index: dict[str, int],
                 until: int | None, workers: int, folder: Path, *,
                 par: bool = False) -> Iterator[Chunk]:
    """The chunks of ``batches`` (lists of game ids), built by ``workers`` processes, in order
    (``par``: with the analysis columns), handed back through a folder made in ``folder``
    (the export's: see the module)."""
    from jaslog.store.parallel import start_method  # deferred: the store (SQLAlchemy)

    ctx: Any = mp.get_context(start_method())
    tasks = ((ids, {g: index[g] for g in ids if g in index}, par) for ids in batches)
    with ctx.Pool(workers, initializer=_init, initargs=(store.url, until, os.getpid())) as pool:
        yield from _chunks_of(pool, _build, tasks, folder, workers)


def _init_files(parent: int) -> None:
    from jaslog.store.parallel import die_with_parent  # deferred: the store (SQLAlchemy)

    die_with_parent(parent)


def _build_files(task: tuple[list[list[RawLine]], dict[str, int], bool],
                 folder: str) -> PassedOn:
    """One chunk from log files: its games' lines parsed, folded and built, passed on through
    ``folder``."""

    games_lines, known, par = task
    games = (parse_game(lines) for lines in games_lines)
    [chunk] = build_chunks(games, known, chunk_games=len(games_lines) + 1, par=par)
    return passed_on(chunk, folder)


def file_chunks(log: LogFiles, index: dict[str, int], chunk_games: int,
                workers: int, folder: Path, *, par: bool = False) -> Iterator[Chunk]:
    """The chunks of the games of ``log``, ``chunk_games`` games each, built by ``workers``
    processes, in order, handed back through a folder made in ``folder`` (``par``: with the
    analysis columns); the lines of at most :data:`AHEAD` chunks per worker are read ahead."""
    from jaslog.store.parallel import start_method  # deferred: the store (SQLAlchemy)

    ctx: Any = mp.get_context(start_method())
    games = game_lines(log)

    def tasks() -> Iterator[tuple[list[list[RawLine]], dict[str, int], bool]]:
        while batch := list(islice(games, chunk_games)):
            ids = (line_game(lines[0][2]) for lines in batch)
            yield batch, {g: index[g] for g in ids if g is not None and g in index}, par

    with ctx.Pool(workers, initializer=_init_files, initargs=(os.getpid(),)) as pool:
        yield from _chunks_of(pool, _build_files, tasks(), folder, workers)
