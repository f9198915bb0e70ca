"""Exporting on a Dask distributed cluster (``jaslog export --cluster tcp://host:8786``).

The work is shared out as the local workers share it (:mod:`jaslog.export.parallel`): the
games are cut into chunks by game, each chunk is read, folded and built into Arrow tables by
a worker of the cluster, and this process takes the chunks back in order and writes them. The
same chunks in the same order make the same files, so a cluster's dataset and manifest are
byte for byte those of a local run.

From a store, a worker opens the store itself by its URL (once per worker process) and reads
its chunk's games up to the export's cursor. From log files, this process reads the lines
game by game and sends each chunk's lines to the cluster. Connecting, the order of the
chunks and what the workers need are :mod:`jaslog.batch.cluster`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from jaslog.batch import cluster
from jaslog.export.dataset import Chunk, build_chunks
from jaslog.export.snapshots import ExportError
from jaslog.export.sources import game_lines, parse_game
from jaslog.logs import line_game

if TYPE_CHECKING:
    from jaslog.logs import LogFiles, RawLine
    from jaslog.store import Store


class ClusterError(cluster.ClusterError, ExportError):
    """The cluster cannot be used for the export: Dask is not installed, or no scheduler
    answers."""

    code = "cluster_unreachable"


def build_store_chunk(url: str, until: int | None, ids: list[str], known: dict[str, int],
                      par: bool = False) -> Chunk:
    """On a worker: the games ``ids`` of the store at ``url``, read up to the store position
    ``until``, folded and built into one chunk (``known``: their last seq in the previous
    snapshot, for those that are in it; ``par``: with the analysis columns)."""
    store = cluster.worker_store(url)
    unreadable: list[str] = []
    games = (events for _gid, events in store.games_by_id(
        ids, until=until, fast=True, unreadable=lambda e: unreadable.append(str(e))))
    pars = store.stored_pars(ids) if par else {}  # the rounds solved before: not again
    [chunk] = build_chunks(games, known, chunk_games=len(ids) + 1, par=par,
                           known_pars=pars.get)
    chunk.unreadable = unreadable
    return chunk


def build_file_chunk(games_lines: list[list[RawLine]], known: dict[str, int],
                     par: bool = False) -> Chunk:
    """On a worker: one chunk of log-file games, each given as its lines, parsed, folded and
    built (``par``: with the analysis columns)."""

    games = (parse_game(lines) for lines in games_lines)
    [chunk] = build_chunks(games, known, chunk_games=len(games_lines) + 1, par=par)
    return chunk


def store_chunks(address: str, store: Store, batches: list[list[str]], index: dict[str, int],
                 until: int | None, *, par: bool = False) -> Iterator[Chunk]:
    """The chunks of ``batches`` (lists of game ids) built on the cluster at ``address``, in
    order (``par``: with the analysis columns)."""
    tasks = ((store.url, until, ids, {g: index[g] for g in ids if g in index}, par)
             for ids in batches)
    yield from cluster.run_in_order(address, build_store_chunk, tasks, error=ClusterError)


def file_chunks(address: str, log: LogFiles, index: dict[str, int], chunk_games: int, *,
                par: bool = False) -> Iterator[Chunk]:
    """The chunks of the games of ``log``, ``chunk_games`` games each, built on the cluster
    at ``address``, in order (``par``: with the analysis columns)."""

    def tasks() -> Iterator[tuple[Any, ...]]:
        for batch in cluster.batches(game_lines(log), chunk_games):
            ids = (line_game(lines[0][2]) for lines in batch)
            yield batch, {g: index[g] for g in ids if g is not None and g in index}, par

    yield from cluster.run_in_order(address, build_file_chunk, tasks(), error=ClusterError)
