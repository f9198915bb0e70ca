"""The export's read of a SQLite store: a batch of games as columns, each game folded.

The export needs every stored event once, in the store's order (game, seq), and each game's
fold (what only the rules can say). A batch of games is read as the replay's bulk fold reads
it, by the same statement (:func:`jaslog.store.fold_read.read_codes`): each game as one row
of codes (a plain play's time, seq, seat and card in one integer, ``-1 - seq`` for any other
row) and the other rows' columns, read into events as
:meth:`~jaslog.store.Store.iter_games` reads them (:func:`jaslog.store.rows.events_of`).

The batch's codes are laid end to end as numpy columns (game key, seq, ``seat * 32 + card``
or -1, time) for the export to build its ``events`` table from, a column at a time
(:mod:`jaslog.export.stored`), and each game is folded from its codes as the replay folds it
(:func:`jaslog.store.bulk_read.fold_game_codes`: a plain play goes to the fold as its seat
and card, no event made) and handed on as a :class:`StoredGame`. A game the export cannot
build that way asks for :meth:`StoredGame.events`, its events as ``iter_games(fast=True)``
gives them.

A game with stored round facts, which the export may build without folding it, has only
its first other row (its ``game_started``) and the rows not known to read read at once: the
rest (a kept row's parts, or a row whose fields pass their checks, a deal's among them:
:func:`jaslog.store.row_memo.known_rows`) when the game is folded or its events asked for
(:class:`OtherEvents`). A row that does not read is read at once, so its game is left out
as it always was.

None is returned for a batch whose codes cannot be read (a value of an odd type, stored
behind the store's back; a gap in a game's seqs): the caller reads it as rows.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np
import orjson
from sqlalchemy.engine import Connection

from jaslog.cards import CARD_TEXT
from jaslog.engine.fold import ROUND_OPENERS, FoldError, GameFold
from jaslog.events import Event
from jaslog.events.fast import FastPlay
from jaslog.store import engine as eng
from jaslog.store.bulk_read import AT_SHIFT, SEQS
from jaslog.store.codec import UnreadableEvent
from jaslog.store.collector import collector_paused
from jaslog.store.compact import time_text
from jaslog.store.fold_read import fold_coded, read_codes
from jaslog.store.projection import BUILT, build_state, facts_detailed
from jaslog.store.read_ahead import Fetched
from jaslog.store.row_memo import known_rows
from jaslog.store.rows import codec, events_of, rows_reader

#: An other row not read into its event yet (:class:`OtherEvents`).
_PENDING: Any = object()


class OtherEvents(Sequence[Any]):
    """A batch's other events, one for each other row in row order (None for the rows of a
    game that could not be read). The rows of a game with stored facts that are known to
    read (:func:`known_rows`: a kept row's parts or fields that pass their checks, with an
    envelope taken as it is) are read into their events only when asked for (:meth:`span`
    for a game's, ``[k]`` for one row's), which gives the events reading them at once
    would."""

    __slots__ = ("firsts", "items", "readers", "rows")

    def __init__(self, rows: list[Any]) -> None:
        self.items: list[Any] = []
        self.rows = rows                   # the batch's other rows, as stored
        self.firsts: list[int] = []        # the first row of each game read later
        self.readers: list[Callable[[list[Any]], list[Event]]] = []  # and its reader

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self.items)))]
        e = self.items[k]
        if e is _PENDING:
            read = self.readers[bisect_right(self.firsts, k) - 1]
            e = self.items[k] = read([self.rows[k]])[0]
        return e

    def later(self, first: int, read: Callable[[list[Any]], list[Event]]) -> None:
        """The rows marked :data:`_PENDING` of the game whose rows start at ``first`` are
        read by ``read`` when asked for."""
        self.firsts.append(first)
        self.readers.append(read)

    def span(self, first: int, count: int) -> list[Event]:
        """The events of a game's other rows ``first`` to ``first + count`` (excluded)."""
        got = self.items[first:first + count]
        pending = [k for k, e in enumerate(got) if e is _PENDING]
        if pending:
            read = self.readers[bisect_right(self.firsts, first) - 1]
            rows = self.rows
            with collector_paused():  # (see read_batch)
                events = read([rows[first + k] for k in pending])
            for k, e in zip(pending, events, strict=True):
                got[k] = e
            self.items[first:first + count] = got
        return got


@dataclass(slots=True)
class StoredBatch:
    """A batch's rows as columns (game key, seq, code: a plain play's ``seat * 32 + card``, -1
    for any other row; a plain play's time code; ``at_null``: no time) and its other events
    (those not plain plays), one for each code -1 in row order (None for the rows of a game
    that could not be read; some read only when asked for: :class:`OtherEvents`), with the
    columns the store holds of each (``other_rows``: ``(seq, kind, version, event_id, at,
    recorded_at, seat, card, rest)``, as :func:`jaslog.store.bulk_read.game_codes` reads
    them; ``kind_names``: the store's event types by code; ``types``: each one's type, None
    for a row of a game that could not be read; ``unread``: the other rows, from and to, of
    each game that could not be read). ``table``: what the export built of them."""

    keys: np.ndarray
    seqs: np.ndarray
    codes: np.ndarray
    ats: np.ndarray
    at_null: np.ndarray
    others: OtherEvents
    table: Any = None
    other_rows: list[Any] = field(default_factory=list)
    kind_names: dict[int, str] = field(default_factory=dict)
    unread: list[tuple[int, int]] = field(default_factory=list)
    types: list[str | None] = field(default_factory=list)
    plays: Any = None  # what the export counted of its plays
    unreadable: Callable[[UnreadableEvent], None] | None = None


@dataclass(slots=True)
class StoredGame:
    """One game of a :class:`StoredBatch`: its rows ``lo`` to ``hi`` (excluded), its other
    events' types (those not plain plays, in seq order; the first is the batch's
    ``others[first]``, ``head``), and its fold (or the integrity error that stopped it); or,
    for a game whose rows the caller builds from its stored round facts (``facts``: what the
    caller's ``stored`` made of them), no fold until :meth:`folded` is asked for one, and
    its other events read only when :attr:`others` is."""

    game: str
    batch: StoredBatch
    lo: int
    hi: int
    first: int
    types: list[str]
    head: Event | None
    fold: GameFold | None
    error: FoldError | None
    facts: Any = None
    codes: list[int] | None = None  # (a game not folded yet: its codes, to fold it by)

    def folded(self) -> bool:
        """Fold the game when it was not (its rows were to be built from its facts); False
        when it cannot be read (given to the batch's ``unreadable``)."""
        if self.codes is None:
            return True
        codes, self.codes, self.facts = self.codes, None, None
        got = fold_coded(self.game, codes, lambda: self.others, self.batch.unreadable)
        if got is None:
            return False
        if isinstance(got, FoldError):
            self.error = got
        else:
            self.fold = got
        return True

    @property
    def others(self) -> list[Event]:
        """The game's other events, in seq order (a new list)."""
        return self.batch.others.span(self.first, len(self.types))

    @property
    def last(self) -> int:
        return int(self.batch.seqs[self.hi - 1])

    def __len__(self) -> int:
        return self.hi - self.lo

    def events(self) -> list[Event]:
        """The game's events in seq order, a plain play as a :class:`FastPlay` (as
        :meth:`~jaslog.store.Store.iter_games` with ``fast`` gives them)."""
        b = self.batch
        out: list[Any] = []
        k = 0
        others = self.others
        for i in range(self.lo, self.hi):
            code = int(b.codes[i])
            if code < 0:
                out.append(others[k])
                k += 1
                continue
            at = None if b.at_null[i] else time_text(int(b.ats[i]))
            out.append(FastPlay(self.game, int(b.seqs[i]), code >> 5, CARD_TEXT[code & 31], at,
                                None, None))
        return out


#: What a caller makes of a game's stored round facts (:data:`FactRow` of each round, in
#: order: the latest of each as of the game's last event read), given its id, its first
#: other event and the types of its other events: anything but None, and the game is not
#: folded (:attr:`StoredGame.facts`).
Stored = Callable[[str, Event | None, frozenset[str], list["FactRow"]], Any]
#: A round's stored facts: ``(round, result, recorded, score, final, roem, verdicts,
#: detail)``, the JSON columns decoded.
FactRow = tuple[int, str | None, str | None, Any, Any, Any, Any, Any]


def read_batch(conn: Connection, ids: list[str], until: int,
               unreadable: Callable[[UnreadableEvent], None] | None,
               prepare: Callable[[StoredBatch, dict[int, str]], None] | None = None,
               stored: Stored | None = None,
               fetched: Future[Fetched] | None = None) -> Iterator[StoredGame] | None:
    """The games ``ids`` (in the store's order) read as columns and folded, up to position
    ``until``; None when the codes cannot be read (the caller reads the batch as rows).
    ``prepare(batch, names)`` is called once the batch is read, before any game is folded
    (``names``: game id by key). ``stored``: what to make of a game's stored round facts
    (:data:`Stored`; a game it makes something of is not folded). ``fetched``: the batch
    statement's rows read ahead (:func:`jaslog.store.fold_read.read_codes`)."""
    coded = read_codes(conn, ids, until, fetched)
    if coded is None:
        return None
    names = coded.names
    facts = read_facts(conn, [key for key, _codes in coded.coded]) if stored is not None \
        else {}
    batch = StoredBatch(*_columns(coded.coded), OtherEvents([]), unreadable=unreadable)
    batch.others.rows = batch.other_rows
    kind_names = codec(conn).names
    # each game's other events, decoded (a game that cannot be read: its error, and None
    # for each of its rows); of a game with stored facts, its first row and each row not
    # known to read (:func:`known_rows`), in order, the others when asked for: the first
    # row that does not read makes its game unreadable here, as it always did
    per_game: list[tuple[int, int, int, list[int], list[str] | UnreadableEvent,
                         Event | None]] = []
    lo = 0
    items = batch.others.items
    for key, codes, rows in coded.others_of():
        hi = lo + len(codes)
        gid = names[key]
        first = len(items)
        got: list[Any] | UnreadableEvent
        later = False
        try:
            with collector_paused():  # a game's objects hold no reference cycle
                if key in facts and len(rows) > 1:
                    got = _read_known(conn, gid, rows)
                    later = any(e is _PENDING for e in got)
                else:
                    got = events_of(conn, rows, fast=True, game=gid)
        except UnreadableEvent as err:
            if unreadable is None:
                raise
            got = err
        types: list[str] | UnreadableEvent
        if isinstance(got, UnreadableEvent):
            batch.unread.append((first, first + len(rows)))
            items.extend([None] * len(rows))
            batch.types.extend([None] * len(rows))
            types = got
        else:
            items.extend(got)
            if later:
                batch.others.later(first, rows_reader(conn, gid))
                now = codec(conn).names
                types = [now[r[1]] if e is _PENDING else e.type for e, r in zip(got, rows, strict=True)]
            else:
                types = [e.type for e in got]
            batch.types.extend(types)
        batch.other_rows.extend(rows)
        per_game.append((lo, hi, first, codes, types,
                         got[0] if not isinstance(got, UnreadableEvent) and got else None))
        lo = hi
    if prepare is not None:
        batch.kind_names = kind_names
        prepare(batch, names)
    return _games(names, batch, per_game, unreadable, facts, stored)


def _read_known(conn: Connection, gid: str, rows: list[Any]) -> list[Any]:
    """A game's other rows read as :func:`~jaslog.store.rows.events_of` reads them, but
    :data:`_PENDING` for each row after the first known to read (:func:`known_rows`); the
    :class:`UnreadableEvent` of the first row that does not read, as reading them all (the
    rows not known are read in one go, in order, and every row known reads)."""
    got: list[Any] = events_of(conn, rows[:1], fast=True, game=gid)
    c = codec(conn)
    n = len(rows)
    unknown: list[int] = []
    i = 1
    while i < n:
        j = known_rows(c, gid, rows, i)
        got.extend([_PENDING] * (j - i))
        if j < n:
            unknown.append(j)
            got.append(_PENDING)
        i = j + 1
    if unknown:
        for k, e in zip(unknown, events_of(conn, [rows[k] for k in unknown], fast=True,
                                           game=gid), strict=True):
            got[k] = e
    return got


#: A ``round_facts`` row as JSON text, by concatenation (SQL): ``[game, round, seq, result,
#: recorded, score, final, roem, verdicts, detail]``, each JSON column's text as stored (the
#: store writes it with ``json.dumps``; NULL: ``null``), each text column quoted.
FACT_ROW = ("'[' || game || ',' || round || ',' || seq || ',' "
            "|| coalesce(json_quote(result), 'null') || ',' "
            "|| coalesce(json_quote(recorded), 'null') || ',' || coalesce(score, 'null') || ',' "
            "|| coalesce(final, 'null') || ',' || coalesce(roem, 'null') || ',' "
            "|| coalesce(verdicts, 'null') || ',' || coalesce(detail, 'null') || ']'")


def read_facts(conn: Connection, keys: list[int]) -> dict[int, list[list[Any]]]:
    """The stored round facts of the games ``keys`` (``games.pos``), every row: by game,
    ``[game, round, seq, result, recorded, score, final, roem, verdicts, detail]`` in round
    and seq order, the batch's rows read as one JSON text (:data:`FACT_ROW` each; its bytes,
    so that a value not UTF-8 does not stop the read) and decoded at once. None for a store
    whose facts keep no ``detail``, or whose build of them is not done; none for a batch
    whose text does not read as rows of facts (changed behind the store's back): its games
    are folded."""
    if not keys or not facts_detailed(conn) or build_state(conn) != BUILT:
        return {}
    with eng.raw_cursor(conn) as cur:
        cur.execute("SELECT CAST('[' || group_concat(r, ',') || ']' AS BLOB) "
                    f"FROM (SELECT {FACT_ROW} AS r "
                    "FROM round_facts "
                    f"WHERE game IN ({', '.join('?' * len(keys))}) ORDER BY game, round, seq)",
                    keys)
        (text,) = cur.fetchone()
    try:
        rows = orjson.loads(text) if text is not None else []
    except orjson.JSONDecodeError:
        return {}
    out: dict[int, list[list[Any]]] = {}
    for row in rows:
        if type(row) is not list or len(row) != 10:
            return {}
        got = out.get(row[0])
        if got is None:
            out[row[0]] = [row]
        else:
            got.append(row)
    try:
        for got in out.values():  # (in round and seq order: group_concat does not promise
            got.sort()            # it; a game's rows differ in round or seq)
    except TypeError:
        return {}
    return out


def _game_facts(rows: list[list[Any]], last: int, rounds: int) -> list[FactRow] | None:
    """A game's facts (its :func:`read_facts` rows) as of its event ``last``: each round's
    latest row up to it, for rounds 1 to ``rounds``, each closed and with its ``detail``
    (else None)."""
    latest: dict[int, Any] = {}
    for row in rows:
        if row[2] <= last:
            latest[row[1]] = row
    if len(latest) != rounds:
        return None
    out: list[FactRow] = []
    for n in range(1, rounds + 1):
        got = latest.get(n)
        if got is None or got[3] is None or got[9] is None:
            return None
        out.append((n, got[3], got[4], got[5], got[6], got[7], got[8], got[9]))
    return out


def _columns(coded: list[tuple[int, list[int]]]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A batch's codes (each game's key and codes, :func:`jaslog.store.bulk_read.game_codes`)
    laid end to end as the columns of a :class:`StoredBatch`: game key, seq, code (a plain
    play's ``seat * 32 + card``, -1 for any other row), time code (0 where there is none)
    and whether a row has no time (every other row: its time is its event's)."""
    if not coded:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty, np.zeros(0, bool)
    sizes = [len(codes) for _key, codes in coded]
    raw = np.fromiter(chain.from_iterable(codes for _key, codes in coded), np.int64, sum(sizes))
    keys = np.repeat(np.array([key for key, _codes in coded], np.int64), sizes)
    other = raw < 0
    seqs = np.where(other, -1 - raw, (raw >> 7) & (SEQS - 1))
    codes = np.where(other, -1, raw & 127)
    at = np.where(other, 0, raw >> AT_SHIFT)  # (the time + 1; 0: none)
    at_null = at == 0
    ats = np.where(at_null, 0, at - 1)
    return keys, seqs, codes, ats, at_null


def _games(names: dict[int, str], batch: StoredBatch,
           per_game: list[tuple[int, int, int, list[int], list[str] | UnreadableEvent,
                                Event | None]],
           unreadable: Callable[[UnreadableEvent], None] | None,
           facts: dict[int, list[list[Any]]], stored: Stored | None
           ) -> Iterator[StoredGame]:
    for lo, hi, first, codes, types, head in per_game:
        if isinstance(types, UnreadableEvent):
            assert unreadable is not None
            unreadable(types)
            continue
        key = int(batch.keys[lo])
        gid = names[key]
        rows = facts.get(key)
        if rows is not None and stored is not None:
            rounds = sum(map(ROUND_OPENERS.__contains__, types))
            got = _game_facts(rows, int(batch.seqs[hi - 1]), rounds)
            made = stored(gid, head, frozenset(types), got) if got is not None else None
            if made is not None:
                yield StoredGame(gid, batch, lo, hi, first, types, head, None, None, made,
                                 codes)
                continue
        game = StoredGame(gid, batch, lo, hi, first, types, head, None, None)
        folded = fold_coded(gid, codes, lambda g=game: g.others, unreadable)  # type: ignore[misc]
        if folded is None:
            continue
        if isinstance(folded, FoldError):
            game.error = folded
        else:
            game.fold = folded
        yield game

