"""Every game of a store folded through its rules, read column by column: the bulk fold of
every stored game as the commands read ``store:`` (``jaslog check store:``, ``analyze``, the
what-if) and the benchmark's replay (:meth:`jaslog.store.Store.fold_games`).

A SQLite store is read a batch of games at a time, with two statements that see the same
events (none past the store's position when the read began):

* every row's game, seq, time and a code SQLite works out: ``seat * 32 + card`` for a plain
  play (nine rows in ten: kind ``play`` of the current format, with no id, no
  ``recorded_at`` and nothing but its seat and card), -1 for any other row;
* the other rows whole (those not a bare play), through the store's own cursor, read into
  events as :meth:`~jaslog.store.Store.iter_games` reads them
  (:func:`jaslog.store.rows.events_of`).

The compiled :func:`jaslog.store.bulk_read.fold_game_columns` then folds each game, a plain
play handed to the fold as its seat and card (:meth:`jaslog.engine.fold.GameFold.apply_play`).
While a game is folded, Python's cycle collector is paused, as in the import and in
``check``'s reading of files: a game makes a few thousand objects (events, the fold's lists)
that hold no reference cycle, which the collector would otherwise walk again and again while
the game is folded; reference counting frees each game once its reader drops it.

A PostgreSQL store, a SQLite database in memory, or a batch the driver cannot read as
columns (a value of an odd type, stored behind the store's back; a bare play of another
format) is read as
:meth:`~jaslog.store.Store.iter_games` reads it: the same folds, the same errors.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy.engine import Connection, Engine

from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import VERSION
from jaslog.play.fold import start_fold
from jaslog.store import engine as eng
from jaslog.store.bulk_read import fold_game_columns
from jaslog.store.codec import UnreadableEvent
from jaslog.store.rows import codec, events_of, game_keys

#: What a fold of a stored game gives: its fold, or the error of the first event its rules
#: refuse (located by game and seq).
Folded = GameFold | FoldError

#: A row with nothing but its columns (SQL over ``events``): a play that may be plain. The
#: second statement reads every other row.
BARE = "kind = 1 AND event_id IS NULL AND recorded_at IS NULL AND rest IS NULL"
#: A plain play (SQL over ``events``): what :func:`jaslog.store.bulk_read.games_of_rows`
#: reads as one, with the current format's version in place of ``{version}``. A seat or a
#: card of another type than an integer (stored behind the store's back) is either not
#: between the bounds (text, a blob, NULL: the row's code is -1, which the second statement
#: does not read, so the batch is read as rows) or makes the code a float (a column not all
#: integers: the batch is read as rows).
PLAIN = BARE + (" AND version = {version} AND seat BETWEEN 0 AND 3 AND card BETWEEN 0 AND 31")

#: Games one batch reads with each statement at most (a batch's columns are held whole:
#: some 600 rows a game, a few MiB of Python integers).
BATCH_GAMES = 100


def sqlite_file(engine: Engine) -> str | None:
    """The file of a SQLite store's engine, or None (not SQLite, or a database in memory).

    >>> from sqlalchemy import create_engine
    >>> sqlite_file(create_engine("sqlite:////data/club.sqlite"))
    '/data/club.sqlite'
    >>> sqlite_file(create_engine("sqlite://")) is None
    True
    """
    if engine.dialect.name != "sqlite":
        return None
    path = engine.url.database
    return None if not path or path == ":memory:" else path


def fold_one(gid: str, events: Sequence[Any]) -> Folded:
    """A game's events folded (its first event starts the fold): the fold, or its error."""
    try:
        f = start_fold(events[0])
        for e in events[1:]:
            f.apply(e)
    except FoldError as err:
        return err
    return f


class ColumnReader:
    """The columns of one bulk fold's statements, read through the store's own connection.

    (Not through a second SQLite library, such as the ADBC driver's, which links its own
    copy: two copies of SQLite in one process undo each other's POSIX locks on the same
    file when either closes it, and another process may then reset the write-ahead log
    under a reader, or a writer, of this one: sqlite.org's "how to corrupt", 2.2.1.)"""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def columns(self, sql: str, params: Sequence[Any]) -> list[list[Any]] | None:
        """The columns of ``sql``'s rows as lists of Python values, or None when a column
        holds a value that is not an integer (stored behind the store's back: the batch is
        then read as rows)."""
        with eng.raw_cursor(self.conn) as cur:
            cur.execute(sql, list(params))
            rows = cur.fetchall()
        if not rows:
            return [[], [], [], []]
        cols = [list(c) for c in zip(*rows, strict=True)]
        for c in cols:
            for v in c:
                if type(v) is not int and v is not None:
                    return None
        return cols


def fold_batch(conn: Connection, reader: ColumnReader, ids: list[str], until: int,
               unreadable: Any) -> Iterator[tuple[str, Folded]] | None:
    """The games ``ids`` (in the store's order, ``games.pos`` ascending) folded from their
    events up to position ``until``; None when the columns cannot be read (the caller reads
    the batch as rows)."""
    keys = game_keys(conn, ids)
    order = sorted(keys[g] for g in ids if g in keys)
    if not order:
        return iter(())
    marks = ", ".join("?" * len(order))
    plain = PLAIN.format(version=int(VERSION))
    where = f"game IN ({marks}) AND pos <= ?"
    cols = reader.columns(
        f"SELECT game, seq, CASE WHEN {plain} THEN seat * 32 + card ELSE -1 END, at "
        f"FROM events WHERE {where} ORDER BY game, seq", (*order, until))
    if cols is None:
        return None
    with eng.raw_cursor(conn) as cur:
        cur.execute("SELECT game, seq, kind, version, event_id, at, recorded_at, seat, card, "
                    f"rest FROM events WHERE {where} AND NOT ({BARE}) ORDER BY game, seq",
                    (*order, until))
        rows = cur.fetchall()
    if cols[2].count(-1) != len(rows):  # a bare row that is not a plain play: read as rows
        return None
    return _fold_read(conn, {k: g for g, k in keys.items()}, cols, rows, unreadable)


def _fold_read(conn: Connection, names: dict[int, str], cols: list[list[Any]],
               rows: list[Any], unreadable: Any) -> Iterator[tuple[str, Folded]]:
    game_col, seqs, codes, ats = cols
    n = len(seqs)
    j = 0
    lo = 0
    while lo < n:
        key = game_col[lo]
        hi = lo + 1
        while hi < n and game_col[hi] == key:
            hi += 1
        others = []
        while j < len(rows) and rows[j][0] == key:
            others.append(rows[j][1:])
            j += 1
        gid = names[key]
        collecting = gc.isenabled()
        gc.disable()  # (see the module's note)
        try:
            events = events_of(conn, others, fast=True, game=gid)
            folded: Folded = fold_game_columns(gid, seqs, codes, ats, lo, hi, events)
        except FoldError as err:
            folded = err
        except UnreadableEvent as err:
            if unreadable is None:
                raise
            unreadable(err)
            lo = hi
            continue
        finally:
            if collecting:
                gc.enable()
        yield gid, folded
        lo = hi


def plays_coded(conn: Connection) -> bool:
    """Whether the store's event kind 1 is ``play`` (the code a plain play is read by)."""
    return codec(conn).names.get(1) == "play"
