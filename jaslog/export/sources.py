"""Where exported games come from: the event store (incremental, by its cursor) or log files."""

from __future__ import annotations

import contextlib
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from jaslog.events import Event, line_game, read_lines
from jaslog.export.dataset import (
    DEFAULT_CHUNK,
    ExportError,
    ExportResult,
    export_chunks,
    export_games,
    load_manifest,
    usable_previous,
)

if TYPE_CHECKING:
    from jaslog.store import Store

FILES_SOURCE = "files"


def store_source(url: str) -> str:
    """A store URL as recorded in the manifest: without its password."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def _filters(since: str | None, ruleset: str | None) -> dict[str, Any]:
    return {k: v for k, v in (("since", since), ("ruleset", ruleset)) if v is not None}


def store_status(store: Store, out_dir: str | Path, *, since: str | None = None,
                 ruleset: str | None = None) -> dict[str, Any]:
    """Where the export stands against the store: ``stale`` when the store holds events the
    current snapshot does not (or when the snapshot came from elsewhere or is missing)."""
    loaded = load_manifest(out_dir)
    prev = loaded[1] if loaded else None
    cursor = store.cursor()
    usable = usable_previous(prev, store_source(store.url), _filters(since, ruleset))
    exported = prev.get("cursor") if usable and prev else None
    stale = not usable or not isinstance(exported, int) or exported != cursor
    return {"store_cursor": cursor, "exported_cursor": exported, "stale": stale,
            "snapshot": str(loaded[0]) if loaded else None}


def export_store(store: Store, out_dir: str | Path, *, since: str | None = None,
                 ruleset: str | None = None, full: bool = False, chunk_games: int = DEFAULT_CHUNK,
                 keep: int = 2, progress: Callable[[int], None] | None = None,
                 workers: int | None = None) -> ExportResult:
    """Export the store's games into ``out_dir``, reading only games that changed since the
    current snapshot's cursor (all of them the first time, or with ``full``).

    ``workers``: processes that fold and build the rows (None: one per CPU, at most 8, when
    there are two CPUs or more and at least four chunks of games; 0: all in this process).
    The files are the same either way.
    """
    from jaslog.export.parallel import auto_workers, store_chunks

    if chunk_games < 1:
        raise ValueError("chunk_games must be at least 1")
    source = store_source(store.url)
    filters = _filters(since, ruleset)
    loaded = load_manifest(out_dir)
    prev = loaded[1] if loaded else None
    until = store.cursor()
    after = prev.get("cursor") if prev and not full and usable_previous(prev, source, filters) \
        else None
    if not isinstance(after, int) or after > until:  # no cursor, or the store was replaced
        after = None
    full = full or after is None
    if workers != 0 and store.workers_ok():
        batches = store.game_id_batches(since=since, ruleset=ruleset, after=after, until=until,
                                        batch=chunk_games)
        n = auto_workers(len(batches)) if workers is None else min(workers, len(batches))
        if n > 0:
            return export_chunks(lambda index: store_chunks(store, batches, index, until, n),
                                 out_dir, cursor=until, source=source, filters=filters,
                                 chunk_games=chunk_games, full=full, keep=keep,
                                 progress=progress)
    games = (events for _gid, events in store.iter_games(since=since, ruleset=ruleset,
                                                         after=after, until=until, fast=True))
    return export_games(games, out_dir, cursor=until, source=source, filters=filters,
                        chunk_games=chunk_games, full=full, keep=keep, progress=progress)


def read_log_games(paths: Iterable[str | Path]) -> list[list[Event]]:
    """Every game in ``jaslog/1`` files, its events in seq order (games may interleave), in
    the order the games first appear: :func:`stream_log_games` as a list.

    Raises :class:`ExportError` naming the file and line of the first unreadable line.
    """
    return list(stream_log_games(paths))


def stream_log_games(paths: Iterable[str | Path]) -> Iterator[list[Event]]:
    """The games of ``jaslog/1`` files one at a time, each handed on at its last line.

    Two passes over the files: the first reads only the game of each line
    (:func:`jaslog.events.line_game`) to learn where each game's lines end; the second parses
    the lines. Games come in the order they first appear, their events in seq order, and
    memory holds only the games whose lines are still mixed with others' (one game at a time
    in a file written game after game), never a whole archive. Standard input (``-``) is kept
    in a temporary file for the second pass.

    Raises :class:`ExportError` naming the file and line of the first unreadable line (met in
    the second pass: games before it may have been handed on already).
    """
    with contextlib.ExitStack() as stack:
        files = _open_logs(paths, stack)
        last: dict[str, tuple[int, int]] = {}  # game -> (file, line number) of its last line
        for k, (_name, fh) in enumerate(files):
            for number, raw in enumerate(fh, 1):
                game = line_game(raw)
                if game is not None:
                    last[game] = (k, number)
        waiting: dict[str, list[Event]] = {}  # in the order the games first appear
        complete: set[str] = set()
        handed: set[str] = set()
        for k, (name, fh) in enumerate(files):
            fh.seek(0)
            for ln in read_lines(fh, name):
                e = ln.event
                if e is None:
                    raise ExportError(f"{ln.source}:{ln.number}: {ln.error} "
                                      "(check the file with `jaslog check`)")
                gid = e.game
                events = waiting.get(gid)
                if events is None:
                    if gid in handed:  # only a line whose text and JSON disagree on its game
                        raise ExportError(f"{ln.source}:{ln.number}: game {gid} was read to its "
                                          "end before this line (does the line name its game "
                                          "twice?)")
                    events = waiting[gid] = []
                events.append(e)
                if last.get(gid) == (k, ln.number):
                    complete.add(gid)
                    while waiting and (first := next(iter(waiting))) in complete:
                        complete.discard(first)
                        handed.add(first)
                        yield _in_seq_order(waiting.pop(first))
        for events in waiting.values():  # a file that grew between the two passes
            yield _in_seq_order(events)


def _open_logs(paths: Iterable[str | Path],
               stack: contextlib.ExitStack) -> list[tuple[str, IO[bytes]]]:
    """(name, open binary file) of each path, standard input copied to a temporary file."""
    files: list[tuple[str, IO[bytes]]] = []
    for p in paths:
        if str(p) == "-":
            spool = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115 (the stack closes it)
            shutil.copyfileobj(sys.stdin.buffer, spool)
            files.append(("<stdin>", spool))
            continue
        if not Path(p).is_file():
            raise ExportError(f"{p}: no such file")
        try:
            files.append((str(p), stack.enter_context(open(p, "rb"))))  # noqa: SIM115
        except OSError as e:
            raise ExportError(f"{p}: {e.strerror}") from None
    return files


def _in_seq_order(events: list[Event]) -> list[Event]:
    events.sort(key=lambda e: e.seq)
    return events


def export_files(paths: Iterable[str | Path], out_dir: str | Path, *, full: bool = False,
                 chunk_games: int = DEFAULT_CHUNK, keep: int = 2,
                 progress: Callable[[int], None] | None = None) -> ExportResult:
    """Export the games of log files; new games are added to the dataset, games with more
    events than before replace their old rows, games absent from the files are kept."""
    return export_games(stream_log_games(paths), out_dir, source=FILES_SOURCE,
                        chunk_games=chunk_games, full=full, keep=keep, progress=progress)
