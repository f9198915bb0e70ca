"""Every read and write of ``events`` goes through here: rows in parts to the events' canonical
bytes and chain (:class:`StoredRow`, :func:`read_rows`), and back (:func:`encode_rows`).

The store's event type codes (``event_types``) are read once per engine and kept: they are
only ever added to, so what is kept never goes stale, it may only lack a code written since
(then it is read again).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple

import orjson
from pydantic import ValidationError
from sqlalchemy import and_, bindparam, select, tuple_
from sqlalchemy.engine import Connection, Engine

from jaslog.events import VERSION, Event, event_problem
from jaslog.events.fast import FastPlay
from jaslog.events.registry import models
from jaslog.store.codec import UnreadableEvent, decode
from jaslog.store.compact import (
    CARD_CODE,
    GENESIS_RAW,
    Codec,
    UnknownKind,
    first_codes,
    time_code,
    time_text,
)
from jaslog.store.row_memo import keep, remembered, remembered_rows
from jaslog.store.schema import EVENT_TYPES, EVENTS, GAMES
from jaslog.store.types import StoreError

_CODECS: weakref.WeakKeyDictionary[Engine, Codec] = weakref.WeakKeyDictionary()

#: The columns of a row in parts after ``game`` (the game's id) and ``seq``.
PARTS = (EVENTS.c.kind, EVENTS.c.version, EVENTS.c.event_id, EVENTS.c.at, EVENTS.c.recorded_at,
         EVENTS.c.seat, EVENTS.c.card, EVENTS.c.rest)
#: The columns :func:`read_rows` reads, the game as its id.
COLUMNS = (GAMES.c.id.label("game"), EVENTS.c.seq, EVENTS.c.pos, *PARTS, EVENTS.c.hash)
#: Insert order of an event row in parts.
INSERT_COLUMNS = ("game", "seq", "pos", "kind", "version", "event_id", "at", "recorded_at",
                  "seat", "card", "rest", "hash")
#: Insert order of a row the import encoded as it read the event (:func:`late_row`): the
#: game's key and the position, given when its batch is written, before what was read.
ENCODED_COLUMNS = ("game", "pos", "seq", "hash", "kind", "version", "event_id", "at",
                   "recorded_at", "seat", "card", "rest")

#: The largest seq a store holds (its column is a 32-bit integer on PostgreSQL, and so is the
#: export's): no game of jaslog's comes near it, only a row changed behind the store's back.
SEQ_MAX = 2**31 - 1


def codec(conn: Connection, refresh: bool = False) -> Codec:
    """The store's event type codes (read from ``event_types`` when not yet kept, or
    ``refresh``)."""
    engine = conn.engine
    c = _CODECS.get(engine)
    if c is None or refresh:
        c = c or Codec()
        c.learn({int(r.code): str(r.name) for r in conn.execute(select(EVENT_TYPES))})
        _CODECS[engine] = c
    return c


def type_code(conn: Connection, name: str) -> int:
    """The code of event type ``name``: a new one, written in the caller's (write)
    transaction, the first time the store holds that type."""
    c = codec(conn)
    code = c.codes.get(name)
    if code is None:
        c = codec(conn, refresh=True)
        code = c.codes.get(name)
        if code is None:
            code = max(c.names, default=0) + 1
            conn.execute(EVENT_TYPES.insert().values(code=code, name=name))
            c.learn({code: name})
    return code


def seed_types(conn: Connection) -> None:
    """A new store's first codes (:func:`jaslog.store.compact.first_codes`)."""
    conn.execute(EVENT_TYPES.insert(), [{"code": c, "name": n} for c, n in first_codes().items()])


class StoredRow(NamedTuple):
    """An event as stored, in the shape every reader takes: its canonical bytes
    (``payload``, in its format ``version``), its type, id and time as text, and its chain
    (``prev_hash``, ``hash``: hex)."""

    game: str
    seq: int
    pos: int
    type: str
    version: int
    event_id: str | None
    at: str | None
    payload: bytes
    prev_hash: str
    hash: str


def game_keys(conn: Connection, ids: Sequence[str]) -> dict[str, int]:
    """The ``games.pos`` of each of ``ids`` that has a header."""
    out: dict[str, int] = {}
    ids = list(dict.fromkeys(ids))
    for i in range(0, len(ids), 500):
        for r in conn.execute(select(GAMES.c.id, GAMES.c.pos)
                              .where(GAMES.c.id.in_(bindparam("g", expanding=True))),
                              {"g": ids[i:i + 500]}):
            out[r.id] = int(r.pos)
    return out


def key_of(game: Any) -> Any:
    """``games.pos`` of game ``game`` (a scalar subquery), to filter ``events`` by."""
    return select(GAMES.c.pos).where(GAMES.c.id == game).scalar_subquery()


def keys_of(ids: Any) -> Any:
    """``games.pos`` of the games ``ids`` (a subquery or a list), for ``events.game IN``."""
    return select(GAMES.c.pos).where(GAMES.c.id.in_(ids))


def event_select(*where: Any) -> Any:
    """A select of :data:`COLUMNS` (events joined to their games' headers)."""
    return select(*COLUMNS).join_from(EVENTS, GAMES, GAMES.c.pos == EVENTS.c.game).where(*where)


def payload_of(c: Codec, game: str, seq: int, r: Any) -> bytes:
    """A row's canonical bytes (``r``: a row with :data:`PARTS`' fields)."""
    try:
        return c.rebuild(game, seq, r.version, r.kind, r.event_id, r.at, r.recorded_at, r.seat,
                         r.card, r.rest)
    except (UnknownKind, ValueError, TypeError, IndexError) as e:
        raise UnreadableEvent(f"the stored event cannot be rebuilt: {e}", game, seq) from None


def _kind_name(c: Codec, kind: Any) -> str:
    return c.names.get(kind & 0xFFFF, "?") if type(kind) is int else "?"


def _refreshed(conn: Connection, c: Codec, rows: Sequence[Any]) -> Codec:
    if any(type(r.kind) is int and r.kind & 0xFFFF not in c.names for r in rows):
        return codec(conn, refresh=True)
    return c


def stored_rows(conn: Connection, rows: Sequence[Any], lenient: bool = False
                ) -> list[StoredRow]:
    """Rows of :data:`COLUMNS` (ordered by game, seq) as :class:`StoredRow` s: the bytes
    rebuilt, each ``prev_hash`` the hash of the game's row before it (of seq - 1, read when
    it is not among ``rows``; the genesis hash for seq 0). ``lenient``: a row whose bytes
    cannot be rebuilt (changed behind the store's back) gets empty bytes, for ``verify`` to
    report, instead of an :class:`UnreadableEvent`."""
    c = _refreshed(conn, codec(conn), rows)
    need = {(r.game, r.seq - 1) for i, r in enumerate(rows)
            if type(r.seq) is int and r.seq > 0 and (i == 0 or rows[i - 1].game != r.game)}
    before = _hashes_at(conn, need) if need else {}
    out: list[StoredRow] = []
    prev_game, prev = None, GENESIS_RAW
    for r in rows:
        if r.game != prev_game:
            prev = GENESIS_RAW if r.seq == 0 or type(r.seq) is not int \
                else before.get((r.game, r.seq - 1), GENESIS_RAW)
            prev_game = r.game
        try:
            # every column of another type than the store writes (changed behind its back)
            # is the row's ``unreadable_game``, or (``lenient``) empty bytes
            if type(r.seq) is not int:
                raise UnreadableEvent(f"its seq {r.seq!r} is no integer", r.game, r.seq)
            h = _hash_bytes(r.hash)
            payload = payload_of(c, r.game, r.seq, r)
            at = None if r.at is None else _time_text(r.at)
            if at is None and r.rest is not None and b'"at":' in payload:
                at = _written_at(payload)  # a time its column cannot hold: in the rest
            eid = None if r.event_id is None else _id_text(r.event_id)
        except (UnreadableEvent, ValueError, OverflowError, OSError, TypeError) as e:
            if not lenient:
                if isinstance(e, UnreadableEvent):
                    raise
                raise UnreadableEvent(f"the stored event cannot be read: {e}", r.game,
                                      r.seq) from None
            payload, at, eid = b"", None, None
            h = r.hash if type(r.hash) is bytes else b""
        out.append(StoredRow(r.game, r.seq, r.pos, _kind_name(c, r.kind), r.version, eid, at,
                             payload, prev.hex(), h.hex()))
        prev = h
    return out


def _hash_bytes(h: Any) -> bytes:
    """A row's ``hash`` as bytes (a value of another type: a ValueError)."""
    if isinstance(h, (bytes, memoryview)):
        return bytes(h)
    raise ValueError(f"its hash {h!r} is not bytes")


def head_of(seq: Any, h: Any, at: Any) -> tuple[int, str, str | None]:
    """A game's next seq, head hash (hex) and last time (text) from its last row's ``seq``,
    ``hash`` and ``at``. A value of another type than the store writes, or a seq past
    :data:`SEQ_MAX` (changed behind its back), is left out (0, empty, None): the listing
    still lists the game, and reading its events says it is unreadable
    (``unreadable_game``)."""
    try:
        last_at = None if at is None else _time_text(at)
    except (ValueError, TypeError):
        last_at = None
    return (seq + 1 if type(seq) is int and seq <= SEQ_MAX else 0,
            bytes(h).hex() if isinstance(h, (bytes, memoryview)) else "", last_at)


def _written_at(payload: bytes) -> str | None:
    """The ``at`` an event's bytes hold (its row keeps it in ``rest`` when the ``at`` column
    cannot hold its text exactly: an offset, fractions of a second not in milliseconds...).

    >>> _written_at(b'{"game":"g","seq":1,"type":"bid","at":"2026-01-05T20:30:55+01:00"}')
    '2026-01-05T20:30:55+01:00'
    """
    d = orjson.loads(payload)
    at = d.get("at") if isinstance(d, dict) else None
    return at if isinstance(at, str) else None


def _id_text(b: Any) -> str:
    from jaslog.store.compact import id_text
    if not isinstance(b, (bytes, memoryview)):
        raise ValueError(f"its event_id {b!r} is not bytes")
    return id_text(bytes(b))


def _time_text(v: int) -> str:
    return time_text(int(v))


def _hashes_at(conn: Connection, keys: Iterable[tuple[str, int]]) -> dict[tuple[str, int], bytes]:
    keys = list(keys)
    out: dict[tuple[str, int], bytes] = {}
    for i in range(0, len(keys), 300):
        part = keys[i:i + 300]
        q = select(GAMES.c.id, EVENTS.c.seq, EVENTS.c.hash).join_from(
            EVENTS, GAMES, GAMES.c.pos == EVENTS.c.game).where(
            tuple_(GAMES.c.id, EVENTS.c.seq).in_(part))
        for r in conn.execute(q):
            out[(r.id, r.seq)] = bytes(r.hash)
    return out


def read_rows(conn: Connection, *where: Any, params: dict[str, Any] | None = None,
              lenient: bool = False) -> list[StoredRow]:
    """The rows of ``events`` (with ``where``) as :class:`StoredRow` s, by game id and seq
    (``lenient`` as in :func:`stored_rows`)."""
    q = event_select(*where).order_by(GAMES.c.id, EVENTS.c.seq)
    return stored_rows(conn, list(conn.execute(q, params or {})), lenient)


def events_of(conn: Connection, rows: Sequence[Any], fast: bool = False,
              game: str | None = None) -> list[Event]:
    """Rows of :data:`COLUMNS`, or of ``seq`` and :data:`PARTS` with ``game`` (the game of
    every row), as events, read through one decoder: a play in columns alone as a
    :class:`FastPlay` when ``fast`` (no JSON, no model); a row of the current format as its
    model built from its fields (:func:`_model_of`), or, when a row with the same fields but
    the envelope was built before, as that event with its own envelope
    (:mod:`jaslog.store.row_memo`); else its bytes rebuilt and parsed (upcast when of an
    older format)."""
    return _events(codec(conn), conn, rows, fast, game)


def rows_reader(conn: Connection, game: str) -> Callable[[list[Any]], list[Event]]:
    """What reads rows of ``seq`` and :data:`PARTS` of game ``game`` into their events as
    :func:`events_of` reads them (``fast``), through the store's type codes as they are now,
    with no connection (a fold's log reads the rows it keeps when it is read, which may be
    after the connection is closed: :meth:`jaslog.engine.fold.GameFold.apply_row`)."""
    return partial(_events, codec(conn), None, fast=True, game=game)


def _events(c: Codec, conn: Connection | None, rows: Sequence[Any], fast: bool = False,
            game: str | None = None) -> list[Event]:
    """:func:`events_of` through the type codes ``c`` (read again on ``conn`` for a code
    not among them; without a connection such a row cannot be rebuilt)."""
    names = c.names
    fast_of, rebuild = c.fast, c.rebuild
    out: list[Event] = []
    append = out.append
    quick = rows if game is not None and type(rows) is list else None
    i = 0
    n = len(rows)
    while i < n:
        if quick is not None:  # the short way below, compiled, as far as it goes
            i = remembered_rows(c, game or "", quick, i, out)
            if i >= n:
                break
        r = rows[i]
        i += 1
        if game is None:
            g, seq, _pos, kind, version, eid, at, rec, seat, card, rest, _h = r
        else:
            g = game
            seq, kind, version, eid, at, rec, seat, card, rest = r
        # a seq of another type than an integer (changed behind the store's back: SQLite keeps
        # a fraction), or below 0, takes neither short way: its bytes are parsed, which says
        # what is wrong
        whole = type(seq) is int and seq >= 0
        if fast and whole and kind == 1 and rest is None:
            fp = fast_of(g, seq, version, kind, eid, at, rec, seat, card, rest)
            if fp is not None:
                append(fp)  # type: ignore[arg-type]
                continue
        if type(kind) is not int:  # (changed behind the store's back)
            raise UnreadableEvent(f"the stored event cannot be rebuilt: its kind {kind!r} is "
                                  "no event type's code", g, seq)
        if kind & 0xFFFF not in names and conn is not None:
            c = codec(conn, refresh=True)
            names, fast_of, rebuild = c.names, c.fast, c.rebuild
        # (a rest of text or a number, changed behind the store's back, takes the long way
        # too: its bytes rebuilt say what is wrong)
        if whole and version == VERSION and kind != 1 and \
                (rest is None or (isinstance(rest, (bytes, memoryview)) and rest[:1] != b"{")):
            name = names.get(kind)  # (None when spilled)
            rb = rest if rest is None or type(rest) is bytes else bytes(rest)
            e = None if name is None else remembered(c, kind, name, g, seq, eid, at, rec, seat,
                                                     card, rb)
            if e is None:
                e = _model_of(c, g, seq, kind, eid, at, rec, seat, card, rest)
                if e is not None and name is not None:
                    keep(name, seat, card, rb, e)
            if e is not None:
                append(e)
                continue
        try:
            payload = rebuild(g, seq, version, kind, eid, at, rec, seat, card, rest)
        except (UnknownKind, ValueError, TypeError, IndexError) as e:
            raise UnreadableEvent(f"the stored event cannot be rebuilt: {e}", g, seq) from None
        append(decode(payload, version, g, seq))
    return out


def _model_of(c: Codec, game: str, seq: int, kind: int, eid: Any, at: Any, rec: Any, seat: Any,
              card: Any, rest: Any) -> Event | None:
    """The model of a row of the current format built from its fields (no JSON written and
    read again), or None: its bytes are then rebuilt and parsed, which says what is wrong.
    The limits hold as they do for a parsed line (:func:`jaslog.events.limits.event_problem`
    measures the line of an event with free JSON; every other field is bounded)."""
    try:
        d = c.fields(game, seq, kind, eid, at, rec, seat, card, bytes(rest) if rest else rest)
        model = models().get(d["type"])  # (the registry's dict, not the mapping over it)
        if model is None:
            return None
        e = model.__pydantic_validator__.validate_python(d)  # (model_validate, unwrapped)
    except (UnknownKind, ValidationError, ValueError, TypeError, IndexError):
        return None
    return e if event_problem(e) is None else None


def encode_rows(conn: Connection, rows: Sequence[Sequence[Any]],
                events: Sequence[Any] | None = None,
                keys: Mapping[str, int] | None = None) -> list[tuple[Any, ...]]:
    """Event rows in the logical order (game id, seq, pos, type, version, event_id, at,
    payload, prev_hash, hash: hex or raw; then, optionally, the event's fields as a dict)
    as rows in parts (:data:`INSERT_COLUMNS`), in the
    caller's write transaction (a new type gets its code). ``events``: the events the rows
    are of, when the caller has them (their fields are then not read again from the bytes).
    ``keys``: the games' ``games.pos``, when the caller has them (else they are read)."""
    if keys is None:
        keys = game_keys(conn, [r[0] for r in rows])
    c = codec(conn)
    codes, encode = c.codes, c.encode
    plays = c.names.get(1) == "play"
    out: list[tuple[Any, ...]] = []
    append = out.append
    for i, r in enumerate(rows):  # the hot loop of every write: one tuple per row
        game, seq, pos, type_, version, payload, h = r[0], r[1], r[2], r[3], r[4], r[7], r[9]
        key = keys.get(game)
        if key is None:
            raise UnreadableEvent("the game has no header row (game_started) to key its events "
                                  "by", game, seq)
        if type(h) is not bytes:
            h = bytes.fromhex(h)
        fields = r[10] if len(r) > 10 else None
        if events is not None:
            e = events[i]
            fields = e.__dict__ if isinstance(e, (Event, FastPlay)) else None
        if plays and type_ == "play" and fields is not None and fields.get("payload") is payload \
                and version == VERSION and fields["id"] is None and fields["recorded_at"] is None:
            # a canonical play as the import reads it (jaslog.events.fast): its seat and card
            # checked by the regex that read them, its bytes its own; only its time to read
            at = fields["at"]
            a = None if at is None else time_code(at)
            if at is None or a is not None:
                append((key, seq, pos, 1, version, None, a, None, fields["seat"],
                        CARD_CODE[fields["card"]], None, h))
                continue
        kind = codes.get(type_)
        if kind is None:
            kind = type_code(conn, type_)
        k, eid, at, rec, seat, card, rest = encode(payload, kind, fields, version)
        append((key, seq, pos, k, version, eid, at, rec, seat, card, rest, h))
    return out


def late_row(conn: Connection, row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row the import read before the store had a code for its event's type: ``(seq, hash,
    type name, version, canonical bytes, fields)``, encoded in the caller's write transaction
    (which gives the type its code) as ``(seq, hash, kind, version, event_id, at, recorded_at,
    seat, card, rest)``, the rest of :data:`ENCODED_COLUMNS`."""
    seq, h, name, version, payload, fields = row
    c = codec(conn)
    kind = c.codes.get(name)
    if kind is None:
        kind = type_code(conn, name)
    k, eid, at, rec, seat, card, rest = c.encode(payload, kind, fields, version)
    return (seq, h, k, version, eid, at, rec, seat, card, rest)


def head_hashes(conn: Connection, games: Sequence[str]) -> dict[str, tuple[int, str]]:
    """Each game's last seq and hash (hex), of those of ``games`` that have events."""
    from sqlalchemy import func

    out: dict[str, tuple[int, str]] = {}
    for i in range(0, len(games), 500):
        chunk = list(games[i:i + 500])
        last = (select(EVENTS.c.game, func.max(EVENTS.c.seq).label("seq"))
                .where(EVENTS.c.game.in_(keys_of(chunk))).group_by(EVENTS.c.game).subquery())
        q = select(GAMES.c.id, EVENTS.c.seq, EVENTS.c.hash).join_from(
            EVENTS, last, and_(EVENTS.c.game == last.c.game, EVENTS.c.seq == last.c.seq)).join(
            GAMES, GAMES.c.pos == EVENTS.c.game)
        for r in conn.execute(q):
            out[r.id] = last_link(r.id, r.seq, r.hash)
    return out


def last_pos(conn: Connection) -> int:
    """The store's write position, the ``pos`` of its last event (0 when empty); a
    :class:`StoreError` when that is no integer (changed behind the store's back): no reader
    can say how far to read."""
    from sqlalchemy import func

    pos = conn.execute(select(func.coalesce(func.max(EVENTS.c.pos), 0))).scalar_one()
    if type(pos) is not int:
        raise StoreError(f"the store's last position is {pos!r}, not an integer: a row of "
                         "events was changed behind the store's back")
    return pos


def no_start(game: str, first: Any) -> UnreadableEvent:
    """The error of a game with events stored but none at seq 0, where every game begins
    (``first``: the seq of its first stored event).

    >>> str(no_start("g", 1))[:68]
    'game g seq 0: no event is stored at seq 0, where every game begins ('
    """
    return UnreadableEvent(f"no event is stored at seq 0, where every game begins (its "
                           f"game_started); its first stored event is seq {first}: that row "
                           "was moved to another game, or its seq changed, behind the "
                           "store's back", game, 0)


def seq_error(game: str, events: Sequence[Any]) -> UnreadableEvent | None:
    """Why a game whose events were read (in seq order, at least one, from seq 0 on) cannot
    be read for their seqs, or None: its first event is not at seq 0 (:func:`no_start`), or
    its last seq is past :data:`SEQ_MAX`. Once a game, never a row: the readers of many
    games (``iter_games``, ``fold_games``, the export) and ``events`` name such a game the
    same way.

    >>> from types import SimpleNamespace as Ev
    >>> seq_error("g", [Ev(seq=0), Ev(seq=2)]) is None
    True
    >>> str(seq_error("g", [Ev(seq=0), Ev(seq=2**63 - 1)]))[:62]
    'game g seq 9223372036854775807: its seq is past the largest a '
    """
    first = events[0].seq
    if first != 0:
        return no_start(game, first)
    last = events[-1].seq
    if last > SEQ_MAX:
        return UnreadableEvent(f"its seq is past the largest a store holds ({SEQ_MAX}): the "
                               "row was changed behind the store's back", game, last)
    return None


def last_link(game: str, seq: Any, h: Any) -> tuple[int, str]:
    """A game's last row's seq and hash (hex), the head an append goes on from; an
    :class:`UnreadableEvent` when either is of another type than the store writes, or the seq
    past :data:`SEQ_MAX` (changed behind its back): no event is appended to a chain whose
    end cannot be read."""
    if type(seq) is not int or seq > SEQ_MAX or not isinstance(h, (bytes, memoryview)):
        odd = f"its seq {seq!r} is no integer" if type(seq) is not int else \
            f"its seq is past the largest a store holds ({SEQ_MAX})" if seq > SEQ_MAX else \
            f"its hash {h!r} is not bytes"
        raise UnreadableEvent(f"the game's last event cannot be read: {odd}", game, seq)
    return seq, bytes(h).hex()


__all__ = [
    "COLUMNS",
    "ENCODED_COLUMNS",
    "INSERT_COLUMNS",
    "PARTS",
    "SEQ_MAX",
    "VERSION",
    "StoredRow",
    "codec",
    "encode_rows",
    "event_select",
    "events_of",
    "game_keys",
    "head_hashes",
    "head_of",
    "key_of",
    "keys_of",
    "last_link",
    "last_pos",
    "late_row",
    "no_start",
    "read_rows",
    "seed_types",
    "seq_error",
    "stored_rows",
    "type_code",
]
