"""Tables built a column at a time, for the games whose rules allow it.

A game's ``export`` adapter may declare ``columnar(ctx)``: for a folded game it can build a
column at a time, the :class:`ColumnarGame` (its options as numbers, and the
:class:`Verdicts` the rules gave); for any other game, None (that game's rows are built by
the row builder, :func:`jaslog.export.rows.build_game`). The adapter's ``build`` then leaves
the tables the columns hold (``ColumnarGame.tables``) to ``build_columns(events, games)``,
which builds them for every such game of a chunk's partition at once, with numpy and
pyarrow, from that partition's ``events`` table (seq, type, round, seat, card, points,
times: a row per event, in seq order) and the verdicts.

The verdicts are what only the rules can say: for each round, the trump suit, the seat that
chose it and whether the hands are known (its plays are judged); for each illegal play, the
rule it broke. :func:`game_verdicts` is the one function that gives them: today it reads the
fold the export makes of every game; a store that keeps each round's facts beside the
events can give them without a fold.

:func:`partition_tables` turns a partition's rows into its Arrow tables, the columnar
games' rows merged with the row builder's in the order the games were built (each game's
rows together, as the row builder writes them), so the files are the same whichever way a
game's rows were made (``tests/export/test_columnar.py`` checks every value).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from jaslog.export.schema import GAME_TABLES

if TYPE_CHECKING:
    from jaslog.export.rows import GameContext, Rows


@dataclass(slots=True)
class Verdicts:
    """What the rules judged in one game, by round in order (1, 2...): the trump suit (0-3,
    -1: none), the seat that chose it (-1: none), whether the hands are known; and by seq,
    the rule each illegal play broke."""

    trump: list[int] = field(default_factory=list)
    chooser: list[int] = field(default_factory=list)
    known: list[bool] = field(default_factory=list)
    rules: dict[int, str] = field(default_factory=dict)


def game_verdicts(ctx: GameContext) -> Verdicts:
    """The verdicts of a folded game (the one place the columnar tables learn what the rules
    judged): each round's trump, chooser and whether its hands are known, and the rule each
    illegal play broke.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("g", "amsterdam", seed=2)[:80])
    >>> v = game_verdicts(_Ctx(f))  # (a stand-in for the export's context: the fold alone)
    >>> len(v.trump) == len(f.state.rounds), all(v.known), v.rules
    (True, True, {})
    """
    g = ctx.fold.state
    out = Verdicts()
    for r in g.rounds:
        trump, chooser = getattr(r, "trump", None), getattr(r, "chooser", None)
        out.trump.append(-1 if trump is None else trump)
        out.chooser.append(-1 if chooser is None else chooser)
        out.known.append(bool(r.hands_known))
    for v in g.violations:
        if v.card is not None:
            out.rules[v.seq] = v.rule
    return out


@dataclass(slots=True)
class _Ctx:
    """The part of :class:`~jaslog.export.rows.GameContext` :func:`game_verdicts` reads."""

    fold: Any


@dataclass(slots=True)
class ColumnarGame:
    """A game whose ``tables`` are built a column at a time: its id, its events' rows in the
    partition's ``events`` table (``start``, ``size``), the player ids by seat, its options
    as the game's builder reads them, and its verdicts."""

    game: str
    tables: tuple[str, ...]
    build: Callable[[pa.Table, list[ColumnarGame]], dict[str, pa.Table]]
    seats: Sequence[str]
    options: Any
    verdicts: Verdicts
    start: int = 0
    size: int = 0


class ValueBeyondColumn(Exception):
    """A value a table's column cannot hold (``table``: which; ``error``: Arrow's words)."""

    def __init__(self, table: str, error: Exception) -> None:
        super().__init__(f"{table}: {error}")
        self.table, self.error = table, error


def partition_tables(rows: Rows, games: list[ColumnarGame]) -> dict[str, pa.Table]:
    """The Arrow tables of a partition's rows (every game table, empty ones left out), the
    tables of the ``games`` built a column at a time and merged in game order.
    :class:`ValueBeyondColumn` for a value a column cannot hold."""
    out: dict[str, pa.Table] = {}
    for table in GAME_TABLES:
        cols = rows[table]
        if len(cols):
            try:
                out[table] = cols.to_table()
            except (pa.ArrowInvalid, OverflowError) as e:
                raise ValueBeyondColumn(table, e) from None
    if not games:
        return out
    events = out["events"]
    by_builder: dict[Any, list[ColumnarGame]] = {}
    for g in games:
        by_builder.setdefault(g.build, []).append(g)
    built: dict[str, list[pa.Table]] = {}
    for build, group in by_builder.items():
        for table, t in build(events, group).items():
            built.setdefault(table, []).append(t)
    order = rows["games"]["game"]  # the games in the order they were built
    for table, parts in built.items():
        mine = [t for t in parts if t.num_rows]
        if not mine:
            continue
        if table in out:
            mine.append(out[table])
        t = pa.concat_tables(mine) if len(mine) > 1 else mine[0]
        if len(mine) > 1:
            rank = pc.index_in(t.column("game"), value_set=pa.array(order, pa.string()))
            t = t.take(pc.sort_indices(rank))  # stable: each game's rows stay in their order
        out[table] = t.combine_chunks()
    return out


# ------------------------------------------------------------------ helpers for builders


def np_of(a: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow array as numpy (a copy where Arrow's layout needs one)."""
    return np.asarray(a.to_numpy(zero_copy_only=False))


#: The numpy type of the values of each fixed-width type the builders make by :func:`arrow`.
_NUMPY: dict[pa.DataType, Any] = {pa.int8(): np.int8, pa.int16(): np.int16,
                                  pa.int32(): np.int32, pa.int64(): np.int64}


def arrow(values: np.ndarray, type_: pa.DataType, null: np.ndarray | None = None) -> pa.Array:
    """``values`` as an Arrow array of ``type_``, NULL where ``null`` (a value beyond the
    type, not NULL: Arrow's error).

    Booleans, integers and timestamps are made from numpy's buffers (the validity bits packed
    by numpy: much cheaper than Arrow's conversion of a mask), an integer going to a narrower
    type when every value not NULL fits; anything else by ``pa.array``.

    >>> arrow(np.array([3, 300, -1]), pa.int16(), np.array([False, False, True])).to_pylist()
    [3, 300, None]
    """
    mask = null if null is not None and null.any() else None
    kind = values.dtype.kind
    if pa.types.is_boolean(type_) and kind == "b":
        data = np.packbits(values, bitorder="little")
    else:
        timestamp = pa.types.is_timestamp(type_)
        numpy_type = np.int64 if timestamp else _NUMPY.get(type_)
        if numpy_type is None or kind not in "iu" or (timestamp and values.dtype != np.int64):
            return pa.array(values, type_, mask=mask)
        fits = values if mask is None else np.where(mask, 0, values)
        if values.dtype != numpy_type:
            bounds = np.iinfo(numpy_type)
            if len(fits) and not (bounds.min <= int(fits.min())
                                  and int(fits.max()) <= bounds.max):
                return pa.array(values, type_, mask=mask)  # (which says what does not fit)
        data = np.ascontiguousarray(fits, numpy_type)
    n = len(values)
    if mask is None:
        return pa.Array.from_buffers(type_, n, [None, pa.py_buffer(data)], null_count=0)
    return pa.Array.from_buffers(
        type_, n, [pa.py_buffer(np.packbits(~mask, bitorder="little")), pa.py_buffer(data)],
        null_count=int(np.count_nonzero(mask)))


def lookup(values: pa.Array, index: np.ndarray) -> pa.Array:
    """``values`` taken by ``index`` (negative: NULL)."""
    return values.take(arrow(index, pa.int64(), index < 0))


def rows_of(events: pa.Table, games: Sequence[ColumnarGame], columns: Sequence[str]
            ) -> tuple[pa.Table, np.ndarray]:
    """The ``columns`` of the rows of ``games`` in a partition's ``events`` table, and the
    game (index into ``games``) of each."""
    sizes = np.array([g.size for g in games], np.int64)
    starts = np.array([g.start for g in games], np.int64)
    ev = events.select(list(columns))
    if len(games) == 1 or bool((starts[1:] == starts[:-1] + sizes[:-1]).all()):
        ev = ev.slice(int(starts[0]), int(sizes.sum()))  # one run of rows: no copy
    else:
        at = np.repeat(starts - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes) \
            + np.arange(int(sizes.sum()))
        ev = ev.take(pa.array(at, pa.int64()))
    return ev, np.repeat(np.arange(len(games)), sizes)
