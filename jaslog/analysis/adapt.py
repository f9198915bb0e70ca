"""What the games' ``solver`` adapters share: reading a fold's log for what its state does
not keep, checking the cards of a ``solve`` query, and the parts of a recorded round that
every game's :class:`~jaslog.analysis.model.Deal` tells alike. What differs by game (the
number of seats and tricks, who a side is, what a note adds) stays on the game's adapter.

>>> from jaslog.play.sim import simulate_game
>>> from jaslog.play.fold import fold
>>> from jaslog.events import event_from_dict
>>> f = fold(event_from_dict(e) for e in simulate_game("a", seed=3)[:40])
>>> hands_recorded(f, 1)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast, runtime_checkable

from jaslog.analysis.model import Deal, NoPar, Problem
from jaslog.cards import card_text
from jaslog.engine.base import Ruling
from jaslog.engine.fold import GameFold
from jaslog.engine.game import Game
from jaslog.engine.oracle import QueryError

#: The events that open a round (a correction may retract one and a new one follow).
ROUND_OPENERS = ("dealt", "round_score")

#: Why a round has no par: it was recorded by its score alone,
SCORE_ONLY = "recorded by its score alone"
#: or its hands are not known.
HANDS_UNKNOWN = ("its hands were not recorded and it was not played out "
                 "(hands are rebuilt from the plays at its last card)")


@runtime_checkable
class SolverAdapter(Protocol):
    """A game's ``solver`` adapter (``jaslog/games/<g>/solver.py``), loaded by name
    (:func:`solver_of`): how a ``solve`` query reads as a position, its recorded rounds as
    deals, and whether a claim of the rest is guaranteed (the claim judge of its fold)."""

    def problem(self, q: dict[str, Any], opts: dict[str, Any]) -> Problem: ...

    def deals(self, fold: GameFold) -> list[Deal | NoPar]: ...

    def claim_guaranteed(self, game: Any, r: Any, seat: int) -> bool: ...


def solver_of(game: Game) -> SolverAdapter:
    """The game's ``solver`` adapter (:class:`~jaslog.engine.game.NotSupported` when it
    declares none)."""
    return cast(SolverAdapter, game.adapter("solver"))


class PlayedRound(Protocol):
    """What :func:`plays_of` and :func:`deal_note` read of a game's round."""

    @property
    def number(self) -> int: ...

    @property
    def tricks(self) -> Sequence[Any]: ...

    @property
    def ruling(self) -> Ruling | None: ...


def hands_recorded(fold: GameFold, number: int) -> bool:
    """Did the event that dealt round ``number`` record the hands? (False: they were
    rebuilt from the plays, or the round is score-only.)"""
    n = 0
    for e in fold.log:
        if e.type in ROUND_OPENERS and e.seq not in fold.retracted:
            n += 1
            if n == number:
                return e.type == "dealt" and getattr(e, "hands", None) is not None
    return False


def plays_of(r: PlayedRound) -> tuple[tuple[int, int, int], ...]:
    """Every card played in round ``r``, as (seat, card, seq), in play order.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("a", seed=3)[:40])
    >>> len(plays_of(f.state.rounds[0]))
    32
    """
    return tuple((t.seat_of(i), c, t.seqs[i]) for t in r.tricks for i, c in enumerate(t.cards))


def deal_note(fold: GameFold, r: PlayedRound, notes: Sequence[str] = ()) -> str:
    """The note of a recorded round: its hands rebuilt from the plays, then the game's own
    ``notes``, then a referee's ruling.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("a", seed=3)[:40])
    >>> deal_note(f, f.state.rounds[0], ["a note of the game"])
    'a note of the game'
    """
    out = [] if hands_recorded(fold, r.number) else ["hands rebuilt from the plays"]
    out.extend(notes)
    if r.ruling is not None:
        out.append(f"ruled {'-'.join(map(str, r.ruling.score))}: {r.ruling.reason}")
    return "; ".join(out)


def check_trick_not_held(hands: Sequence[int], trick: Sequence[int]) -> None:
    """A ``solve`` query's trick holds no card of a hand.

    >>> check_trick_not_held([0b1, 0b10], [1])
    Traceback (most recent call last):
    ...
    jaslog.engine.oracle.QueryError: 8C is both in the trick and in hand 1
    """
    for c in trick:
        for s, h in enumerate(hands):
            if h >> c & 1:
                raise QueryError(f"{card_text(c)} is both in the trick and in hand {s}")


def check_tricks(hands: Sequence[int], trick: Sequence[int], leader: int, tricks: Sequence[int],
                 most: int, unit: str, points: Sequence[int] | None = None) -> int:
    """The tricks done (the sum of ``tricks``, per seat or team) of a ``solve`` query
    whose round (``unit``: its word) has ``most`` tricks, once each hand holds the cards of
    the tricks still to play; with ``points`` per seat, a seat with points took a trick.

    >>> check_tricks([0b1, 0b10], [], 0, [7, 0], 8, "round")
    7
    >>> check_tricks([0b1, 0b10], [], 0, [7, 1], 8, "round")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    jaslog.engine.oracle.QueryError: hand 0 holds 1 cards, not 0: 8 tricks are done and seat 0 ...
    """
    players = len(hands)
    done = sum(tricks)
    if done > most or (trick and done >= most):
        raise QueryError(f"'tricks' add up to {done}: a {unit} has {most} tricks"
                         + (" and one is in play" if trick else ""))
    for s in range(players):
        played = (s - leader) % players < len(trick)
        want = most - done - played
        if hands[s].bit_count() != want:
            raise QueryError(
                f"hand {s} holds {hands[s].bit_count()} cards, not {want}: {done} trick"
                f"{'s are' if done != 1 else ' is'} done and seat {s} has "
                f"{'' if played else 'not '}played to the trick led by seat {leader}")
        if points is not None and not tricks[s] and points[s]:
            raise QueryError(f"seat {s} took no trick but has {points[s]} points")
    return done


def check_points(points: Sequence[int], done: int, taken: int) -> None:
    """The ``points`` of a ``solve`` query add up to those of the ``done`` tricks, ``taken``.

    >>> check_points([60, 40], 2, 90)
    Traceback (most recent call last):
    ...
    jaslog.engine.oracle.QueryError: 'points' add up to 100, but the 2 tricks done hold 90
    """
    if sum(points) != taken:
        raise QueryError(f"'points' add up to {sum(points)}, but the {done} trick"
                         f"{'s' if done != 1 else ''} done hold {taken}")


def deals_of(fold: GameFold, deal: Callable[[GameFold, Any, Any], Deal | NoPar]) -> list[Deal | NoPar]:
    """Every round of a folded game as ``deal(fold, round, outcome)`` has it (the game's
    adapter): a :class:`~jaslog.analysis.model.Deal` when its hands are known (recorded, or
    rebuilt from the plays once it was played out), else why it has no par; a round
    recorded by its score alone has none.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("a", seed=3)[:40])
    >>> [(d.round, d.reason) for d in deals_of(f, lambda f, r, o: NoPar(r.number, "a reason"))]
    [(1, 'a reason'), (2, 'a reason')]
    """
    out: list[Deal | NoPar] = []
    for r, o in zip(fold.state.rounds, fold.state.outcomes(), strict=True):
        if r.score_only is not None:
            out.append(NoPar(r.number, SCORE_ONLY, o.result, tuple(o.score)))
        else:
            out.append(deal(fold, r, o))
    return out
