"""The notation's tokens: a body line cut into words, colons, texts in quotes, annotations
(JSON objects) and marks; a tag line cut into its tags; and :class:`TokenCursor`, which reads
an item's arguments (a seat, a number, cards, a text) from a line's tokens.

Every problem is an :class:`ItemStop` at its column: the reader records it and goes on with
the next line.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from jaslog.notation import syntax
from jaslog.notation.syntax import norm

#: A whole number as the notation writes it (a seat, a score, a relative seq).
INT = re.compile(r"[+-]?\d{1,15}")
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
#: How deep an annotation or a tag's value may nest (levels of ``{`` and ``[``, its own
#: included): room for an event's fields and their free JSON (which ``jaslog.events`` holds to
#: 32 levels below the field), and no more, so nothing read from a text nests deep enough to
#: exhaust a recursive reader or writer of JSON (orjson writes at most 254 levels).
MAX_NESTING = 64
#: What separates tokens besides the end of the line (a comma is a space).
SPACE = " \t\r\f\v\ufeff,"


class ItemStop(Exception):
    """An item that cannot be read: the rest of its line is passed over."""

    def __init__(self, column: int, message: str) -> None:
        super().__init__(message)
        self.column, self.message = column, message


Token = tuple[str, Any, int]  # (kind, value, column): w word, : colon, s string, j object, @ @@ #


def _string_end(text: str, i: int) -> int:
    """The index after the JSON string that starts at ``i``, or -1."""
    j = i + 1
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == '"':
            return j + 1
        j += 1
    return -1


def _object_end(text: str, i: int, what: str) -> int:
    """The index after the JSON object or array that starts at ``i``, or -1 when it is not
    closed; :class:`ItemStop` at the bracket that opens a level past :data:`MAX_NESTING`
    (``what`` names the value in the message)."""
    depth = 0
    j = i
    n = len(text)
    while j < n:
        c = text[j]
        if c == '"':
            j = _string_end(text, j)
            if j < 0:
                return -1
            continue
        if c in "{[":
            depth += 1
            if depth > MAX_NESTING:
                raise ItemStop(j + 1, f"{what} nests deeper than {MAX_NESTING} levels of {{ and "
                                      "[ (the free JSON of an event, meta and options, nests at "
                                      "most 32)")
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


def _json(text: str, i: int, j: int, what: str) -> Any:
    try:
        return orjson.loads(text[i:j])
    except orjson.JSONDecodeError as e:
        raise ItemStop(i + 1, f"{what} is not valid JSON ({e})") from None


_SPACES = r"[ \t\r\f\v\ufeff,]*"


# One token at a time: the end of the line or a comment, a quote or an annotation (read as
# JSON), a mark (@, @@, #), a colon, or a word; after a mark, words keep their colons.
_TOKEN = re.compile(_SPACES + r"""(?:(?P<end>;|$)|(?P<json>["{])|(?P<mark>@@|@|\#)|(?P<colon>:)
    |(?P<word>[^\s,;"{:@\#\ufeff]+(?:@(?![+@0-9])[^\s,;"{:@\#\ufeff]*)*))""", re.X)


_BLOCK_TOKEN = re.compile(_SPACES + r"""(?:(?P<end>;|$)|(?P<json>["{])|(?P<mark>@@|@|\#)
    |(?P<word>[^\s,;"{@\#\ufeff]+))""", re.X)


def tokens(text: str) -> list[Token]:
    """A body line's tokens (a comment, from ``;``, left out).

    >>> [t[:2] for t in tokens('1. 3:JH 10h  Roem 1 20 {"x":1} @+9 19:30:04 ; the end')]
    [('w', '1.'), ('w', '3'), (':', ':'), ('w', 'JH'), ('w', '10h'), ('w', 'Roem'), ('w', '1'), \
('w', '20'), ('j', {'x': 1}), ('@', '@'), ('w', '+9'), ('w', '19:30:04')]
    """
    out: list[Token] = []
    i = 0
    pattern = _TOKEN
    while True:
        m = pattern.match(text, i)
        if m is None:  # a character no token starts with (a lone separator): step over it
            i += 1
            continue
        kind = m.lastgroup or "end"
        if kind == "end":
            return out
        col = m.start(kind) + 1
        if kind == "word":
            out.append(("w", m.group(kind), col))
            i = m.end()
        elif kind == "colon":
            out.append((":", ":", col))
            i = m.end()
        elif kind == "mark":
            mark = m.group(kind)
            out.append((mark, mark, col))
            i = m.end()
            pattern = _BLOCK_TOKEN
        elif text[col - 1] == '"':
            j = _string_end(text, col - 1)
            if j < 0:
                raise ItemStop(col, 'a text in quotes has no closing "')
            out.append(("s", _json(text, col - 1, j, "the text in quotes"), col))
            i = j
        else:
            j = _object_end(text, col - 1, "the annotation")
            if j < 0:
                raise ItemStop(col, "an annotation {...} has no closing }")
            value = _json(text, col - 1, j, "the annotation")
            if not isinstance(value, dict):
                raise ItemStop(col, "expected an annotation: a JSON object {...}")
            out.append(("j", value, col))
            i = j


def _tag_value(text: str, i: int) -> tuple[Any, int]:
    """A tag's value at ``i``: JSON, or bare text up to ``]``; and the index after it."""
    c = text[i] if i < len(text) else ""
    if c == '"':
        j = _string_end(text, i)
        if j < 0:
            raise ItemStop(i + 1, 'the tag\'s value has no closing "')
        return _json(text, i, j, "the tag's value"), j
    if c in "{[":
        j = _object_end(text, i, "the tag's value")
        if j < 0:
            raise ItemStop(i + 1, "the tag's value has no closing " + ("}" if c == "{" else "]"))
        return _json(text, i, j, "the tag's value"), j
    j = text.find("]", i)
    if j < 0:
        raise ItemStop(len(text) + 1, "expected ] to close the tag")
    bare = text[i:j].strip()
    if not bare:
        raise ItemStop(i + 1, 'expected the tag\'s value (e.g. [Game "club-7"])')
    try:
        return orjson.loads(bare), j
    except orjson.JSONDecodeError:
        return bare, j


def tag_line(text: str) -> list[tuple[str, Any, int]]:
    """The tags of a tag line: (name, value, column) each.

    >>> tag_line('[Game "club-7"] [Dealer 3]  [Ruleset amsterdam] ; three tags')
    [('Game', 'club-7', 1), ('Dealer', 3, 17), ('Ruleset', 'amsterdam', 29)]
    """
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in SPACE:
            i += 1
            continue
        if c == ";":
            break
        if c != "[":
            raise ItemStop(i + 1, f"expected [ to open a tag, got {c!r} (a tag line holds tags "
                               "only)")
        col = i + 1
        i += 1
        while i < n and text[i] in SPACE:
            i += 1
        m = _TAG_NAME.match(text, i)
        if m is None:
            raise ItemStop(i + 1, 'expected a tag name (e.g. [Game "club-7"])')
        name = m.group()
        i = m.end()
        while i < n and text[i] in SPACE:
            i += 1
        value, i = _tag_value(text, i)
        while i < n and text[i] in SPACE:
            i += 1
        if i >= n or text[i] != "]":
            raise ItemStop(i + 1, f"expected ] to close the tag [{name} ...]")
        i += 1
        out.append((name, value, col))
    return out


def shown(kind: str, value: Any) -> str:
    if kind == "w":
        return repr(value)
    return {"s": "a text in quotes", "j": "an annotation {...}", ":": "':'"}.get(kind, repr(value))


class TokenCursor:
    """A line's tokens and the position in them, with the readers of an item's arguments
    (a seat by number or by the name of a player of ``names``)."""

    toks: list[Token]
    k: int
    players: int
    names: list[str]

    def peek(self) -> Token | None:
        return self.toks[self.k] if self.k < len(self.toks) else None

    def take(self, what: str) -> Token:
        t = self.peek()
        if t is None:
            raise ItemStop(self.end_col(), f"expected {what}, got the end of the line")
        self.k += 1
        return t

    def end_col(self) -> int:
        if not self.toks:
            return 1
        kind, value, col = self.toks[-1]
        return col + (len(value) if kind == "w" else 1)

    def word_next(self, *words: str) -> bool:
        """Is the next token one of ``words`` (compared as keywords)? Takes it if so."""
        t = self.peek()
        if t is not None and t[0] == "w" and norm(t[1]) in words:
            self.k += 1
            return True
        return False

    def seat_word(self, word: str, col: int) -> int:
        if INT.fullmatch(word) and word[0] not in "+-":
            return int(word)
        if word in self.names:
            return self.names.index(word)
        low = [n.lower() for n in self.names]
        if low.count(word.lower()) == 1:
            return low.index(word.lower())
        known = f" or a player of [Seats]: {', '.join(self.names)}" if self.names else ""
        raise ItemStop(col, f"expected a seat (0-{max(self.players, 1) - 1}{known}), got {word!r}")

    def seat(self, what: str = "a seat") -> int:
        kind, value, col = self.take(what)
        if kind != "w":
            raise ItemStop(col, f"expected a seat, got {shown(kind, value)}")
        return self.seat_word(value, col)

    def int_(self, what: str = "a number") -> int:
        kind, value, col = self.take(what)
        if kind != "w" or not INT.fullmatch(value):
            raise ItemStop(col, f"expected {what}, got {shown(kind, value)}")
        return int(value)

    def ints(self, what: str) -> list[int]:
        out = [self.int_(what)]
        while (t := self.peek()) is not None and t[0] == "w" and INT.fullmatch(t[1]):
            self.k += 1
            out.append(int(t[1]))
        return out

    def card(self, read: Any = syntax.card, what: str = "a card") -> str:
        kind, value, col = self.take(what)
        c = read(value) if kind == "w" else None
        if c is None:
            raise ItemStop(col, f"expected {what}, got {shown(kind, value)}")
        return c  # type: ignore[no-any-return]

    def cards(self) -> list[str]:
        out = []
        while (t := self.peek()) is not None and t[0] == "w" and syntax.card(t[1]) is not None:
            after_ = self.toks[self.k + 1] if self.k + 1 < len(self.toks) else None
            if after_ is not None and after_[0] == ":":
                break
            self.k += 1
            out.append(syntax.card(t[1]))
        return out  # type: ignore[return-value]

    def string(self, what: str) -> str:
        kind, value, col = self.take(f"{what} in double quotes")
        if kind != "s":
            raise ItemStop(col, f'expected {what} in double quotes ("..."), got '
                             f"{shown(kind, value)}")
        return value  # type: ignore[no-any-return]
