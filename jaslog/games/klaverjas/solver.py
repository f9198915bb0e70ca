"""Klaverjas as the solver sees it: the rules of a round as tables, a ``solve`` query, and
the recorded rounds (rule book 3.3-3.5; 9.2, decision 16). The analysis loads this adapter
by name (``Game.adapter("solver")``).

Side 0 is the team that chose trumps. Par counts every roem on the table as claimed, the
pit bonus by ``pit_for``, a tie by ``tie_is_failure``; Amsterdam and Rotterdam play, and
their options, decide the legal cards.

>>> from jaslog.games.klaverjas.options import resolve
>>> r = rules_of(resolve("rotterdam"), trump=2)
>>> r.players, r.trump, r.points[20], r.void == VOID_OVERTRUMP
(4, 2, 20, True)
"""

from __future__ import annotations

from typing import Any

from jaslog.analysis.adapt import (
    HANDS_UNKNOWN,
    check_points,
    check_trick_not_held,
    check_tricks,
    deal_note,
    deals_of,
    plays_of,
)
from jaslog.analysis.claims import claimer_takes_rest
from jaslog.analysis.model import (
    PARTNER_DISCARD_ONLY,
    PARTNER_FREE,
    PARTNER_NO_UNDERTRUMP,
    SCORE_MAJORITY,
    TIE_MADE,
    TIE_NAT,
    VOID_AMSTERDAM,
    VOID_OVERTRUMP,
    Deal,
    NoPar,
    Position,
    Problem,
    SolveRules,
)
from jaslog.cards import FULL_DECK, PLAIN_STRENGTH, RANK_TEXT, TRUMP_STRENGTH
from jaslog.engine.fold import GameFold
from jaslog.engine.jacknine import CARD_POINTS
from jaslog.engine.oracle import QueryError, query_cards, query_hands, query_pair, query_seat, query_trump
from jaslog.games.klaverjas.rules.play import ScoreRules, score_round, stuk_cards

PLAYERS, TRICKS = 4, 8

_PARTNER = {"no_undertrump": PARTNER_NO_UNDERTRUMP, "discard_only": PARTNER_DISCARD_ONLY,
            "free": PARTNER_FREE}


def rules_of(opts: dict[str, Any], trump: int) -> SolveRules:
    """The solver's rules of a round with ``trump`` under the options ``opts``."""
    ranks = {RANK_TEXT.index(r) for r in opts["roem.four_kind_ranks"]}
    four = tuple(int(opts["roem.four_jacks"]) if r == RANK_TEXT.index("J")
                 else int(opts["roem.four_kind"]) if r in ranks else 0 for r in range(8))
    bonus = int(opts["pit_bonus"])
    return SolveRules(
        players=PLAYERS, suit=tuple(c >> 3 for c in range(32)), trump=trump,
        strength=tuple(TRUMP_STRENGTH[c & 7] if c >> 3 == trump else PLAIN_STRENGTH[c & 7]
                       for c in range(32)),
        points=CARD_POINTS[trump], last_bonus=int(opts["last_trick_bonus"]),
        head_trump_lead=True, head_plain_lead=False,
        void=VOID_OVERTRUMP if opts["play"] == "rotterdam" else VOID_AMSTERDAM,
        undertrump=bool(opts["rotterdam_must_undertrump"]),
        partner_trump=_PARTNER[opts["amsterdam_partner_trump"]],
        opponent_undertrump=opts["amsterdam_cannot_overtrump"] == "must_undertrump",
        run3=int(opts["roem.run3"]), run4=int(opts["roem.run4"]), stuk=stuk_cards(trump),
        stuk_value=int(opts["roem.stuk"]), four_kind=four,
        three_kind=int(opts["roem.three_of_a_kind"]), scoring=SCORE_MAJORITY,
        tie=TIE_NAT if opts["tie_is_failure"] else TIE_MADE,
        pit=(bonus, bonus if opts["pit_for"] == "any_team" else 0))


def _sides(chooser: int) -> tuple[int, ...]:
    return tuple(0 if s & 1 == chooser & 1 else 1 for s in range(PLAYERS))


def _by_side(pair: list[int] | tuple[int, ...], chooser: int) -> tuple[int, int]:
    """A pair per team (team 0 first) as a pair per side (the chooser's team first)."""
    p = chooser & 1
    return pair[p], pair[1 - p]


def problem(q: dict[str, Any], opts: dict[str, Any]) -> Problem:
    """A ``solve`` query: ``trump``, ``chooser``, ``leader``, ``hands`` (the cards each seat
    still holds), ``trick`` (led by ``leader``), and per team (team 0 first) ``points``,
    ``roem`` and ``tricks`` taken so far (default none).

    >>> from jaslog.games.klaverjas.options import resolve
    >>> p = problem({"trump": "H", "chooser": 0, "leader": 0, "hands": [["AH"], ["7H"], ["AS"],
    ...              ["7S"]], "tricks": [7, 0], "points": [130, 0]}, resolve("amsterdam"))
    >>> p.position.to_move, p.side
    (0, (0, 1, 0, 1))
    >>> problem({"trump": "H", "chooser": 0, "leader": 0, "hands": [["AH"], ["7H"], ["AS"], []],
    ...          "tricks": [7, 0], "points": [152, 0]}, resolve("amsterdam"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    jaslog.engine.oracle.QueryError: hand 3 holds 0 cards, not 1: 7 tricks are done and seat 3 ...
    """
    trump = query_trump(q)
    chooser, leader = query_seat(q, "chooser", PLAYERS), query_seat(q, "leader", PLAYERS)
    assert chooser is not None and leader is not None
    hands = query_hands(q, PLAYERS, 0, TRICKS)
    trick = query_cards(q, "trick", 0, PLAYERS - 1) if q.get("trick") is not None else []
    held = hands[0] | hands[1] | hands[2] | hands[3]
    check_trick_not_held(hands, trick)
    tricks = query_pair(q, "tricks") if q.get("tricks") is not None else [0, 0]
    points = query_pair(q, "points") if q.get("points") is not None else [0, 0]
    roem = query_pair(q, "roem") if q.get("roem") is not None else [0, 0]
    done = check_tricks(hands, trick, leader, tricks, TRICKS, "round")
    gone = FULL_DECK & ~held & ~sum(1 << c for c in trick)
    taken = sum(CARD_POINTS[trump][c] for c in range(32) if gone >> c & 1)
    taken += int(opts["last_trick_bonus"]) if done == TRICKS else 0
    check_points(points, done, taken)
    for t in (0, 1):
        if not tricks[t] and points[t]:
            raise QueryError(f"team {t} took no trick but has {points[t]} points")
    side = _sides(chooser)
    won = _by_side([t > 0 for t in tricks], chooser)
    pos = Position(tuple(hands), leader, tuple(trick), _by_side(points, chooser),
                   _by_side(roem, chooser), (bool(won[0]), bool(won[1])))
    mover = pos.to_move
    order = tuple(query_cards({"h": q["hands"][mover]}, "h", 0, TRICKS))
    return Problem(rules_of(opts, trump), side, pos, order=order)


def _outcome(opts: dict[str, Any], chooser: int) -> Any:
    """The result word (made, nat, pit) of a position played out."""
    score_rules = ScoreRules.from_options(opts)

    def outcome(pos: Position) -> str:
        p = chooser & 1
        points, roem, tricks = [0, 0], [0, 0], [4, 4]
        points[p], points[1 - p] = pos.points
        roem[p], roem[1 - p] = pos.roem
        if not pos.won[1]:
            tricks = [0, 0]
            tricks[p] = TRICKS
        elif not pos.won[0]:
            tricks = [0, 0]
            tricks[1 - p] = TRICKS
        return score_round(score_rules, points, roem, tricks, p)[1]

    return outcome


def deals(fold: GameFold) -> list[Deal | NoPar]:
    """The rounds of a folded Klaverjas game as the analysis takes them (see
    :func:`~jaslog.analysis.adapt.deals_of`).

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> d = deals(fold(event_from_dict(e) for e in simulate_game("d", "amsterdam", seed=2)[:40]))[0]
    >>> d.round, len(d.plays), d.result
    (1, 32, 'nat')
    """
    return deals_of(fold, _deal)


def _deal(fold: GameFold, r: Any, o: Any) -> Deal | NoPar:
    """A Klaverjas round ``r`` (its outcome ``o``): by the trump chosen and who chose it."""
    opts = fold.options
    seats = fold.seats
    score = tuple(o.score)
    if r.dealt is None:
        return NoPar(r.number, HANDS_UNKNOWN, o.result, score)
    if r.trump is None or r.chooser is None:
        return NoPar(r.number, "trumps were never chosen", o.result, score)
    trump, chooser = r.trump, r.chooser
    leader = r.tricks[0].leader if r.tricks else (
        chooser if opts["first_lead"] == "trump_chooser" else r.forehand)
    hand_roem = [0, 0]
    if opts["roem.stuk_in_hand"]:
        stuk = stuk_cards(trump)
        for s, h in enumerate(r.dealt):
            if h & stuk == stuk:
                hand_roem[s & 1] += int(opts["roem.stuk"])
    start = Position(tuple(r.dealt), leader, (), (0, 0), _by_side(hand_roem, chooser))
    p = chooser & 1
    notes = []
    if o.roem != o.roem_on_table:
        left = sum(o.roem_on_table) - sum(o.roem)
        notes.append(f"{left} roem left unclaimed (par counts all roem on the table)")
    finished = o.result != "unfinished"
    return Deal(
        round=r.number, rules=rules_of(opts, trump), side=_sides(chooser), start=start,
        plays=plays_of(r), result=o.result, score=score,
        difference=score[p] - score[1 - p] if finished else None,
        outcome=_outcome(opts, chooser),
        sides=(f"team {p} ({' & '.join(seats[p::2])}, chose {'CDHS'[trump]})",
               f"team {1 - p} ({' & '.join(seats[1 - p::2])})"),
        note=deal_note(fold, r, notes))


def claim_guaranteed(game: Any, r: Any, seat: int) -> bool:
    """The judge of a claim of the rest in Klaverjas round ``r``, its hands known: does
    ``seat``'s team take every trick still to play against every defence?

    >>> from jaslog.cards import parse_hand as h
    >>> from jaslog.games.klaverjas.options import resolve
    >>> from jaslog.games.klaverjas.rules import KlaverjasGame
    >>> g = KlaverjasGame(resolve("amsterdam"), dealer=3)
    >>> g.deal([h("JH 9H AH 10H KH QH 8H 7H"), h("AS 10S KS QS JS 9S 8S 7S"),
    ...         h("AC 10C KC QC JC 9C 8C 7C"), h("AD 10D KD QD JD 9D 8D 7D")])
    >>> g.bid(0, "H")
    >>> claim_guaranteed(g, g.current_round, 0), claim_guaranteed(g, g.current_round, 1)
    (True, False)
    """
    t = r.tricks[-1]
    leader, trick = (t.winner, ()) if t.complete else (t.leader, t.cards)
    return claimer_takes_rest(rules_of(game.options, r.trump), _sides(seat), r.hands, leader,
                              trick, seat)
