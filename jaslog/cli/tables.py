"""Tables that fit the terminal without cutting a value: two policies, for two kinds of
output.

* :func:`print_fitted`, for listings (games, tokens) whose values a reader copies into the
  next command: columns are kept in priority order while they fit whole, the rest are left
  out and the table says so.
* :func:`fit_table`, for answers (statistics) where no column may be left out: the table is
  compacted, its text broken where words allow, turned, or laid out row by row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from jaslog.cli.common import console


def print_fitted(cells: list[dict[str, str]], priority: tuple[str, ...], *,
                 right: tuple[str, ...] = (), wrap: str | None = None) -> None:
    """Print ``cells`` (rows of column -> text, in display order) as a table that fits the
    terminal without cutting a value: columns are taken in ``priority`` order while they fit
    whole and the others are left out (said below the table). The first column of
    ``priority`` is always shown (folded onto more lines if wider than the terminal); the
    ``wrap`` column (free text) may instead take the room that is left, wrapped at spaces,
    when that is at least 16 columns. Every value is printed literally (never as markup)."""
    from rich.cells import cell_len

    cols = list(cells[0])
    full = {c: max(cell_len(c), *(cell_len(r[c]) for r in cells)) for c in cols}
    shown: dict[str, int] = {}
    used = -2  # columns are 2 apart
    for col in priority:
        room = console.width - used - 2
        if full[col] <= room or col == priority[0]:
            shown[col] = min(full[col], max(room, 1))
        elif col == wrap and room >= 16:
            shown[col] = room
        else:
            continue
        used += 2 + shown[col]
    tab = Table(box=None, pad_edge=False)
    order = [c for c in cols if c in shown]
    for col in order:  # the first column is folded onto the next line if need be, never cut
        first, wrapped = col == priority[0], col == wrap and shown[col] < full[col]
        tab.add_column(Text(col), no_wrap=not (first or wrapped), overflow="fold" if first else "ellipsis",
                       justify="right" if col in right else "left",
                       max_width=shown[col] if wrapped else None)
    for r in cells:
        tab.add_row(*(Text(r[c]) for c in order))
    console.print(tab)
    hidden = [c for c in cols if c not in shown]
    if hidden:
        console.print(f"({', '.join(hidden)} left out for the terminal's width; --json has "
                      "every field)", style="dim", highlight=False)


#: Where a text cell may break: after _ / , or a space, and after a hyphen that follows a
#: letter (klaverjas-online-501, never a date such as 2026-01-05).
_BREAK = re.compile(r"(?<=[_/, ])|(?<=[^\W\d_]-)")


def _pack(text: str, width: int) -> str:
    """``text`` with line breaks where it may break, so that no line is wider than ``width``
    (a piece wider than that stays whole)."""
    lines = []
    for para in text.split("\n"):
        line = ""
        for piece in (p for p in _BREAK.split(para) if p):
            if line and cell_len((line + piece).rstrip()) > width:
                lines.append(line.rstrip())
                line = piece
            else:
                line += piece
        lines.append(line.rstrip())
    return "\n".join(lines)


def _widest(texts: Sequence[str]) -> int:
    return max((cell_len(line) for t in texts for line in t.split("\n")), default=0)


def _narrowest(texts: Sequence[str]) -> int:
    return max((cell_len(p.rstrip()) for t in texts for p in _BREAK.split(t)), default=0)


class _Layout:
    """Builds and measures the tables :func:`fit_table` tries."""

    def __init__(self, numeric: Sequence[bool], width: int, title: str | None,
                 caption: str | None, out: Console) -> None:
        self.numeric, self.width, self.title, self.caption, self.out = (
            list(numeric), width, title, caption, out)
        self.natural = out.options.update(width=1_000_000)

    def build(self, heads: Sequence[str], cells: Sequence[Sequence[str]], pad: int | None,
              right: Sequence[bool] | None = None, dressed: bool = True) -> Table:
        """pad None: the usual boxed table; else compact, ``pad`` spaces around the cells."""
        style: dict[str, Any] = {} if pad is None else dict(
            box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True,
            padding=(0, pad))
        t = Table(title=self.title if dressed else None, caption=self.caption if dressed else None,
                  title_justify="left", caption_justify="left", **style)
        for h, num in zip(heads, self.numeric if right is None else right, strict=True):
            t.add_column(Text(h), justify="right" if num else "left", overflow="fold")
        for r in cells:  # a value (a player id, a text the query made) is never markup
            t.add_row(*(Text(c) for c in r))
        return t

    def over(self, heads: Sequence[str], cells: Sequence[Sequence[str]], pad: int | None,
             right: Sequence[bool] | None = None) -> int:
        """How many columns wider than the width the table is (its title and caption wrap)."""
        bare = self.build(heads, cells, pad, right, dressed=False)
        return self.out.measure(bare, options=self.natural).maximum - self.width

    def narrowed(self, columns: Sequence[str], rows: Sequence[Sequence[str]],
                 pad: int) -> Table | None:
        """Compact, long names broken after their underscores, then the widest text column
        broken where it may break, until the table fits; None if whole words do not fit."""
        values = [[r[i] for r in rows] for i in range(len(columns))]
        heads = [_pack(h, max(_widest(v), _narrowest([h])))
                 for h, v in zip(columns, values, strict=True)]
        cells = [list(r) for r in rows]
        least = [_narrowest([columns[i], *values[i]]) for i in range(len(columns))]
        while (excess := self.over(heads, cells, pad)) > 0:
            now = [_widest([heads[i], *(r[i] for r in cells)]) for i in range(len(columns))]
            can = [i for i in range(len(columns)) if not self.numeric[i] and least[i] < now[i]]
            if not can:
                return None
            i = max(can, key=lambda k: now[k])
            target = max(least[i], now[i] - excess)
            heads[i] = _pack(columns[i], target)
            for r, v in zip(cells, values[i], strict=True):
                r[i] = _pack(v, target)
        return self.build(heads, cells, pad)

    def records(self, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
        """One block of ``column value`` lines per row: fits any width but the longest values."""
        t = Table(title=self.title, caption=self.caption, title_justify="left",
                  caption_justify="left", show_header=False, box=box.SIMPLE, show_edge=False,
                  pad_edge=False)
        t.add_column(overflow="fold", style="bold")
        t.add_column(overflow="fold")
        for r in rows:
            for k, (c, v) in enumerate(zip(columns, r, strict=True)):
                t.add_row(Text(c), Text(v), end_section=k == len(columns) - 1)
        return t


def fit_table(columns: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool],
              width: int, *, title: str | None = None, caption: str | None = None,
              out: Console | None = None) -> Table:
    """A table of these cells that fits ``width`` columns without cutting a word, trying in
    turn: the usual boxed table; compact (no outer border, narrow gaps) with long column
    names broken after their underscores and, widest first, text cells broken after ``_ / ,``,
    a space or a hyphen after a letter; the same turned (one column per row, for a few wide
    rows); one block of ``column value`` lines per row. Numbers and dates are never broken."""
    lay = _Layout(numeric, width, title, caption, out or console)
    if lay.over(columns, rows, None) <= 0:
        return lay.build(columns, rows, None)
    for pad in (1, 0):
        table = lay.narrowed(columns, rows, pad)
        if table is not None:
            return table
    turned = _turned(columns, rows, numeric)
    if turned is not None:
        heads, cells = turned
        flip = _Layout([False] + [True] * (len(heads) - 1), width, title, caption, lay.out)
        for pad in (1, 0):
            table = flip.narrowed(heads, cells, pad)
            if table is not None:
                return table
    return lay.records(columns, rows)


def _turned(columns: Sequence[str], rows: Sequence[Sequence[str]],
            numeric: Sequence[bool]) -> tuple[list[str], list[list[str]]] | None:
    """The table turned: one column per row (headed by its text cells), one row per numeric
    column; None when there is nothing to turn."""
    nums = [i for i, n in enumerate(numeric) if n]
    labels = [i for i, n in enumerate(numeric) if not n]
    if not nums or not rows:
        return None
    heads = [" / ".join(columns[i] for i in labels)]
    heads += [" / ".join(r[i] for i in labels) if labels else str(k)
              for k, r in enumerate(rows, 1)]
    return heads, [[columns[i], *(r[i] for r in rows)] for i in nums]


#: what stands for the columns a folded table leaves out
ELIDED = "…"


def folded_table(columns: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool],
                 width: int, *, out: Console | None = None) -> tuple[Table, int]:
    """A query's answer as DuckDB's shell draws one too wide for the terminal: the boxed
    table, or compact with long words broken (as :func:`fit_table`), else only the first and
    last columns that fit, a ``…`` column between them for the rest; and how many columns it
    shows (all of them, or fewer when folded)."""
    lay = _Layout(numeric, width, None, None, out or console)
    if lay.over(columns, rows, None) <= 0:
        return lay.build(columns, rows, None), len(columns)
    table = lay.narrowed(columns, rows, 1)
    if table is not None:
        return table, len(columns)
    order = []  # the first column, the last, the second, the one before the last...
    lo, hi = 0, len(columns) - 1
    while lo <= hi:
        order.append(lo)
        if hi != lo:
            order.append(hi)
        lo, hi = lo + 1, hi - 1
    shown: list[int] = []
    for i in order:
        keep = sorted([*shown, i])
        heads, cells, right = _fold(columns, rows, numeric, keep)
        if shown and _Layout(right, width, None, None, lay.out).over(heads, cells, 1) > 0:
            break
        shown = keep
    heads, cells, right = _fold(columns, rows, numeric, shown)
    return _Layout(right, width, None, None, lay.out).build(heads, cells, 1), len(shown)


def _fold(columns: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool],
          keep: list[int]) -> tuple[list[str], list[list[str]], list[bool]]:
    """The columns ``keep`` (in order), a ``…`` column where others are left out."""
    idx: list[int | None] = []
    for k, i in enumerate(keep):
        if k and i != keep[k - 1] + 1:
            idx.append(None)
        idx.append(i)
    if keep and keep[-1] != len(columns) - 1:
        idx.append(None)
    heads = [ELIDED if i is None else columns[i] for i in idx]
    cells = [[ELIDED if i is None else r[i] for i in idx] for r in rows]
    return heads, cells, [False if i is None else bool(numeric[i]) for i in idx]


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[str]],
                   numeric: Sequence[bool]) -> str:
    """The cells as a Markdown (GitHub) table: numbers right-aligned, ``|`` escaped.

    >>> print(markdown_table(["game", "points"], [["g|1", "12"]], [False, True]), end="")
    | game | points |
    |:--|--:|
    | g\\|1 | 12 |
    """
    def cell(v: str) -> str:
        return v.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(c) for c in columns) + " |",
             "|" + "|".join("--:" if n else ":--" for n in numeric) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def vertical_table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Each row as lines of ``column = value``, the names aligned, a blank line between
    rows: DuckDB's ``.mode line`` (psql's ``\\x``), for a row too wide for any table.

    >>> print(vertical_table(["game", "card_points"], [["g1", "11"], ["g2", "0"]]), end="")
           game = g1
    card_points = 11
    <BLANKLINE>
           game = g2
    card_points = 0
    """
    w = max((len(c) for c in columns), default=0)
    return "\n".join("".join(f"{c:>{w}} = {v}\n" for c, v in zip(columns, r, strict=True))
                     for r in rows)
