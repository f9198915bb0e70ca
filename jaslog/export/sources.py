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

from jaslog.events import Event, Line, line_game, read_line
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
    the order the games end: :func:`stream_log_games` as a list.

    Raises :class:`ExportError` naming the file and line of the first unreadable line.
    """
    return list(stream_log_games(paths))


def stream_log_games(paths: Iterable[str | Path]) -> Iterator[list[Event]]:
    """The games of ``jaslog/1`` files one at a time, each as soon as its last line is read
    (see :class:`LogFiles`), its events in seq order.

    Raises :class:`ExportError` naming the file and line of an unreadable line (when its game
    is complete: games before it may have been handed on already).
    """
    with contextlib.ExitStack() as stack:
        for lines in LogFiles(paths, stack).game_lines():
            yield parse_game(lines)


#: One line of a log file: (file name, line number, bytes).
RawLine = tuple[str, int, bytes]


class LogFiles:
    """``jaslog/1`` files read game by game, in two passes, never whole.

    Opening them reads only the game of each line (:func:`jaslog.events.line_game`), to learn
    where each game's lines end (``games`` is then how many games there are);
    :meth:`game_lines` reads the files again and hands on each game's lines at its last one,
    so games come in the order they end. Memory holds only the lines of the games under way at
    a point of the files (one game at a time in a file written game after game). Standard
    input (``-``) is kept in a temporary file for the second pass. The files are closed with
    ``stack``.
    """

    def __init__(self, paths: Iterable[str | Path], stack: contextlib.ExitStack) -> None:
        self.files: list[tuple[str, IO[bytes]]] = []
        for p in paths:
            if str(p) == "-":
                spool = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
                shutil.copyfileobj(sys.stdin.buffer, spool)
                self.files.append(("<stdin>", spool))
                continue
            if not Path(p).is_file():
                raise ExportError(f"{p}: no such file")
            try:
                self.files.append((str(p), stack.enter_context(open(p, "rb"))))  # noqa: SIM115
            except OSError as e:
                raise ExportError(f"{p}: {e.strerror}") from None
        self.last: dict[str, tuple[int, int]] = {}  # game -> (file, line number) of its end
        for k, (_name, fh) in enumerate(self.files):
            for number, raw in enumerate(fh, 1):
                game = line_game(raw)
                if game is not None:
                    self.last[game] = (k, number)

    @property
    def games(self) -> int:
        return len(self.last)

    def game_lines(self) -> Iterator[list[RawLine]]:
        """Each game's lines (not parsed yet), at its last line. A line that names no game
        raises its error (:class:`ExportError`) where it stands."""
        waiting: dict[str, list[RawLine]] = {}
        handed: set[str] = set()
        for k, (name, fh) in enumerate(self.files):
            fh.seek(0)
            for number, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                gid = line_game(raw)
                if gid is None:  # no game: not an event (its parse says why)
                    raise _unreadable(read_line(raw, name, number))
                lines = waiting.get(gid)
                if lines is None:
                    if gid in handed:
                        raise ExportError(f"{name}:{number}: game {gid} was read to its end "
                                          "before this line (did the file change while it "
                                          "was read?)")
                    lines = waiting[gid] = []
                lines.append((name, number, raw))
                if self.last.get(gid) == (k, number):
                    handed.add(gid)
                    yield waiting.pop(gid)
        yield from waiting.values()  # games that grew while the files were read


def parse_game(lines: list[RawLine]) -> list[Event]:
    """The events of one game's lines, in seq order, or :class:`ExportError` for the first
    unreadable line."""
    events = []
    game = None
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
    events.sort(key=lambda e: e.seq)
    return events


def _unreadable(ln: Line) -> ExportError:
    return ExportError(f"{ln.source}:{ln.number}: {ln.error} (check the file with `jaslog check`)")


def export_files(paths: Iterable[str | Path], out_dir: str | Path, *, full: bool = False,
                 chunk_games: int = DEFAULT_CHUNK, keep: int = 2,
                 progress: Callable[[int], None] | None = None,
                 workers: int | None = None) -> ExportResult:
    """Export the games of log files; new games are added to the dataset, games with more
    events than before replace their old rows, games absent from the files are kept.

    The files are read game by game (:class:`LogFiles`), never whole. ``workers``: processes
    that parse, fold and build the games (as :func:`export_store`; the files are the same
    either way).
    """
    from jaslog.export.parallel import auto_workers, file_chunks

    if chunk_games < 1:
        raise ValueError("chunk_games must be at least 1")
    with contextlib.ExitStack() as stack:
        log = LogFiles(paths, stack)
        chunks = -(-log.games // chunk_games)
        n = auto_workers(chunks) if workers is None else min(workers, chunks)
        if n > 0:
            return export_chunks(lambda index: file_chunks(log, index, chunk_games, n), out_dir,
                                 source=FILES_SOURCE, chunk_games=chunk_games, full=full,
                                 keep=keep, progress=progress)
        games = (parse_game(lines) for lines in log.game_lines())
        return export_games(games, out_dir, source=FILES_SOURCE, chunk_games=chunk_games,
                            full=full, keep=keep, progress=progress)
