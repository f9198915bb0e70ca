"""Log files folded game by game, each line straight into its game's fold: what ``jaslog
check`` reads.

:func:`fold_log` gives what :func:`jaslog.play.fold.fold_lines` gives of
``log.lines(fast=True)`` with ``log.is_last`` (the same games, in the same order, with the
same errors at the same file and line), with less work a line: a line goes from the file to
its game's fold as its event, with no :class:`~jaslog.logs.Line`, no generator and no
``is_last`` call between (a canonical play read without its model,
:func:`jaslog.events.fast.fast_play`; any other valid line by its model,
:func:`jaslog.events.parse_event`); a line the models refuse is read as every reader reads
it (:func:`jaslog.logs.read_line`: its error, with the game and seq it names), and so is
every line of a notation text.

>>> import contextlib, os, tempfile, orjson
>>> from jaslog.play.sim import simulate_game
>>> fd, path = tempfile.mkstemp(suffix=".jsonl")
>>> _ = os.write(fd, b"".join(orjson.dumps(e) + b"\\n" for e in simulate_game("g", seed=3)))
>>> os.close(fd)
>>> with contextlib.ExitStack() as stack:
...     [(g.game, g.error, len(g.lines) > 100) for g in fold_log(LogFiles([path], stack))]
[('g', None, True)]
>>> os.remove(path)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jaslog.engine.fold import FoldError
from jaslog.events import EventError, parse_event
from jaslog.events.fast import fast_play
from jaslog.logs import LogFiles, read_line
from jaslog.notation import TextView
from jaslog.play.fold import FileGame, start_fold, take_line


def fold_log(log: LogFiles) -> Iterator[FileGame | FoldError]:
    """Every game of ``log``, folded, each handed on at its last line (a line that names no
    game: a bare :class:`FoldError` where it stands), as ``fold_lines(log.lines(fast=True),
    log.is_last)`` gives them."""
    games: dict[str, FileGame] = {}
    ends = log.ends()
    for k, name, stream in log.streams():
        last = ends.get(k, {})
        if isinstance(stream, TextView):  # a notation text: its lines know their own place
            for number, raw in enumerate(stream, 1):
                if raw.strip():
                    gid, bare = take_line(games, read_line(raw, name, number))
                    if bare is not None:
                        yield bare
                    elif last.get(number) == gid:
                        yield games.pop(gid)  # type: ignore[arg-type]
            continue
        for number, raw in enumerate(stream, 1):
            e: Any = fast_play(raw)
            if e is None:
                try:  # a valid line: its model (read_line says what is wrong with any other)
                    e = parse_event(raw)
                except EventError:
                    if not raw.strip():
                        continue
                    e = None
            if e is None:
                gid, bare = take_line(games, read_line(raw, name, number))
                if bare is not None:
                    yield bare
                    continue
            else:
                gid = e.game
                g = games.get(gid)
                if g is None:
                    g = games[gid] = FileGame(gid)
                if g.error is None:
                    g.lines.append((name, number))
                    try:
                        if g.fold is None:
                            g.fold = start_fold(e)
                        else:
                            g.fold.apply(e)
                    except FoldError as err:
                        g.error = err.located(name, number)
            if last.get(number) == gid:
                yield games.pop(gid)  # type: ignore[arg-type]
    yield from games.values()
