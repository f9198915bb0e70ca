"""Kloepper as the solver sees it: the rules of a deal as tables, a ``solve`` query, and the
recorded deals (rule book 5.4-5.6; 9.2, decision 16). The analysis loads this adapter by
name (``Game.adapter("solver")``).

Side 0 is the black-queen side (a pair, a called-ace pair, or one player alone). Par is
what each of its players scores minus what each of the others scores, by the score table
(option ``score_table``) and the knocks made in the deal (counted from its first card).

>>> from jaslog.games.kloepper.options import resolve
>>> r = rules_of(resolve("kloepper"), "pair", knock=False, knock_back=False)
>>> r.trump, r.suit[20], r.table[3 * 95 + 1], r.table[3 * 120 + 2], r.table[3 * 30 + 1]
(4, 4, 4, 6, -4)
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
    SCORE_TABLE,
    VOID_ANY,
    VOID_TRUMP,
    Deal,
    NoPar,
    Position,
    Problem,
    SolveRules,
)
from jaslog.cards import card_text
from jaslog.engine.fold import GameFold
from jaslog.engine.oracle import QueryError, query_cards, query_hands, query_ints, query_seat
from jaslog.games.kloepper.rules.play import PACK, PLAIN_STRENGTH, POINTS, QC, QS, TRUMPS, Trumps
from jaslog.games.kloepper.rules.scoring import PACK_POINTS, TRICKS, ScoreTable, score_deal

PLAYERS = 4


def rules_of(opts: dict[str, Any], mode: str, *, knock: bool, knock_back: bool) -> SolveRules:
    """The solver's rules of a deal whose black-queen side plays ``mode`` (``pair`` or
    ``alone``) with these knocks, under the options ``opts``."""
    trumps = Trumps.from_options(opts)
    table = ScoreTable.from_options(opts)
    values = []
    for p in range(PACK_POINTS + 1):
        for tricks in (0, 1, TRICKS):  # none, some, all
            ds = score_deal(table, mode, p, tricks, knock=knock, knock_back=knock_back and knock)
            values.append(ds.queens_each - ds.others_each)
    return SolveRules(
        players=PLAYERS, suit=tuple(trumps.effective(c) for c in range(32)), trump=TRUMPS,
        strength=tuple(trumps.rank[c] if trumps.rank[c] >= 0 else PLAIN_STRENGTH[c & 7]
                       for c in range(32)),
        points=tuple(POINTS[c & 7] for c in range(32)), last_bonus=0, head_trump_lead=False,
        head_plain_lead=False, void=VOID_TRUMP if opts["must_trump_when_void"] else VOID_ANY,
        scoring=SCORE_TABLE, table=tuple(values))


def problem(q: dict[str, Any], opts: dict[str, Any]) -> Problem:
    """A ``solve`` query: ``leader``, ``hands`` (the cards each seat still holds), ``trick``
    (led by ``leader``), per seat ``points`` and ``tricks`` taken so far (default none), and
    the black-queen side: ``queens`` (its seats; default: the holders of the black queens,
    if they are still in the hands or the trick), ``mode`` (``pair`` or ``alone``; default
    by the number of seats), ``knock`` and ``knock_back`` (default false).

    >>> from jaslog.games.kloepper.options import resolve
    >>> p = problem({"leader": 0, "hands": [["QC"], ["9C"], ["QS"], ["10C"]], "tricks": [3, 2, 0, 0],
    ...              "points": [60, 44, 0, 0]}, resolve("kloepper"))
    >>> p.side, p.rules.table[3 * 60 + 1]
    ((0, 1, 0, 1), -2)
    """
    if q.get("trump") is not None:
        raise QueryError("kloepper's trumps are permanent: leave out 'trump'")
    leader = query_seat(q, "leader", PLAYERS)
    assert leader is not None
    hands = query_hands(q, PLAYERS, 0, TRICKS)
    trick = query_cards(q, "trick", 0, PLAYERS - 1) if q.get("trick") is not None else []
    held = hands[0] | hands[1] | hands[2] | hands[3]
    for c in [*trick, *(c for c in range(32) if held >> c & 1)]:
        if not PACK >> c & 1:
            raise QueryError(f"{card_text(c)} is not in the kloepper pack (9 10 J Q K A)")
    check_trick_not_held(hands, trick)
    tricks = query_ints(q, "tricks", PLAYERS, "tricks taken, one per seat", [0] * PLAYERS)
    points = query_ints(q, "points", PLAYERS, "card points taken, one per seat", [0] * PLAYERS)
    done = check_tricks(hands, trick, leader, tricks, TRICKS, "deal", points)
    gone = PACK & ~held & ~sum(1 << c for c in trick)
    taken = sum(POINTS[c & 7] for c in range(32) if gone >> c & 1)
    check_points(points, done, taken)
    queens = _queens(q, hands, trick, leader)
    mode = q.get("mode", "alone" if len(queens) == 1 else "pair")
    if mode not in ("pair", "alone"):
        raise QueryError("'mode' is pair (two black-queen seats, or a called ace) or alone")
    flags = {k: q.get(k, False) for k in ("knock", "knock_back")}
    if any(not isinstance(v, bool) for v in flags.values()):
        raise QueryError("'knock' and 'knock_back' are true or false")
    side = tuple(0 if s in queens else 1 for s in range(PLAYERS))
    pos = Position(tuple(hands), leader, tuple(trick),
                   (sum(points[s] for s in queens), sum(points[s] for s in range(PLAYERS)
                                                        if s not in queens)), (0, 0),
                   (any(tricks[s] for s in queens), any(tricks[s] for s in range(PLAYERS)
                                                        if s not in queens)))
    order = tuple(query_cards({"h": q["hands"][pos.to_move]}, "h", 0, TRICKS))
    rules = rules_of(opts, str(mode), knock=flags["knock"], knock_back=flags["knock_back"])
    return Problem(rules, side, pos, order=order)


def _queens(q: dict[str, Any], hands: list[int], trick: list[int], leader: int) -> list[int]:
    """The seats of the black-queen side: as the query says, or the holders of the queens."""
    raw = q.get("queens")
    if raw is not None:
        if not (isinstance(raw, list) and 1 <= len(raw) <= 2 and len(set(raw)) == len(raw)
                and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < PLAYERS
                        for x in raw)):
            raise QueryError("'queens' lists the seats (0-3) of the black-queen side: one or two")
        return sorted(raw)
    found = []
    for qc in (QC, QS):
        seat = next((s for s in range(PLAYERS) if hands[s] >> qc & 1), None)
        if seat is None and qc in trick:
            seat = (leader + trick.index(qc)) % PLAYERS
        if seat is None:
            raise QueryError(f"'queens' is needed: {card_text(qc)} is no longer in a hand or the "
                             "trick")
        found.append(seat)
    return sorted(set(found))


def _outcome(opts: dict[str, Any], mode: str, knock: bool, knock_back: bool) -> Any:
    """The result word (queens, others, none) of a position played out."""
    table = ScoreTable.from_options(opts)

    def outcome(pos: Position) -> str:
        tricks = 0 if not pos.won[0] else TRICKS if not pos.won[1] else 1
        ds = score_deal(table, mode, pos.points[0], tricks, knock=knock, knock_back=knock_back)
        return "queens" if ds.queens_each else "others" if ds.others_each else "none"

    return outcome


def deals(fold: GameFold) -> list[Deal | NoPar]:
    """The deals of a folded Kloepper game as the analysis takes them (see
    :func:`~jaslog.analysis.adapt.deals_of`).

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> d = deals(fold(event_from_dict(e) for e in simulate_game("d", "kloepper", seed=2)[:40]))[0]
    >>> d.round, len(d.plays), d.result
    (1, 24, 'others')
    """
    return deals_of(fold, _deal)


def _deal(fold: GameFold, r: Any, o: Any) -> Deal | NoPar:
    """A Kloepper deal ``r`` (its outcome ``o``): by the black-queen side and its knocks."""
    opts = fold.options
    seats = fold.seats
    score = tuple(o.score)
    sd = r.sides()
    if r.dealt is None or sd is None:
        return NoPar(r.number, HANDS_UNKNOWN, o.result, score)
    knock, back = r.knock_made() is not None, r.knock_back_made() is not None
    leader = r.tricks[0].leader if r.tricks else r.forehand
    side = tuple(0 if sd.on_queens(s) else 1 for s in range(PLAYERS))
    notes = []
    if knock:
        notes.append("knocked" + (" and knocked back" if back else "")
                     + " (counted from the first card)")
    finished = o.result not in ("unfinished",)
    q_seat = sd.queens[0]
    o_seat = next(s for s in range(PLAYERS) if not sd.on_queens(s))
    names = " & ".join(seats[s] for s in sd.queens)
    return Deal(
        round=r.number, rules=rules_of(opts, sd.scoring, knock=knock, knock_back=back),
        side=side, start=Position(tuple(r.dealt), leader), plays=plays_of(r), result=o.result,
        score=score, difference=score[q_seat] - score[o_seat] if finished else None,
        outcome=_outcome(opts, sd.scoring, knock, back),
        sides=(f"the black queens: {'seat' if len(sd.queens) == 1 else 'seats'} "
               f"{' & '.join(map(str, sd.queens))} ({names}, {sd.mode})",
               "the others"), note=deal_note(fold, r, notes))


def claim_guaranteed(game: Any, r: Any, seat: int) -> bool:
    """The judge of a claim of the rest in Kloepper deal ``r``, its hands known: does
    ``seat``'s side (the black queens' or the others') take every trick still to play
    against every defence?"""
    sd = r.sides()
    side = tuple(0 if sd.on_queens(s) else 1 for s in range(PLAYERS))
    t = r.tricks[-1] if r.tricks else None
    leader, trick = ((r.forehand, ()) if t is None else (t.winner, ()) if t.complete
                     else (t.leader, t.cards))
    rules = rules_of(game.options, "pair", knock=False, knock_back=False)
    return claimer_takes_rest(rules, side, r.hands, leader, trick, seat)
