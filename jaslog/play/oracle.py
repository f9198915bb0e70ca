"""The rules oracle: questions about one trick or one round, answered by the rules engine.

Used by ``jaslog rules`` (one question, or JSON Lines in batch) and by the service. A query
is a dict with ``op`` and a ``ruleset`` (optionally ``options``); the ops of each game are
declared by the game (``Game.oracle_ops``) and answered by its oracle (``Game.answer``),
and every game answers ``solve`` (the analysis's solver); the answer is a dict, or
:class:`QueryError`. A ``solve`` may be given a budget (:class:`jaslog.analysis.Budget`);
past it, :class:`jaslog.analysis.TooHard` (``too_hard``).

>>> answer({"op": "legal", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7S"],
...         "hand": ["7H", "AD", "KC"]})["legal"]
['7H', 'AD', 'KC']
>>> answer({"op": "winner", "ruleset": "rotterdam", "trump": "H", "trick": ["AS", "7H"]})
{'winner': 1}
>>> answer({"op": "score", "ruleset": "amsterdam", "points": [70, 92], "roem": [20, 0],
...         "tricks": [4, 4], "chooser_team": 0, "revoke_team": None})
{'score': [0, 182], 'result': 'nat'}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jaslog.engine.options import OptionError
from jaslog.engine.oracle import QueryError, query_cards, query_trump
from jaslog.games import GAMES, game_of, get_game, resolve

if TYPE_CHECKING:
    from jaslog.analysis.core import Budget

#: The questions of each game, by game name (each game's ``oracle_ops``).
GAME_OPS = {name: g.oracle_ops for name, g in GAMES.items()}
#: The question every game answers through its ``solver`` adapter: the par of a position
#: whose hands are known (:mod:`jaslog.analysis.query`).
SOLVE = "solve"
#: Every question some game answers.
OPS = tuple(dict.fromkeys([op for ops in GAME_OPS.values() for op in ops] + [SOLVE]))

__all__ = ["GAME_OPS", "OPS", "QueryError", "answer", "is_solve", "query_cards", "query_trump"]


def is_solve(q: object) -> bool:
    """Whether ``q`` asks the solver (the one question that may take long).

    >>> is_solve({"op": "solve"}), is_solve({"op": "legal"}), is_solve([])
    (True, False, False)
    """
    return isinstance(q, dict) and q.get("op") == SOLVE


def answer(q: object, *, budget: Budget | None = None) -> dict[str, Any]:
    """The answer to one query; a ``solve`` within ``budget`` (None: no limit)."""
    if not isinstance(q, dict):
        raise QueryError("a query is a JSON object")
    op = q.get("op")
    ruleset = q.get("ruleset", "amsterdam")
    if not isinstance(q.get("options") or {}, dict):
        raise QueryError("'options' must be an object of option overrides")
    try:
        if not isinstance(ruleset, str):
            raise QueryError(f"'ruleset' must be the name of a preset, not {ruleset!r}")
        game = get_game(game_of(ruleset))
        opts = resolve(ruleset, q.get("options"))
    except OptionError as e:
        raise QueryError(str(e)) from None
    ops = (*game.oracle_ops, SOLVE)
    if op not in OPS:
        raise QueryError(f"unknown op {op!r} (one of {', '.join(ops)})")
    if op not in ops:
        raise QueryError(f"op {op!r} is not a question for {game.name} (its ops: "
                         f"{', '.join(ops)})")
    if op == SOLVE:
        # deferred: the solver (its C search) loads only when a query asks for it
        from jaslog.analysis.query import answer_solve

        return answer_solve(game, q, opts, budget=budget)
    try:
        return game.answer(op, q, opts)
    except ValueError as e:  # QueryError, or a bad value the rules refused
        raise QueryError(str(e)) from None
