"""Exporting on a Dask distributed cluster (``jaslog export --cluster tcp://host:8786``).

The work is shared out as the local workers share it (:mod:`jaslog.export.parallel`): the
games are cut into chunks by game, each chunk is read, folded and built into Arrow tables by
a worker of the cluster, and this process takes the chunks back in order and writes them. The
same chunks in the same order make the same files, so a cluster's dataset and manifest are
byte for byte those of a local run.

From a store, a worker opens the store itself by its URL (once per worker process) and reads
its chunk's games up to the export's cursor: the store must be reachable from every worker
(a PostgreSQL URL, or an SQLite file on a path every worker sees). From log files, this
process reads the lines game by game and sends each chunk's lines to the cluster. A few
chunks per worker thread are in flight at a time, so memory stays bounded.

Every worker needs jaslog installed, at the version of this process (Dask checks its own
versions, not ours). The cluster itself is Dask's: ``dask scheduler`` and ``dask worker``, or
any deployment Dask supports. ``dask[distributed]`` is jaslog's ``cluster`` extra.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import TYPE_CHECKING, Any

from jaslog.export.dataset import Chunk, ExportError, build_chunks

if TYPE_CHECKING:
    from jaslog.events.logs import LogFiles, RawLine
    from jaslog.store import Store

#: How long to wait for the scheduler before saying it cannot be reached.
CONNECT_SECONDS = 10

#: The stores opened in a worker process, by URL (a worker builds many chunks).
_stores: dict[str, Any] = {}


class ClusterError(ExportError):
    """The cluster cannot be used: Dask is not installed, or no scheduler answers."""

    code = "cluster_unreachable"


@contextmanager
def cluster_client(address: str) -> Iterator[Any]:
    """A client of the Dask scheduler at ``address`` (``tcp://host:8786``), closed after use;
    :class:`ClusterError` when Dask is not installed or the scheduler does not answer."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install 'jaslog[cluster]' (or "
                           "'dask[distributed]')") from None
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterError(f"no Dask scheduler answers at {address} within {CONNECT_SECONDS} s "
                           f"({e})") from None
    try:
        yield client
    finally:
        client.close()


def in_order(client: Any, build: Callable[..., Chunk], tasks: Iterator[tuple[Any, ...]]
             ) -> Iterator[Chunk]:
    """The chunks of ``tasks`` built on the cluster (``build(*task)``), in the order of the
    tasks, with at most two tasks per worker thread in flight."""
    threads = sum(client.nthreads().values()) or 1
    ahead: deque[Any] = deque()
    try:
        for task in tasks:
            ahead.append(client.submit(build, *task, pure=False))
            if len(ahead) >= 2 * threads:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()
    finally:
        for f in ahead:
            f.cancel()


def build_store_chunk(url: str, until: int | None, ids: list[str], known: dict[str, int],
                      par: bool = False) -> Chunk:
    """On a worker: the games ``ids`` of the store at ``url``, read up to the store position
    ``until``, folded and built into one chunk (``known``: their last seq in the previous
    snapshot, for those that are in it; ``par``: with the analysis columns)."""
    from jaslog.store import open_store

    store = _stores.get(url)
    if store is None:
        store = _stores[url] = open_store(url, create=False)
    unreadable: list[str] = []
    games = (events for _gid, events in store.games_by_id(
        ids, until=until, fast=True, unreadable=lambda e: unreadable.append(str(e))))
    [chunk] = build_chunks(games, known, chunk_games=len(ids) + 1, par=par)
    chunk.unreadable = unreadable
    return chunk


def build_file_chunk(games_lines: list[list[RawLine]], known: dict[str, int],
                     par: bool = False) -> Chunk:
    """On a worker: one chunk of log-file games, each given as its lines, parsed, folded and
    built (``par``: with the analysis columns)."""
    from jaslog.export.sources import parse_game

    games = (parse_game(lines) for lines in games_lines)
    [chunk] = build_chunks(games, known, chunk_games=len(games_lines) + 1, par=par)
    return chunk


def store_chunks(address: str, store: Store, batches: list[list[str]], index: dict[str, int],
                 until: int | None, *, par: bool = False) -> Iterator[Chunk]:
    """The chunks of ``batches`` (lists of game ids) built on the cluster at ``address``, in
    order (``par``: with the analysis columns)."""
    tasks = ((store.url, until, ids, {g: index[g] for g in ids if g in index}, par)
             for ids in batches)
    with cluster_client(address) as client:
        yield from in_order(client, build_store_chunk, tasks)


def file_chunks(address: str, log: LogFiles, index: dict[str, int], chunk_games: int, *,
                par: bool = False) -> Iterator[Chunk]:
    """The chunks of the games of ``log``, ``chunk_games`` games each, built on the cluster
    at ``address``, in order (``par``: with the analysis columns)."""
    from jaslog.events import line_game
    from jaslog.export.sources import game_lines

    def tasks() -> Iterator[tuple[Any, ...]]:
        games = game_lines(log)
        while batch := list(islice(games, chunk_games)):
            ids = (line_game(lines[0][2]) for lines in batch)
            yield batch, {g: index[g] for g in ids if g is not None and g in index}, par

    with cluster_client(address) as client:
        yield from in_order(client, build_file_chunk, tasks())
