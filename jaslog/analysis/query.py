"""The rules oracle's ``solve`` op: a position whose hands are known, solved.

A query is the game's (its ``solver`` adapter reads it: :func:`problem` of
``jaslog/games/<game>/solver.py``); the answer is the par from the side of the playing
team (the chooser's in Klaverjas, the maker in Klaberjass, the black queens in Kloepper),
the par after each legal card of the seat to play (``values``), and the cards that keep the
par (``best``), in the order the query lists that seat's hand.

>>> from jaslog.games import get_game, resolve
>>> answer_solve(get_game("klaverjas"), {"trump": "H", "chooser": 0, "leader": 1,
...     "hands": [["JH", "AS"], ["8S"], ["QC", "10C"], ["7D", "AC"]], "trick": ["KS"],
...     "tricks": [4, 2], "points": [63, 30], "roem": [20, 0]}, resolve("amsterdam"))
{'par': 122, 'best': ['QC', '10C'], 'values': {'QC': 122, '10C': 122}}
"""

from __future__ import annotations

from typing import Any

from jaslog.analysis.adapt import solver_of
from jaslog.analysis.core import Budget, solve
from jaslog.analysis.model import Problem
from jaslog.cards import card_text
from jaslog.engine.game import Game
from jaslog.engine.oracle import QueryError


def problem_of(game: Game, q: dict[str, Any], opts: dict[str, Any]) -> Problem:
    """The game's reading of a ``solve`` query (a :class:`QueryError` says what is wrong).

    >>> from jaslog.games import get_game, resolve
    >>> problem_of(get_game("kloepper"), {"leader": 0, "hands": [["QC"], ["9C"], ["QS"], ["9C"]]},
    ...            resolve("kloepper"))
    Traceback (most recent call last):
    ...
    jaslog.engine.oracle.QueryError: hand 3 shares a card with an earlier hand
    """
    try:
        return solver_of(game).problem(q, opts)
    except QueryError:
        raise
    except ValueError as e:
        raise QueryError(str(e)) from None


def answer_solve(game: Game, q: dict[str, Any], opts: dict[str, Any], *,
                 budget: Budget | None = None) -> dict[str, Any]:
    """``{"par": ..., "best": [...], "values": {...}}`` for a ``solve`` query, within
    ``budget`` (past it, :class:`~jaslog.analysis.core.TooHard`; None: no limit)."""
    prob = problem_of(game, q, opts)
    try:
        sol = solve(prob, budget=budget)
    except ValueError as e:
        raise QueryError(str(e)) from None
    return {"par": sol.par, "best": [card_text(c) for c in sol.best],
            "values": {card_text(c): v for c, v in sol.values.items()}}
