"""A game of Kloepper as a state that actions move forward (rule book section 5).

Actions, each with the ``seq`` of its event: :meth:`KloepperGame.deal` (four hands of six,
or None when not seen), :meth:`~KloepperGame.call` (the holder of both black queens calls an
ace or goes alone), :meth:`~KloepperGame.knock`, :meth:`~KloepperGame.knock_back`,
:meth:`~KloepperGame.play` and the referee's :meth:`~KloepperGame.rule`. A rule broken at the
table is a :class:`Violation`; a record that cannot be a real deal is an
:class:`IntegrityError`. Unseen hands are rebuilt from the plays once the sixth trick is in,
and the deal's calls, knocks and plays are judged then, in order.

>>> from jaslog.cards import parse_card as p, parse_hand as h
>>> from jaslog.games.kloepper.options import resolve
>>> g = KloepperGame(resolve("kloepper"), dealer=3)
>>> g.deal([h("QC 9H 10H KH AH JD"), h("QS AC 9C 10C KC JC"), h("AS 9S 10S KS JS JH"),
...         h("AD 10D KD QD 9D QH")])
>>> g.expected(), g.current_round.sides().queens
(('play', 0), (0, 1))
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, ClassVar

from jaslog.cards import CARD_INDEX, card_text, cards_of, hand_text, popcount
from jaslog.engine.base import (
    IntegrityError,
    RestClaim,
    RoundBook,
    Ruling,
    ScoreOnly,
    Violation,
    check_hands,
    seats_text,
)
from jaslog.games.kloepper.rules.partners import Call, Sides, holder, sides
from jaslog.games.kloepper.rules.play import (
    ACES,
    BLACK_QUEENS,
    PACK,
    QC,
    QS,
    Trumps,
    judge,
    legal,
    trick_points,
)
from jaslog.games.kloepper.rules.scoring import PACK_POINTS, TRICKS, ScoreTable, score_deal

__all__ = ["KloepperGame", "Outcome", "Round", "Trick"]

KNOCK_WINDOW = 4  # knocks count until the first card of trick 2 (after 4 cards)


class Trick:
    """A trick of four cards: its number in the deal (from 1), the seat that led, the cards
    in play order and the seq of each card's event, its card points once complete, and the
    card winning it so far.

    It has the fields and methods of every game's trick (:class:`jaslog.engine.trick.Trick`),
    written out in a class of its own: compiled, it is a native class (which cannot derive
    from a plain one), copied field by field.

    >>> t = Trick(1, leader=3, cards=[0, 8])
    >>> t.complete, t.seat_of(1), t.winner, t
    (False, 0, 3, Trick(number=1, leader=3, cards=[0, 8], seqs=[], points=0, win=0))
    """

    players: ClassVar[int] = 4

    def __init__(self, number: int, leader: int, cards: list[int] | None = None,
                 seqs: list[int] | None = None, points: int = 0, win: int = 0) -> None:
        self.number = number
        self.leader = leader
        self.cards: list[int] = [] if cards is None else cards
        self.seqs: list[int] = [] if seqs is None else seqs
        self.points = points   # card points, once complete
        self.win = win         # index in cards of the card winning so far

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trick) and (
            self.number, self.leader, self.cards, self.seqs, self.points, self.win) == (
            other.number, other.leader, other.cards, other.seqs, other.points, other.win)

    __hash__ = None  # type: ignore[assignment]  # (mutable, compared by its fields)

    def __repr__(self) -> str:
        return (f"Trick(number={self.number}, leader={self.leader}, cards={self.cards}, "
                f"seqs={self.seqs}, points={self.points}, win={self.win})")

    def __deepcopy__(self, memo: dict[int, Any]) -> Trick:
        return Trick(self.number, self.leader, list(self.cards), list(self.seqs), self.points,
                     self.win)

    @property
    def complete(self) -> bool:
        """Every player has played to it."""
        return len(self.cards) == 4

    def seat_of(self, i: int) -> int:
        """The seat that played the ``i``-th card."""
        return (self.leader + i) % 4

    @property
    def winner(self) -> int:
        return (self.leader + self.win) % 4


@dataclass(slots=True)
class PartnerCall:
    seat: int
    call: str            # AC AD AH AS or alone
    seq: int
    plays: int           # cards played before it
    fault: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> PartnerCall:
        return PartnerCall(self.seat, self.call, self.seq, self.plays, self.fault)


@dataclass(slots=True)
class Knock:
    seat: int
    back: bool
    seq: int
    plays: int           # cards played before it
    fault: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Knock:
        return Knock(self.seat, self.back, self.seq, self.plays, self.fault)


@dataclass(slots=True)
class Outcome:
    """How a deal scored, per player. ``queens`` is the black-queen side (seats)."""

    points: list[int]
    tricks: list[int]
    queens: list[int] | None
    mode: str | None
    queens_points: int | None
    queens_tricks: int | None
    knock: bool
    knock_back: bool
    result: str          # queens | others | none | revoke | unfinished
    row: str | None
    score: list[int]
    ruled: list[int] | None
    final: list[int]


#: What a :class:`Round` keeps beyond its constructor's arguments (its copy copies them).
_ROUND_STATE = ("forehand", "hands_known", "dealt", "hands", "call", "knocks", "tricks",
                "played", "plays", "by_seat", "first_play_seq", "pending", "violations",
                "revoke_seq", "revoke_seat", "missing_call_judged", "ruling", "rulings",
                "closed", "score_only", "claim")


class Round:
    """One deal: the hands (when seen), the partner call, knocks and the six tricks."""

    def __init__(self, number: int, dealer: int, hands: list[int] | None) -> None:
        self.number = number
        self.dealer = dealer
        self.forehand = (dealer + 1) % 4
        self.hands_known = hands is not None
        self.dealt: list[int] | None = list(hands) if hands is not None else None
        self.hands: list[int] = list(hands) if hands is not None else [0, 0, 0, 0]
        self.call: PartnerCall | None = None
        self.knocks: list[Knock] = []
        self.tricks: list[Trick] = []
        self.played = 0
        self.plays = 0
        self.by_seat = [0, 0, 0, 0]
        self.first_play_seq: int | None = None
        self.pending: list[tuple[str, int, int, int]] = []   # (kind, seat, card/index, seq)
        self.violations: list[Violation] = []
        self.revoke_seq: int | None = None
        self.revoke_seat: int | None = None
        self.missing_call_judged = False
        self.ruling: Ruling | None = None
        self.rulings: list[Ruling] = []   # every ruling, in order; the last counts
        self.closed = False
        self.score_only: ScoreOnly | None = None   # recorded by its score alone
        self.claim: RestClaim | None = None   # the rest claimed or conceded

    def __deepcopy__(self, memo: dict[int, Any]) -> Round:
        """A copy that shares nothing mutable with this deal; written out, as a compiled
        class is copied by its constructor."""
        new = Round(self.number, self.dealer, None)
        for name in _ROUND_STATE:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

    @property
    def over(self) -> bool:
        """The play is over: all six tricks are complete, or the rest was claimed."""
        return self.claim is not None or (len(self.tricks) == TRICKS and self.tricks[-1].complete)

    def valid_call(self) -> Call | None:
        c = self.call
        return (c.seat, c.call) if c is not None and c.fault != "partner_call_not_allowed" else None

    def sides(self) -> Sides | None:
        """The true sides, once the hands are known (seen, or rebuilt at the end)."""
        if self.dealt is None:
            return None
        return sides(self.dealt, self.valid_call())

    def knock_made(self) -> Knock | None:
        return next((k for k in self.knocks if not k.back and k.fault is None), None)

    def knock_back_made(self) -> Knock | None:
        return next((k for k in self.knocks if k.back and k.fault is None), None)


class KloepperGame(RoundBook[Round]):
    """A game of Kloepper (four players, each for himself across deals).

    Compiled, a native class (as :class:`RoundBook` is), whose copy is written out."""

    players: ClassVar[int] = 4
    scores: ClassVar[int] = 4
    game: ClassVar[str] = "kloepper"

    def __init__(self, options: dict[str, Any], dealer: int = 0) -> None:
        if not 0 <= dealer < 4:
            raise IntegrityError("bad_seat", f"dealer {dealer} is not a seat ({seats_text(4)})")
        self.options = options
        self.first_dealer = dealer
        self.trumps = Trumps.from_options(options)
        self.table = ScoreTable.from_options(options)
        self.must_trump = bool(options["must_trump_when_void"])
        self.both_queens = set(options["both_queens"])
        self.own_ace = bool(options["call_own_ace_allowed"])
        self.target = int(options["target"])
        self.revoke = str(options["revoke"])
        self.rounds: list[Round] = []
        self.violations: list[Violation] = []

    def check_score(self, so: ScoreOnly) -> str:
        """What does not add up in a score-only deal: card points that are not the pack's
        120 between them, roem (Kloepper has none), or a score the table cannot give: the
        players of the scoring side each score one value of the table, the others nothing."""
        results = ("queens", "others", "none", "revoke")
        if so.result is not None and so.result not in results:
            return f"result {so.result!r} is not a kloepper result ({', '.join(results)})"
        if so.points is not None and sum(so.points) != PACK_POINTS:
            shown = " + ".join(map(str, so.points))
            return f"points {shown} = {sum(so.points)}, not {PACK_POINTS}"
        if so.roem is not None and any(so.roem):
            return "kloepper has no roem"
        scored = sorted({x for x in so.score if x})
        shown = "-".join(map(str, so.score))
        if not scored:
            return f"score {shown}: a deal scores for one side" if so.result != "none" else ""
        if len(scored) > 1:
            return f"score {shown}: the players of the scoring side score alike"
        values = self.table.values()
        if scored[0] not in values:
            return (f"score {shown}: {scored[0]} is not a value of the score table "
                    f"({', '.join(map(str, sorted(values)))})")
        return ""

    def _score_only_round(self, number: int, dealer: int, so: ScoreOnly) -> Round:
        r = Round(number, dealer, None)
        r.score_only, r.closed = so, True
        return r

    def most_round_score(self) -> int:
        """The largest value of the score table (each player of a side scores it): a bound
        no ruling may pass."""
        return self.table.most()

    def copy(self) -> KloepperGame:
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> KloepperGame:
        """A copy that shares nothing mutable with this game: made from its options, its
        deals and violations copied."""
        new = KloepperGame(copy.deepcopy(self.options, memo), self.first_dealer)
        memo[id(self)] = new
        new.rounds = [copy.deepcopy(r, memo) for r in self.rounds]
        new.violations = copy.deepcopy(self.violations, memo)
        return new

    # ------------------------------------------------------------------ reading the state

    def dealer_of(self, number: int) -> int:
        return (self.first_dealer + number - 1) % 4

    def _dealer_due(self, number: int) -> int:
        return self.dealer_of(number)

    def _busy_note(self, r: Round) -> str:
        return f"{popcount(r.played)} of 24 cards played"

    def expected(self) -> tuple[str, int | None]:
        """What comes next: (``deal``|``call``|``play``|``over``, seat). ``call`` only when the
        hands were seen and one player holds both black queens and has not yet called."""
        if not self.rounds or self.rounds[-1].closed:
            return ("over", None) if self.finished else ("deal", self.dealer_of(len(self.rounds) + 1))
        r = self.rounds[-1]
        if r.dealt is not None and r.call is None and not r.plays:
            hq = holder(r.dealt, QC)
            if hq == holder(r.dealt, QS):
                return "call", hq
        return "play", self._due(r)

    def _due(self, r: Round) -> int:
        if not r.tricks:
            return r.forehand
        t = r.tricks[-1]
        return t.winner if t.complete else t.seat_of(len(t.cards))

    def legal_plays(self) -> int:
        r = self.current_round
        kind, seat = self.expected()
        if kind != "play" or seat is None or not r.hands_known:
            return 0
        t = r.tricks[-1] if r.tricks else None
        trick = [] if t is None or t.complete else t.cards
        return legal(r.hands[seat], trick, self.trumps, self.must_trump)

    def outcome(self, r: Round) -> Outcome:
        points, tricks = [0] * 4, [0] * 4
        for t in r.tricks:
            if t.complete:
                points[t.winner] += t.points
                tricks[t.winner] += 1
        c = r.claim
        if c is not None:  # credited to the claimer, or to the next seat of the other side
            points[c.taker] += c.points
            tricks[c.taker] += c.tricks
        ruled = list(r.ruling.score) if r.ruling else None
        so = r.score_only
        if so is not None:  # what the sheet says; zeros where it says nothing
            pts = list(so.points) if so.points is not None else [0] * 4
            return Outcome(pts, tricks, None, None, None, None, False, False,
                           so.result or "score_only", None, list(so.score), ruled,
                           ruled or list(so.score))
        sd = r.sides() if r.over else None
        if sd is None:
            return Outcome(points, tricks, None, None, None, None, False, False, "unfinished", None,
                           [0] * 4, ruled, ruled or [0] * 4)
        q = sum(points[s] for s in sd.queens)
        qt = sum(tricks[s] for s in sd.queens)
        knock, back = r.knock_made() is not None, r.knock_back_made() is not None
        result = ""
        if r.revoke_seat is not None and self.revoke == "penalty":
            # the deal is scored as if the other side had taken every trick
            q, qt = (0, 0) if sd.on_queens(r.revoke_seat) else (PACK_POINTS, TRICKS)
            result = "revoke"
        ds = score_deal(self.table, sd.scoring, q, qt, knock=knock, knock_back=back)
        score = [ds.queens_each if sd.on_queens(s) else ds.others_each for s in range(4)]
        if not result:
            result = "queens" if ds.queens_each else "others" if ds.others_each else "none"
        return Outcome(points, tricks, list(sd.queens), sd.mode,
                       sum(points[s] for s in sd.queens), sum(tricks[s] for s in sd.queens),
                       knock, back, result, ds.row, score, ruled, ruled or score)

    def outcomes(self) -> list[Outcome]:
        return [self.outcome(r) for r in self.rounds]

    @property
    def winner(self) -> int | None:
        """The winning seat: after a deal in which someone has reached the target, the unique
        highest total (section 9, decision 5); equal highest totals play on."""
        return self.winner_of(None)

    def winner_of(self, totals: list[int] | None) -> int | None:
        if not self.rounds or not self.rounds[-1].closed:
            return None
        tot = self.totals() if totals is None else totals
        top = max(tot)
        if top < self.target or tot.count(top) > 1:
            return None
        return tot.index(top)

    # ------------------------------------------------------------------ actions

    def deal(self, hands: list[int] | None, dealer: int | None = None, seq: int = -1) -> None:
        number, due = self._next_round(dealer)
        if hands is not None:
            check_deal(hands)
        self.rounds.append(Round(number, due, hands))

    def call(self, seat: int, call: str, seq: int = -1) -> None:
        """The holder of both black queens calls an ace (``AH``...) or goes ``alone``."""
        r = self._open_round()
        self._check_seat(seat)
        if call != "alone" and call not in ("AC", "AD", "AH", "AS"):
            raise IntegrityError("bad_call", f"{call!r} is not a partner call (an ace or alone)",
                                 seat=seat)
        if r.call is not None:
            raise IntegrityError("partner_call_twice", f"seat {r.call.seat} already called "
                                 f"{r.call.call!r} in this deal", seat=seat)
        r.call = PartnerCall(seat, call, seq, r.plays)
        if r.plays:
            self._violate(r, "partner_call_late", f"seat {seat} called {call!r} after the first "
                          "lead (the call comes before it)", seat=seat, seq=seq)
        if r.hands_known:
            self._judge_call(r, r.dealt or [])
        else:
            r.pending.append(("call", seat, 0, seq))

    def knock(self, seat: int, seq: int = -1, *, back: bool = False) -> None:
        """``seat`` knocks (its side undertakes every trick), or knocks back (``back``)."""
        r = self._open_round()
        self._check_seat(seat)
        k = Knock(seat, back, seq, r.plays)
        r.knocks.append(k)
        if r.hands_known:
            self._judge_knock(r, k, r.dealt or [])
        else:
            r.pending.append(("knock", seat, len(r.knocks) - 1, seq))

    def knock_back(self, seat: int, seq: int = -1) -> None:
        self.knock(seat, seq, back=True)

    def play(self, seat: int, c: int, seq: int = -1) -> None:
        r = self._open_round()
        self._check_seat(seat)
        if not PACK >> c & 1:
            raise IntegrityError("card_not_in_pack", f"{card_text(c)} is not in the kloepper pack "
                                 "(9 10 J Q K A)", seat=seat, card=c)
        due = self._due(r)
        self._check_play(seat, c, due, r.played)
        if r.hands_known and not r.hands[seat] >> c & 1:
            raise IntegrityError("card_not_held", f"seat {seat} played {card_text(c)}, which is not "
                                 f"in its hand ({hand_text(r.hands[seat])})", seat=seat, card=c)
        if not r.tricks or r.tricks[-1].complete:
            r.tricks.append(Trick(len(r.tricks) + 1, due))
        t = r.tricks[-1]
        if r.first_play_seq is None:
            r.first_play_seq = seq
        if r.hands_known:
            if not r.plays:
                self._judge_missing_call(r, r.dealt or [])
            self._judge_play(r, t, seat, c, r.hands[seat], t.cards, seq)
            r.hands[seat] &= ~(1 << c)
        else:
            r.hands[seat] |= 1 << c
            r.pending.append(("play", seat, c, seq))
        r.played |= 1 << c
        r.by_seat[seat] |= 1 << c
        r.plays += 1
        if t.cards and self.trumps.beats(c, t.cards[t.win]):
            t.win = len(t.cards)
        t.cards.append(c)
        t.seqs.append(seq)
        if t.complete:
            t.points = trick_points(t.cards)
            if t.number == TRICKS:
                self._close(r)

    def _claim_rest(self, r: Round, seat: int) -> tuple[int, int, int, int]:
        """Every trick still to play: the trick in progress (its cards on the table) and
        those after it. Who is on which side, and the cards left, are known only from the
        hands: a deal recorded without them cannot be claimed (its score needs a ruling)."""
        if not r.hands_known:
            raise IntegrityError("claim_needs_hands", f"seat {seat} claimed the rest of deal "
                                 f"{r.number}, recorded without its hands: the sides and the "
                                 "cards left are not known, so record the deal's score with a "
                                 "ruling", seat=seat)
        t = r.tricks[-1] if r.tricks else None
        first = 1 if t is None else t.number + 1 if t.complete else t.number
        cards = r.hands[0] | r.hands[1] | r.hands[2] | r.hands[3]
        if t is not None and not t.complete:
            for c in t.cards:
                cards |= 1 << c
        return first, TRICKS + 1 - first, cards, trick_points(list(cards_of(cards)))

    def _opponent_of(self, r: Round, seat: int) -> int:
        """The next seat after ``seat`` on the other side (the black queens' or the others')."""
        sd = r.sides()
        assert sd is not None
        return next(s % 4 for s in range(seat + 1, seat + 4)
                    if sd.on_queens(s % 4) != sd.on_queens(seat))

    def _close(self, r: Round) -> None:
        r.closed = True
        if r.hands_known:
            return
        hands = list(r.hands)          # each seat held what it played
        r.dealt, r.hands_known = list(hands), True
        k = 0
        for kind, seat, x, seq in r.pending:
            if kind == "call":
                self._judge_call(r, r.dealt)
            elif kind == "knock":
                self._judge_knock(r, r.knocks[x], r.dealt)
            else:
                if k == 0:
                    self._judge_missing_call(r, r.dealt)
                t = r.tricks[k // 4]
                self._judge_play(r, t, seat, x, hands[seat], t.cards[:k % 4], seq)
                hands[seat] &= ~(1 << x)
                k += 1
        r.pending.clear()
        r.hands = hands

    # ------------------------------------------------------------------ judging

    def _judge_play(self, r: Round, t: Trick, seat: int, c: int, hand: int, before: list[int],
                    seq: int) -> None:
        bad = judge(hand, before, self.trumps, c, self.must_trump)
        if bad is not None:
            self._revoke(r, bad, seat, c, seq, t.number, self.revoke == "reject")

    def _judge_call(self, r: Round, dealt: list[int]) -> None:
        c = r.call
        assert c is not None
        hand = dealt[c.seat]
        fault, why = None, ""
        if hand & BLACK_QUEENS != BLACK_QUEENS:
            fault, why = "partner_call_not_allowed", "does not hold both black queens"
        elif c.call == "alone":
            if "alone" not in self.both_queens:
                fault, why = "partner_call_not_allowed", "may not go alone (option both_queens)"
        else:
            ace = CARD_INDEX[c.call]
            if "call_ace" not in self.both_queens:
                fault, why = "partner_call_not_allowed", "may not call an ace (option both_queens)"
            elif self.trumps.mask >> ace & 1:
                fault, why = "partner_call_not_allowed", f"{c.call} is a trump: the call is " \
                                                         "of a non-trump ace"
            elif hand >> ace & 1 and not self.own_ace:
                held_all = all(hand >> a & 1 for a in ACES if not self.trumps.mask >> a & 1)
                fault, why = "call_own_ace", (f"it holds {c.call} itself" + (
                    " (holding every non-trump ace it must go alone)" if held_all else ""))
        if fault is None:
            return
        # a call by a player without both queens does not count; an own ace leaves him alone
        c.fault = fault
        self._violate(r, fault, f"seat {c.seat} called {c.call!r} but {why}", seat=c.seat, seq=c.seq)

    def _judge_missing_call(self, r: Round, dealt: list[int]) -> None:
        if r.missing_call_judged:
            return
        r.missing_call_judged = True
        hq = holder(dealt, QC)
        if hq is None or hq != holder(dealt, QS) or (
                r.call is not None and r.call.seat == hq and r.call.plays == 0):
            return
        self._violate(r, "partner_call_missing", f"seat {hq} holds both black queens but neither "
                      "called an ace nor went alone before the first lead: it plays alone",
                      seat=hq, seq=r.first_play_seq if r.first_play_seq is not None else -1)

    def _judge_knock(self, r: Round, k: Knock, dealt: list[int]) -> None:
        what = "knocked back" if k.back else "knocked"
        fault, why = None, ""
        if k.plays > KNOCK_WINDOW:
            fault, why = "knock_late", "after the first card of trick 2"
        elif not k.back:
            if not dealt[k.seat] & BLACK_QUEENS:
                fault, why = "knock_not_allowed", "does not hold a black queen"
            elif any(o is not k and not o.back and o.fault is None for o in r.knocks[:r.knocks.index(k)]):
                fault, why = "knock_twice", "a knock was already made in this deal"
        else:
            sd = sides(dealt, r.valid_call())
            knocked = any(not o.back and o.fault is None for o in r.knocks[:r.knocks.index(k)])
            if not knocked:
                fault, why = "knock_back_not_allowed", "nobody had knocked"
            elif sd.on_queens(k.seat):
                fault, why = "knock_back_not_allowed", "is on the knocking (black-queen) side"
            elif any(o is not k and o.back and o.fault is None for o in r.knocks[:r.knocks.index(k)]):
                fault, why = "knock_twice", "a knock-back was already made in this deal"
        if fault is None:
            return
        k.fault = fault
        self._violate(r, fault, f"seat {k.seat} {what} but {why}: it does not count", seat=k.seat,
                      seq=k.seq, trick=len(r.tricks) or None)


def check_deal(hands: list[int]) -> None:
    """Four hands of six that together are the 24-card pack, or an IntegrityError."""
    seen = check_hands(hands, "kloepper", 4, 6, pack=PACK, pack_text="9 10 J Q K A")
    assert seen == PACK  # four disjoint hands of six inside the pack are the pack
