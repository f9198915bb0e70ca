"""What an import reads: the non-blank lines of its inputs unparsed (:func:`raw_lines`, a line
too long refused without being held), where each game's last line is in a set of files
(:func:`game_ends`), the inputs that can be opened, and their names in messages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from jaslog.events import MAX_LINE
from jaslog.logs import Line, guess_game, line_game, read_line, skip_bom
from jaslog.notation import ViewLine
from jaslog.store.types import StoreError

#: A line as read: (number, raw bytes or None when too long, error, game hint, last, bytes so far)
RawLine = tuple[int, bytes | None, str | None, str | None, bool, int]


def raw_lines(stream: IO[bytes]) -> Iterator[RawLine]:
    """The non-blank lines of a stream, unparsed; a line longer than :data:`MAX_LINE` is
    skipped without being held in memory and comes as an error."""
    number = consumed = 0
    raw = stream.readline(MAX_LINE + 2)
    while raw:
        number += 1
        consumed += len(raw)
        if len(raw) > MAX_LINE + 1 or (len(raw) == MAX_LINE + 1 and not raw.endswith(b"\n")):
            head, size = raw[:8192], len(raw)
            while not raw.endswith(b"\n"):
                raw = stream.readline(1 << 20)
                if not raw:
                    break
                size += len(raw)
                consumed += len(raw)
            yield (number, None, f"line is {size} bytes long; the limit is {MAX_LINE}",
                   guess_game(head), False, consumed)
            raw = stream.readline(MAX_LINE + 2)
            continue
        nxt = stream.readline(MAX_LINE + 2)
        if raw.strip():
            yield number, raw, None, None, not nxt, consumed
        raw = nxt


def line_number(r: RawLine) -> int:
    """The line number the import gives an event read as ``r``: a line of a notation text
    (a :class:`~jaslog.notation.ViewLine`) is the text's line, any other its line in the file.

    >>> import io
    >>> [line_number(r) for r in raw_lines(io.BytesIO(b'{"game":"a"}\\n\\n{"game":"b"}\\n'))]
    [1, 3]
    """
    raw = r[1]
    return raw.line if type(raw) is ViewLine else r[0]


def game_ends(paths: list[str | Path]) -> list[set[int]]:
    """For each file in turn (``-`` and pipes spooled first: see :func:`readable_inputs`),
    the numbers of the lines at which a game has its last line in all of them: a first pass
    that reads only each line's game (:func:`jaslog.logs.line_game`), so that the import
    can write and forget a game at its last line, finished or not, instead of holding its
    fold to the end (as ``check`` does, :class:`jaslog.logs.LogFiles`).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "1.jsonl").write_bytes(b'{"game":"a","seq":0}\\n{"game":"b","seq":0}\\n')
    >>> _ = (d / "2.jsonl").write_bytes(b'{"game":"a","seq":1}\\n')
    >>> game_ends([d / "1.jsonl", d / "2.jsonl"])
    [{2}, {1}]
    """
    last: dict[str, tuple[int, int]] = {}
    for k, path in enumerate(paths):
        stream = open_input(path)
        try:
            for r in raw_lines(stream):
                raw = r[1]
                game = (line_game(raw) or guess_game(raw)) if raw is not None else r[3]
                if game is not None:
                    last[game] = (k, line_number(r))
        finally:
            if str(path) != "-":
                stream.close()
    ends: list[set[int]] = [set() for _ in paths]
    for k, number in last.values():
        ends[k].add(number)
    return ends


def readable_inputs(paths: list[str | Path], stack: Any) -> list[tuple[str, str | Path]]:
    """``(source name, path to read)`` of each input: a regular file as it is; standard input
    and pipes, which can be read once, copied into temporary files that ``stack`` removes.

    >>> import contextlib, os
    >>> r, w = os.pipe(); os.write(w, b'{"game":"a"}\\n'); os.close(w)
    13
    >>> with contextlib.ExitStack() as stack:
    ...     [(name, open(path, "rb").read()) for name, path in
    ...      readable_inputs([f"/dev/fd/{r}"], stack)]
    [('/dev/fd/...', b'{"game":"a"}\\n')]
    >>> os.close(r)
    """
    import shutil
    import sys
    import tempfile

    out: list[tuple[str, str | Path]] = []
    for p in paths:
        if str(p) != "-" and Path(p).is_file():
            out.append((source_name(p), p))
            continue
        spool = stack.enter_context(tempfile.NamedTemporaryFile(prefix="jaslog-import-"))  # noqa: SIM115
        try:
            if str(p) == "-":
                shutil.copyfileobj(sys.stdin.buffer, spool)
            else:
                with open(p, "rb") as pipe:
                    shutil.copyfileobj(pipe, spool)
        except OSError as e:
            raise StoreError(f"{p}: {e.strerror or e}") from None
        spool.flush()
        out.append((source_name(p), spool.name))
    return out


def to_line(r: RawLine, source: str) -> Line:
    number, raw, error, game, _, _ = r
    if raw is None:
        return Line(source, number, None, error, game)
    return read_line(raw, source, number)


def read_stream(stream: IO[bytes], source: str) -> Iterator[tuple[Line, int]]:
    """The non-blank lines of a stream, parsed, with the bytes read so far."""
    for r in raw_lines(stream):
        yield to_line(r, source), r[5]


def open_input(path: str | Path) -> IO[bytes]:
    """A file to import (``-``: stdin), or :class:`StoreError`."""
    if str(path) == "-":
        import sys

        return skip_bom(sys.stdin.buffer)
    try:
        return skip_bom(open(path, "rb"))
    except OSError as e:
        raise StoreError(f"{path}: {e.strerror or e}") from None


def source_name(path: str | Path) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


# ---------------------------------------------------------------------- parts
