"""An event's row in the store (schema 6) and its canonical bytes rebuilt from it, exactly.

A stored event is not its canonical bytes but the parts they are made of: the event type as a
small code (``kind``, from the store's own ``event_types`` table, appended to when a type is
first stored: a game registered later, a test's toy game, gets a code too), and the fields a
fold reads most in typed columns: ``event_id`` (the UUID as 16 bytes), ``at`` and
``recorded_at`` (whole seconds since 1970, or milliseconds when the text has them), ``seat``
and ``card`` (0-31); every other field is in ``rest``, a JSON array in the order of the
type's fields (``null`` for a field left out; NULL when none is left). :meth:`Codec.rebuild`
writes the canonical bytes back from the row, and :meth:`Codec.encode` keeps a row only when
its rebuild gives the bytes back exactly: otherwise (a type no model knows, an older format
version, a value a column cannot hold exactly) the row keeps the bytes whole in ``rest`` (a
JSON object: ``{...``), so nothing the store was given is ever lost. When a field with a
column has a value that column cannot hold, :data:`SPILLED` is added to ``kind`` and every
field with a column takes its place in ``rest`` too: its text there when its column cannot
hold it, ``null`` when the column does (an id spilled so keeps its 16 bytes in ``event_id``
all the same, for the index that finds a retry).

The hash chain is not stored twice: ``hash`` is the raw 32-byte digest of
``sha256(previous hash + canonical bytes)``, and an event's ``prev_hash`` is the hash of the
game's event before it (:data:`GENESIS_RAW` for seq 0), read, not stored.

>>> c = Codec({1: "play"})
>>> row = c.encode(b'{"game":"g","seq":3,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,"card":"7C"}', 1)
>>> row
(1, None, 1767641455, None, 2, 0, None)
>>> c.rebuild("g", 3, 1, *row)
b'{"game":"g","seq":3,"type":"play","at":"2026-01-05T19:30:55Z","seat":2,"card":"7C"}'
"""

from __future__ import annotations

import calendar
import re
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from jaslog.cards import card_text
from jaslog.events import EVENT_MODELS, VERSION
from jaslog.events.fast import FastPlay
from jaslog.events.times import LAST_MS, SECONDS_MAX, time_text

#: The hash seq 0 links to, as a raw digest.
GENESIS_RAW = bytes(32)
#: Added to ``kind`` when the fields with a column whose column is NULL are in ``rest``.
SPILLED = 1 << 16
CARD_TEXT: tuple[str, ...] = tuple(card_text(c) for c in range(32))
CARD_CODE: dict[str, int] = {t: c for c, t in enumerate(CARD_TEXT)}
_TIME = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{3})?Z$")

#: An event's row after ``game`` and ``seq``: kind, event_id, at, recorded_at, seat, card, rest.
Row = tuple[int, bytes | None, int | None, int | None, int | None, int | None, bytes | None]


_TIME_CODES: dict[str, int | None] = {}


#: The minute (since 1970) of each minute's text met (``2026-01-05T19:30:``), None for a text
#: that begins no time in whole seconds; and the seconds of each ``55Z``.
_MINUTE_CODES: dict[str, int | None] = {}
_SECOND_CODES: dict[str, int] = {f"{s:02d}Z": s for s in range(60)}
#: The seconds of each ``55.`` and the milliseconds of each ``123Z`` (a stamp's ending).
_MS_SECONDS: dict[str, int] = {f"{s:02d}.": s for s in range(60)}
_MS_CODES: dict[str, int] = {f"{ms:03d}Z": ms for ms in range(1000)}


#: The minute (since 1970) at which each hour's text met (``2026-01-05T19:``) begins, None
#: for a text that begins no time; and the minutes of each ``30:`` in an hour.
_HOUR_CODES: dict[str, int | None] = {}
_IN_HOUR: dict[str, int] = {f"{m:02d}:": m for m in range(60)}


def _minute_code(prefix: str) -> int | None:
    """The minute of a minute's text (``2026-01-05T19:30:``), by its hour's, kept (a game's
    events fall in a few hundred minutes, but in fewer hours: one text parsed an hour)."""
    if len(_MINUTE_CODES) > 100_000:
        _MINUTE_CODES.clear()
    hour = prefix[:14]
    start = _HOUR_CODES.get(hour, -1)
    if start == -1:
        if len(_HOUR_CODES) > 100_000:
            _HOUR_CODES.clear()
        code = parse_time_code(hour + "00:00Z")
        start = _HOUR_CODES[hour] = None if code is None else code // 60
    in_hour = _IN_HOUR.get(prefix[14:])
    minute = _MINUTE_CODES[prefix] = None if start is None or in_hour is None \
        else start + in_hour
    return minute


def time_code(text: Any) -> int | None:
    """:func:`parse_time_code`, fast: a time in whole seconds (the import's every ``at``) by
    its minute, kept, and its seconds; one in milliseconds (a stamp) by its minute, its
    seconds and its milliseconds; any other remembered.

    >>> time_code("2026-01-05T19:30:55Z"), time_code("2026-01-05T19:30:60Z")
    (1767641455, None)
    """
    if type(text) is str and len(text) == 20:
        prefix = text[:17]
        minute = _MINUTE_CODES.get(prefix, -1)
        if minute == -1:
            minute = _minute_code(prefix)
        second = _SECOND_CODES.get(text[17:])
        return None if minute is None or second is None else minute * 60 + second
    if type(text) is str and len(text) == 24:
        # a stamp in milliseconds (the service's ``at`` and every ``recorded_at``): by its
        # minute, kept, its seconds and its milliseconds (each stamp is new: not remembered)
        at_minute = _MINUTE_CODES.get(text[:17], -1)
        if at_minute == -1:
            at_minute = _minute_code(text[:17])
        second, ms = _MS_SECONDS.get(text[17:20]), _MS_CODES.get(text[20:])
        if at_minute is not None and second is not None and ms is not None:
            in_ms = (at_minute * 60 + second) * 1000 + ms
            return in_ms if in_ms > SECONDS_MAX else None
        # not a time in milliseconds: the general way below
    code = _TIME_CODES.get(text, -1) if isinstance(text, str) else None
    if code == -1:
        if len(_TIME_CODES) > 50_000:
            _TIME_CODES.clear()
        code = _TIME_CODES[text] = parse_time_code(text)
    return code


def parse_time_code(text: Any) -> int | None:
    """A time as an integer that gives its text back exactly, or None: whole seconds
    (``...:55Z``) as seconds since 1970, milliseconds (``...:55.123Z``) as milliseconds.

    >>> time_code("2026-01-05T19:30:55Z"), time_code("2026-01-05T19:30:55.120Z")
    (1767641455, 1767641455120)
    >>> time_code("2026-01-05T20:30:55+01:00") is None
    True
    """
    if not isinstance(text, str):
        return None
    m = _TIME.match(text)
    if m is None:
        return None
    try:
        secs = calendar.timegm(tuple(int(x) for x in m.groups()[:6]))  # type: ignore[arg-type]
    except (ValueError, OverflowError):
        return None
    frac = m.group(7)
    code = secs if frac is None else secs * 1000 + int(frac[1:])
    if secs < 0 or (frac is None and code > SECONDS_MAX) or (frac is not None
                                                              and code <= SECONDS_MAX):
        return None
    return code if time_text(code) == text else None


def id_code(v: Any) -> bytes | None:
    """An event id as 16 bytes when its text is the UUID's canonical text, else None."""
    if not isinstance(v, str) or len(v) != 36:
        return None
    try:
        u = uuid.UUID(v)
    except ValueError:
        return None
    return u.bytes if str(u) == v else None


def id_text(b: bytes) -> str:
    """The canonical text of a UUID held as 16 bytes (a :class:`TypeError` for a value that
    is no bytes: changed behind the store's back)."""
    if type(b) is not bytes:
        if not isinstance(b, (bytearray, memoryview)):
            raise TypeError(f"its event_id {b!r} is not bytes")
        b = bytes(b)
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def index_id(v: Any) -> bytes | None:
    """The event id's 16 bytes for the ``(game, event_id)`` index: its canonical UUID
    (an id in upper case or without dashes is the same id), None when it is none."""
    if not isinstance(v, str):
        return None
    try:
        return uuid.UUID(v).bytes
    except ValueError:
        return None


def _card_code(v: Any) -> int | None:
    return CARD_CODE.get(v) if isinstance(v, str) else None


def _seat_code(v: Any) -> int | None:
    return v if type(v) is int and -2**31 <= v < 2**31 else None


#: The fields with a column: (index in :data:`Row`, value to column, column to value).
_COLUMNS: dict[str, tuple[int, Callable[[Any], Any], Callable[[Any], Any]]] = {
    "id": (1, id_code, id_text),
    "at": (2, time_code, time_text),
    "recorded_at": (3, time_code, time_text),
    "seat": (4, _seat_code, int),
    "card": (5, _card_code, CARD_TEXT.__getitem__),
}
Plan = tuple[tuple[str, int, Callable[[Any], Any] | None], ...]
#: A type's fields after ``game``, ``seq`` and ``type``, each with its column and the encoder
#: of its value to that column (-1 and None: in ``rest``).
Spec = tuple[tuple[str, int, Callable[[Any], Any] | None], ...]
#: The types of a value in ``rest`` that JSON gives back as a value of the same bytes, and
#: never as ``null`` (a float might be NaN: written ``null``, read back as no value at all).
_REST_TYPES = frozenset({str, int, bool, list, tuple, dict})


def plan_of(name: str) -> Plan | None:
    """A type's fields after ``game``, ``seq`` and ``type`` in the order of its canonical
    bytes, each with its column (-1: in ``rest``); None for a type no model knows."""
    model = EVENT_MODELS.get(name)
    if model is None:
        return None
    return tuple((n, _COLUMNS[n][0], _COLUMNS[n][2]) if n in _COLUMNS else (n, -1, None)
                 for n in tuple(model.model_fields)[3:])


class UnknownKind(Exception):
    """A row's ``kind`` names no type of the store's ``event_types`` (or one no model knows
    now): the row cannot be rebuilt."""


class Codec:
    """The store's event types by code (its ``event_types`` table) and the rows' encoding.

    ``names`` maps a code to its type's name; :meth:`code` hands out a new one for a type not
    seen yet, through ``new_code`` (which writes it to the store, in the caller's transaction)."""

    def __init__(self, names: Mapping[int, str] | None = None) -> None:
        self.names: dict[int, str] = dict(names or {})
        self.codes: dict[str, int] = {n: c for c, n in self.names.items()}
        self._plans: dict[int, Plan | None] = {}
        #: each type's name and fields with their columns' encoders, for :meth:`_row_of`
        self._specs: dict[int, tuple[str, Spec]] = {}

    def learn(self, names: Mapping[int, str]) -> None:
        """Take in the codes of ``names`` (read from the store)."""
        for c, n in names.items():
            self.names[c] = n
            self.codes[n] = c

    def plan(self, kind: int) -> Plan | None:
        p = self._plans.get(kind, ())
        if p == ():
            name = self.names.get(kind)
            p = None if name is None else plan_of(name)
            if p is not None:  # a type registered later may be known on the next read
                self._plans[kind] = p
        return p  # type: ignore[return-value]

    def encode(self, payload: bytes, kind: int, fields: Mapping[str, Any] | None = None,
               version: int = VERSION) -> Row:
        """The row of the event whose canonical bytes are ``payload`` (format ``version``)
        and whose type has code ``kind``. ``fields``: the event's fields when the caller has
        them (a model's or a :class:`FastPlay`'s ``__dict__``), else they are read from the
        payload. The bytes whole in ``rest`` when the row would not rebuild them exactly."""
        payload = bytes(payload)
        if kind == 1 and fields is not None and version == VERSION and \
                self.names.get(1) == "play":
            play = self._play_row(payload, fields)
            if play is not None:
                return play
        if fields is not None and version == VERSION and kind != 1:  # (a play: above)
            quick = self._row_of(payload, kind, fields)
            if quick is not None:
                return quick
        plan = self.plan(kind) if version == VERSION else None
        d = fields
        if plan is not None and d is None:
            try:
                d = orjson.loads(payload)
            except orjson.JSONDecodeError:
                d = None
        if plan is None or not isinstance(d, Mapping):
            return self._verbatim(kind, payload, d)
        cols: list[Any] = [kind, None, None, None, None, None]
        rest: list[Any] = []
        spill: list[Any] = []  # rest as it is when a column cannot hold its field's value
        spilled = False
        for name, slot, _ in plan:
            v = d.get(name)
            if slot < 0:
                rest.append(v)
                spill.append(v)
                continue
            code = _COLUMNS[name][1](v) if v is not None else None
            if code is not None:
                cols[slot] = code
                spill.append(None)
            else:
                spill.append(v)
                if v is not None:
                    spilled = True
                    if name == "id":  # the index keys the id all the same
                        cols[1] = index_id(v)
        if spilled:
            cols[0] = kind | SPILLED
            rest = spill
        while rest and rest[-1] is None:
            rest.pop()
        try:
            rest_b = orjson.dumps(rest) if rest else None
        except TypeError:
            return self._verbatim(kind, payload, d)
        row: Row = (cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], rest_b)
        game, seq = d.get("game"), d.get("seq")
        if not isinstance(game, str) or type(seq) is not int:
            return self._verbatim(kind, payload, d)
        try:
            same = self.rebuild(game, seq, VERSION, *row) == payload
        except (UnknownKind, orjson.JSONDecodeError, ValueError, TypeError, IndexError):
            same = False
        return row if same else self._verbatim(kind, payload, d)

    def row_if_written(self, payload: bytes, kind: int, d: Mapping[str, Any]) -> Row | None:
        """The row of an event of type code ``kind`` (not a play) with the fields ``d``, when
        ``payload`` is exactly the bytes those fields write (its canonical bytes: see
        :meth:`_row_of`); else None, and nothing is said of ``payload`` (the import then
        writes the event's canonical bytes itself, and encodes them)."""
        return None if kind == 1 else self._row_of(payload, kind, d)

    def row_of_canonical(self, kind: int, d: Mapping[str, Any]) -> Row | None:
        """The row of an event of type code ``kind`` (not a play) with the fields ``d``,
        whose canonical bytes a reader has proven to be what those fields write (a line read
        byte by byte: :func:`jaslog.play.blockfold.canonical_model`), so they are not
        written again to compare; None when a field's value needs the general way (it
        spills, or JSON would not give it back: :meth:`_row_of`).

        >>> c = Codec({1: "play", 3: "bid"})
        >>> c.row_of_canonical(3, {"game": "g", "seq": 2, "type": "bid", "seat": 1, "call": "C"})
        (3, None, None, None, 1, None, b'["C"]')
        """
        return None if kind == 1 else self._row_of(None, kind, d)

    def _row_of(self, payload: bytes | None, kind: int, d: Mapping[str, Any]) -> Row | None:
        """The row of an event whose fields the caller has, when it rebuilds ``payload``
        exactly, proven without rebuilding it (else None: the general way, which rebuilds).

        :meth:`rebuild` writes ``orjson.dumps`` of the fields :meth:`fields` reads back: the
        game, seq and type, then the type's fields in order, each left out when it has no
        value, a column's field by its column's reader, any other from ``rest`` (JSON). So
        the rebuild is ``orjson.dumps`` of the fields as given, and this compares that with
        ``payload`` instead, when (a) every field with a column has a code its reader turns
        back into the very value (each encoder of :data:`_COLUMNS` gives a code only then:
        else the field spills, the general way) and (b) every value in ``rest`` is one JSON
        reads back as a value of the same bytes, and not as ``null`` (:data:`_REST_TYPES`:
        orjson writes what it reads back byte for byte; a float, which may be NaN and written
        ``null``, and any other type go the general way). ``tests/store/test_compact.py``
        checks that this gives the row the rebuild gives, on every type and odd values.
        ``payload`` None: the caller has proven the bytes (:meth:`row_of_canonical`)."""
        spec = self._specs.get(kind)
        if spec is None:
            plan = self.plan(kind)
            if plan is None:
                return None
            spec = self._specs[kind] = (self.names[kind], tuple(
                (n, slot, _COLUMNS[n][1] if slot >= 0 else None) for n, slot, _ in plan))
        game, seq = d.get("game"), d.get("seq")
        if type(game) is not str or type(seq) is not int:
            return None
        name, fields = spec
        same: dict[str, Any] = {"game": game, "seq": seq, "type": name}
        cols: list[Any] = [kind, None, None, None, None, None]
        rest: list[Any] = []
        for n, slot, to_column in fields:
            v = d.get(n)
            if v is None:
                if slot < 0:
                    rest.append(None)
                continue
            if payload is not None:
                same[n] = v
            if to_column is None:
                if type(v) not in _REST_TYPES:
                    return None
                rest.append(v)
                continue
            code = to_column(v)
            if code is None:  # spilled: the general way
                return None
            cols[slot] = code
        while rest and rest[-1] is None:
            rest.pop()
        try:
            if payload is not None and orjson.dumps(same) != payload:
                return None
            rest_b = orjson.dumps(rest) if rest else None
        except TypeError:
            return None
        return (cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], rest_b)

    @staticmethod
    def _play_row(payload: bytes, d: Mapping[str, Any]) -> Row | None:
        """A play's row from its fields, when every one is in its column's canonical form
        and its bytes are what :func:`play_bytes` writes (else None: the general way)."""
        eid, at, rec, seat, card = (d.get("id"), d.get("at"), d.get("recorded_at"),
                                    d.get("seat"), d.get("card"))
        i = None if eid is None else id_code(eid)
        a = None if at is None else time_code(at)
        r = None if rec is None else time_code(rec)
        c = CARD_CODE.get(card) if isinstance(card, str) else None
        if (eid is not None and i is None) or (at is not None and a is None) or \
                (rec is not None and r is None) or c is None or type(seat) is not int or \
                not 0 <= seat <= 3:
            return None
        game, seq = d.get("game"), d.get("seq")
        if not isinstance(game, str) or type(seq) is not int:
            return None
        # the fields of a FastPlay are read from its bytes, canonical by the regex that read
        # them: with every field in its column's form (checked above) they write those bytes
        # back by construction; any other fields are rebuilt and compared
        if d.get("payload") is not payload and \
                _play(game, seq, at, eid, rec, seat, str(card)) != payload:
            return None
        return (1, i, a, r, seat, c, None)

    @staticmethod
    def _verbatim(kind: int, payload: bytes, d: Any) -> Row:
        eid = index_id(d.get("id")) if isinstance(d, Mapping) else None
        return (kind, eid, None, None, None, None, payload)

    def rebuild(self, game: str, seq: int, version: int, kind: int, event_id: Any, at: Any,
                recorded_at: Any, seat: Any, card: Any, rest: Any) -> bytes:
        """The canonical bytes of the event whose row this is (in ``game`` at ``seq``)."""
        if rest is not None:
            rest = rest if type(rest) is bytes else rest_bytes(rest)
            if rest[:1] == b"{":
                return rest
        if kind == 1 and rest is None and version == VERSION and self.names.get(1) == "play":
            return play_bytes(game, seq, at, event_id, recorded_at, seat, card)
        return orjson.dumps(self.fields(game, seq, kind, event_id, at, recorded_at, seat, card,
                                        rest))

    def fields(self, game: str, seq: int, kind: int, event_id: Any, at: Any, recorded_at: Any,
               seat: Any, card: Any, rest: Any) -> dict[str, Any]:
        """The fields of the event whose row this is, in the order of its canonical bytes
        (``rest``: not whole bytes, ``{...``, which hold them as they are)."""
        spilled = kind & SPILLED
        k = kind & (SPILLED - 1)
        plan = self.plan(k)
        if plan is None:
            raise UnknownKind(f"event type code {k} is not one this jaslog knows "
                              f"({self.names.get(k, 'not in the store')})")
        d: dict[str, Any] = {"game": game, "seq": seq, "type": self.names[k]}
        left = iter(orjson.loads(rest)) if rest is not None else iter(())
        cols = (None, event_id, at, recorded_at, seat, card)
        for name, slot, read in plan:
            if slot >= 0:
                if spilled:  # the field's text in the rest, else the column's
                    v = next(left, None)
                    if v is not None:
                        d[name] = v
                        continue
                v = cols[slot]
                if v is not None:
                    d[name] = read(v)  # type: ignore[misc]
                continue
            v = next(left, None)
            if v is not None:
                d[name] = v
        return d

    def fast(self, game: str, seq: int, version: int, kind: int, event_id: Any, at: Any,
             recorded_at: Any, seat: Any, card: Any, rest: Any) -> FastPlay | None:
        """The event as a :class:`FastPlay` when it is a play stored in columns alone (no
        JSON to read, no model to build), else None."""
        if kind != 1 or rest is not None or version != VERSION or self.names.get(1) != "play" \
                or type(seat) is not int or type(card) is not int or not 0 <= seat <= 3 \
                or not 0 <= card < 32 \
                or (at is not None and (type(at) is not int or not 0 <= at <= LAST_MS)) \
                or (recorded_at is not None and (type(recorded_at) is not int
                                                 or not 0 <= recorded_at <= LAST_MS)) \
                or (event_id is not None and (type(event_id) is not bytes
                                              or len(event_id) != 16)):
            return None  # (a value of another type, stored behind the store's back: rebuilt)
        a = None if at is None else time_text(at)
        i = None if event_id is None else id_text(event_id)
        r = None if recorded_at is None else time_text(recorded_at)
        return FastPlay(game, seq, seat, CARD_TEXT[card], a, i, None, r)  # bytes when asked


def rest_bytes(rest: Any) -> bytes:
    """A row's ``rest`` as bytes; a :class:`TypeError` for a value no ``rest`` holds (text
    or a number, changed behind the store's back: ``bytes(5)`` would be five zero bytes,
    ``bytes(2**62)`` no memory at all).

    >>> rest_bytes(memoryview(b"[1]"))
    b'[1]'
    >>> rest_bytes(5)
    Traceback (most recent call last):
    TypeError: its rest 5 is not bytes
    """
    if isinstance(rest, (bytes, bytearray, memoryview)):
        return bytes(rest)
    raise TypeError(f"its rest {rest!r} is not bytes")


def _play(game: str, seq: int, at: str | None, eid: str | None, rec: str | None, seat: int,
          card: str) -> bytes:
    return (f'{{"game":"{game}","seq":{seq},"type":"play"'
            + ("" if at is None else f',"at":"{at}"')
            + ("" if eid is None else f',"id":"{eid}"')
            + ("" if rec is None else f',"recorded_at":"{rec}"')
            + f',"seat":{seat},"card":"{card}"}}').encode()


def play_bytes(game: str, seq: int, at: Any, event_id: Any, recorded_at: Any, seat: Any,
               card: Any) -> bytes:
    """A ``play``'s canonical bytes from its columns (a game id needs no escapes)."""
    return _play(game, seq, None if at is None else time_text(at),
                 None if event_id is None else id_text(event_id),
                 None if recorded_at is None else time_text(recorded_at), seat, CARD_TEXT[card])


def first_codes() -> dict[int, str]:
    """The codes a new store starts with: ``play`` first (code 1, the most frequent type,
    rebuilt without JSON), then every registered type by name."""
    names = ["play", *sorted(n for n in EVENT_MODELS if n != "play")]
    return {i: n for i, n in enumerate(names, 1)}
