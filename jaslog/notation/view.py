"""A notation text read as ``jaslog/1`` JSON Lines, so that every reader of logs reads it.

:class:`TextView` wraps a text (a binary stream or any iterable of lines) and gives, line by
line, each event's JSON (its fields in canonical order) and, for each error, a line that is
no event. Each line is a :class:`ViewLine`: bytes that also carry where the event or error was
written (the text's line and column) and, for an error, what was expected, so that
``jaslog.logs.read_line`` reports it there. ``jaslog.logs.skip_bom`` wraps a stream whose
first non-blank character opens a tag (:func:`is_notation`).

>>> view = TextView([b'[Game "g1"]\\n', b'[Ruleset "amsterdam"]\\n', b'[Seats "a b c d"]\\n',
...                  b'[Dealer 0]\\n', b'Deal\\n', b'Bid 1: H   @2026-11-27T19:30:00Z\\n'])
>>> [(bytes(ln), ln.line) for ln in view][-1]
(b'{"game":"g1","seq":2,"type":"bid","at":"2026-11-27T19:30:00Z","seat":1,"call":"H"}\\n', 6)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from jaslog.notation.reader import TextGame, read_games
from jaslog.notation.syntax import ENVELOPE, fields_of

_OPENS_TAG = re.compile(rb"\[[ \t]*[A-Za-z]")
_BLANK = b" \t\r\n\f\v"
#: How much of a stream's start is looked at to tell a notation text from JSON Lines.
SNIFF_BYTES = 8192


def is_notation(head: bytes) -> bool:
    """Does a text that starts with ``head`` hold notation (its first non-blank character
    opens a tag, ``[Game``, or a comment, ``;``), rather than JSON Lines (``{``)? A JSON array
    (``[{``) is not notation.

    >>> is_notation(b'\\n[Game "g1"]'), is_notation(b"; a comment"), is_notation(b'{"game":')
    (True, True, False)
    >>> is_notation(b'[{"game": "g1"}]')
    False
    """
    s = head.lstrip(_BLANK)
    if s.startswith(b"\xef\xbb\xbf"):
        s = s[3:].lstrip(_BLANK)
    return s.startswith(b";") or _OPENS_TAG.match(s) is not None


class ViewLine(bytes):
    """One line of a :class:`TextView`: the bytes of an event's JSON (or of an error's
    stand-in), and where it was written: ``line``, ``column``, ``error`` (None for an event),
    ``game`` and ``seq``."""

    line: int
    column: int
    error: str | None
    game: str | None
    seq: int | None

    def __reduce__(self) -> tuple[Any, ...]:  # kept whole when sent to a worker process
        return _view_line, (bytes(self), self.line, self.column, self.error, self.game, self.seq)


def _view_line(data: bytes, line: int, column: int, error: str | None, game: str | None,
               seq: int | None) -> ViewLine:
    v = ViewLine(data)
    v.line, v.column, v.error, v.game, v.seq = line, column, error, game, seq
    return v


def event_json(e: dict[str, Any]) -> bytes:
    """An event dict as JSON with its fields in canonical order (any unknown field last).

    >>> event_json({"card": "JH", "seat": 0, "type": "play", "seq": 4, "game": "g"})
    b'{"game":"g","seq":4,"type":"play","seat":0,"card":"JH"}'
    """
    order = ENVELOPE + fields_of(e.get("type"))
    d = {k: e[k] for k in order if k in e}
    if len(d) < len(e):
        d.update((k, v) for k, v in e.items() if k not in d)
    return orjson.dumps(d)


def _view_lines(game: TextGame) -> Iterator[ViewLine]:
    """A game's records as view lines; a line's errors before its events (an event cut short
    by an error is the error's doing: a reader that stops at a game's first problem names
    the error)."""
    gid = game.game
    for r in sorted(game.records, key=lambda r: (r.line, r.error is None)):
        error = r.error
        data = b""
        if error is None and r.event is not None:
            try:
                data = orjson.dumps(r.event) if r.ordered else event_json(r.event)
            except (TypeError, orjson.JSONEncodeError) as e:
                error = f"the event cannot be written as JSON ({e})"
        if error is not None:
            where = f"line {r.line}, column {r.column}: {error}"
            data = orjson.dumps({"game": gid, "seq": r.seq, "type": where} if gid is not None
                                else {"type": where})
        yield _view_line(data + b"\n", r.line, r.column, error, gid, r.seq)


class TextView:
    """A notation text as ``jaslog/1`` JSON Lines (see the module): iterable, with
    ``readline`` and ``close`` as a binary file has."""

    def __init__(self, lines: Iterable[bytes], source: str = "<text>") -> None:
        self._source = lines
        self._lines = self._each(lines, source)
        self._rest = b""
        self.closed = False

    @staticmethod
    def _each(lines: Iterable[bytes], source: str) -> Iterator[bytes]:
        for game in read_games(lines, source):
            yield from _view_lines(game)

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        if self._rest:
            rest, self._rest = self._rest, b""
            return rest
        return next(self._lines)

    def readline(self, size: int = -1) -> bytes:
        try:
            line = next(self)
        except StopIteration:
            return b""
        if 0 <= size < len(line):
            self._rest = line[size:]
            return line[:size]
        return line

    def read(self, size: int = -1) -> bytes:
        parts: list[bytes] = []
        got = 0
        while size < 0 or got < size:
            line = self.readline(-1 if size < 0 else size - got)
            if not line:
                break
            parts.append(line)
            got += len(line)
        return b"".join(parts)

    def close(self) -> None:
        self.closed = True
        close = getattr(self._source, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> TextView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
