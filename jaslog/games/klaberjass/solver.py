"""Klaberjass as the solver sees it: the rules of a deal as tables, a ``solve`` query, and
the recorded deals (rule book 4.5-4.8; 9.2, decision 16). The analysis loads this adapter
by name (``Game.adapter("solver")``).

Side 0 is the maker. Par counts the sequences and bella as the deal scores them (declared,
or from the hands, by the options); with ``sequences_require_a_trick`` a player's sequences
count once he takes a trick. A tie scores the maker nothing and the other player his own
total (rule book 4.8).

>>> from jaslog.games.klaberjass.options import resolve
>>> r = rules_of(resolve("klaberjass-2p"), trump=1)
>>> r.players, r.trump, r.last_bonus, r.void == VOID_TRUMP
(2, 1, 10, True)
"""

from __future__ import annotations

from typing import Any

from jaslog.analysis.adapt import (
    HANDS_UNKNOWN,
    check_trick_not_held,
    check_tricks,
    deal_note,
    deals_of,
    plays_of,
)
from jaslog.analysis.claims import claimer_takes_rest
from jaslog.analysis.model import (
    SCORE_MAJORITY,
    TIE_HALF,
    VOID_TRUMP,
    Deal,
    NoPar,
    Position,
    Problem,
    SolveRules,
)
from jaslog.cards import PLAIN_STRENGTH, TRUMP_STRENGTH
from jaslog.engine.fold import GameFold
from jaslog.engine.jacknine import CARD_POINTS
from jaslog.engine.oracle import query_cards, query_hands, query_ints, query_seat, query_trump
from jaslog.games.klaberjass.rules.play import (
    ScoreRules,
    has_bella,
    runs,
    score_deal,
    score_sequences,
)
from jaslog.games.klaberjass.rules.round import TRICKS

PLAYERS = 2


def rules_of(opts: dict[str, Any], trump: int) -> SolveRules:
    """The solver's rules of a deal with ``trump`` under the options ``opts``."""
    return SolveRules(
        players=PLAYERS, suit=tuple(c >> 3 for c in range(32)), trump=trump,
        strength=tuple(TRUMP_STRENGTH[c & 7] if c >> 3 == trump else PLAIN_STRENGTH[c & 7]
                       for c in range(32)),
        points=CARD_POINTS[trump], last_bonus=int(opts["last_trick_bonus"]),
        head_trump_lead=True, head_plain_lead=bool(opts["must_head_plain_lead"]),
        void=VOID_TRUMP, scoring=SCORE_MAJORITY, tie=TIE_HALF)


def _by_side(pair: list[int] | tuple[int, ...], maker: int) -> tuple[int, int]:
    return pair[maker], pair[1 - maker]


def _split(opts: dict[str, Any], sequences: list[int], bella: list[int],
           maker: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(points counted already, points counted once the player takes a trick) by side."""
    if opts["sequences_require_a_trick"]:
        return _by_side(bella, maker), _by_side(sequences, maker)
    return _by_side([sequences[s] + bella[s] for s in (0, 1)], maker), (0, 0)


def problem(q: dict[str, Any], opts: dict[str, Any]) -> Problem:
    """A ``solve`` query: ``trump``, ``maker``, ``leader``, ``hands`` (the cards each player
    still holds), ``trick`` (the leader's card, if played), and per player ``points`` and
    ``tricks`` taken so far, ``sequences`` and ``bella`` scored (default none).

    >>> from jaslog.games.klaberjass.options import resolve
    >>> p = problem({"trump": "H", "maker": 1, "leader": 0, "hands": [["JH", "7S"], ["AS", "9H"]]},
    ...             resolve("klaberjass-2p"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    jaslog.engine.oracle.QueryError: hand 0 holds 2 cards, not 9: 0 tricks are done and seat 0 ...
    """
    trump = query_trump(q)
    maker, leader = query_seat(q, "maker", PLAYERS), query_seat(q, "leader", PLAYERS)
    assert maker is not None and leader is not None
    hands = query_hands(q, PLAYERS, 0, TRICKS)
    trick = query_cards(q, "trick", 0, 1) if q.get("trick") is not None else []
    check_trick_not_held(hands, trick)
    tricks = query_ints(q, "tricks", 2, "tricks taken, one per player", [0, 0])
    points = query_ints(q, "points", 2, "card points taken, one per player", [0, 0])
    seqs = query_ints(q, "sequences", 2, "sequence points, one per player", [0, 0])
    bella = query_ints(q, "bella", 2, "bella points, one per player", [0, 0])
    check_tricks(hands, trick, leader, tricks, TRICKS, "deal", points)
    fixed, pending = _split(opts, seqs, bella, maker)
    won = _by_side([t > 0 for t in tricks], maker)
    pos = Position(tuple(hands), leader, tuple(trick), _by_side(points, maker), fixed,
                   (bool(won[0]), bool(won[1])))
    order = tuple(query_cards({"h": q["hands"][pos.to_move]}, "h", 0, TRICKS))
    return Problem(rules_of(opts, trump), (0, 1) if maker == 0 else (1, 0), pos, pending, order)


def _outcome(opts: dict[str, Any], maker: int, pending: tuple[int, int]) -> Any:
    """The result word (made, tie, bete) of a position played out."""
    score_rules = ScoreRules.from_options(opts)

    def outcome(pos: Position) -> str:
        totals = [0, 0]
        for side, seat in ((0, maker), (1, 1 - maker)):
            totals[seat] = pos.points[side] + pos.roem[side] + (pending[side] if pos.won[side] else 0)
        return score_deal(score_rules, totals, maker).result

    return outcome


def deals(fold: GameFold) -> list[Deal | NoPar]:
    """The deals of a folded Klaberjass game as the analysis takes them (see
    :func:`~jaslog.analysis.adapt.deals_of`): one annulled by a schmeiss has no par.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> annulled, d = deals(fold(event_from_dict(e) for e in simulate_game("d", "klaberjass-2p",
    ...                                                                      seed=2)[:28]))
    >>> annulled.reason, (d.round, len(d.plays), d.result)
    ('annulled (schmeiss): no play', (2, 18, 'made'))
    """
    return deals_of(fold, _deal)


def _deal(fold: GameFold, r: Any, o: Any) -> Deal | NoPar:
    """A Klaberjass deal ``r`` (its outcome ``o``): by the maker, trumps and the hands played
    (after the second deal), with the sequences and bella scored."""
    g = fold.state
    opts = fold.options
    seats = fold.seats
    score = tuple(o.score)
    if r.annulled:
        return NoPar(r.number, f"annulled ({r.annulled.replace('_', ' ')}): no play",
                     o.result, score)
    if r.trump is None or r.maker is None or not r.second_done:
        return NoPar(r.number, "its bidding or second deal is not over", o.result, score)
    if r.playing is not None:
        playing = list(r.playing)
    elif r.hands_known:
        playing = [r.hands[s] | r.by_seat[s] for s in (0, 1)]
    else:
        return NoPar(r.number, HANDS_UNKNOWN, o.result, score)
    trump, maker = r.trump, r.maker
    per = [r.sequences_of(s, g.seq_announced) if r.playing is not None or g.seq_announced
           else runs(playing[s]) for s in (0, 1)]
    seqs = list(score_sequences(per, trump, r.elder, g.seq_rules).points)
    bella = [0, 0]
    for s in (0, 1):
        if g.bella_announced:
            ok = any(b.seat == s and b.fault is None for b in r.bellas)
        else:
            ok = has_bella(playing[s], trump)
        bella[s] = g.bella_points if ok else 0
    fixed, pending = _split(opts, seqs, bella, maker)
    leader = r.tricks[0].leader if r.tricks else r.elder
    start = Position(tuple(playing), leader, (), (0, 0), fixed)
    notes = []
    if seqs != [0, 0] or bella != [0, 0]:
        notes.append(f"sequences {seqs[0]}-{seqs[1]} and bella {bella[0]}-{bella[1]} count "
                     "from the first card")
    finished = o.result not in ("unfinished", "annulled")
    return Deal(
        round=r.number, rules=rules_of(opts, trump), side=(0, 1) if maker == 0 else (1, 0),
        start=start, plays=plays_of(r), result=o.result, score=score,
        difference=score[maker] - score[1 - maker] if finished else None,
        outcome=_outcome(opts, maker, pending),
        sides=(f"seat {maker} ({seats[maker]}, the maker, {'CDHS'[trump]})",
               f"seat {1 - maker} ({seats[1 - maker]})"),
        pending=pending, note=deal_note(fold, r, notes))


def claim_guaranteed(game: Any, r: Any, seat: int) -> bool:
    """The judge of a claim of the rest in Klaberjass deal ``r``, its hands known: does
    ``seat`` take every trick still to play against every defence?"""
    t = r.tricks[-1] if r.tricks else None
    leader, trick = ((r.elder, ()) if t is None else (r.winner_of(t), ()) if t.complete
                     else (t.leader, t.cards))
    return claimer_takes_rest(rules_of(game.options, r.trump), (0, 1), r.hands, leader, trick,
                              seat)
