"""The stored events of a SQLite store as the export reads them: Arrow columns from one cursor.

For a SQLite store, when the ADBC SQLite driver (``adbc-driver-sqlite``) is installed, the
export reads each batch of games with one statement whose result comes as Arrow columns
(:func:`stored_games`): no Python value per field is made by the fetch. From those columns:

* the fold still gets every game's events (:class:`StoredGame`, a list of them): a plain play
  (the play's typed columns alone: nine rows in ten) as a
  :class:`~jaslog.events.fast.FastPlay`, every other row read as the store reads it
  (:func:`jaslog.store.bulk_read.games_of_rows`, the same loop as ``Store.iter_games``);
* the ``events`` table's rows of the plain plays are not made one by one: they are taken a
  column at a time from the fetched columns (:func:`events_table`), and only the other rows
  (a deal, a bid, a ruling...) come from the events the fold read
  (:func:`jaslog.export.rows.build_game`), merged into their places by position.

The rows are the ones :func:`jaslog.export.rows.build_game` writes for the same events, value
for value (``tests/export/test_fetch.py`` compares every file). A PostgreSQL store, an
in-memory SQLite store or a machine without the driver reads the games as before
(``Store.iter_games``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlalchemy.engine import Connection

from jaslog.events import VERSION
from jaslog.export.schema import SCHEMAS, TS
from jaslog.store import engine as eng
from jaslog.store.bulk_read import games_of_rows
from jaslog.store.codec import UnreadableEvent
from jaslog.store.compact import CARD_TEXT, SECONDS_MAX
from jaslog.store.rows import codec, events_of, game_keys

if TYPE_CHECKING:
    from jaslog.store import Store

#: The columns fetched, in the order :func:`jaslog.store.bulk_read.games_of_rows` reads a row.
#: The two blob columns come as an empty blob for NULL: the driver types a column by its first
#: rows, and a blob column whose first rows are all NULL would be typed as integers.
FETCH_SQL = ("SELECT game, seq, kind, version, CAST(ifnull(event_id, x'') AS BLOB), at, "
             "recorded_at, seat, card, CAST(ifnull(rest, x'') AS BLOB) FROM events "
             "WHERE game IN ({keys}) AND pos <= {until} ORDER BY game, seq")
_CARD = pa.array(CARD_TEXT, pa.string())


def driver() -> Any:
    """The ADBC SQLite driver's DB-API module, or None when it is not installed."""
    try:
        import adbc_driver_sqlite.dbapi as adbc  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return adbc


def store_file(store: Store) -> Path | None:
    """The file of a SQLite store whose events :func:`stored_games` can fetch (None: another
    database, an in-memory store, or no driver)."""
    url = store.url
    if store.dialect != "sqlite" or not url.startswith("sqlite:///") or not store.workers_ok() \
            or driver() is None:
        return None
    path = Path(url[len("sqlite:///"):].split("?", 1)[0])
    return path if path.is_file() else None


@dataclass(slots=True)
class Fetched:
    """A batch of games' rows as fetched (``table``: the columns of :data:`FETCH_SQL`, in
    (game, seq) order), and which of them are plain plays (``plain``): a play held in its
    typed columns alone, of the current format, its time (if any) in whole seconds. Their
    ``events`` rows are built from these columns (:func:`events_table`)."""

    table: pa.Table
    plain: np.ndarray


class StoredGame(list[Any]):
    """A game's events in seq order, read from ``fetched``'s rows ``start`` to
    ``start + size`` (the same rows, in the same order)."""

    __slots__ = ("fetched", "size", "start")

    def __init__(self, events: list[Any], fetched: Fetched, start: int, size: int) -> None:
        super().__init__(events)
        self.fetched, self.start, self.size = fetched, start, size


def _np(a: pa.ChunkedArray | pa.Array, fill: int) -> np.ndarray:
    return np.asarray(a.fill_null(fill).to_numpy(), np.int64)


def plain_plays(table: pa.Table, play_kind: int | None) -> np.ndarray:
    """Which rows are plain plays (see :class:`Fetched`)."""
    n = table.num_rows
    if play_kind is None or n == 0:
        return np.zeros(n, bool)
    c = table.columns
    kind, version = _np(c[2], -1), _np(c[3], -1)
    eid, rest = (np.asarray(pc.binary_length(c[i]).fill_null(0).to_numpy(), np.int64)
                 for i in (4, 9))
    at, rec = _np(c[5], 0), np.asarray(c[6].is_null().to_numpy(zero_copy_only=False), bool)
    seat, card = _np(c[7], -1), _np(c[8], -1)
    return ((kind == play_kind) & (version == VERSION) & (eid == 0) & (rest == 0) & rec
            & (seat >= 0) & (seat <= 3) & (card >= 0) & (card <= 31)
            & (at >= 0) & (at <= SECONDS_MAX))


def stored_games(store: Store, path: Path, batches: Sequence[list[str]], until: int,
                 unreadable: Callable[[UnreadableEvent], None]) -> Iterator[StoredGame]:
    """The games of ``batches`` (lists of ids, in the store's order, as
    ``Store.game_id_batches`` gives them), each with its events up to ``until`` (a cursor),
    a batch at a time: one statement through the ADBC driver, read-only, its rows as Arrow
    columns. A game with an event that cannot be read is left out and given to
    ``unreadable``."""
    adbc = driver()
    try:
        with adbc.connect(path.resolve().as_uri() + "?mode=ro") as con, \
                eng.read_tx(store.engine) as conn:
            yield from _read(con, conn, batches, until, unreadable)
    except (adbc.Error, OSError) as e:  # the driver's own errors: said, not a traceback
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise eng.DatabaseError(f"cannot read the events of the store at {path} through the "
                                f"ADBC SQLite driver: {first}") from None


def _read(con: Any, conn: Connection, batches: Sequence[list[str]], until: int,
          unreadable: Callable[[UnreadableEvent], None]) -> Iterator[StoredGame]:
    """:func:`stored_games` through the driver's connection ``con``, the store's ``conn``."""
    c = codec(conn)
    play_kind = 1 if c.names.get(1) == "play" else None  # (as the store's bulk read has it)
    bad: dict[int, UnreadableEvent] = {}
    for ids in batches:
        keys = game_keys(conn, ids)
        if not keys:
            continue
        names = {k: gid for gid, k in keys.items()}
        with con.cursor() as cur:
            cur.execute(FETCH_SQL.format(keys=", ".join(str(int(k)) for k in sorted(names)),
                                         until=int(until)))
            table = cur.fetch_arrow_table()
        if not table.num_rows:
            continue
        fetched = Fetched(table, plain_plays(table, play_kind))
        cols = [table.column(i) for i in range(table.num_columns)]
        for i in (4, 9):  # the empty blob back to NULL
            cols[i] = pc.if_else(pc.equal(pc.binary_length(cols[i]), 0), None, cols[i])
        rows = list(zip(*(col.to_pylist() for col in cols), strict=True))
        game_col = _np(cols[0], -1)
        edges = np.flatnonzero(np.diff(game_col)) + 1
        starts = [0, *edges.tolist()]
        sizes = np.diff([*starts, len(rows)]).tolist()
        del cols

        def decode(key: int, others: list[Any], names: dict[int, str] = names
                   ) -> list[Any] | None:
            try:
                return events_of(conn, others, fast=True, game=names[key])
            except UnreadableEvent as e:
                bad[key] = e
                return None

        fetch = iter((rows, [])).__next__
        games = games_of_rows(fetch, names, VERSION, play_kind == 1, decode)
        for (key, events), start, size in zip(games, starts, sizes, strict=True):
            if events is None:
                unreadable(bad.pop(key))
                continue
            yield StoredGame(events, fetched, start, size)


# ------------------------------------------------------------------ the ``events`` rows


@dataclass(slots=True)
class Block:
    """One game's ``events`` rows to build from ``fetched`` (rows ``start`` to
    ``start + size``): the plain plays from its columns, the other rows from ``others`` (a
    list per column, in :data:`OTHER_COLUMNS` order, a value per row that is not a plain
    play) and ``after`` (for each of those rows, the round in play once it is read: the
    round of the plain plays that follow it). ``retracted``: the game's ``retracted`` and
    ``retracted_by`` for every row (None: no event of it was retracted)."""

    game: str
    fetched: Fetched
    start: int
    size: int
    others: list[list[Any]]
    after: list[int | None]
    retracted: tuple[list[bool], list[int | None]] | None = None
    #: every row's time as the event's text (the plain plays' in their canonical form)
    times: list[str | None] = field(default_factory=list)
    #: rows of the list-built games held before this block (where it goes among them)
    before: int = 0


#: The columns a block holds of its rows that are not plain plays.
OTHER_COLUMNS = ("type", "event_time", "round", "seat", "card", "call", "points", "id",
                 "payload")


def _merge(base: pa.Array, other: pa.Array, others: pa.Array) -> pa.Array:
    """``base`` with the rows where ``others`` is true replaced by ``other``'s values, in
    order."""
    if not len(other):
        return base
    return pc.replace_with_mask(base, others, other)


def events_table(blocks: Sequence[Block]) -> pa.Table:
    """The ``events`` rows of ``blocks`` (in order; all of one :class:`Fetched`)."""
    fetched = blocks[0].fetched
    t = fetched.table
    sizes = np.array([b.size for b in blocks], np.int64)
    starts = np.array([b.start for b in blocks], np.int64)
    n = int(sizes.sum())
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    idx = np.repeat(starts - first, sizes) + np.arange(n)
    take = pa.array(idx, pa.int64())
    plain = fetched.plain[idx]
    slot = np.cumsum(~plain) - 1
    not_plain = pa.array(~plain, pa.bool_())
    game_of = np.repeat(np.arange(len(blocks)), sizes)

    def other(i: int, type_: pa.DataType) -> pa.Array:
        return pa.array(list(chain.from_iterable(b.others[i] for b in blocks)), type_)

    types = [c.type for c in _COLUMNS]
    games = pa.array([b.game for b in blocks], pa.string()).take(pa.array(game_of, pa.int64()))
    seq = t.column(1).take(take).combine_chunks().cast(pa.int32())
    seat = t.column(7).take(take).combine_chunks()
    card_code = _np(t.column(8).take(take), 0)
    at = t.column(5).take(take).combine_chunks()
    at_np = _np(at, 0)
    at_null = np.asarray(at.is_null().to_numpy(zero_copy_only=False), bool)
    time = pa.array(at_np * 1_000_000, TS, mask=at_null if at_null.any() else None)
    card = _CARD.take(pa.array(card_code, pa.int64()))

    # the round of a plain play: the one in play after the last row before it that is not one
    after = np.array([-1 if a is None else a for b in blocks for a in b.after], np.int64)
    last_other = np.maximum.accumulate(np.where(~plain, np.arange(n), -1)) if n else slot
    in_game = last_other >= np.repeat(first, sizes)
    rnd = after[slot[np.maximum(last_other, 0)]] if len(after) else np.full(n, -1)
    rnd = np.where(in_game, rnd, -1)
    round_ = pa.array(rnd, pa.int16(), mask=rnd < 0)

    text = pa.array(list(chain.from_iterable(b.times for b in blocks)), pa.string())
    payload = pc.binary_join_element_wise(
        '{"game":"', games, '","seq":', seq.cast(pa.string()), ',"type":"play"',
        pc.binary_join_element_wise(',"at":"', text, '"', ""),
        ',"seat":', seat.cast(pa.string()), ',"card":"', card, '"}', "",
        null_handling="replace", null_replacement="")

    play = pa.array(["play"], pa.string()).take(pa.array(np.zeros(n, np.int64)))
    bases = {"type": play, "event_time": time, "round": round_, "seat": seat.cast(pa.int8()),
             "card": card, "payload": payload}
    cols: dict[str, pa.Array] = {"game": games, "seq": seq}
    for i, name in enumerate(OTHER_COLUMNS):
        type_ = types[_NAMES.index(name)]
        if name == "event_time":
            values = other(i, pa.string()).cast(TS)
        else:
            values = other(i, type_)
        base = bases.get(name)
        if base is None:
            base = pa.nulls(n, type_)
        cols[name] = _merge(base, values, not_plain)
    retracted = np.zeros(n, bool)
    retracted_by = np.zeros(n, np.int64)
    by_null = np.ones(n, bool)
    for b, at0 in zip(blocks, first.tolist(), strict=True):
        if b.retracted is not None:
            flags, by = b.retracted
            retracted[at0:at0 + b.size] = flags
            retracted_by[at0:at0 + b.size] = [0 if s is None else s for s in by]
            by_null[at0:at0 + b.size] = [s is None for s in by]
    cols["retracted"] = pa.array(retracted, pa.bool_())
    cols["retracted_by"] = pa.array(retracted_by, pa.int32(), mask=by_null)
    return pa.Table.from_arrays([cols[c] for c in _NAMES], schema=SCHEMAS["events"])


_COLUMNS = SCHEMAS["events"]
_NAMES = _COLUMNS.names
