"""A score sheet typed from paper (CSV: round, a score per side, optionally the running
totals), read line by line; every problem names its file, line and column."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from jaslog.errors import JaslogError
from jaslog.events import MOST_POINTS, MOST_ROUNDS


class SheetError(JaslogError, ValueError):
    """A typed sheet that cannot be read; the message names the file and line and says what
    was expected there."""

    code = "bad_sheet"


@dataclass(frozen=True)
class SheetLine:
    """One row of a typed sheet: its line in the file, the round as the sheet numbers it,
    each side's score and (when written) the running totals."""

    line: int
    round: int
    scores: list[int]
    totals: list[int] | None


#: First words of a header cell that names the running totals (English and Dutch).
TOTAL_WORDS = ("total", "totaal", "tot.", "stand", "running", "cum", "som", "sum")
#: The most a typed sheet may hold, in bytes: a line per round is a few kilobytes; reading
#: stops here, so a file that never ends (``/dev/zero``) is refused, not read for ever.
MAX_SHEET = 1 << 20
#: The largest running total a sheet may write: every round of the longest game a log may hold
#: at the most a round may score (the event format's bounds, ``jaslog.events``).
MOST_TOTAL = MOST_POINTS * MOST_ROUNDS
#: What a score cell may say for a side that scores nothing (a nat side).
ZERO_WORDS = ("-", "–", "nat", "0")


def _number(cell: str) -> int | None:
    text = cell.strip().replace(" ", "")
    if text.lower() in ZERO_WORDS:
        return 0
    if text.isascii() and text.isdigit() and len(text) > 18:  # past every bound; not parsed
        return 10**18
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value >= 0 else None


def read_sheet(text: str, source: str, sides: int, side_word: str = "team") -> list[SheetLine]:
    """The rows of a sheet typed from paper: CSV with a header, separated by ``,`` ``;`` or
    tabs; the round first, then one score per side (``sides``), then optionally the running
    totals (columns whose header starts with total, totaal, stand... else the last
    ``sides`` columns when there are twice as many). A score of ``-`` or ``nat`` is 0.
    Raises :class:`SheetError` naming the line and what was expected.

    >>> first, second = read_sheet("ronde;wij;zij;totaal wij;totaal zij\\n1;38;124;38;124\\n"
    ...                            "2;nat;182;;\\n", "s.csv", 2)
    >>> first
    SheetLine(line=2, round=1, scores=[38, 124], totals=[38, 124])
    >>> second.scores, second.totals
    ([0, 182], None)
    """
    text = text.removeprefix("\ufeff")
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    delimiter = ";" if ";" in first else "\t" if "\t" in first else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    layout = (f"the round, then {sides} scores (one per {side_word}), then optionally "
              f"{sides} running totals")
    header: list[str] | None = None
    score_cols: list[int] = []
    total_cols: list[int] = []
    out: list[SheetLine] = []
    try:
        for cells in reader:
            n = reader.line_num
            cells = [c.strip() for c in cells]
            while cells and not cells[-1]:
                cells.pop()
            if not cells:
                continue
            if header is None:
                header = cells
                score_cols, total_cols = _columns(header, source, n, sides, layout)
                continue
            out.append(_row(cells, header, score_cols, total_cols, source, n, side_word))
    except csv.Error as e:
        raise SheetError(f"{source}:{reader.line_num}: not CSV: {e}") from None
    if header is None:
        raise SheetError(f"{source}: the sheet is empty: expected a header ({layout}) and a "
                         "line per round")
    if not out:
        raise SheetError(f"{source}: no rounds under the header: expected a line per round "
                         f"({layout})")
    return out


def _columns(header: list[str], source: str, n: int, sides: int,
             layout: str) -> tuple[list[int], list[int]]:
    """The score columns and the running totals' columns of a header."""
    if all(_number(c) is not None for c in header):
        raise SheetError(f"{source}:{n}: expected a header line ({layout}), found only "
                         f"numbers: {', '.join(header)}")
    rest = range(1, len(header))
    totals = [i for i in rest if header[i].lower().startswith(TOTAL_WORDS)]
    scores = [i for i in rest if i not in totals]
    if not totals and len(header) == 1 + 2 * sides:
        scores, totals = list(range(1, 1 + sides)), list(range(1 + sides, 1 + 2 * sides))
    if len(scores) != sides or len(totals) not in (0, sides):
        raise SheetError(
            f"{source}:{n}: the header has {len(header)} columns ({', '.join(header)}); "
            f"expected {layout}: {1 + sides} or {1 + 2 * sides} columns")
    return scores, totals


def _shown(cell: str) -> str:
    """A cell as a message quotes it: the cell, or what a long one is.

    >>> _shown("12"), _shown("9" * 30), _shown("x" * 30)
    ("'12'", 'a number of 30 digits', "'xxxxxxxxxxxxxxxxxxxx...' (30 characters)")
    """
    if len(cell) <= 24:
        return repr(cell)
    if cell.lstrip("+-").isdigit():
        return f"a number of {len(cell.lstrip('+-'))} digits"
    return f"{cell[:20]!r}"[:-1] + f"...' ({len(cell)} characters)"


def _row(cells: list[str], header: list[str], score_cols: list[int], total_cols: list[int],
         source: str, n: int, side_word: str) -> SheetLine:
    if len(cells) > len(header):
        raise SheetError(f"{source}:{n}: {len(cells)} cells, but the header has "
                         f"{len(header)} columns")
    cells = cells + [""] * (len(header) - len(cells))
    try:
        number = int(cells[0])
    except ValueError:
        raise SheetError(f"{source}:{n}: the round (column 1) is {_shown(cells[0])}, not a "
                         "round number") from None
    if abs(number) > MOST_ROUNDS:
        raise SheetError(f"{source}:{n}: the round (column 1) is {_shown(cells[0])}, past the "
                         f"last round a game may have ({MOST_ROUNDS})")
    scores = []
    for side, col in enumerate(score_cols):
        value = _number(cells[col])
        if value is None:
            what = f"{_shown(cells[col])}, not a score (a whole number, or - for none)" \
                if cells[col] else "empty: expected a score (a whole number, or - for none)"
            raise SheetError(f"{source}:{n}: {side_word} {side}'s score (column {col + 1}, "
                             f"{header[col]}) is {what}")
        if value > MOST_POINTS:
            raise SheetError(f"{source}:{n}: {side_word} {side}'s score (column {col + 1}, "
                             f"{header[col]}) is {_shown(cells[col])}, more than a round can "
                             f"score (at most {MOST_POINTS})")
        scores.append(value)
    totals: list[int] | None = None
    if total_cols and any(cells[c] for c in total_cols):
        totals = []
        for side, col in enumerate(total_cols):
            value = _number(cells[col]) if cells[col] else None
            if value is None:
                what = f"{_shown(cells[col])}, not a whole number" if cells[col] else \
                    "empty: write every running total of a line, or none"
                raise SheetError(f"{source}:{n}: {side_word} {side}'s running total (column "
                                 f"{col + 1}, {header[col]}) is {what}")
            if value > MOST_TOTAL:
                raise SheetError(f"{source}:{n}: {side_word} {side}'s running total (column "
                                 f"{col + 1}, {header[col]}) is {_shown(cells[col])}, more than "
                                 f"a game can total (at most {MOST_TOTAL})")
            totals.append(value)
    return SheetLine(n, number, scores, totals)
