"""The export's read of a SQLite store: a batch of games as columns, each game folded.

The export needs every stored event once, in the store's order (game, seq), and each game's
fold (what only the rules can say). A batch of games is read with two statements that see
the same events (none past the export's cursor):

* every row's game, seq, time and a code SQLite works out: ``seat * 32 + card`` for a plain
  play (nine rows in ten: :data:`jaslog.store.fold_read.PLAIN`), -1 for any other row;
* the other rows whole, read into events as :meth:`~jaslog.store.Store.iter_games` reads them
  (:func:`jaslog.store.rows.events_of`).

Each game is folded from them (:func:`jaslog.store.bulk_read.fold_game_columns`: a plain play
goes to the fold as its seat and card, no event made) and handed on as a :class:`StoredGame`,
which keeps the batch's columns as numpy arrays for the export to build its ``events`` table
from, a column at a time (:mod:`jaslog.export.stored`). A game the export cannot build that
way asks for :meth:`StoredGame.events`, its events as ``iter_games(fast=True)`` gives them.

None is returned for a batch the columns cannot be read of (a value of an odd type, stored
behind the store's back; a bare play of another format): the caller reads it as rows.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.engine import Connection

from jaslog.cards import CARD_TEXT
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import VERSION, Event
from jaslog.events.fast import FastPlay
from jaslog.store import engine as eng
from jaslog.store.bulk_read import fold_game_columns
from jaslog.store.codec import UnreadableEvent
from jaslog.store.compact import time_text
from jaslog.store.fold_read import BARE, PLAIN
from jaslog.store.rows import events_of, game_keys

#: A time code that says there is none (no time is stored below 0).
NO_TIME = -(1 << 63)
#: The first statement: every row's game, seq, code (a plain play's ``seat * 32 + card``,
#: else -1) and time (:data:`NO_TIME`: none). A value of another type than an integer
#: (written behind the store's back: text, a real number, a blob) makes the reader refuse the
#: batch, which is then read as rows.
COLUMNS = ("SELECT game, seq, CASE WHEN {plain} THEN seat * 32 + card ELSE -1 END, "
           f"coalesce(at, {NO_TIME}) FROM events WHERE {{where}} ORDER BY game, seq")


@dataclass(slots=True)
class StoredBatch:
    """A batch's rows as columns (game key, seq, code, time code; ``at_null``: no time) and
    its other events (those not plain plays), one for each code -1 in row order (None for
    the rows of a game that could not be read). ``table``: what the export built of them."""

    keys: np.ndarray
    seqs: np.ndarray
    codes: np.ndarray
    ats: np.ndarray
    at_null: np.ndarray
    others: list[Event | None]
    table: Any = None


@dataclass(slots=True)
class StoredGame:
    """One game of a :class:`StoredBatch`: its rows ``lo`` to ``hi`` (excluded), its other
    events (those not plain plays, in seq order; the first is the batch's ``others[first]``),
    and its fold (or the integrity error that stopped it)."""

    game: str
    batch: StoredBatch
    lo: int
    hi: int
    first: int
    others: list[Event]
    fold: GameFold | None
    error: FoldError | None

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


def read_batch(conn: Connection, ids: list[str], until: int,
               unreadable: Callable[[UnreadableEvent], None] | None,
               prepare: Callable[[StoredBatch, dict[int, str]], None] | None = None
               ) -> Iterator[StoredGame] | None:
    """The games ``ids`` (in the store's order) read as columns and folded, up to position
    ``until``; None when the columns cannot be read (the caller reads the batch as rows).
    ``prepare(batch, names)`` is called once the batch is read, before any game is folded
    (``names``: game id by key)."""
    keys = game_keys(conn, ids)
    order = sorted(keys[g] for g in ids if g in keys)
    if not order:
        return iter(())
    marks = ", ".join("?" * len(order))
    plain = PLAIN.format(version=int(VERSION))
    where = f"game IN ({marks}) AND pos <= ?"
    with eng.raw_cursor(conn) as cur:
        cur.execute(COLUMNS.format(plain=plain, where=where), (*order, until))
        fetched = cur.fetchall()
    arrays = _int_columns(fetched)
    del fetched
    if arrays is None:
        return None
    with eng.raw_cursor(conn) as cur:
        cur.execute("SELECT game, seq, kind, version, event_id, at, recorded_at, seat, card, "
                    f"rest FROM events WHERE {where} AND NOT ({BARE}) ORDER BY game, seq",
                    (*order, until))
        rows = cur.fetchall()
    (key_a, seq_a, code_a, at_a, at_null), (game_col, seqs, codes, ats) = arrays
    if int(np.count_nonzero(code_a < 0)) != len(rows):  # a bare row not a plain play: as rows
        return None
    names = {k: g for g, k in keys.items()}
    batch = StoredBatch(key_a, seq_a, code_a, at_a, at_null, [])
    # each game's other events, decoded (a game that cannot be read: its error, and None
    # for each of its rows)
    per_game: list[tuple[int, int, int, list[Event] | UnreadableEvent]] = []
    n = len(game_col)
    bounds = np.flatnonzero(np.diff(batch.keys)).tolist() if n else []
    j = 0
    for lo, hi in zip([0, *(b + 1 for b in bounds)], [*(b + 1 for b in bounds), n], strict=True):
        if lo >= hi:
            continue
        key = game_col[lo]
        k = j
        while j < len(rows) and rows[j][0] == key:
            j += 1
        collecting = gc.isenabled()
        gc.disable()  # a game's objects hold no reference cycle (as the replay's read)
        try:
            got: list[Event] | UnreadableEvent = events_of(
                conn, [r[1:] for r in rows[k:j]], fast=True, game=names[key])
        except UnreadableEvent as err:
            if unreadable is None:
                raise
            got = err
        finally:
            if collecting:
                gc.enable()
        batch.others.extend([None] * (j - k) if isinstance(got, UnreadableEvent) else got)
        per_game.append((lo, hi, k, got))
    if prepare is not None:
        prepare(batch, names)
    return _games(names, batch, (seqs, codes, ats), per_game, unreadable)


def _int_columns(rows: list[Any]) -> tuple[tuple[np.ndarray, ...], tuple[list[Any], ...]] | None:
    """The four columns of :data:`COLUMNS`'s ``rows`` as int64 arrays (and a mask of the
    rows without a time), and as lists (a time None where there is none); None when one of
    them holds a value that is not an integer, or a time below 0 (the batch is then read as
    rows)."""
    if not rows:
        empty = np.zeros(0, np.int64)
        return (empty, empty, empty, empty, np.zeros(0, bool)), ([], [], [], [])
    table = np.array(rows)  # int64 when every value is an integer, else another kind
    if table.dtype.kind != "i" or table.ndim != 2:
        return None
    keys, seqs, codes, ats = (np.ascontiguousarray(table[:, i], np.int64) for i in range(4))
    null = ats == NO_TIME
    if bool((ats[~null] < 0).any()):
        return None
    at_list = ats.tolist()
    if null.any():
        for i in np.flatnonzero(null).tolist():
            at_list[i] = None
        ats[null] = 0
    return (keys, seqs, codes, ats, null), (keys.tolist(), seqs.tolist(), codes.tolist(),
                                            at_list)


def _games(names: dict[int, str], batch: StoredBatch,
           lists: tuple[list[Any], list[Any], list[Any]],
           per_game: list[tuple[int, int, int, list[Event] | UnreadableEvent]],
           unreadable: Callable[[UnreadableEvent], None] | None) -> Iterator[StoredGame]:
    seqs, codes, ats = lists
    for lo, hi, first, events in per_game:
        if isinstance(events, UnreadableEvent):
            assert unreadable is not None
            unreadable(events)
            continue
        gid = names[int(batch.keys[lo])]
        collecting = gc.isenabled()
        gc.disable()  # (as above)
        fold: GameFold | None = None
        error: FoldError | None = None
        try:
            fold = fold_game_columns(gid, seqs, codes, ats, lo, hi, events)
        except FoldError as err:
            error = err
        except UnreadableEvent as err:
            if unreadable is None:
                raise
            unreadable(err)
            continue
        finally:
            if collecting:
                gc.enable()
        yield StoredGame(gid, batch, lo, hi, first, events, fold, error)
