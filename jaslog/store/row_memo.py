"""A stored event that repeats another's fields, built without validating it again.

Most of the store's rows that are not plays repeat: a ``bid`` of ``pass`` by seat 2, a
``roem`` of 20 by seat 0 differ from the last one only in their game, seq, time and id (the
envelope). :func:`jaslog.store.rows.events_of` reads such a row once (its fields checked one
by one, :mod:`jaslog.store.row_check`, or validated as a whole,
:func:`jaslog.store.rows._model_of`) and keeps the event, keyed by the type's name
and the parts of the row that are not the envelope (``seat``, ``card`` and ``rest``, the
bytes as stored): the next row with the same parts is that event with its own envelope
(:func:`remembered`), which is what validating it would give, because

- no model checks one field against another (no model or field validator reads another
  field: ``tests/store/test_row_memo.py`` checks the models for it), so a field's value is
  valid or not on its own, and the same parts give the same fields;
- the envelope is taken only when each of its fields is one validation accepts as it is:
  the game an id a validated event of this process had (and so neither ``.`` nor ``..``),
  the seq an int from 0 to the largest 64-bit one, ``at`` and ``recorded_at`` times in
  seconds or milliseconds from 1970 to 9999 (whose text :func:`time_text` writes in the
  pattern's form), the id 16 bytes (written as a canonical UUID); any other row goes the
  validating way, which accepts or refuses it as it always did;
- :func:`jaslog.events.limits.event_problem` reads of a kept type only the game, the seq and
  the fields in ``rest`` (``game_started``, whose size it measures with the envelope, is
  never kept: it is one row a game anyway);
- the models are frozen, and each event gets its own copy of every list and dict.

The kept events are dropped when the registry of event types changes (a game registered or
unregistered changes what validates), and when there are too many.
"""

from __future__ import annotations

from typing import Any

from jaslog.events import VERSION, Event
from jaslog.events.limits import FIELDS_LIMITED, INT_MAX
from jaslog.events.registry import on_change
from jaslog.store.compact import SECONDS_MAX, Codec, id_text, time_text
from jaslog.store.row_check import checked_event, fields_pass, type_plan

#: The latest time :func:`time_text` writes in milliseconds that validation accepts
#: (9999-12-31T23:59:59.999Z); the earliest of either kind is 1970.
LAST_MS = SECONDS_MAX * 1000 + 999
#: The envelope's fields a row may leave out (``game``, ``seq`` and ``type`` it always has).
OPTIONAL_ENVELOPE = frozenset({"at", "id", "recorded_at"})
#: A kept row's ``rest`` is at most this long (longer ones, a deal's hands, hardly repeat).
LONGEST_REST = 96
#: How many rows are kept at most, and how many game ids (then they are dropped and kept anew).
MOST_KEPT = 4096
MOST_GAMES = 100_000
#: The types never kept: their limits read more than the envelope's game and seq.
NOT_KEPT = frozenset({"game_started"})

#: A kept event by (type, seat, card, rest): the event, its fields set less the envelope's,
#: and the names of its fields whose values are lists or dicts (copied for each event).
_KEPT: dict[tuple[str, Any, Any, bytes | None], tuple[Event, frozenset[str], tuple[str, ...]]] = {}
#: Game ids some validated event had.
_GAMES: set[str] = set()
_set = object.__setattr__


def forget() -> None:
    """Drop every kept row and game id (the registry changed: validation may now differ)."""
    _KEPT.clear()
    _GAMES.clear()


on_change(forget)


def _copy(v: Any) -> Any:
    """``v`` (a validated field's value: JSON) with every list and dict in it new."""
    if type(v) is list:
        return [_copy(x) if type(x) in (list, dict) else x for x in v]
    if type(v) is dict:
        return {k: _copy(x) if type(x) in (list, dict) else x for k, x in v.items()}
    return v


def _with_dict(template: Event, d: dict[str, Any], fields_set: set[str]) -> Event:
    e = template.__class__.__new__(template.__class__)
    _set(e, "__dict__", d)
    _set(e, "__pydantic_fields_set__", fields_set)
    _set(e, "__pydantic_extra__", template.__pydantic_extra__)
    _set(e, "__pydantic_private__", template.__pydantic_private__)
    return e


def keep(name: str, seat: Any, card: Any, rest: bytes | None, e: Event) -> None:
    """Keep ``e``, the validated event of a row of type ``name`` with these parts (``rest``:
    bytes or None), for the next row with the same parts."""
    _GAMES.add(e.game)
    if len(_GAMES) > MOST_GAMES:
        _GAMES.clear()
    if name in NOT_KEPT or (rest is not None and len(rest) > LONGEST_REST) or \
            (seat is not None and type(seat) is not int) or \
            (card is not None and type(card) is not int) or \
            e.__pydantic_extra__ is not None or e.__pydantic_private__ is not None:
        return
    if len(_KEPT) >= MOST_KEPT:
        _KEPT.clear()
    d = e.__dict__
    containers = tuple(n for n, v in d.items() if type(v) in (list, dict))
    copy = d.copy()
    for n in containers:
        copy[n] = _copy(copy[n])
    template = _with_dict(e, copy, set(e.__pydantic_fields_set__))
    _KEPT[(name, seat, card, rest)] = (
        template, frozenset(e.__pydantic_fields_set__ - OPTIONAL_ENVELOPE), containers)


def _taken(game: Any, seq: Any, eid: Any, at: Any, rec: Any) -> bool:
    """Whether a row's envelope is one validation takes as it is (the game an id a validated
    event had, the seq an int within 64 bits, times from 1970 to 9999, the id 16 bytes)."""
    return type(game) is str and game in _GAMES and type(seq) is int \
        and 0 <= seq <= INT_MAX \
        and (eid is None or (type(eid) is bytes and len(eid) == 16)) \
        and (at is None or (type(at) is int and 0 <= at <= LAST_MS)) \
        and (rec is None or (type(rec) is int and 0 <= rec <= LAST_MS))


def envelope(game: Any, seq: Any, eid: Any, at: Any, rec: Any
             ) -> tuple[str | None, str | None, str | None] | None:
    """The texts of a row's ``at``, ``id`` and ``recorded_at`` when its envelope is one
    validation takes as it is (:func:`_taken`); else None."""
    if not _taken(game, seq, eid, at, rec):
        return None
    return (None if at is None else time_text(at), None if eid is None else id_text(eid),
            None if rec is None else time_text(rec))


def remembered(codec: Codec, kind: int, name: str, game: Any, seq: Any, eid: Any, at: Any,
               rec: Any, seat: Any, card: Any, rest: bytes | None) -> Event | None:
    """The event of a row (of the current format, not spilled, ``rest`` not whole bytes) of
    type ``name`` (code ``kind`` in ``codec``): a kept row's event with this row's envelope,
    else the event its fields give checked one by one (:func:`checked_event`), kept; None
    when neither takes the row (it is then validated)."""
    if (seat is not None and type(seat) is not int) or (card is not None and type(card) is not int):
        return None
    texts = envelope(game, seq, eid, at, rec)
    if texts is None:
        return None
    hit = None if rest is not None and len(rest) > LONGEST_REST else \
        _KEPT.get((name, seat, card, rest))
    if hit is None:
        plan = codec.plan(kind)
        tp = None if plan is None else type_plan(name, plan)
        e = None if tp is None else checked_event(tp, name, game, seq, *texts, seat, card, rest)
        if e is not None:
            keep(name, seat, card, rest, e)
        return e
    template, fixed, containers = hit
    d = template.__dict__.copy()
    fields_set = set(fixed)
    d["game"] = game
    d["seq"] = seq
    a, i, r = texts
    d["at"] = a
    d["id"] = i
    d["recorded_at"] = r
    if a is not None:
        fields_set.add("at")
    if i is not None:
        fields_set.add("id")
    if r is not None:
        fields_set.add("recorded_at")
    for n in containers:
        d[n] = _copy(d[n])
    e = template.__class__.__new__(template.__class__)
    _set(e, "__dict__", d)
    _set(e, "__pydantic_fields_set__", fields_set)
    _set(e, "__pydantic_extra__", None)
    _set(e, "__pydantic_private__", None)
    return e


def _name_of(names: dict[int, str], r: Any) -> str | None:
    """The type's name of a game's row (``(seq, kind, version, event_id, at, recorded_at,
    seat, card, rest)``) that the short way may take: of the current format, its seq and
    kind ints, not a play, ``rest`` None or bytes that are not whole bytes (``{``), its type
    known to ``names``; else None."""
    if type(r) is not tuple or len(r) != 9:
        return None
    row: tuple[Any, ...] = r
    seq = row[0]
    kind = row[1]
    version = row[2]
    rest = row[8]
    if type(seq) is not int or type(kind) is not int or kind == 1 \
            or type(version) is not int or version != VERSION:
        return None
    if rest is not None and (type(rest) is not bytes or rest[:1] == b"{"):
        return None
    return names.get(kind)


def remembered_rows(codec: Codec, game: str, rows: list[Any], start: int,
                    out: list[Any]) -> int:
    """The events of a game's rows from ``rows[start]`` on (each ``(seq, kind, version,
    event_id, at, recorded_at, seat, card, rest)``, ``rest`` bytes or None) appended to
    ``out`` while each is a row of the current format that :func:`remembered` takes (a kept
    row's event with its own envelope, or its fields checked one by one); the index of the
    first row it does not take (a play, a spilled or unknown type, whole bytes in ``rest``, a
    value of another type, a field its check refuses, a game's first row), or ``len(rows)``.
    The short way of :func:`jaslog.store.rows.events_of`, run compiled: it reads the row it
    stops at its own way, and the rows after it here again, to the same events."""
    names = codec.names
    i = start
    n = len(rows)
    while i < n:
        r = rows[i]
        name = _name_of(names, r)
        if name is None:
            return i
        row: tuple[Any, ...] = r
        e = remembered(codec, row[1], name, game, row[0], row[3], row[4], row[5], row[6],
                       row[7], row[8])
        if e is None:
            return i
        out.append(e)
        i += 1
    return i


def known_rows(codec: Codec, game: str, rows: list[Any], start: int) -> int:
    """The index of the first of a game's rows from ``rows[start]`` on (each as
    :func:`remembered_rows` takes them) that is not known to read into its event; each row
    before it has an envelope validation takes as it is and either a kept row's parts or
    fields that pass their checks (:func:`checked_event`, whose event is kept then, as
    :func:`remembered` keeps it; a row too long to keep, such as a deal's, has its fields
    checked each time by :func:`fields_pass`, with no event built), so
    :func:`remembered_rows` reads it (now or later, kept or not then) without fail; no
    event's envelope is written. ``len(rows)``: every row is known."""
    names = codec.names
    i = start
    n = len(rows)
    if type(game) is not str or game not in _GAMES:
        return i
    while i < n:
        r = rows[i]
        name = _name_of(names, r)
        if name is None:
            return i
        row: tuple[Any, ...] = r
        seq = row[0]
        seat = row[6]
        card = row[7]
        rest = row[8]
        if not _taken(game, seq, row[3], row[4], row[5]) \
                or (seat is not None and type(seat) is not int) \
                or (card is not None and type(card) is not int):
            return i
        if rest is not None and len(rest) > LONGEST_REST and name not in FIELDS_LIMITED:
            # (never kept: its fields checked, no event built)
            plan = codec.plan(row[1])
            tp = None if plan is None else type_plan(name, plan)
            if tp is None or not fields_pass(tp, seat, card, rest):
                return i
        elif (name, seat, card, rest) not in _KEPT:
            plan = codec.plan(row[1])
            tp = None if plan is None else type_plan(name, plan)
            e = None if tp is None else checked_event(tp, name, game, seq, None, None, None,
                                                      seat, card, rest)
            if e is None:
                return i
            keep(name, seat, card, rest, e)
        i += 1
    return i
