"""Where exported games come from: the event store (incremental, by its cursor) or log files."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jaslog.engine.options import OptionError
from jaslog.events import Event
from jaslog.export.dataset import (
    DEFAULT_CHUNK,
    Chunk,
    ExportResult,
    build_chunks,
    export_chunks,
    export_games,
    usable_previous,
)
from jaslog.export.snapshots import ExportError, load_manifest
from jaslog.games import game_of
from jaslog.logs import Line, LogError, LogFiles, RawLine, read_line

if TYPE_CHECKING:
    from jaslog.store import Store

FILES_SOURCE = "files"


def store_source(url: str) -> str:
    """A store URL as recorded in the manifest: without its password."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def _filters(since: str | None, ruleset: str | None) -> dict[str, Any]:
    return {k: v for k, v in (("since", since), ("ruleset", ruleset)) if v is not None}


def check_ruleset(ruleset: str) -> None:
    """:class:`ExportError` for a ruleset that is not a preset (a mistyped ``--ruleset`` would
    export no game and leave an empty dataset), in the words of ``jaslog rules``."""

    try:
        game_of(ruleset)
    except OptionError as e:
        raise ExportError(str(e)) from None


def store_status(store: Store, out_dir: str | Path, *, since: str | None = None,
                 ruleset: str | None = None, par: bool = False) -> dict[str, Any]:
    """Where the export stands against the store: ``stale`` when the store holds events the
    current snapshot does not (or when the snapshot came from elsewhere, was written with
    ``par`` the other way, or is missing)."""
    loaded = load_manifest(out_dir)
    prev = loaded[1] if loaded else None
    cursor = store.cursor()
    usable = usable_previous(prev, store_source(store.url), _filters(since, ruleset), par)
    exported = prev.get("cursor") if usable and prev else None
    stale = not usable or not isinstance(exported, int) or exported != cursor
    return {"store_cursor": cursor, "exported_cursor": exported, "stale": stale,
            "snapshot": str(loaded[0]) if loaded else None}


def export_store(store: Store, out_dir: str | Path, *, since: str | None = None,
                 ruleset: str | None = None, full: bool = False, chunk_games: int = DEFAULT_CHUNK,
                 keep: int = 2, progress: Callable[[int], None] | None = None,
                 workers: int | None = None,
                 on_total: Callable[[int], None] | None = None,
                 cluster: str | None = None, par: bool = False) -> ExportResult:
    """Export the store's games into ``out_dir``, reading only games that changed since the
    current snapshot's cursor (all of them the first time, or with ``full``).

    ``progress`` is called with the number of games read so far; ``on_total``, once before
    that, with the number of games there are to read (for a progress bar).

    ``workers``: processes that fold and build the rows (None: one per CPU, at most 8, when
    there are two CPUs or more and at least four chunks of games; 0: all in this process).
    The files are the same either way. ``cluster``: the address of a Dask scheduler whose
    workers fold and build the rows instead (:mod:`jaslog.export.cluster`; the store must be
    reachable from them); the files are the same again.

    ``par``: fill the analysis columns (``rounds.par``, ``rounds.par_result``, ``plays.loss``)
    by solving every round whose hands are known: about a tenth of a second per Klaverjas round
    (:mod:`jaslog.export.par`), on the workers when there are some. A round is solved once:
    the store keeps it (``round_par``), and every later export reads it back. A snapshot
    written with ``par`` the other way is not built on: everything is exported afresh.
    """
    # import cycle: the parallel and cluster builders read games with this module's parse_game
    from jaslog.export.parallel import auto_workers, store_chunks

    if chunk_games < 1:
        raise ValueError("chunk_games must be at least 1")
    if ruleset is not None:
        check_ruleset(ruleset)
    source = store_source(store.url)
    filters = _filters(since, ruleset)
    loaded = load_manifest(out_dir)
    prev = loaded[1] if loaded else None
    until = store.cursor()
    after = prev.get("cursor") if prev and not full \
        and usable_previous(prev, source, filters, par) else None
    if not isinstance(after, int) or after > until:  # no cursor, or the store was replaced
        after = None
    full = full or after is None
    parallel = cluster is not None or (workers != 0 and store.workers_ok())
    batches: list[list[str]] = []
    if parallel or on_total is not None:
        batches = store.game_id_batches(since=since, ruleset=ruleset, after=after, until=until,
                                        batch=chunk_games)
        if on_total is not None:
            on_total(sum(len(b) for b in batches))
    if cluster is not None:
        from jaslog.export import cluster as on_cluster  # import cycle (as above)

        address = cluster
        return export_chunks(
            lambda index: keeping_pars(store, on_cluster.store_chunks(address, store, batches,
                                                                      index, until, par=par)),
            out_dir, cursor=until, source=source, filters=filters, chunk_games=chunk_games,
            full=full, keep=keep, progress=progress, par=par)
    if parallel:
        n = auto_workers(len(batches), par) if workers is None else min(workers, len(batches))
        if n > 0:
            return export_chunks(lambda index: keeping_pars(store, store_chunks(
                                     store, batches, index, until, n, Path(out_dir), par=par)),
                                 out_dir, cursor=until, source=source, filters=filters,
                                 chunk_games=chunk_games, full=full, keep=keep,
                                 progress=progress, par=par)
    unreadable: list[str] = []  # a game no reader can read is left out, and said
    games = (events for _gid, events in store.iter_games(
        since=since, ruleset=ruleset, after=after, until=until, fast=True,
        unreadable=lambda e: unreadable.append(str(e))))
    if not par:  # read as columns, a batch of games at a time (jaslog.export.stored)
        from jaslog.export.stored import READ_GAMES, store_games  # deferred: the store

        columns = store_games(store, since=since, ruleset=ruleset, after=after, until=until,
                              batch=min(chunk_games, READ_GAMES),
                              unreadable=lambda e: unreadable.append(str(e)))
        result = export_games(columns, out_dir, cursor=until, source=source, filters=filters,
                              chunk_games=chunk_games, full=full, keep=keep, progress=progress,
                              par=par)
    else:  # the rounds solved before read back a batch of games at a time
        known: dict[str, Any] = {}
        result = export_chunks(
            lambda index: keeping_pars(store, build_chunks(
                _prefetched(store, games, known, chunk_games), index, chunk_games, progress,
                par=True, known_pars=lambda g: known.pop(g, None))),
            out_dir, cursor=until, source=source, filters=filters, chunk_games=chunk_games,
            full=full, keep=keep, par=True)
    result.unreadable += unreadable
    return result


def _prefetched(store: Store, games: Iterable[list[Event]], known: dict[str, Any],
                batch: int) -> Iterator[list[Event]]:
    """``games``, with the rounds the store holds solved of each put in ``known`` (by game)
    before it comes, read ``batch`` games at a time."""
    it = iter(games)
    while chunk := list(islice(it, batch)):
        known.update(store.stored_pars([evs[0].game for evs in chunk if evs]))
        yield from chunk


def keeping_pars(store: Store, chunks: Iterable[Chunk]) -> Iterator[Chunk]:
    """``chunks``, passed on once the rounds solved for each are stored (``round_par``), so
    the next export reads them instead of solving them again. A store that cannot take them
    (read-only) keeps none: the export goes on."""
    from jaslog.store.engine import DatabaseError  # deferred: the store (SQLAlchemy)

    writable = True
    for chunk in chunks:
        if chunk.solved and writable:
            try:
                store.note_pars(chunk.solved)
            except DatabaseError:
                writable = False
        yield chunk


def read_log_games(paths: Iterable[str | Path]) -> list[list[Event]]:
    """Every game in ``jaslog/1`` files, its events in seq order (games may interleave), in
    the order the games end: :func:`stream_log_games` as a list.

    Raises :class:`ExportError` naming the file and line of an unreadable line (the first of
    the first game to end with one).
    """
    return list(stream_log_games(paths))


def stream_log_games(paths: Iterable[str | Path]) -> Iterator[list[Event]]:
    """The games of ``jaslog/1`` files one at a time, each as soon as its last line is read
    (see :class:`LogFiles`), its events in seq order.

    Raises :class:`ExportError` naming the file and line of an unreadable line (when its game
    is complete: games before it may have been handed on already).
    """
    with contextlib.ExitStack() as stack:
        for lines in game_lines(_log_files(paths, stack)):
            yield parse_game(lines)


def parse_game(lines: list[RawLine]) -> list[Event]:
    """The events of one game's lines, in seq order, or :class:`ExportError` for the first
    unreadable line, or for a game whose lines do not begin at seq 0 (a game split across
    files of which only the later ones were given: exported, it would replace the whole game
    with its end)."""
    events = []
    game = None
    first: tuple[int, str, int] | None = None  # (seq, file, line) of the lowest seq
    for name, number, raw in lines:
        ln = read_line(raw, name, number)
        if ln.event is None:
            raise _unreadable(ln)
        if game is None:
            game = ln.event.game
        elif ln.event.game != game:  # the text and the JSON disagree (a key given twice?)
            raise ExportError(f"{name}:{number}: the line names game {ln.event.game}, but its "
                              f"text starts as a line of game {game} (a key written twice?)")
        events.append(ln.event)
        if first is None or ln.event.seq < first[0]:
            first = (ln.event.seq, name, number)
    if first is not None and first[0] != 0:
        seq, name, number = first
        raise ExportError(f"{name}:{number}: game {game} begins here at seq {seq}, not at seq 0: "
                          "these files hold only the end of the game; give all of a game's "
                          "files in one export (e.g. --from part1.jsonl --from part2.jsonl)")
    events.sort(key=lambda e: e.seq)
    return events


def _log_files(paths: Iterable[str | Path], stack: contextlib.ExitStack) -> LogFiles:
    try:
        return LogFiles(paths, stack)
    except LogError as e:
        raise ExportError(str(e)) from None


def game_lines(log: LogFiles) -> Iterator[list[RawLine]]:
    """:meth:`LogFiles.game_lines`, its errors as :class:`ExportError`."""
    try:
        yield from log.game_lines()
    except LogError as e:
        raise ExportError(str(e)) from None


def _unreadable(ln: Line) -> ExportError:
    return ExportError(f"{ln.source}:{ln.number}: {ln.error} (check the file with `jaslog check`)")


def export_files(paths: Iterable[str | Path], out_dir: str | Path, *, full: bool = False,
                 chunk_games: int = DEFAULT_CHUNK, keep: int = 2,
                 progress: Callable[[int], None] | None = None,
                 workers: int | None = None,
                 on_total: Callable[[int], None] | None = None,
                 cluster: str | None = None, par: bool = False) -> ExportResult:
    """Export the games of log files; new games are added to the dataset, games with more
    events than before replace their old rows, games absent from the files are kept.
    ``progress``, ``on_total`` and ``par`` as in :func:`export_store`.

    The files are read game by game (:class:`LogFiles`), never whole. ``workers``: processes
    that parse, fold and build the games (as :func:`export_store`; the files are the same
    either way); ``cluster`` as in :func:`export_store` (the lines are sent to the cluster).
    """
    # import cycle: the parallel and cluster builders read games with this module's parse_game
    from jaslog.export.parallel import auto_workers, file_chunks

    if chunk_games < 1:
        raise ValueError("chunk_games must be at least 1")
    with contextlib.ExitStack() as stack:
        log = _log_files(paths, stack)
        if on_total is not None:
            on_total(log.games)
        if cluster is not None:
            from jaslog.export import cluster as on_cluster  # import cycle (as above)

            address = cluster
            return export_chunks(
                lambda index: on_cluster.file_chunks(address, log, index, chunk_games,
                                                     par=par), out_dir,
                source=FILES_SOURCE, chunk_games=chunk_games, full=full, keep=keep,
                progress=progress, par=par)
        chunks = -(-log.games // chunk_games)
        n = auto_workers(chunks, par) if workers is None else min(workers, chunks)
        if n > 0:
            return export_chunks(lambda index: file_chunks(log, index, chunk_games, n,
                                                           Path(out_dir), par=par),
                                 out_dir, source=FILES_SOURCE, chunk_games=chunk_games,
                                 full=full, keep=keep, progress=progress, par=par)
        games = (parse_game(lines) for lines in game_lines(log))
        return export_games(games, out_dir, source=FILES_SOURCE, chunk_games=chunk_games,
                            full=full, keep=keep, progress=progress, par=par)
