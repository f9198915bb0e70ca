"""A chunk's rows of one table, held in Python until Arrow takes them (:class:`Columns`).

``events`` is built one list per column, a game's events a column at a time; ``plays`` (a
row per card) keeps a few values per card and the rest once per trick, spread by Arrow
(:mod:`jaslog.export.plays`); the tables with a row per trick, round, game, player or
violation take row tuples, transposed once per chunk. No row object per card or event is
made, and :meth:`Columns.to_table` makes each Arrow array from a Python list with the
schema's type. The ``game`` column of every table is filled by
:func:`jaslog.export.rows.build_game` once the game's rows are in
(:meth:`Columns.fill_game`), so the builders leave it out.

Lookup tables by card (0-31) are here too: text, suit and rank letters, and for each trump
suit whether a card is a trump and its card points (asked of the rules' ``card_points``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import pyarrow as pa
import pyarrow.compute as pc

from jaslog.cards import RANK_TEXT, SUIT_LETTERS, card_points
from jaslog.export.schema import COLUMNS, SCHEMAS, TS

#: By card: its suit letter, its rank text.
SUIT_OF: tuple[str, ...] = tuple(SUIT_LETTERS[c >> 3] for c in range(32))
RANK_OF: tuple[str, ...] = tuple(RANK_TEXT[c & 7] for c in range(32))
#: By card, for a round without a trump suit.
NO_TRUMP: tuple[None, ...] = (None,) * 32
#: By trump suit, then card: the card is a trump; its card points.
IS_TRUMP: tuple[tuple[bool, ...], ...] = tuple(tuple(c >> 3 == t for c in range(32)) for t in range(4))
POINTS: tuple[tuple[int, ...], ...] = tuple(tuple(card_points(c, t) for c in range(32))
                                            for t in range(4))
#: By number of players: the positions in a full trick; by leader, the seats in play order.
POSITIONS: dict[int, tuple[int, ...]] = {n: tuple(range(n)) for n in (2, 4)}
ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((lead + i) % n for i in range(n)) for lead in range(n)) for n in (2, 4)
}


class Columns:
    """The rows of one table (one chunk, one partition), held one of two ways.

    A table with many rows per game (``events``) is built as one list per column (``lists``),
    filled in bulk (``plays`` has a subclass of its own: :mod:`jaslog.export.plays`); a
    table with a row per trick, round, game, player or violation takes whole rows
    (:meth:`add`: a tuple of every column but ``game``), turned into columns by one
    transposition when the chunk goes to Arrow (cheaper than a Python call per value). One
    table uses one way only.
    """

    __slots__ = ("columnar", "handed", "lists", "names", "rows", "table")

    def __init__(self, table: str) -> None:
        self.table = table
        self.names = [c.name for c in COLUMNS[table]]
        self.lists: list[list[Any]] = [[] for _ in self.names]
        self.rows: list[tuple[Any, ...]] = []
        #: (``events``) the games of these rows whose other tables are built from them a
        #: column at a time (:class:`jaslog.export.columnar.ColumnarGame`)
        self.columnar: list[Any] = []
        #: whether a column's list was handed out (:meth:`__getitem__`): else every list but
        #: ``game`` is empty, and :meth:`fill_game` need not look at them
        self.handed = False

    def __getitem__(self, name: str) -> list[Any]:
        self.handed = True
        return self.lists[self.names.index(name)]

    def get(self, *names: str) -> list[list[Any]]:
        """The lists of ``names``, in that order (to bind them to locals once per game)."""
        return [self[n] for n in names]

    def __len__(self) -> int:
        """Rows held (complete rows: the game column is filled last)."""
        return len(self.lists[0])

    def add(self, row: tuple[Any, ...]) -> None:
        """One row: every column but ``game``, in schema order."""
        self.rows.append(row)

    def fill_game(self, gid: str) -> None:
        """Set ``game`` on the rows added since the last call, and check that every column
        has as many values as the others."""
        game = self.lists[0]
        if self.rows:
            n = len(self.rows)
            if self.handed and any(self.lists[1:]):
                raise AssertionError(f"{self.table}: rows added both whole and by column")
        elif not self.handed:
            return
        else:
            n = len(self.lists[1])
            if any(len(col) != n for col in self.lists[1:]):
                raise AssertionError(f"{self.table}: columns of unequal length " + str(
                    dict(zip(self.names[1:], map(len, self.lists[1:]), strict=True))))
        if n > len(game):
            game.extend([gid] * (n - len(game)))

    def to_table(self) -> pa.Table:
        """The rows as an Arrow table of the table's schema (times from RFC 3339 text)."""
        data: Sequence[Sequence[Any]] = self.lists
        if self.rows:
            if any(len(r) != len(self.names) - 1 for r in self.rows):
                raise AssertionError(f"{self.table}: a row without {len(self.names) - 1} values")
            data = [self.lists[0], *zip(*self.rows, strict=True)]
        arrays = []
        for c, values in zip(COLUMNS[self.table], data, strict=True):
            if c.type == TS:
                arrays.append(pa.array(values, pa.string()).cast(TS))
            else:
                arrays.append(pa.array(values, type=c.type))
        return pa.Table.from_arrays(arrays, schema=SCHEMAS[self.table])


class _Run(tuple[pa.Table, int, int]):
    """Rows of a table held by :class:`EventsColumns`: the table, the first row, how many."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"(..., {self[1]}, {self[2]})"


class EventsColumns(Columns):
    """The ``events`` rows of a chunk, one list per column, where a play the store read from
    its columns alone may leave its ``payload`` None (:func:`jaslog.export.rows.build_game`):
    its canonical bytes are then written here for all of them at once, by Arrow, from the
    row's own ``game``, ``seq``, ``event_time``, ``seat`` and ``card`` (such a play has no id
    and no ``recorded_at``, and its time is in its canonical text), as
    :func:`jaslog.events.fast.play_payload` writes them one by one."""

    __slots__ = ("held", "listed", "segments")

    def __init__(self, table: str = "events") -> None:
        super().__init__(table)
        #: runs of rows added as Arrow tables (:meth:`add_table`) and of the listed rows
        #: (from, to), in order
        self.segments: list[_Run | tuple[int, int]] = []
        self.held = 0      # rows in the tables of ``segments``
        self.listed = 0    # listed rows already in a run of ``segments``

    def __len__(self) -> int:
        return self.held + len(self.lists[0])

    def add_table(self, t: pa.Table, lo: int = 0, n: int | None = None) -> None:
        """A game's rows already built (of this table's schema, ``game`` filled): ``n`` rows
        of ``t`` from ``lo`` (all of them by default), after the rows held so far. Rows that
        follow the last ones added in the same table are held as one run of it.

        >>> t = pa.Table.from_pylist([{"game": "g", "seq": i} for i in range(6)],
        ...                          schema=SCHEMAS["events"])
        >>> ev = EventsColumns()
        >>> ev.add_table(t, 0, 2); ev.add_table(t, 2, 3)
        >>> len(ev), ev.segments
        (5, [(..., 0, 5)])
        >>> ev.to_table().column("seq").to_pylist()
        [0, 1, 2, 3, 4]
        """
        if n is None:
            n = t.num_rows - lo
        k = len(self.lists[0])
        if k > self.listed:
            self.segments.append((self.listed, k))
            self.listed = k
        last = self.segments[-1] if self.segments else None
        if type(last) is _Run and last[0] is t and last[1] + last[2] == lo:
            self.segments[-1] = _Run((t, last[1], last[2] + n))
        else:
            self.segments.append(_Run((t, lo, n)))
        self.held += n

    def to_table(self) -> pa.Table:
        if not self.segments:
            return self._listed_table()
        k = len(self.lists[0])
        listed = self._listed_table() if k else None
        if k > self.listed:
            self.segments.append((self.listed, k))
            self.listed = k
        parts = [seg[0].slice(seg[1], seg[2]) if type(seg) is _Run else
                 cast(pa.Table, listed).slice(seg[0], seg[1] - seg[0]) for seg in self.segments]
        return pa.concat_tables(parts).combine_chunks()

    def _listed_table(self) -> pa.Table:
        t = super().to_table()
        payload = t.column("payload")
        if not payload.null_count:
            return t
        at = pa.array(self["event_time"], pa.string())
        built = pc.binary_join_element_wise(
            '{"game":"', t.column("game"), '","seq":', t.column("seq").cast(pa.string()),
            ',"type":"play"', pc.binary_join_element_wise(',"at":"', at, '"', ""),
            ',"seat":', t.column("seat").cast(pa.string()), ',"card":"', t.column("card"),
            '"}', "", null_handling="replace", null_replacement="")
        at_payload = t.schema.get_field_index("payload")
        return t.set_column(at_payload, t.schema.field(at_payload),
                            pc.coalesce(payload, built))


def fill(col: list[Any], upto: int, value: Any) -> None:
    """Pad ``col`` with ``value`` up to ``upto`` values (a constant of the rows just added)."""
    n = upto - len(col)
    if n > 0:
        col.extend([value] * n)
