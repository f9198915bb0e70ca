"""Claims of the rest judged by the solver (rule book section 9, decision 13).

A player who shows his hand and claims the remaining tricks for his side makes a sound claim
only if his side takes every one of them against every defence. With the hands known,
:func:`can_take_rest` answers that exactly: the solver plays the rest of the round with a
value of 1 when the side takes every trick still to play and 0 otherwise (the cards' points
and roem do not matter, so they are left out, and more cards merge).

>>> from jaslog.analysis.model import Position
>>> from jaslog.games.klaverjas.options import resolve
>>> from jaslog.games.klaverjas.solver import rules_of
>>> from jaslog.cards import parse_hand as h
>>> rules = rules_of(resolve("amsterdam"), trump=2)                # hearts are trumps
>>> pos = Position((h("JH AS"), h("7S 8S"), h("9H 10S"), h("KS AD")), leader=0)
>>> can_take_rest(rules, (0, 1, 0, 1), pos, taker=0)            # JH, then AS
True
>>> pos = Position((h("JH AS"), h("7H 8H"), h("9S 10S"), h("KS AD")), leader=0)
>>> can_take_rest(rules, (0, 1, 0, 1), pos, taker=0)            # seat 1 keeps a trump for AS
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from jaslog.analysis.core import Solver
from jaslog.analysis.model import SCORE_TABLE, Position, SolveRules


def rest_rules(rules: SolveRules) -> SolveRules:
    """``rules`` scored only by whether side 0 takes every trick still to play.

    >>> from jaslog.games.klaverjas.options import resolve
    >>> from jaslog.games.klaverjas.solver import rules_of
    >>> r = rest_rules(rules_of(resolve("amsterdam"), trump=2))
    >>> r.table, r.points[20], r.run3
    ((0, 0, 1), 0, 0)
    """
    return replace(rules, points=(0,) * 32, last_bonus=0, run3=0, run4=0, stuk=0, stuk_value=0,
                   four_kind=(0,) * 8, three_kind=0, scoring=SCORE_TABLE, pit=(0, 0),
                   table=(0, 0, 1))


def can_take_rest(rules: SolveRules, side: Sequence[int], pos: Position, taker: int, *,
                  compiled: bool | None = None) -> bool:
    """Can side ``taker`` (0 or 1) take every trick still to play from ``pos`` (the trick
    in progress included), whatever the other side plays?"""
    if pos.over:
        return True
    flipped = tuple(s if taker == 0 else 1 - s for s in side)
    start = Position(pos.hands, pos.leader, pos.trick)
    return Solver(rest_rules(rules), flipped, compiled=compiled).par(start) == 1


def claimer_takes_rest(rules: SolveRules, side: Sequence[int], hands: Sequence[int],
                       leader: int, trick: Sequence[int], seat: int) -> bool:
    """Does ``seat``'s side take every trick still to play, whatever the others play, from
    the position where each seat holds ``hands`` and ``leader`` led the cards ``trick`` of
    the trick in progress? The judge of a recorded claim of the rest (a game's ``solver``
    adapter reads the position off its round).

    >>> from jaslog.games.klaverjas.options import resolve
    >>> from jaslog.games.klaverjas.solver import rules_of
    >>> from jaslog.cards import parse_hand as h
    >>> rules = rules_of(resolve("amsterdam"), trump=2)
    >>> hands = (h("AS"), h("7S"), h("10S"), h("KS"))
    >>> claimer_takes_rest(rules, (0, 1, 0, 1), hands, 0, (), seat=2)
    True
    """
    return can_take_rest(rules, side, Position(tuple(hands), leader, tuple(trick)), side[seat])
