"""The ``events`` columns of a batch's other rows (every stored event but a plain play) from
the columns the store holds, without a model a row.

The store keeps an event of the current format as its type's code, its envelope and the
fields with a column (``at``, ``id``, ``recorded_at`` as codes, ``seat``, ``card``) and every
other field in ``rest``, a JSON array in the order of its type's fields
(:mod:`jaslog.store.compact`). The export's ``events`` table reads a type, a seat, a card, a
call, points and a time of each row, and writes its canonical ``jaslog/1`` JSON: here they
are read from those columns, a column at a time where they can be.

What each type needs is declared by its fields (:func:`jaslog.store.compact.plan_of`, its
model's fields in order), never by its game: the fields the table reads from ``rest``
(``call``, ``points``, a ruling's or note's ``round``, a deal's ``hands``) by their place in
it; and its payload: for a row of a type whose fields with a column come before those in
``rest`` (a bid, a roem, a claim, a knock, a timeout, a deal...) and which has at most one
field in ``rest`` given, joined by Arrow from pieces (its game and seq, ``"type"``, its
times as text from their codes, its seat and card, and that field's JSON as it stands in
``rest``); for any other row (a ruling, a note, a game's start...) written by orjson from its
fields, a row at a time. Either way the bytes are those of
:func:`jaslog.export.rows.payload_json` of the row's model (fields in model order, absent
fields left out, compact: the models are strict, so a row's model holds its fields as they
are stored, and ``rest`` holds them as orjson writes them, which is checked for each type of
a batch at once).

A row read another way by :func:`jaslog.store.rows.events_of` (of an older format, kept as
its bytes, a value spilled out of its column, a value of a column out of its range) takes
its values from its model, as the events path does (``tests/export/test_stored.py`` and
``tests/export/test_other_rows.py`` compare both ways on every type).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from jaslog.cards import CARD_TEXT
from jaslog.events import VERSION, Event
from jaslog.events.times import SECONDS_MAX, time_text
from jaslog.export.columnar import arrow, lookup, np_of
from jaslog.export.rows import normalize_time, payload_json
from jaslog.export.schema import TS
from jaslog.store.compact import id_text, plan_of

#: The latest time code in milliseconds a text is written for (9999-12-31T23:59:59.999Z):
#: a code beyond it (or below 0), stored behind the store's back, is read from its model.
MS_MAX = SECONDS_MAX * 1000 + 999
#: The fields of a type that the ``events`` table reads from ``rest``.
READ_FIELDS = ("call", "points", "round", "hands")
_TWO = [f"{i:02d}" for i in range(60)]
_HOUR_MINUTE = pa.array([f"{h}:{m}:" for h in _TWO[:24] for m in _TWO], pa.string())
_SECOND = pa.array([f"{s}Z" for s in _TWO], pa.string())
_BRACE = pa.scalar(b"{", pa.binary())
_EMPTY = pa.scalar(b"[]", pa.binary())
_CARD_PIECES = pa.array([f',"card":"{c}"' for c in CARD_TEXT], pa.string())
_SEAT = 4   # a field's column (jaslog.store.compact: seat, card)
_CARD = 5


@dataclass(frozen=True, slots=True)
class KindSpec:
    """What a type's rows are read by: its name, its fields after the envelope (each with
    its column, -1: in ``rest``), the place in ``rest`` of each field the table reads (-1:
    none), its fields in ``rest``, and whether the payload of a row with at most one of
    them given is joined by Arrow (its fields with a column come first)."""

    name: str
    type_piece: str
    fields: tuple[tuple[str, int], ...]
    read_at: tuple[int, ...]
    rest_names: tuple[str, ...]
    joined: bool

    @property
    def rest_fields(self) -> int:
        return len(self.rest_names)

    def has(self, column: int) -> bool:
        """Whether one of the type's fields is kept in ``column`` (:data:`_SEAT`, :data:`_CARD`)."""
        return any(slot == column for _n, slot in self.fields)


@cache
def kind_spec(name: str) -> KindSpec | None:
    """The :class:`KindSpec` of a registered type (None: no model knows it)."""
    plan = plan_of(name)
    if plan is None:
        return None
    fields = tuple((n, slot) for n, slot, _ in plan[3:])   # (after at, id, recorded_at)
    rest = [n for n, slot in fields if slot < 0]
    columns = [i for i, (_n, slot) in enumerate(fields) if slot >= 0]
    first_rest = next((i for i, (_n, slot) in enumerate(fields) if slot < 0), len(fields))
    slots = [slot for _n, slot in fields if slot >= 0]
    joined = all(i < first_rest for i in columns) \
        and all(slot in (_SEAT, _CARD) for slot in slots) and slots == sorted(set(slots))
    return KindSpec(name, f',"type":"{name}"', fields,
                    tuple(rest.index(f) if f in rest else -1 for f in READ_FIELDS), tuple(rest),
                    joined)


@dataclass(slots=True)
class OtherColumns:
    """The ``events`` values of a batch's other rows, in their order: type, seat, card (an
    index into ``card_names``; -1: none), call, points, id, time (microseconds), payload;
    the rows whose own round a ruling or note names (``own``: row, round); whether a deal
    carried hands; each row's time code (``at_codes``), and the text of the time of each row
    read from its model (``odd_at``, by row)."""

    kinds: list[str]
    seat: np.ndarray
    seat_null: np.ndarray
    card_ix: np.ndarray
    card_names: list[str]
    call: pa.Array
    points: np.ndarray
    points_null: np.ndarray
    ids: pa.Array
    micros: np.ndarray
    at_null: np.ndarray
    payload: pa.Array
    own: list[tuple[int, int]]
    hands: np.ndarray
    at_codes: np.ndarray
    odd_at: dict[int, str | None]


_UNREAD: dict[str, Any] = {"type": "", "at": None}


def time_texts(codes: np.ndarray, null: np.ndarray, before: str = "", after: str = ""
               ) -> pa.Array:
    """The RFC 3339 text of each time code (:func:`jaslog.events.times.time_text`: seconds
    up to :data:`SECONDS_MAX`, milliseconds above), between ``before`` and ``after``, NULL
    where ``null``: joined from the text of each day met (``before`` in front), of the hour
    and minute and of the second (``after`` behind); a time in milliseconds, rare, written
    whole.

    >>> time_texts(np.array([0, 1767641455120, 5]), np.array([False, False, True]),
    ...            '"at":"', '"').to_pylist()
    ['"at":"1970-01-01T00:00:00Z"', '"at":"2026-01-05T19:30:55.120Z"', None]
    """
    n = len(codes)
    if n == 0 or null.all():
        return pa.nulls(n, pa.string())
    ms = codes > SECONDS_MAX
    secs = np.where(ms, codes // 1000, codes)
    days, second = np.divmod(np.where(null, secs[~null][0], secs), 86_400)
    met, day = _days_met(days)
    hour_minute, second = np.divmod(second, 60)
    seconds = _SECOND if not after else _seconds_with(after)
    text = pc.binary_join_element_wise(
        lookup(pa.array([before + time_text(int(d) * 86_400)[:11] for d in met.tolist()],
                        pa.string()), np.where(null, -1, day)),
        _HOUR_MINUTE.take(pa.array(hour_minute, pa.int64())),
        seconds.take(pa.array(second, pa.int64())), "")
    if ms.any():
        odd = ms & ~null
        text = pc.replace_with_mask(text, pa.array(odd, pa.bool_()), pa.array(
            [before + time_text(c) + after for c in codes[odd].tolist()], pa.string()))
    return text


#: Days from a batch's first to its last up to which the days met are found by a count
#: (more: by a sort).
_DAYS_SPAN = 1 << 16


def _days_met(days: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The days met in ``days``, in order, and the place of each day among them (as
    ``np.unique(days, return_inverse=True)``, without its sort when the days are few)."""
    lo = int(days.min())
    span = int(days.max()) - lo + 1
    if span > _DAYS_SPAN:
        met, inverse = np.unique(days, return_inverse=True)
        return met, inverse.reshape(-1)
    seen = np.zeros(span, bool)
    at = days - lo
    seen[at] = True
    place = np.cumsum(seen) - 1
    return np.flatnonzero(seen) + lo, place[at]


@cache
def _seconds_with(after: str) -> pa.Array:
    """By second: its text and ``after``."""
    return pa.array([f"{s}Z{after}" for s in _TWO], pa.string())


def other_columns(rows: Sequence[Sequence[Any]], models: Sequence[Event | None],
                  names: dict[int, str], gids: list[str], game_of: np.ndarray,
                  seqs: np.ndarray, unread: Sequence[tuple[int, int]] = ()) -> OtherColumns:
    """The :class:`OtherColumns` of a batch's other rows (each ``(seq, kind, version,
    event_id, at, recorded_at, seat, card, rest)``, as :func:`jaslog.store.bulk_read.game_codes`
    reads them; ``models``: the event each was read into, None for the rows of a game that
    could not be read, those from ``lo`` to ``hi`` of each pair of ``unread``), ``names``:
    the store's types by code, ``gids``: the batch's game ids, ``game_of``: each row's game
    (index into ``gids``), ``seqs``: its seq."""
    m = len(rows)
    if m == 0:
        return _empty()
    _seq, kind_t, ver_t, eid_t, at_t, rec_t, seat_t, card_t, rest_t = zip(*rows, strict=True)
    kind = np.array(kind_t, np.int64)
    codes, inv = np.unique(kind, return_inverse=True)
    inv = inv.reshape(-1)
    specs = [kind_spec(names[c]) if c in names else None for c in codes.tolist()]
    known = np.array([s is not None for s in specs], bool)[inv]
    at, at_null = _ints(at_t)
    rec, rec_null = _ints(rec_t)
    seat, seat_null = _ints(seat_t)
    card, card_null = _ints(card_t)
    rest = pa.array(rest_t, pa.binary())
    # (bytes kept whole, or an empty rest, which the store never writes: NULL, not [])
    kept_whole = np_of(pc.or_(pc.equal(pc.binary_slice(rest, 0, 1), _BRACE),
                              pc.equal(rest, _EMPTY)).fill_null(False))
    read = np.ones(m, bool)
    for lo, hi in unread:
        read[lo:hi] = False
    plain = read & known & (np.array(ver_t, np.int64) == VERSION) & ~kept_whole \
        & (card_null | ((card >= 0) & (card < 32))) \
        & (at_null | ((at >= 0) & (at <= MS_MAX))) & (rec_null | ((rec >= 0) & (rec <= MS_MAX)))

    # the fields read from rest, a type at a time (its rows' rests parsed at once; a type
    # whose rests are not as orjson writes them, or hold more than its fields: from models)
    parsed = np.full(m, None, object)
    given = np.full(m, -1, np.int64)   # the place in rest of its last value given (-1: none)
    several = np.zeros(m, bool)        # more than one value given in rest
    for j, spec in enumerate(specs):
        if spec is None or spec.rest_fields == 0:
            continue
        at_kind = np.flatnonzero(plain & (inv == j)).tolist()
        if not at_kind:
            continue
        text = b"[" + b",".join([rest_t[k] or b"[]" for k in at_kind]) + b"]"
        try:
            values = orjson.loads(text)
        except orjson.JSONDecodeError:
            values = None
        if type(values) is not list or orjson.dumps(values) != text:
            plain[at_kind] = False
            continue
        fields = spec.rest_fields
        # each a list of the type's fields at most, its last given (nothing: [] from NULL)
        if set(map(type, values)) != {list}:
            plain[at_kind] = False
            continue
        lens = np.fromiter(map(len, values), np.int64, len(values))
        given[at_kind] = lens - 1
        full = [v[-1] for v in values if v]
        if int(lens.max()) > fields or None in full:
            bad = [k for k, v in zip(at_kind, values, strict=True)
                   if len(v) > fields or (v and v[-1] is None)]
            plain[bad] = False
        parsed[at_kind] = np.fromiter(values, object, len(values))
        if fields > 1 and int(lens.max()) > 1:  # (a row of one value given at most: not)
            longer = np.flatnonzero(lens > 1).tolist()
            several[np.array(at_kind, np.int64)[longer]] = [
                values[i].count(None) != len(values[i]) - 1 for i in longer]
    odd = np.flatnonzero(~plain).tolist()

    kinds_u = [s.name if s is not None else "" for s in specs]
    kinds: list[str] = [kinds_u[i] for i in inv.tolist()]
    call = np.full(m, None, object)
    points = np.full(m, None, object)
    own: list[tuple[int, int]] = []
    hands = np.zeros(m, bool)
    for j, spec in enumerate(specs):
        if spec is None:
            continue
        ic, ip, ir, ih = spec.read_at
        if ic < 0 and ip < 0 and ir < 0 and ih < 0:
            continue
        rows_j = np.flatnonzero(plain & (inv == j))
        vs: list[Any] = parsed[rows_j].tolist()
        n_j = len(vs)
        if ic >= 0:
            call[rows_j] = np.fromiter((v[ic] if len(v) > ic else None for v in vs), object, n_j)
        if ip >= 0:
            points[rows_j] = np.fromiter(
                (p if isinstance(p := v[ip] if len(v) > ip else None, int) else None for v in vs),
                object, n_j)
        if ih >= 0:
            hands[rows_j] = [len(v) > ih and v[ih] is not None for v in vs]
        if ir >= 0 and (spec.name == "ruling" or spec.name == "note"):
            own.extend((k, v[ir]) for k, v in zip(rows_j.tolist(), vs, strict=True)
                       if len(v) > ir and v[ir] is not None)
    ids: list[str | None] = [None if b is None else id_text(b) for b in eid_t]

    # (a seat or card in the column of a type without one, stored behind the store's back,
    # is no field of its event: the store's reader leaves it out too)
    seat_null = seat_null | ~np.array([s is not None and s.has(_SEAT) for s in specs], bool)[inv]
    seat = np.where(seat_null, -1, seat)
    no_card = ~np.array([s is not None and s.has(_CARD) for s in specs], bool)[inv]
    card_ix = np.where(card_null | no_card | ~plain, -1, card)
    card_names = list(CARD_TEXT)
    micros = np.where(at > SECONDS_MAX, at * 1000, at * 1_000_000)
    at_null = at_null.copy()
    odd_at: dict[int, str | None] = {}
    if odd:
        # the rows read another way: their values from their models, as the events path
        card_index = {c: i for i, c in enumerate(CARD_TEXT)}
        texts: list[str | None] = []
        for k in odd:
            e = models[k]
            d = _UNREAD if e is None else e.__dict__
            kinds[k] = d["type"]
            s = d.get("seat")
            seat[k] = -1 if s is None else s
            seat_null[k] = s is None
            c = d.get("card")
            if c is not None and c not in card_index:
                card_index[c] = len(card_names)
                card_names.append(c)
            card_ix[k] = -1 if c is None else card_index[c]
            call[k] = d.get("call")
            p = d.get("points")
            points[k] = p if isinstance(p, int) else None
            ids[k] = d.get("id")
            a = d["at"]
            odd_at[k] = a = a if a is None or (a[10] == "T" and a[-1] != "z") \
                else normalize_time(a)
            texts.append(a)
            r = d.get("round")
            if r is not None and (kinds[k] == "ruling" or kinds[k] == "note"):
                own.append((k, r))
            hands[k] = kinds[k] == "dealt" and d.get("hands") is not None
        got = pa.array(texts, pa.string()).cast(TS)
        at_null[odd] = np_of(got.is_null())
        micros[odd] = np_of(got.cast(pa.int64()).fill_null(0))
    own.sort()
    points_arrow = pa.array(points, pa.int64())
    points_null = np_of(points_arrow.is_null())
    points_a = np_of(points_arrow.fill_null(0))

    ids_a = pa.array(ids, pa.string())
    payload = _payloads(specs, inv, plain, several, odd, models, rows, parsed, gids, game_of,
                        seqs, at, at_null, rec, rec_null, seat, seat_null, card_ix, ids, ids_a,
                        rest, given)
    return OtherColumns(kinds, seat, seat_null, card_ix, card_names, pa.array(call, pa.string()),
                        points_a, points_null, ids_a, micros, at_null,
                        payload, own, hands, at, odd_at)


def _ints(values: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray]:
    """A column of integers or None as numpy: its values (0 where None) and where None."""
    a = pa.array(values, pa.int64())
    return np_of(a.fill_null(0)), np_of(a.is_null())


def _payloads(specs: list[KindSpec | None], inv: np.ndarray, plain: np.ndarray,
              several: np.ndarray,
              odd: list[int], models: Sequence[Event | None], rows: Sequence[Sequence[Any]],
              parsed: np.ndarray, gids: list[str], game_of: np.ndarray, seqs: np.ndarray,
              at: np.ndarray, at_null: np.ndarray, rec: np.ndarray, rec_null: np.ndarray,
              seat: np.ndarray, seat_null: np.ndarray, card_ix: np.ndarray,
              ids: list[str | None], ids_a: pa.Array, rest: pa.Array, given: np.ndarray
              ) -> pa.Array:
    """Each other row's canonical bytes (see the module's note), in row order: of the rows
    read from their columns (``plain``), those with one value at most given in ``rest`` (not
    ``several``; ``given``: its place, -1: none) joined by Arrow when their type allows."""
    m = len(inv)
    joined_kind = np.array([s is not None and s.joined for s in specs], bool)
    joined = plain & ~several & joined_kind[inv]
    ji = np.flatnonzero(joined)
    parts: list[pa.Array] = []
    order: list[np.ndarray] = []
    if len(ji):
        heads = pa.array(['{"game":"' + g + '","seq":' for g in gids], pa.string())
        type_pieces = pa.array([s.type_piece if s is not None else "" for s in specs],
                               pa.string())
        # the piece that leads a row's one value in rest: by its type's first piece and the
        # value's place in rest
        first_piece = np.zeros(len(specs), np.int64)
        pieces: list[str] = []
        for j, s in enumerate(specs):
            first_piece[j] = len(pieces)
            pieces.extend(f',"{n}":' for n in (s.rest_names if s is not None else ()))
        k_inv = inv[ji]
        at_given = given[ji]
        rest_j = rest.take(pa.array(ji, pa.int64())).cast(pa.string())
        value = rest_j if not (at_given > 0).any() else \
            pc.replace_substring_regex(rest_j, pattern=r"^\[(null,)+", replacement="[")
        every = len(ji) == m
        # (the pieces no row has, an id or a recorded time mostly, left out: "" each)
        id_j = ids_a if every else ids_a.take(pa.array(ji, pa.int64()))
        rec_null_j = rec_null[ji]
        seat_j, seat_null_j = seat[ji], seat_null[ji]
        built = pc.binary_join_element_wise(
            heads.take(pa.array(game_of[ji], pa.int64())),
            pa.array(seqs[ji], pa.int64()).cast(pa.string()),
            type_pieces.take(pa.array(k_inv, pa.int64())),
            time_texts(at[ji], at_null[ji], ',"at":"', '"'),
            *([] if id_j.null_count == len(id_j) else [_piece(',"id":"', id_j, '"')]),
            *([] if rec_null_j.all() else
              [time_texts(rec[ji], rec_null_j, ',"recorded_at":"', '"')]),
            *([] if seat_null_j.all() else [_seat_pieces(seat_j, seat_null_j)]),
            lookup(_CARD_PIECES, card_ix[ji]),
            pc.binary_join_element_wise(
                lookup(pa.array(pieces, pa.string()),
                       np.where(at_given < 0, -1, first_piece[k_inv] + at_given)),
                pc.utf8_slice_codeunits(value, 1, -1), ""),
            "}", "", null_handling="replace", null_replacement="")
        parts.append(built)
        order.append(ji)
    by_row = np.flatnonzero(plain & ~joined).tolist()
    if by_row or odd:
        texts: list[bytes] = []
        for k in by_row:
            spec = specs[int(inv[k])]
            assert spec is not None
            g = int(game_of[k])
            texts.append(_row_payload(spec, gids[g], int(seqs[k]), rows[k], parsed[k], ids[k]))
        for k in odd:
            e = models[k]
            texts.append(b"{}" if e is None else payload_json(e))
        parts.append(pa.array(texts, pa.string()))
        order.append(np.array(by_row + odd, np.int64))
    if len(parts) == 1 and len(order[0]) == m and bool((order[0] == np.arange(m)).all()):
        return parts[0]
    at_rows = np.concatenate(order)
    rank = np.empty(m, np.int64)
    rank[at_rows] = np.arange(m)
    return pa.concat_arrays(parts).take(pa.array(rank, pa.int64()))


def _seat_pieces(seat: np.ndarray, null: np.ndarray) -> pa.Array:
    """``,"seat":`` and each seat (NULL where ``null``): from a table when every seat is
    one of the first :data:`_SEATS_LISTED`."""
    listed = seat[~null]
    if len(listed) and int(listed.min()) >= 0 and int(listed.max()) < len(_SEAT_PIECES):
        return lookup(_SEAT_PIECES, np.where(null, -1, seat))
    return _piece(',"seat":', arrow(seat, pa.int64(), null).cast(pa.string()), "")


#: Seats whose piece is taken from a table (:func:`_seat_pieces`).
_SEATS_LISTED = 8
_SEAT_PIECES = pa.array([f',"seat":{s}' for s in range(_SEATS_LISTED)], pa.string())


def _piece(before: str, values: pa.Array, after: str) -> pa.Array:
    """``before + value + after`` for each value (NULL where a value is NULL)."""
    return pc.binary_join_element_wise(before, values, after, "")


def _row_payload(spec: KindSpec, game: str, seq: int, row: Sequence[Any], rest: Any,
                 eid: str | None) -> bytes:
    """A row's canonical bytes written from its fields (its columns, ``rest`` parsed)."""
    _s, _k, _v, _e, at, rec, seat, card, _r = row
    d: dict[str, Any] = {"game": game, "seq": seq, "type": spec.name}
    if at is not None:
        d["at"] = time_text(at)
    if eid is not None:
        d["id"] = eid
    if rec is not None:
        d["recorded_at"] = time_text(rec)
    left = iter(rest or ())
    for name, slot in spec.fields:
        if slot < 0:
            v = next(left, None)
        elif slot == _SEAT:
            v = seat
        else:
            v = None if card is None else CARD_TEXT[card]
        if v is not None:
            d[name] = v
    return orjson.dumps(d)


def _empty() -> OtherColumns:
    z = np.zeros(0, np.int64)
    b = np.zeros(0, bool)
    return OtherColumns([], z, b, z, list(CARD_TEXT), pa.array([], pa.string()), z, b,
                        pa.array([], pa.string()), z, b, pa.array([], pa.string()), [], b, z, {})
