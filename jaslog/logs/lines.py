"""Reading ``jaslog/1`` logs line by line: files, pipes and standard input, in JSON Lines or
in the notation, told apart by their content; a UTF-8 byte order mark stepped over.

Every reader of logs (``check``, ``replay``, the import, the export) reads a line through
:func:`read_line`, so that a bad line is reported alike everywhere: its :class:`Line` holds the
event, or the error with the game (and seq) the line names when they can be made out. A
notation text (its first non-blank character opens a tag, ``[Game "g1"]``) is read through
``jaslog.notation.TextView`` as its events' JSON Lines, each line knowing the text's line and
column.

This layer sits above the event models (:mod:`jaslog.events`) and the notation
(:mod:`jaslog.notation`): both are read from here, and neither reads a file.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import orjson

from jaslog.events import Event, EventError, parse_event
from jaslog.events.fast import fast_play
from jaslog.events.limits import MAX_LINE
from jaslog.notation import TextView, ViewLine, is_notation


@dataclass(frozen=True, slots=True)
class Line:
    """What one line of a log held: an event, or the error that made it unreadable."""

    source: str
    number: int
    event: Event | None
    error: str | None = None
    game: str | None = None
    seq: int | None = None


def _peek_dict(d: object) -> tuple[str | None, int | None]:
    """Best-effort game and seq of a decoded line that failed, for the error message."""
    if not isinstance(d, dict):
        return None, None
    g, s = d.get("game"), d.get("seq")
    return (g if isinstance(g, str) else None), \
        (s if isinstance(s, int) and not isinstance(s, bool) else None)


def canonical_game_end(raw: bytes) -> int:
    """Where the game id of a line in canonical form ends (the index of its closing quote; the
    id is ``raw[9:end]``), or -1 when that is not certain from the text: the line must start
    with ``{"game":"``, name ``"game"`` once, and the id must have no escape.

    >>> canonical_game_end(b'{"game":"g-1","seq":3}'), canonical_game_end(b'{"seq":3}')
    (12, -1)
    """
    if raw.startswith(b'{"game":"') and raw.count(b'"game"') == 1:
        end = raw.find(b'"', 9)
        if end > 9 and raw.find(b"\\", 9, end) < 0:
            return end
    return -1


def line_game(raw: bytes) -> str | None:
    """The game a line names, found cheaply (to group lines by game before parsing them): read
    off the text of a line in canonical form (it starts with ``{"game":"<id>"``, names
    ``"game"`` once and the id has no escape), else from the line's JSON, else, for a line
    that is not JSON (cut short, say), from its text (:func:`guess_game`), as
    :func:`read_line` attributes it. None when no game can be made out (its own parse says
    what is wrong with it).

    >>> line_game(b'{"game":"g-1","seq":3,"type":"play","seat":1,"card":"AS"}')
    'g-1'
    >>> line_game(b'{"seq": 3, "game": "g-2"}'), line_game(b'{"game": "g-3", "se'), line_game(b'x')
    ('g-2', 'g-3', None)
    """
    end = canonical_game_end(raw)
    if end > 0:
        return raw[9:end].decode("utf-8", "replace")
    if type(raw) is ViewLine:  # a line of a notation text knows its game
        return raw.game
    try:
        d = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return guess_game(raw)
    g = d.get("game") if isinstance(d, dict) else None
    return g if isinstance(g, str) else None


#: The UTF-8 byte order mark some Windows editors put at the start of a text file.
BOM = b"\xef\xbb\xbf"


def skip_bom(stream: IO[bytes]) -> IO[bytes]:
    """Step over a UTF-8 byte order mark at the start of ``stream`` (a log saved by a Windows
    editor starts with one; it is not part of the first line). Returns the stream, or, when
    its first non-blank character opens a tag (``[Game "g1"]``), the stream read as the
    notation (``jaslog.notation.TextView``: its events as JSON Lines, each line knowing the
    text's line and column), so that every reader of logs reads both by their content.

    >>> import io
    >>> skip_bom(io.BufferedReader(io.BytesIO(BOM + b'{"game":"g"}'))).read()
    b'{"game":"g"}'
    >>> skip_bom(io.BufferedReader(io.BytesIO(b'{"game":"g"}'))).read()
    b'{"game":"g"}'
    >>> next(skip_bom(io.BufferedReader(io.BytesIO(b'[Game "g"]\\n[Seq 3]\\nNote "hi"'))))
    b'{"game":"g","seq":3,"type":"note","text":"hi"}\\n'
    """
    peek = getattr(stream, "peek", None)
    if peek is not None:
        if peek(3)[:3] == BOM:
            stream.read(3)
        head = peek(SNIFF)
    elif stream.seekable():
        start = stream.tell()
        if stream.read(3) != BOM:
            stream.seek(start)
        start = stream.tell()
        head = stream.read(SNIFF)
        stream.seek(start)
    else:
        return stream
    return TextView(stream) if is_notation(head) else stream  # type: ignore[return-value]


#: How much of a stream's start :func:`skip_bom` looks at to tell notation from JSON Lines.
SNIFF = 8192


def read_lines(stream: Iterable[bytes], source: str) -> Iterator[Line]:
    """Every non-blank line of a JSON Lines stream (any iterable of lines), parsed; lines of
    notation (the first non-blank one opens a tag) are read as the notation. Never raises for
    bad input."""
    if not isinstance(stream, TextView):
        it = iter(stream)
        head = []
        for raw in it:
            head.append(raw)
            if raw.strip():
                break
        stream = itertools.chain(head, it)
        if head and is_notation(head[-1]):
            stream = TextView(stream)
    for number, raw in enumerate(stream, 1):
        if raw.strip():
            yield read_line(raw, source, number)


_GAME_IN_TEXT = re.compile(rb'"game"\s*:\s*"([A-Za-z0-9._:-]{1,128})"')


def guess_game(raw: bytes) -> str | None:
    """The game a line names, if its text shows one (without parsing it: the line may be
    broken).

    >>> guess_game(b'{"game": "club-7", "seq": 3, "type": "pl')
    'club-7'
    """
    m = _GAME_IN_TEXT.search(raw, 0, 8192)
    return m.group(1).decode() if m else None


def read_line(raw: bytes, source: str, number: int) -> Line:
    """Line ``number`` of ``source``, parsed: its event, or what is wrong with it, with the
    game (and seq) the line names when they can be made out, so that the error is the
    game's. Every reader of logs (check, replay, import, export) reads a bad line alike.

    >>> ln = read_line(b'{"game": "g1", "seq": 3, "type": "pl', "a.jsonl", 4)
    >>> ln.game, ln.error[:52]
    ('g1', 'the file ends in the middle of a line (truncated?): ')

    A line of a notation text read as JSON Lines (a ``jaslog.notation.ViewLine``) is the
    text's line ``number``, and its error names the column.
    """
    if type(raw) is ViewLine:
        return _text_line(raw, source)
    try:
        return Line(source, number, parse_event(raw))
    except EventError as e:
        error = str(e)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as u:
        error = (f"not UTF-8: byte {u.start + 1} of the line is 0x{raw[u.start]:02x} "
                 "(save the file as UTF-8)")
    if len(raw) > MAX_LINE:
        return Line(source, number, None, error, guess_game(raw))
    try:
        d = orjson.loads(raw)
    except orjson.JSONDecodeError:
        if not raw.endswith(b"\n"):  # only a file's last line can end without one
            error = f"the file ends in the middle of a line (truncated?): {error}"
        return Line(source, number, None, error, guess_game(raw))
    game, seq = _peek_dict(d)
    return Line(source, number, None, error, game, seq)


def read_line_fast(raw: bytes, source: str, number: int) -> Line:
    """:func:`read_line` for a reader that only folds and reports (``jaslog check``): a line
    that is the canonical text of a play is read without its model, as the import reads it
    (:func:`jaslog.events.fast.fast_play`: a :class:`~jaslog.events.fast.FastPlay`, which a
    fold takes in place of the model); any other line, or any doubt, as :func:`read_line`
    reads it. The event of a fast line has no ``model_dump``: a reader that shows events
    (``replay``, ``show``) reads with :func:`read_line`.

    >>> ln = read_line_fast(b'{"game":"g","seq":3,"type":"play","seat":1,"card":"AS"}\\n', "a", 4)
    >>> type(ln.event).__name__, ln.event.card, ln.number
    ('FastPlay', 'AS', 4)
    >>> type(read_line_fast(b'{"game": "g", "seq": 3, "type": "play", "seat": 1, "card": "AS"}',
    ...                     "a", 4).event).__name__
    'Play'
    """
    if type(raw) is bytes:  # (a line of a notation text knows its own line and column)
        fp = fast_play(raw)
        if fp is not None:
            return Line(source, number, fp)  # type: ignore[arg-type]  # every field a fold reads
    return read_line(raw, source, number)


def _text_line(raw: ViewLine, source: str) -> Line:
    """A line of a notation text: its event, or what is wrong with it, at the text's line."""
    error = raw.error
    if error is None:
        try:
            return Line(source, raw.line, parse_event(bytes(raw)))
        except EventError as e:
            error = str(e)
    return Line(source, raw.line, None, f"column {raw.column}: {error}", raw.game, raw.seq)


def read_file(path: str | Path) -> Iterator[Line]:
    """The lines of a log file (``-`` is standard input)."""
    if str(path) == "-":
        yield from read_lines(skip_bom(sys.stdin.buffer), "<stdin>")
        return
    with open(path, "rb") as f:
        yield from read_lines(skip_bom(f), str(path))
