"""``jaslog/1`` log files read game by game, in two passes, never whole.

A log may hold many games, their lines mixed (several tables recorded into one file), and a
game may run on into the next file. Readers that need a game whole (the export folds it,
``jaslog check`` reports it) used to hold every game until the end of the files; an archive
of a hundred thousand games does not fit in memory that way. :class:`LogFiles` reads the
files twice: first only the game of each line (:func:`jaslog.logs.line_game`), to learn
where each game's lines end; then line by line, so that a reader can hand a game on at its
last line and forget it. Memory then holds only the games under way at a point of the files
(one at a time in a file written game after game).

>>> import contextlib, tempfile, os
>>> fd, path = tempfile.mkstemp(suffix=".jsonl")
>>> _ = os.write(fd, b'{"game":"a","seq":0}\\n{"game":"b","seq":0}\\n{"game":"a","seq":1}\\n')
>>> os.close(fd)
>>> with contextlib.ExitStack() as stack:
...     log = LogFiles([path], stack)
...     log.games, [[n for _, n, _ in lines] for lines in log.game_lines()]
(2, [[2], [1, 3]])
>>> os.remove(path)
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from jaslog.errors import JaslogError
from jaslog.logs.lines import Line, line_game, read_line, read_line_fast, skip_bom
from jaslog.notation import TextView

#: One line of a log file: (file name, line number, bytes).
RawLine = tuple[str, int, bytes]


class LogError(JaslogError):
    """A log that cannot be read (missing, unreadable, a line that names no game): a full
    sentence that names the file (and line)."""

    code = "bad_log"


#: The first bytes of compressed files (a log is text) and what decompresses them to stdout.
COMPRESSED: tuple[tuple[bytes, str, str], ...] = (
    (b"\x1f\x8b", "gzip", "zcat"),
    (b"\x28\xb5\x2f\xfd", "zstd", "zstdcat"),
    (b"BZh", "bzip2", "bzcat"),
    (b"\xfd7zXZ\x00", "xz", "xzcat"),
    (b"PK\x03\x04", "zip", "unzip -p"),
)


def compressed_problem(path: str | Path) -> str | None:
    """A sentence when the regular file ``path`` starts as a compressed file (gzip, zstd,
    bzip2, xz, zip), else None. Only regular files are looked at: a pipe or standard input
    can be read only once."""
    p = Path(path)
    try:
        if not p.is_file():
            return None
        with open(p, "rb") as fh:
            head = fh.read(6)
    except OSError:  # unreadable: reading it says why
        return None
    for magic, kind, tool in COMPRESSED:
        if head.startswith(magic):
            return (f"{path} is {kind}-compressed, not a jaslog/1 log: decompress it first, "
                    f"e.g. give `<({tool} {shlex.quote(str(path))})` in its place")
    return None


def path_problem(path: str | Path) -> str | None:
    """What keeps ``path`` from being read as a log, as a sentence naming it (None: nothing).
    ``-`` (standard input), a file, and a pipe (``<(zcat log.jsonl.gz)``) can be read; a
    compressed file (:func:`compressed_problem`) cannot.

    >>> path_problem("-"), path_problem("/no/such/log.jsonl"), path_problem("/")
    (None, '/no/such/log.jsonl: no such file', '/: is a directory, not a log file')
    """
    if str(path) == "-":
        return None
    p = Path(path)
    if p.is_dir():
        return f"{path}: is a directory, not a log file"
    if not p.exists():
        return f"{path}: no such file"
    return compressed_problem(p)


def repeated_path(paths: Iterable[str | Path]) -> str | None:
    """A sentence for the first log given twice (the same regular file or pipe, by any name,
    ``-`` and the file or pipe it reads, or ``-`` twice), else None: a file's games would be
    read twice, each a duplicate of itself, and a pipe's second reading would find nothing.
    Nothing is read (pipes stay unread).

    >>> repeated_path(["-", "a.jsonl", "-"])
    'standard input (-) is given twice'
    """
    seen: dict[object, str] = {}
    for path in paths:
        name = str(path)
        try:  # standard input is whatever fd 0 is: the same pipe as /dev/stdin, or a file
            st = os.fstat(0) if name == "-" else os.stat(path)
        except OSError:  # missing: path_problem says so
            st = None
        key: object
        if st is not None and (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            key = (st.st_dev, st.st_ino)  # a pipe can be read once: twice is refused too
        elif name == "-":
            key = "-"
        else:
            continue
        if key in seen:
            first = seen[key]
            if name == "-" and first == "-":
                return "standard input (-) is given twice"
            also = "" if first == name else f" (also as {first})"
            return f"{path} is given twice{also}: give each log once"
        seen[key] = name
    return None


def paths_problem(paths: Iterable[str | Path]) -> str | None:
    """:func:`path_problem` of each path, then :func:`repeated_path`: the first sentence."""
    paths = list(paths)
    for p in paths:
        problem = path_problem(p)
        if problem is not None:
            return problem
    return repeated_path(paths)


#: How much of a file the first pass reads at a time (whole lines of it).
BLOCK = 1 << 22
#: The game a canonical line starts with (``{"game":"<id>"``).
_GAME_START = re.compile(rb'\{"game":"([A-Za-z0-9._:-]{1,128})"')


def blocks(stream: IO[bytes], size: int = 0) -> Iterator[tuple[bytes, int]]:
    """``stream`` (at its start) in blocks of whole lines, about ``size`` bytes each (0:
    :data:`BLOCK`):
    ``(data, stop)``, the lines being ``data[:stop]`` (the last line of the stream may lack
    its line break); what follows ``stop`` (a line's start, no line break) is the start of
    the next block too.

    The file is read into one buffer, kept from block to block (the start of a line cut
    at the block's end moved to its front), and each block copied out of it once: a fresh
    block of megabytes read, then joined to the cut line before it, cost more than the
    read itself (the memory of each new block touched for the first time).

    >>> import io
    >>> list(blocks(io.BytesIO(b"a\\nb\\nc")))
    [(b'a\\nb\\nc', 4), (b'c', 1)]
    >>> list(blocks(io.BytesIO(b"abc\\nd\\n"), 2))
    [(b'abc\\n', 4), (b'd\\n', 2)]
    """
    size = size or BLOCK
    buf = bytearray(size)
    view = memoryview(buf)
    kept = 0  # bytes at the buffer's front: the start of a line cut at the last block's end
    try:
        while True:
            if kept == len(buf):  # a line longer than the buffer: make room for the rest
                view.release()
                buf.extend(bytes(len(buf)))
                view = memoryview(buf)
            got = stream.readinto(view[kept:])  # type: ignore[attr-defined]
            if not got:
                break
            n = kept + got
            cut = buf.rfind(b"\n", 0, n) + 1
            if cut == 0:  # no line ends here yet
                kept = n
                continue
            data = bytes(view[:n])
            buf[:n - cut] = data[cut:]
            kept = n - cut
            yield data, cut
        if kept:
            yield bytes(view[:kept]), kept
    finally:
        view.release()


def last_lines(stream: IO[bytes], k: int, last: dict[str, tuple[int, int]]) -> None:
    """The first pass over one file (``stream``, at its start; file index ``k``): set
    ``last[game]`` to ``(k, number)`` of each game's last line, as :func:`~jaslog.logs.
    line_game` of each line would. A block of lines that all start in canonical form, each
    naming ``"game"`` once, is read by runs of one game (:func:`game_runs`) or, its games
    mixed line by line, by one regex over the block; any other block line by line.

    >>> import io
    >>> last: dict[str, tuple[int, int]] = {}
    >>> last_lines(io.BytesIO(b'{"game":"a"}\\n{"game":"b"}\\n\\n{"game": "a"}'), 0, last)
    >>> last
    {'a': (0, 4), 'b': (0, 2)}
    """
    base = 0  # lines before the block
    for data, stop in blocks(stream):
        base = _block_last(data, stop, base, k, last)


def _block_last(data: bytes, stop: int, base: int, k: int,
                last: dict[str, tuple[int, int]]) -> int:
    """:func:`last_lines` of one block of whole lines, ``data[:stop]`` (the last may lack
    its line break), the first of them line ``base + 1``; returns the number of the block's
    last line."""
    runs = game_runs(data, stop)
    if runs is not None:  # each game's lines one run after another: a few searches a game
        i = base
        for gid, count, _end in runs:
            i += count
            last[gid.decode()] = (k, i)
        return i
    block = data[:stop] if stop < len(data) else data
    n = block.count(b"\n") + (not block.endswith(b"\n"))
    # every line starts {"game":" and names "game" once: then the regex finds each line's id
    # at its start, and finds them all when each id is one line_game reads off the text
    if block.count(b'\n{"game":"') + block.startswith(b'{"game":"') == n and \
            block.count(b'"game"') == n and len(ids := _GAME_START.findall(block)) == n:
        ends = {g: i for i, g in enumerate(ids, base + 1)}
        for g, i in ends.items():
            last[g.decode()] = (k, i)
        return base + n
    lines = block.split(b"\n")
    ended = block.endswith(b"\n")
    if ended:
        lines.pop()  # the empty text after the block's last line break
    for i, raw in enumerate(lines, base + 1):
        game = line_game(raw + b"\n" if ended or i < base + n else raw)
        if game is not None:
            last[game] = (k, i)
    return base + n


#: A game id as :func:`~jaslog.logs.line_game` reads it off a canonical line's text.
_GAME_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")
#: Runs of lines shorter than this many bytes are walked line by line, not halved.
_PROBE = 2048


def game_runs(data: bytes, stop: int | None = None) -> list[tuple[bytes, int, int]] | None:
    """The runs of one game's lines in the block ``data[:stop]`` (whole lines), in order:
    (game id, lines in the run, offset after the run), covering every line; None unless
    every line is in canonical form (it starts ``{"game":"<id>"``, names ``"game"`` once
    and the id is one :func:`~jaslog.logs.line_game` reads off the text) and each run found
    holds only its game's lines. A run's end is found by probing ahead and halving the bytes
    (:func:`run_end`: in a file written game after game, a game's lines are one run), then
    checked by counting: the lines that start with their run's ``{"game":"<id>"`` are all
    the block's lines, and as many as its ``"game"``.

    >>> game_runs(b'{"game":"a","s":1}\\n{"game":"a","s":2}\\n{"game":"b","s":1}')
    [(b'a', 2, 38), (b'b', 1, 56)]
    >>> game_runs(b'{"game":"a"}\\n{"seq":1}\\n') is None
    True
    """
    size = len(data) if stop is None else stop
    n = data.count(b"\n", 0, size) + (not data.endswith(b"\n", 0, size))
    if data.count(b'"game"', 0, size) != n:
        return None
    runs: list[tuple[bytes, int, int]] = []
    pos = found = 0
    while pos < size:
        end = data.find(b'"', pos + 9, size)
        gid = data[pos + 9:end]
        if not data.startswith(b'{"game":"', pos) or end < 0 or \
                _GAME_ID.fullmatch(gid) is None:
            return None
        head = b'\n{"game":"' + gid + b'"'
        r = run_end(data, head, pos, size)
        lines = data.count(head, pos, r) + 1  # (its first line starts so)
        runs.append((gid, lines, r))
        found += lines
        pos = r
    return runs if found == n else None  # (a run that held another game's line: fewer)


def run_end(data: bytes, head: bytes, pos: int, stop: int) -> int:
    """Where the run of lines from ``pos`` ends in ``data[:stop]``: the offset of the first
    line after ``pos`` found not to start with ``head`` (``\\n`` and a line's start), else
    ``stop``. Found by probing ahead, further each time, then halving, then line by line;
    a run that holds other lines between two probes is not seen here (:func:`game_runs`
    counts them).

    >>> run_end(b'ab\\nab\\nab\\ncd\\nab', b"\\na", 0, 14)
    9
    """
    find, starts = data.find, data.startswith
    lo, hi, step = pos, stop, _PROBE
    while lo + step < hi:  # probe ahead
        q = find(b"\n", lo + step, hi)
        if q < 0 or q + 1 >= hi:
            break
        if not starts(head, q):
            hi = q + 1
            break
        lo, step = q + 1, step * 4
    while hi - lo > _PROBE:  # halve
        q = find(b"\n", (lo + hi) // 2, hi)
        if q < 0 or q + 1 >= hi:
            break  # long lines: walk them
        if starts(head, q):
            lo = q + 1
        else:
            hi = q + 1
    while True:  # walk
        q = find(b"\n", lo, hi)
        if q < 0 or q + 1 >= hi:
            return hi
        if not starts(head, q):
            return q + 1
        lo = q + 1


class LogFiles:
    """Log files to read game by game. Each is open only while it is read (any number of
    files); ``-`` (standard input) and pipes (``<(zcat log.jsonl.gz)``), which can be read
    only once, are kept in temporary files that ``stack`` closes.

    Opening them is the first pass: ``last`` maps each game to (file index, line number) of
    its last line and ``games`` is how many there are. :meth:`game_lines` (raw lines, grouped)
    and :meth:`lines` with :meth:`is_last` (parsed lines, in file order) are the second.
    """

    def __init__(self, paths: Iterable[str | Path], stack: contextlib.ExitStack) -> None:
        # (name, path or the spooled standard input): a file is open only while it is read,
        # so thousands of files do not run out of file handles
        self.files: list[tuple[str, Path | IO[bytes]]] = []
        paths = list(paths)
        problem = paths_problem(paths)  # before anything is read
        if problem is not None:
            raise LogError(problem)
        for p in paths:
            if str(p) != "-" and Path(p).is_file():
                self.files.append((str(p), Path(p)))
                continue
            spool = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
            if str(p) == "-":
                shutil.copyfileobj(sys.stdin.buffer, spool)
            else:
                try:
                    with open(p, "rb") as pipe:
                        shutil.copyfileobj(pipe, spool)
                except OSError as e:
                    raise LogError(f"{p}: {e.strerror}") from None
            self.files.append(("<stdin>" if str(p) == "-" else str(p), spool))
        self.last: dict[str, tuple[int, int]] = {}
        for k, (_name, fh) in enumerate(self._each()):
            if isinstance(fh, TextView):  # a notation text: its events' lines, one by one
                for number, raw in enumerate(fh, 1):
                    game = line_game(raw)
                    if game is not None:
                        self.last[game] = (k, number)
            else:
                last_lines(fh, k, self.last)
        self._file = self._number = 0

    def _each(self) -> Iterator[tuple[str, IO[bytes]]]:
        """(name, file at its start) of each file in turn, each open only while it is read."""
        for name, f in self.files:
            if not isinstance(f, Path):
                f.seek(0)
                yield name, skip_bom(f)
                continue
            try:
                fh = open(f, "rb")  # noqa: SIM115 (closed below, also when the reader stops)
            except OSError as e:
                raise LogError(f"{name}: {e.strerror}") from None
            with fh:
                yield name, skip_bom(fh)

    @property
    def games(self) -> int:
        return len(self.last)

    def streams(self) -> Iterator[tuple[int, str, IO[bytes]]]:
        """(index, name, stream at its start) of each file in turn, for a reader that reads
        the lines itself (a notation text's stream is a ``jaslog.notation.TextView``: its
        events' lines); each file is open only while it is read."""
        for k, (name, fh) in enumerate(self._each()):
            yield k, name, fh

    def ends(self) -> dict[int, dict[int, str]]:
        """Where games end: file index -> line number -> the game whose last line it is (as
        :meth:`is_last` tells it, line by line)."""
        out: dict[int, dict[int, str]] = {}
        for game, (k, number) in self.last.items():
            out.setdefault(k, {})[number] = game
        return out

    def lines(self, fast: bool = False) -> Iterator[Line]:
        """Every non-blank line of the files, parsed, in order (never raises for bad input);
        with ``fast``, canonical plays without their models (:func:`~jaslog.logs.lines.
        read_line_fast`: for a reader that folds and reports, not one that shows events)."""
        read = read_line_fast if fast else read_line
        for k, (name, fh) in enumerate(self._each()):
            self._file = k
            for number, raw in enumerate(fh, 1):
                if raw.strip():
                    self._number = number  # a notation text's line may hold several events
                    yield read(raw, name, number)

    def is_last(self, game: str, ln: Line) -> bool:
        """Is ``ln`` (the line :meth:`lines` gave last) the last line of ``game``?"""
        return self.last.get(game) == (self._file, self._number)

    def game_lines(self, strays: bool = False) -> Iterator[list[RawLine]]:
        """Each game's lines (not parsed), handed on at its last line, so games come in the
        order they end. A line that names no game raises :class:`LogError` where it stands
        (with ``strays``, it is handed on alone where it stands, as a reader that reports it
        in the order of :meth:`lines` needs); a game whose lines go on after its last one (a
        file that changed while it was read) too."""
        waiting: dict[str, list[RawLine]] = {}
        handed: set[str] = set()
        for k, (name, fh) in enumerate(self._each()):
            for number, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                gid = line_game(raw)
                if gid is None and strays:
                    yield [(name, number, raw)]
                    continue
                if gid is None:  # no game: not an event (its parse says why)
                    ln = read_line(raw, name, number)
                    raise LogError(f"{name}:{ln.number}: {ln.error} (check the file with "
                                   "`jaslog check`)")
                lines = waiting.get(gid)
                if lines is None:
                    if gid in handed:
                        raise LogError(f"{name}:{number}: game {gid} was read to its end before "
                                       "this line (did the file change while it was read?)")
                    lines = waiting[gid] = []
                lines.append((name, number, raw))
                if self.last.get(gid) == (k, number):
                    handed.add(gid)
                    yield waiting.pop(gid)
        yield from waiting.values()  # games that grew while the files were read


def lines_of_game(path: str | Path, game: str | None) -> Iterator[Line]:
    """The lines of ``game`` in one log file (``-``: standard input), parsed, in order: with
    ``game`` None, the game of the first line. Other games' lines are passed over by their
    game id (:func:`jaslog.logs.line_game`) without being parsed, so finding one game in an
    archive costs little more than reading the file; a line that names no game is parsed (and
    given on, with its error). Raises ``OSError`` when the file cannot be read."""
    with contextlib.ExitStack() as stack:
        if str(path) == "-":
            stream: IO[bytes] = skip_bom(sys.stdin.buffer)
            source = "<stdin>"
        else:
            stream = skip_bom(stack.enter_context(open(path, "rb")))
            source = str(path)
        for number, raw in enumerate(stream, 1):
            if not raw.strip():
                continue
            gid = line_game(raw)
            if gid is not None and game is not None and gid != game:
                continue
            ln = read_line(raw, source, number)
            if game is None:
                game = ln.event.game if ln.event is not None else ln.game
            yield ln
