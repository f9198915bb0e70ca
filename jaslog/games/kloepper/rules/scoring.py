"""Kloepper deal scoring: the literal table of rule book 5.6, kept whole in configuration.

The table (option ``score_table``) has two parts. ``no_knock`` rows are named
``queens_<N>`` (the black-queen side made N card points or more), ``non_queens_<N>`` (the
other side made N or more) and ``queens_all_tricks`` / ``non_queens_all_tricks``; ``knock``
has ``knockers_all_tricks``, ``alone_knocker_fails``, ``knock_back_takes_a_trick`` and
``knock_back_takes_none``. A value is a whole number, or ``{"pair": n, "alone": m}`` when a
soloist (one player holding both black queens who goes alone) scores differently. Option
``failed_pair_knock_no_contra`` (``{"non_queens_each": 12}``) is the row the seed does not
state (section 9, decision 5). Game points go to **each** player of the scoring side.

How a deal is read (the seed's rows overlap; the most demanding row met wins):

* knock and knock-back: the knock-back side took a trick -> ``knock_back_takes_a_trick`` to
  each of them; else ``knock_back_takes_none`` to each knocker;
* knock alone: the knockers took all six tricks -> ``knockers_all_tricks``; else
  ``alone_knocker_fails`` to each of the others (a soloist) or
  ``failed_pair_knock_no_contra.non_queens_each`` (a pair);
* no knock: ``queens_all_tricks`` when the queens took every trick, else the highest
  ``queens_<N>`` with ``q >= N``; else the highest ``non_queens_<N>`` with ``120 - q >= N``
  (``non_queens_all_tricks`` first, when given and the others took every trick).

>>> t = ScoreTable.from_options({})
>>> score_deal(t, "pair", queens_points=75, queens_tricks=4)
DealScore(queens_each=2, others_each=0, row='no_knock.queens_61')
>>> score_deal(t, "alone", queens_points=60, queens_tricks=2)
DealScore(queens_each=0, others_each=4, row='no_knock.non_queens_60')
>>> score_deal(t, "pair", queens_points=100, queens_tricks=5, knock=True)
DealScore(queens_each=0, others_each=12, row='failed_pair_knock_no_contra')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jaslog.engine.base import IntegrityError
from jaslog.games.kloepper.options import KLOEPPER_LITERAL_TABLE

PACK_POINTS = 120
TRICKS = 6

Value = int | tuple[int, int]   # one value, or (pair, alone)

_KNOCK_KEYS = ("knockers_all_tricks", "alone_knocker_fails", "knock_back_takes_a_trick",
               "knock_back_takes_none")
_ROW = re.compile(r"^(queens|non_queens)_(\d+|all_tricks)$")


def _bad(msg: str) -> IntegrityError:
    return IntegrityError("bad_options", f"option 'score_table': {msg}")


#: The largest value in a score table (a deal's score per player; far beyond the rule book's).
MOST = 1000


def _value(v: Any, where: str) -> Value:
    def ok(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MOST

    if ok(v):
        return int(v)
    if isinstance(v, dict) and set(v) == {"pair", "alone"} and all(ok(x) for x in v.values()):
        return (v["pair"], v["alone"])
    raise _bad(f"{where} must be a whole number from 0 to {MOST} or {{\"pair\": n, \"alone\": m}}, "
               f"not {v!r}")


def pick(v: Value, mode: str) -> int:
    """The value for a side that is a ``pair`` (or called-ace pair) or ``alone``."""
    if isinstance(v, int):
        return v
    return v[1] if mode == "alone" else v[0]


@dataclass(frozen=True, slots=True)
class ScoreTable:
    """The score table read and checked: thresholds high to low for each side."""

    queens: tuple[tuple[int, Value], ...]
    non_queens: tuple[tuple[int, Value], ...]
    queens_all: Value | None
    non_queens_all: Value | None
    knock: dict[str, Value]
    failed_pair_each: int

    def values(self) -> set[int]:
        """Every value a row of the table gives a player.

        >>> sorted(ScoreTable.from_options({}).values())[:3]
        [2, 4, 6]
        """
        rows: list[Value] = [v for _, v in self.queens] + [v for _, v in self.non_queens]
        rows += [v for v in (self.queens_all, self.non_queens_all) if v is not None]
        rows += list(self.knock.values())
        return {self.failed_pair_each} | {x for v in rows
                                          for x in (v if isinstance(v, tuple) else (v,))}

    def most(self) -> int:
        """The largest value any row gives a player.

        >>> ScoreTable.from_options({}).most()
        30
        """
        return max(self.values())

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> ScoreTable:
        table = o.get("score_table", KLOEPPER_LITERAL_TABLE)
        failed = o.get("failed_pair_knock_no_contra", {"non_queens_each": 12})
        if not isinstance(table, dict) or set(table) != {"no_knock", "knock"}:
            raise _bad("it has two parts, 'no_knock' and 'knock'")
        nk, k = table["no_knock"], table["knock"]
        if not isinstance(nk, dict) or not isinstance(k, dict):
            raise _bad("'no_knock' and 'knock' are objects of rows")
        rows: dict[str, list[tuple[int, Value]]] = {"queens": [], "non_queens": []}
        alls: dict[str, Value | None] = {"queens": None, "non_queens": None}
        for key, v in nk.items():
            m = _ROW.match(str(key))
            if m is None:
                raise _bad(f"unknown no_knock row {key!r} (queens_N, non_queens_N, "
                           "queens_all_tricks, non_queens_all_tricks)")
            side, n = m.groups()
            val = _value(v, f"no_knock.{key}")
            if n == "all_tricks":
                alls[side] = val
            elif not 0 <= int(n) <= PACK_POINTS:
                raise _bad(f"no_knock.{key}: a threshold is 0 to {PACK_POINTS} card points")
            else:
                rows[side].append((int(n), val))
        if set(k) != set(_KNOCK_KEYS):
            raise _bad(f"'knock' has exactly the rows {', '.join(_KNOCK_KEYS)}")
        knock = {key: _value(k[key], f"knock.{key}") for key in _KNOCK_KEYS}
        if not (isinstance(failed, dict) and set(failed) == {"non_queens_each"}):
            raise IntegrityError("bad_options", "option 'failed_pair_knock_no_contra' is "
                                 f"{{\"non_queens_each\": n}}, not {failed!r}")
        each = _value(failed["non_queens_each"], "failed_pair_knock_no_contra.non_queens_each")
        return cls(tuple(sorted(rows["queens"], reverse=True)),
                   tuple(sorted(rows["non_queens"], reverse=True)),
                   alls["queens"], alls["non_queens"], knock, pick(each, "pair"))

    def __deepcopy__(self, memo: dict[int, Any]) -> ScoreTable:
        """Itself: it never changes (compiled, a frozen class is not rebuilt field by field)."""
        return self


@dataclass(frozen=True, slots=True)
class DealScore:
    """Game points for each player of the queen side and of the other side, and the row."""

    queens_each: int
    others_each: int
    row: str


def score_deal(table: ScoreTable, mode: str, queens_points: int, queens_tricks: int, *,
               knock: bool = False, knock_back: bool = False) -> DealScore:
    """Score a deal. ``mode`` is ``pair`` (both queens split, or a called ace) or ``alone``;
    ``knock``: the queen side knocked (validly); ``knock_back``: the others knocked back."""
    q, qt = queens_points, queens_tricks
    if knock:
        kt = table.knock
        if knock_back:
            if qt < TRICKS:
                return DealScore(0, pick(kt["knock_back_takes_a_trick"], mode),
                                 "knock.knock_back_takes_a_trick")
            return DealScore(pick(kt["knock_back_takes_none"], mode), 0, "knock.knock_back_takes_none")
        if qt == TRICKS:
            return DealScore(pick(kt["knockers_all_tricks"], mode), 0, "knock.knockers_all_tricks")
        if mode == "alone":
            return DealScore(0, pick(kt["alone_knocker_fails"], mode), "knock.alone_knocker_fails")
        return DealScore(0, table.failed_pair_each, "failed_pair_knock_no_contra")
    if qt == TRICKS and table.queens_all is not None:
        return DealScore(pick(table.queens_all, mode), 0, "no_knock.queens_all_tricks")
    for n, v in table.queens:
        if q >= n:
            return DealScore(pick(v, mode), 0, f"no_knock.queens_{n}")
    if qt == 0 and table.non_queens_all is not None:
        return DealScore(0, pick(table.non_queens_all, mode), "no_knock.non_queens_all_tricks")
    for n, v in table.non_queens:
        if PACK_POINTS - q >= n:
            return DealScore(0, pick(v, mode), f"no_knock.non_queens_{n}")
    return DealScore(0, 0, "none")
