"""The solver: the par of a position whose hands are all known, the par after each legal
card, and the best cards (rule book 9.2, decisions 16 and 17).

:class:`Solver` is the search of one deal. It runs on the compiled core (``_solver``, built
by ``pip install`` when a C compiler is there) or, without it, on the pure-Python core of
:mod:`jaslog.analysis.search`; both give the same answers. ``JASLOG_SOLVER=python`` in the
environment picks the Python core.

A solve may be given a :class:`Budget`, the most positions it may search and the most
seconds it may take: past either, :class:`TooHard` (``too_hard``) says so, on either core.
The compiled core searches without the GIL, so other threads run meanwhile.

>>> from jaslog.analysis.model import Position, SolveRules
>>> rules = SolveRules(players=2, suit=tuple(c >> 3 for c in range(32)), trump=-1,
...                    strength=tuple(c & 7 for c in range(32)), points=tuple(c & 7 for c in range(32)))
>>> s = Solver(rules, side=(0, 1))
>>> p = Position(hands=(0b1001, 0b0110), leader=0)   # seat 0: ranks 0 and 3; seat 1: 1 and 2
>>> s.par(p), s.values(p)   # either lead, side 0 ends 2 points ahead
(2, {0: 2, 3: 2})
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from jaslog.analysis.model import Position, Problem, SolveRules
from jaslog.analysis.search import OutOfBudget, Search
from jaslog.errors import JaslogError

_compiled: Any
try:
    import jaslog.analysis._solver as _compiled
except ImportError:  # not built (no C compiler when jaslog was installed): the Python core
    _compiled = None

#: The most points and roem a side may hold in a position (what the compiled core's tables
#: are keyed on; far above what a round can score).
MOST_POINTS = 4095
MOST_ROEM = 262143
#: The most a round's value may reach (the compiled core keeps bounds in 16 bits).
MOST_VALUE = 30000
#: What either core raises when its budget is spent.
_SPENT: tuple[type[Exception], ...] = (OutOfBudget,) + (
    (_compiled.OutOfBudget,) if _compiled is not None else ())
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Budget:
    """The most a :class:`Solver` may search, from when it is made: ``nodes`` positions,
    ``seconds`` of time (0: no such limit). The positions are the same on both cores and
    on any machine; the seconds bound the time on a slow core or a busy machine.

    >>> Budget(nodes=10_000_000, seconds=1).said()
    '10,000,000 positions or 1 s'
    """

    nodes: int = 0
    seconds: float = 0.0

    def said(self) -> str:
        """The budget in words."""
        parts = ([f"{self.nodes:,} positions"] if self.nodes > 0 else []) + \
            ([f"{self.seconds:g} s"] if self.seconds > 0 else [])
        return " or ".join(parts) or "no limit"


class TooHard(JaslogError):
    """A solve that went past its :class:`Budget`: the position is too hard to solve within
    it (``nodes``: the positions searched)."""

    code = "too_hard"

    def __init__(self, budget: Budget, nodes: int) -> None:
        self.budget, self.nodes = budget, nodes
        super().__init__(f"this position is too hard to solve within the budget of "
                         f"{budget.said()} ({nodes:,} positions searched): ask about a "
                         "position later in the round, with fewer cards in hand")


def value_bound(rules: SolveRules, pending: Sequence[int] = (0, 0)) -> int:
    """A bound of what the cards still to play can add to a round's value: every card's
    points, the last trick, the most roem a trick can hold in every trick, the bonuses.

    >>> from jaslog.games.klaverjas.solver import rules_of
    >>> from jaslog.games.klaverjas.options import resolve
    >>> value_bound(rules_of(resolve("amsterdam"), trump=0))
    2682
    """
    tricks = 32 // rules.players
    trick_roem = max(rules.four_kind) + rules.run4 + rules.run3 + rules.stuk_value + rules.three_kind
    table = max((abs(v) for v in rules.table), default=0)
    return (sum(abs(p) for p in rules.points) + abs(rules.last_bonus) + tricks * abs(trick_roem)
            + sum(abs(p) for p in rules.pit) + sum(abs(p) for p in pending) + table)


def compiled_core() -> bool:
    """Is the compiled core there (and not turned off by ``JASLOG_SOLVER=python``)?

    >>> compiled_core() == (core_name() == "compiled")
    True
    """
    return _compiled is not None and os.environ.get("JASLOG_SOLVER", "") != "python"


def core_name() -> str:
    """``compiled`` or ``python``: the core a new :class:`Solver` uses.

    >>> core_name() in ("compiled", "python")
    True
    """
    return "compiled" if compiled_core() else "python"


@dataclass(frozen=True, slots=True)
class Solution:
    """A position solved: its ``par``, the par after each legal card of the seat to play
    (``values``, by card), and the cards that keep the par (``best``)."""

    par: int
    values: dict[int, int]
    best: list[int]


class Solver:
    """The search of one deal: its rules, each seat's side, and tables that live as long as
    it does (so the positions of one round are solved with what the earlier ones found).
    ``compiled``: which core (None: the compiled one when it is there). ``budget``: the
    most it may search, from now on (past it, :class:`TooHard`; None: no limit)."""

    def __init__(self, rules: SolveRules, side: Sequence[int], pending: Sequence[int] = (0, 0),
                 *, compiled: bool | None = None, budget: Budget | None = None) -> None:
        if len(side) != rules.players or any(s not in (0, 1) for s in side):
            raise ValueError(f"side: 0 or 1 for each of the {rules.players} seats")
        if value_bound(rules, pending) > MOST_VALUE:
            raise ValueError(f"these rules let a round be worth more than {MOST_VALUE:,} "
                             "points: too much to solve")
        use = compiled_core() if compiled is None else compiled
        if use and _compiled is None:
            raise RuntimeError("the compiled solver is not built (see docs/analyze.md)")
        self.rules = rules
        self.side = tuple(side)
        self.pending = (int(pending[0]), int(pending[1]))
        self._py = Search(rules, self.side, self.pending)
        self._core: Any = (_compiled.Solver(rules.as_tuple(), self.side, self.pending)
                           if use else self._py)
        self.compiled = bool(use)
        self.budget = budget
        if budget is not None:
            self._core.limit(max(0, int(budget.nodes)), max(0.0, float(budget.seconds)))

    def _search(self, run: Callable[[], _T]) -> _T:
        """``run()``, a search of the core: past the budget, :class:`TooHard`."""
        try:
            return run()
        except _SPENT:
            raise TooHard(self.budget or Budget(), self.nodes) from None

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self._core.nodes)

    def _state(self, pos: Position) -> Any:
        n = self.rules.players
        if len(pos.hands) != n:
            raise ValueError(f"a position of {n} hands, not {len(pos.hands)}")
        if not all(0 <= x <= MOST_POINTS for x in pos.points) or \
                not all(0 <= x <= MOST_ROEM for x in pos.roem):
            raise ValueError(f"points are 0 to {MOST_POINTS}, roem 0 to {MOST_ROEM}")
        if not 0 <= pos.leader < n or len(pos.trick) >= n:
            raise ValueError(f"the leader is a seat (0 to {n - 1}) and a trick holds fewer than "
                             f"{n} cards")
        seen = 0
        for cards in (*pos.hands, sum(1 << c for c in pos.trick)):
            if not 0 <= cards < 1 << 32 or cards & seen:
                raise ValueError("a card is held twice, or is not a card")
            seen |= cards
        if len(set(pos.trick)) != len(pos.trick):
            raise ValueError("a card is held twice, or is not a card")
        left = pos.hands[pos.leader].bit_count() + (1 if pos.trick else 0)
        for i in range(n):
            seat = (pos.leader + i) % n
            if pos.hands[seat].bit_count() != left - (1 if i < len(pos.trick) else 0):
                raise ValueError("the hands do not fit the trick: each seat holds the cards of "
                                 "the tricks still to play")
        return pos.state()

    def par(self, pos: Position, guess: int = 0) -> int:
        """The par of ``pos``: side 0's final score minus side 1's under perfect play. A
        ``guess`` near it (the par of the position before) makes it faster, never different."""
        state = self._state(pos)
        return int(self._search(lambda: self._core.par(state, guess)))

    def after(self, pos: Position, card: int, guess: int = 0) -> int:
        """The par once the seat to play has played ``card`` (a legal card)."""
        state = self._state(pos)
        return int(self._search(lambda: self._core.after(state, card, guess)))

    def legal(self, pos: Position) -> int:
        """The legal cards (a mask) of the seat to play."""
        return int(self._py.legal(self._state(pos)))

    def values(self, pos: Position, guess: int = 0) -> dict[int, int]:
        """The par after each legal card of the seat to play, by card."""
        legal = self.legal(pos)
        return {c: self.after(pos, c, guess) for c in range(32) if legal >> c & 1}

    def solve(self, pos: Position, order: Sequence[int] = ()) -> Solution:
        """``pos`` solved; ``values`` and ``best`` list the cards in ``order`` (default:
        by card), then any others."""
        par = self.par(pos)
        raw = self.values(pos, par)
        cards = [c for c in order if c in raw] + [c for c in sorted(raw) if c not in order]
        values = {c: raw[c] for c in cards}
        if values:
            mover = self.side[pos.to_move]
            target = max(values.values()) if mover == 0 else min(values.values())
            if target != par:  # the search and its children disagree: a bug, never an answer
                raise AssertionError(f"par {par} but the best card gives {target}")
        return Solution(par, values, [c for c in cards if values[c] == par])

    def step(self, pos: Position, card: int) -> Position:
        """The position once the seat to play has played ``card`` (any card of its hand:
        a recorded revoke too)."""
        seat = pos.to_move
        if not pos.hands[seat] >> card & 1:
            raise ValueError(f"seat {seat} does not hold card {card}")
        s = self._py
        s.set_state(self._state(pos))
        s.play(seat, card)
        n = self.rules.players
        return Position(tuple(s.hands[:n]), s.leader, tuple(s.trick), (s.pts[0], s.pts[1]),
                        (s.roem[0], s.roem[1]), (bool(s.won[0]), bool(s.won[1])))

    def final(self, pos: Position) -> int:
        """The value of a position played out (its par)."""
        if not pos.over:
            raise ValueError("the round is not played out")
        s = self._py
        s.set_state(self._state(pos))
        return s.final_value()


def solve(problem: Problem, *, compiled: bool | None = None,
          budget: Budget | None = None) -> Solution:
    """A :class:`~jaslog.analysis.model.Problem` solved (see :meth:`Solver.solve`), within
    ``budget`` (past it, :class:`TooHard`; None: no limit).

    >>> from jaslog.games.klaverjas.options import resolve
    >>> from jaslog.games.klaverjas.solver import problem
    >>> solve(problem({"trump": "H", "chooser": 1, "leader": 0, "hands": [["AH"], ["7H"], ["AS"],
    ...                ["7S"]], "tricks": [7, 0], "points": [130, 0]}, resolve("amsterdam")))
    Solution(par=-262, values={23: -262}, best=[23])
    """
    solver = Solver(problem.rules, problem.side, problem.pending, compiled=compiled,
                    budget=budget)
    return solver.solve(problem.position, problem.order)
