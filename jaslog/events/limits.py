"""The limits of a ``jaslog/1`` event: one set, for every reader and every writer.

A line (and a stored event, which is its canonical line) is at most :data:`MAX_LINE` bytes.
Every number is an integer from :data:`INT_MIN` to :data:`INT_MAX` (64 bits, signed) or a
finite decimal: ``NaN``, ``Infinity`` and a number too large for a double are not JSON
numbers. The free JSON of an event (``meta``, ``options``) nests at most :data:`MAX_DEPTH`
levels. ``jaslog check``, the import, the export, the store and the service all read an
event through :func:`jaslog.events.parse_event` or :func:`jaslog.events.event_from_dict`,
which hold these limits, so what ``check`` accepts is what the store keeps, byte for byte,
and what the store keeps every reader reads back.

>>> json_problem({"x": [1, 2**70]}, "meta")
'meta.x[1]: 1180591620717411303424 does not fit in 64 bits'
>>> json_problem({"x": float("nan")}, "meta")
'meta.x: NaN is not a JSON number'
>>> json_problem({"table": "3"}, "meta") is None
True
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

#: The longest line (and stored event) in bytes: 1 MiB.
MAX_LINE = 1 << 20
#: Integers are 64-bit, signed (logs are read with orjson; stores and Parquet columns are
#: 64-bit).
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: How deep the free JSON of an event (``meta``, ``options``) may nest below the field.
MAX_DEPTH = 32


def _number(v: int) -> str:
    """An integer as a message shows it: its digits, or how many there are."""
    digits = len(str(abs(v))) if v.bit_length() < 20_000 else int(v.bit_length() * 0.30103) + 1
    return str(v) if digits <= 40 else f"an integer of {digits} digits"


def json_problem(value: Any, where: str) -> str | None:
    """Why ``value`` (decoded JSON at ``where``) cannot be written into a ``jaslog/1`` log,
    as ``where.path: what``; None when it can: integers within 64 bits, finite numbers, at
    most :data:`MAX_DEPTH` levels of nesting below ``value`` (too deep a value is named by
    its path's first step: ``meta.x: nested more than 32 levels deep``)."""
    todo: list[tuple[Any, str, int, str]] = [(value, where, 0, where)]
    while todo:
        v, path, depth, top = todo.pop()
        if depth > MAX_DEPTH:
            return f"{top}: nested more than {MAX_DEPTH} levels deep"
        if isinstance(v, bool) or v is None or isinstance(v, str):
            continue
        if isinstance(v, int):
            if not INT_MIN <= v <= INT_MAX:
                return f"{path}: {_number(v)} does not fit in 64 bits"
        elif isinstance(v, float):
            if not math.isfinite(v):
                said = "NaN" if math.isnan(v) else ("-Infinity" if v < 0 else "Infinity")
                return f"{path}: {said} is not a JSON number"
        elif isinstance(v, dict):
            todo.extend((x, f"{path}.{k}", depth + 1, top if depth else f"{path}.{k}")
                        for k, x in v.items())
        elif isinstance(v, list):
            todo.extend((x, f"{path}[{i}]", depth + 1, top if depth else f"{path}[{i}]")
                        for i, x in enumerate(v))
    return None


#: The types whose own fields :func:`event_problem` reads (of any other type it reads only
#: the game and the seq).
FIELDS_LIMITED = frozenset({"game_started", "correction"})


def event_problem(e: Any) -> str | None:
    """Why a validated event breaks a limit the models do not hold themselves, in the words
    of an event error (``field 'meta.x': ...``); None when it keeps them all. Only the
    fields without a bound of their own are looked at: ``seq``, a correction's
    ``retracts``, and the free JSON of ``game_started`` (``options``, ``meta``); and the game
    id, which may not be ``.`` or ``..`` (no URL can name such a game: they are a path's
    steps).

    >>> from jaslog.events import GameStarted
    >>> e = GameStarted.model_construct(game="g", seq=0, type="game_started",
    ...                                 meta={"rate": float("nan")})
    >>> event_problem(e)[:43]
    "field 'meta.rate': NaN is not a JSON number"
    """
    if e.game in NOT_IDS:
        return f"field 'game': {not_an_id(e.game)}"
    if e.seq > INT_MAX:
        return f"field 'seq': {_number(e.seq)} does not fit in 64 bits"
    t = e.type
    if t == "game_started":
        for name in ("options", "meta"):
            v = getattr(e, name)
            if v:
                problem = json_problem(v, name)
                if problem is not None:
                    path, _, what = problem.partition(": ")
                    return f"field {path!r}: {what}{_why(what)}"
        if e.meta or e.options:  # a number may be longer in its canonical text ("1e5")
            size = len(orjson.dumps({k: v for k, v in e.__dict__.items() if v is not None}))
            if size > MAX_LINE:
                return too_long(size)
    elif t == "correction":
        for i, s in enumerate(e.retracts):
            if s > INT_MAX:
                return f"field 'retracts.{i}': {_number(s)} does not fit in 64 bits"
    return None


#: Ids that match the id patterns but that no URL can name (``/api/games/..`` is ``/api``).
NOT_IDS = frozenset({".", ".."})


def not_an_id(value: str, what: str = "game id") -> str:
    """Why ``.`` or ``..`` is not an id.

    >>> not_an_id("..")
    "'..' is not a game id: . and .. are a path's steps, no URL can name them"
    """
    return f"{value!r} is not a {what}: . and .. are a path's steps, no URL can name them"


def too_long(size: int) -> str:
    """Why an event of ``size`` bytes as a canonical line cannot be kept: every reader refuses
    a line that long, so the store would hold an event nobody could read back.

    >>> too_long(1_048_600)
    'the event is 1048600 bytes long as a jaslog/1 line; the limit is 1048576 (1 MiB)'
    """
    return f"the event is {size} bytes long as a jaslog/1 line; the limit is {MAX_LINE} (1 MiB)"


def _why(refusal: str) -> str:
    """What the limit a :func:`json_problem` refusal broke is, to say after it."""
    if refusal.endswith("64 bits"):
        return f" (integers run from {INT_MIN} to {INT_MAX})"
    if refusal.endswith("JSON number"):
        return " (NaN, Infinity and numbers beyond 1.8e308 are not JSON numbers)"
    return ""


_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?")


def json_error(error: Exception, text: bytes | str) -> str:
    """What a JSON parser's ``error`` on ``text`` means, in a sentence: a number out of
    range and too deep a nesting are said so; anything else is orjson's own words.

    >>> import orjson
    >>> raw = b'{"x": ' + b"9" * 5000 + b'}'
    >>> try:
    ...     orjson.loads(raw)
    ... except orjson.JSONDecodeError as e:
    ...     print(json_error(e, raw)[:60])
    not valid JSON: the number at character 7 has 5000 digits: n
    """
    msg = str(error)
    pos = getattr(error, "pos", None)
    if "number" in msg and isinstance(pos, int):
        s = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        m = _NUMBER.match(s, pos)
        if m is not None and len(m.group()) > 20:
            digits = sum(c.isdigit() for c in m.group())
            return (f"not valid JSON: the number at character {pos + 1} has {digits} digits: "
                    "numbers are integers within 64 bits or finite decimals")
        return (f"not valid JSON: the number at character {pos + 1} is out of range: numbers "
                "are integers within 64 bits or finite decimals")
    if "depth limit" in msg or "recursion" in msg:
        where = f" (at character {pos + 1})" if isinstance(pos, int) else ""
        return (f"not valid JSON: nested too deeply{where}: the free JSON of an event (meta, "
                f"options) nests at most {MAX_DEPTH} levels")
    return f"not valid JSON: {msg}"
