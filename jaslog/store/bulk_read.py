"""The store's bulk read for a fold: rows of many games in (game, seq) order, one cursor, turned
into each game's events in one loop.

A reader that folds every game (``Store.iter_games(fast=True)``: the replay, the export, the
ratings) reads the games a batch at a time with one statement, its rows fetched in chunks
(``fetchmany``); :func:`games_of_rows` walks them. A play held in its typed columns alone
(nine events in ten) becomes a :class:`~jaslog.events.fast.FastPlay` right there, its time
written from a table of minutes; every other row waits in its game's list, and the game's
``decode`` makes their events (models, read as :func:`jaslog.store.rows.events_of` reads
them) once the game's last row is met.

The bulk fold (:mod:`jaslog.store.fold_read`) reads a game as one row instead: its rows'
codes, which SQLite works out and joins; :func:`game_codes` reads them and
:func:`fold_game_codes` folds the game from them.

Compiled (``jaslog.native.HOT_PATH``), the loop runs with no Python-level work per row beyond
the :class:`FastPlay` it makes; run as pure Python it gives the same events.

>>> rows = [(7, 1, 1, 1, None, 1767641455, None, 2, 8, None),
...         (7, 2, 9, 1, None, None, None, None, None, b"x")]
>>> decode = lambda key, others: [("decoded", r[0]) for r in others]
>>> [(k, [getattr(e, "card", e) for e in evs]) for k, evs in games_of_rows(
...     iter([rows, []]).__next__, {7: "g"}, 1, True, decode)]
[(7, ['7D', ('decoded', 2)])]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import orjson

from jaslog.engine.base import IntegrityError
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import VERSION
from jaslog.events.fast import FastPlay
from jaslog.events.times import MINUTES, SECONDS, SECONDS_MAX, minute_text, time_text
from jaslog.play.fold import start_fold
from jaslog.store.codec import UnreadableEvent
from jaslog.store.compact import CARD_TEXT
from jaslog.store.row_memo import LAST_MS

#: The ``events`` columns a row holds, in order: the game's key (``games.pos``), its seq, then
#: the parts :func:`jaslog.store.rows.events_of` reads after ``seq``.
COLUMNS = ("game", "seq", "kind", "version", "event_id", "at", "recorded_at", "seat", "card",
           "rest")

#: A game's rows that are not plain plays (each ``row[1:]``: seq and the parts) to their events,
#: in order; None when the game cannot be read (the caller has dealt with it).
Decode = Callable[[int, list[Any]], "list[Any] | None"]


def games_of_rows(fetch: Callable[[], list[Any]], names: dict[int, str], version: int,
                  plays: bool, decode: Decode) -> Iterator[tuple[int, list[Any] | None]]:
    """``(key, events)`` of each game whose rows ``fetch`` gives, chunk by chunk (an empty
    chunk ends them), in the order of the rows: rows of :data:`COLUMNS`, ordered by game and
    seq; ``events`` None for a game ``decode`` could not read. ``names``: each game's id by
    its key; ``version``: the current format; ``plays``: whether the store's kind 1 is
    ``play`` (else no row is read as a plain play)."""
    key = -1
    gid = ""
    events: list[Any] = []
    others: list[Any] = []
    slots: list[int] = []
    last_minute = -1
    prefix = ""
    cards = CARD_TEXT
    seconds = SECONDS
    while True:
        chunk = fetch()
        if not chunk:
            break
        for row in chunk:
            r: tuple[Any, ...] = row
            k: int = r[0]
            if k != key:
                if events:
                    yield key, _finish(key, events, others, slots, decode)
                    events = []
                    others = []
                    slots = []
                key = k
                gid = names[k]
            seat = r[7]
            card = r[8]
            at = r[5]
            if (plays and r[2] == 1 and r[9] is None and r[4] is None and r[6] is None
                    and r[3] == version and isinstance(seat, int) and isinstance(card, int)
                    and isinstance(r[1], int) and r[1] >= 0 and 0 <= seat <= 3
                    and 0 <= card <= 31
                    and (at is None or (isinstance(at, int) and 0 <= at <= LAST_MS))):
                text: str | None = None
                if at is not None:
                    a: int = at
                    if 0 <= a <= SECONDS_MAX:
                        minute = a // 60
                        if minute != last_minute:
                            got = MINUTES.get(minute)
                            prefix = got if got is not None else minute_text(minute)
                            last_minute = minute
                        text = prefix + seconds[a - minute * 60]
                    else:
                        text = time_text(a)
                events.append(FastPlay(gid, r[1], seat, cards[card], text, None, None))
            else:
                slots.append(len(events))
                events.append(None)
                others.append(r[1:])
    if events:
        yield key, _finish(key, events, others, slots, decode)


def _finish(key: int, events: list[Any], others: list[Any], slots: list[int],
            decode: Decode) -> list[Any] | None:
    """A game's events with its other rows decoded into their places (None: unreadable)."""
    if not others:
        return events
    decoded = decode(key, others)
    if decoded is None:
        return None
    for i in range(len(slots)):
        events[slots[i]] = decoded[i]
    return events


#: A row's code as the store's bulk fold reads it (:data:`jaslog.store.fold_read.CODE`, which
#: SQLite works out): for a plain play ``(at + 1) * 2**AT_SHIFT + seq * 128 + seat * 32 +
#: card`` (``at + 1`` 0 when it has no time; its seq below :data:`SEQS`); for any other row
#: ``-1 - seq``. Each code holds its row's seq: :func:`game_codes` takes a game's codes only
#: when their seqs run on from the first, one by one.
SEQ_BITS = 13
SEQS = 1 << SEQ_BITS
AT_SHIFT = 7 + SEQ_BITS
#: The latest time a code holds (``at + 1`` shifted by :data:`AT_SHIFT` stays within 63 bits):
#: every time in seconds, and in milliseconds up to the year 2248.
AT_CODED_MAX = (1 << (63 - AT_SHIFT)) - 2


def code_seq(v: int) -> int:
    """The seq a code holds.

    >>> code_seq(-1), code_seq(-6), code_seq((1767641456 << AT_SHIFT) + 300 * 128 + 72)
    (0, 5, 300)
    """
    return -1 - v if v < 0 else (v >> 7) & (SEQS - 1)


def game_codes(text: str) -> tuple[list[int], list[Any]] | None:
    """A game's rows from the text SQLite joined them into (``group_concat`` of
    :data:`jaslog.store.fold_read.CODE`, read as a JSON array): their codes in seq order, a
    plain play's as SQLite worked it out, another row's ``-1 - seq``; and the other rows,
    each ``(seq, kind, version, event_id, at, recorded_at, seat, card, rest)`` with the id
    and ``rest`` as bytes, in seq order. None when the text is not that, and the batch is
    read as rows: an entry neither a code (an integer from 0) nor a row (a JSON array of
    its nine columns) — a fraction, a code below 0, a row SQLite marked odd (``-1``: a
    value of another type stored behind the store's back); or the seqs not one after the
    other from seq 0 (a gap, no seq 0, or the rows not in seq order, which SQLite's
    ``group_concat`` does not promise).

    >>> game_codes('[0,9,1,null,null,null,0,null,"5B315D"],157,[2,9,1,null,5,null,0,null,null]')
    ([-1, 157, -3], [(0, 9, 1, None, None, None, 0, None, b'[1]'), (2, 9, 1, None, 5, None, 0, None, None)])
    >>> game_codes("29,157"), game_codes("157,29"), game_codes("29,1.5"), game_codes("29,-1")
    (([29, 157], []), None, None, None)
    >>> game_codes("157,285") is None  # (no seq 0)
    True
    """
    try:
        parsed: Any = orjson.loads(text.join("[]"))  # (one C call for the game's entries)
    except ValueError:
        return None
    if type(parsed) is not list:
        return None
    items: list[Any] = parsed  # (the codes, in place: a row's entry becomes -1 - seq)
    others: list[Any] = []
    seq = -1
    for i in range(len(items)):
        x = items[i]
        s: int
        if type(x) is int:
            v: int = x
            if v < 0:
                return None  # (an odd row, or a code SQLite did not work out as one)
            s = (v >> 7) & (SEQS - 1)
        elif type(x) is list:
            row = _other_row(x)
            if row is None:
                return None
            s = row[0]
            others.append(row)
            items[i] = -1 - s
        else:
            return None  # (a fraction, or a time past what a code holds: a real)
        if s != seq + 1:  # (from seq 0, one by one)
            return None
        seq = s
    return items, others


def _other_row(r: list[Any]) -> tuple[Any, ...] | None:
    """An other row's columns from its JSON array (:data:`jaslog.store.fold_read.OTHER`):
    ``(seq, kind, version, event_id, at, recorded_at, seat, card, rest)``, the id and
    ``rest`` from hex to bytes; None when it is not that (a fraction or a NULL where the store
    writes an integer: SQLite let a value of another type through as it is)."""
    if len(r) != 9:
        return None
    seq = r[0]
    if type(seq) is not int or seq < 0 or type(r[1]) is not int or type(r[2]) is not int:
        return None
    for i in range(4, 8):
        v = r[i]
        if v is not None and type(v) is not int:
            return None
    eid = r[3]
    rest = r[8]
    try:
        return (seq, r[1], r[2], None if eid is None else bytes.fromhex(eid), r[4], r[5], r[6],
                r[7], None if rest is None else bytes.fromhex(rest))
    except (TypeError, ValueError):
        return None


def taken_row(row: tuple[Any, ...], names: dict[int, str]) -> str | None:
    """The type's name of a stored other row (``(seq, kind, version, event_id, at,
    recorded_at, seat, card, rest)``) a game's fold may take as it is
    (:meth:`~jaslog.engine.fold.GameFold.apply_row`): a row of the current format, of a type
    the store knows (not spilled, not a play), with an envelope validation takes as it is
    (an id of 16 bytes, times from 1970 to 9999: :func:`jaslog.store.row_memo.envelope`)
    and ``rest`` the JSON of its fields; else None (its event is made, the usual way).

    >>> taken_row((4, 3, VERSION, None, 1767641455, None, 2, None, b'["pass"]'), {3: "bid"})
    'bid'
    >>> taken_row((4, 3, VERSION, b"short", None, None, 2, None, b'["pass"]'), {3: "bid"})
    """
    kind = row[1]
    version = row[2]
    if type(kind) is not int or kind == 1 or type(version) is not int or version != VERSION:
        return None
    eid = row[3]
    if eid is not None and (type(eid) is not bytes or len(eid) != 16):
        return None
    at = row[4]
    if at is not None and (type(at) is not int or not 0 <= at <= LAST_MS):
        return None
    rec = row[5]
    if rec is not None and (type(rec) is not int or not 0 <= rec <= LAST_MS):
        return None
    rest = row[8]
    if rest is not None and (type(rest) is not bytes or rest[:1] == b"{"):
        return None
    return names.get(kind)


def fold_game_codes(gid: str, codes: list[int], others: list[Any],
                    read: Callable[[list[Any]], list[Any]] | None = None,
                    names: dict[int, str] | None = None) -> GameFold:
    """Game ``gid`` folded from its rows' :func:`game_codes`; ``others``: the game's other
    events (each code below 0), read apart, in order. A plain play goes to the fold as its
    seat and card (:meth:`GameFold.apply_play`), the log keeping it as its
    :func:`~jaslog.engine.fold.play_code` until it is read (the fold's last time written once,
    at the end, when a play had it), or as a :class:`FastPlay` when its seq is not the one
    the fold expects (which says what is wrong).

    With ``read`` (and ``names``, the store's type names by code), ``others`` are the other
    rows as stored (:func:`game_codes`), and ``read(rows)`` gives their events
    (:func:`jaslog.store.rows.events_of`): a row :func:`taken_row` passes goes to the fold as
    its parts (:meth:`GameFold.apply_row`), the log keeping the row until it is read (then
    ``read`` makes its event); any other row, and one the game does not take, is read into
    its event and applied. The folds and errors are those of the events: an error of the
    rules at a row taken so is located with the row's event, and before a fold error is
    raised the rows after it are read, so that an unreadable row anywhere in the game says
    so first, as when every event is read before the fold.

    Raises the fold's :class:`~jaslog.engine.fold.FoldError`; :class:`UnreadableEvent` when
    ``others`` do not fit the rows (the store changed between the reads: never, as neither
    read sees past one position), or (with ``read``) a row cannot be read."""
    cards = CARD_TEXT
    k = 0
    fold: GameFold | None = None
    seq = code_seq(codes[0]) - 1 if codes else -1
    last = -1  # (the time of the last play or row with one, while no later event had one)
    kinds: dict[int, str] = names if names is not None else {}
    try:
        for v in codes:
            seq += 1
            if v < 0:
                if k >= len(others):
                    raise UnreadableEvent("the store's rows changed while they were read", gid,
                                          seq)
                x = others[k]
                k += 1
                if read is None:
                    e = x
                    if e.seq != seq:
                        raise UnreadableEvent("the store's rows changed while they were read",
                                              gid, seq)
                else:
                    row: tuple[Any, ...] = x
                    if row[0] != seq:
                        raise UnreadableEvent("the store's rows changed while they were read",
                                              gid, seq)
                    if fold is not None and seq == fold.next_seq:
                        name = taken_row(row, kinds)
                        if name is not None:
                            try:
                                taken = fold.apply_row(name, row[6], row[7], row[8], row)
                            except IntegrityError as err:
                                raise fold.located(err, read([row])[0]) from None
                            if taken:
                                at = row[4]
                                if at is not None:
                                    last = at
                                continue
                    e = read([row])[0]
                if fold is None:
                    fold = start_fold(e)
                    if read is not None:
                        fold.row_events = read
                else:
                    if last >= 0 and e.at is not None:
                        last = -1
                    fold.apply(e)
                continue
            code = v & 127
            a = (v >> AT_SHIFT) - 1
            coded = code if a < 0 else code | (a + 1) << 7  # (play_code, written out)
            if fold is not None and seq == fold.next_seq:
                fold.apply_play(code >> 5, code & 31, None, coded)
                if a >= 0:
                    last = a
                continue
            play = FastPlay(gid, seq, code >> 5, cards[code & 31],
                            None if a < 0 else time_text(a), None, None)
            if fold is None:
                fold = start_fold(play)  # type: ignore[arg-type]  # (which says what is wrong)
            else:
                fold.apply(play)  # type: ignore[arg-type]
                if a >= 0:
                    last = -1
    except FoldError:
        if read is not None and k < len(others):
            read(others[k:])  # (an unreadable row after the error says so instead)
        raise
    if k != len(others) or fold is None:
        raise UnreadableEvent("the store's rows changed while they were read", gid,
                              seq if codes else 0)
    if last >= 0:
        fold.last_at = time_text(last)
    return fold
