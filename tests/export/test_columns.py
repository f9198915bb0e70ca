"""A chunk's rows held in Python (:mod:`jaslog.export.columns`): the checks of
:meth:`Columns.fill_game` still made once a column's list was handed out, and the rows of
one table added in runs (:meth:`EventsColumns.add_table`) as they were added."""

from __future__ import annotations

import pyarrow as pa
import pytest

from jaslog.export.columns import Columns, EventsColumns
from jaslog.export.schema import COLUMNS, SCHEMAS


def _row(table: str) -> tuple[None, ...]:
    return (None,) * (len(COLUMNS[table]) - 1)


def test_rows_added_whole_fill_their_game() -> None:
    cols = Columns("violations")
    cols.add(_row("violations"))
    cols.add(_row("violations"))
    cols.fill_game("g-1")
    cols.fill_game("g-2")  # (nothing added since: nothing filled)
    cols.add(_row("violations"))
    cols.fill_game("g-3")
    assert cols.lists[0] == ["g-1", "g-1", "g-3"]
    assert not cols.handed


def test_rows_added_both_ways_are_refused() -> None:
    cols = Columns("violations")
    cols.add(_row("violations"))
    cols["seq"].append(3)
    with pytest.raises(AssertionError, match="both whole and by column"):
        cols.fill_game("g")


def test_columns_of_unequal_length_are_refused() -> None:
    cols = Columns("events")
    seq, kind = cols.get("seq", "type")
    seq.extend([0, 1])
    kind.append("dealt")
    with pytest.raises(AssertionError, match="unequal length"):
        cols.fill_game("g")


def test_runs_of_tables_keep_the_order_they_were_added_in() -> None:
    def table(game: str, n: int) -> pa.Table:
        return pa.Table.from_pylist([{"game": game, "seq": i} for i in range(n)],
                                    schema=SCHEMAS["events"])

    a, b = table("a", 5), table("b", 4)
    ev = EventsColumns()
    ev.add_table(a, 0, 2)
    ev.add_table(a, 2, 1)       # follows: one run of a
    ev.add_table(b, 1, 2)       # another table
    ev.add_table(a, 4, 1)       # a again, but not after its last rows
    ev.add_table(b, 3, 1)
    ev.add_table(a)             # all of a
    assert len(ev) == 3 + 2 + 1 + 1 + 5
    assert len(ev.segments) == 5
    got = ev.to_table()
    assert got.num_rows == len(ev) and got.column("seq").num_chunks == 1
    assert list(zip(got.column("game").to_pylist(), got.column("seq").to_pylist(),
                    strict=True)) == [("a", 0), ("a", 1), ("a", 2), ("b", 1), ("b", 2),
                                      ("a", 4), ("b", 3), *(("a", i) for i in range(5))]
