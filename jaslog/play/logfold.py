"""Log files folded game by game, each line straight into its game's fold: what ``jaslog
check`` reads.

:func:`fold_log` gives what :func:`jaslog.play.fold.fold_lines` gives of
``log.lines(fast=True)`` with ``log.is_last`` (the same games, in the same order, with the
same errors at the same file and line), with less work a line: a file is read in blocks of
lines (:func:`jaslog.logs.blocks`), each folded by the compiled
:class:`~jaslog.play.blockfold.BlockFolder`, with no :class:`~jaslog.logs.Line`, no
generator and no ``is_last`` call between: a canonical play is read from its bytes and goes
to its game's fold without a model; any other valid line by its model
(:func:`jaslog.events.parse_event`); a line the models refuse is read as every reader reads
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

import gc
from collections.abc import Iterator
from typing import Any

from jaslog.engine.fold import FoldError
from jaslog.logs import LogFiles, blocks, read_line
from jaslog.notation import TextView
from jaslog.play.blockfold import BlockFolder
from jaslog.play.fold import FileGame, take_line

#: How much of a file the second pass folds at a time (its lines split while folded).
FOLD_BLOCK = 1 << 20
#: How many bytes of lines are folded between two collections of the young generations.
COLLECT_EVERY = 1 << 22


def fold_log(log: LogFiles) -> Iterator[FileGame | FoldError]:
    """Every game of ``log``, folded, each handed on at its last line (a line that names no
    game: a bare :class:`FoldError` where it stands), as ``fold_lines(log.lines(fast=True),
    log.is_last)`` gives them.

    While the log is read (until the last game is handed on, or the reading is closed),
    Python's cycle collector is paused, as in the import: a game's lines make a few
    thousand objects (events, the fold's lists) that hold no reference cycle (a fold holds
    none), which the collector would otherwise walk again and again while the game is
    under way, and once more after it is handed on. Reference counting frees each game once
    its reader drops it; the young generations are collected after every 4 MB of lines
    or so, a safety net that finds little young alive there.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield from _fold_log(log, collecting)
    finally:
        if collecting:
            gc.enable()


def _fold_log(log: LogFiles, collecting: bool) -> Iterator[FileGame | FoldError]:
    games: dict[str, FileGame] = {}
    ends = log.ends()
    folded = 0  # bytes folded since the young generations were last collected
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
        folder = BlockFolder(name, last, games)
        base = 0
        for data, stop in blocks(stream, FOLD_BLOCK):
            folder.start(data, stop, base)
            more = True
            while more:  # each game handed on as soon as it ends
                out: list[Any] = []
                more = folder.step(out)
                yield from out
            del out
            base = folder.number
            folded += stop
            if collecting and folded >= COLLECT_EVERY:
                gc.collect(1)
                folded = 0
    yield from games.values()
