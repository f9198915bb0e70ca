"""The toy game's rules, pure: two players, ten cards (10 J Q K A of hearts and spades),
five each, no trumps. The elder (the dealer's opponent) leads; a player must follow suit when he
can (a revoke is possible), the higher card of the suit led wins, the winner leads next.
Before the first lead either player may ``double`` the round's stakes. A round scores one
point per trick (two when doubled) to the player who took it; the game is three rounds
(option ``rounds``; equal totals play on) and the higher total wins.

>>> from jaslog.cards import parse_hand as h
>>> g = ToyGame({"rounds": 3, "revoke": "penalty"}, dealer=1)
>>> g.deal([h("10H JH QH JS QS"), h("KH AH 10S KS AS")])
>>> g.expected()
('play', 0)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from jaslog.cards import card_text, cards_of, hand_text, parse_hand, suit_of
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
from jaslog.engine.trick import Trick as TrickBase

PACK = parse_hand("10H JH QH KH AH 10S JS QS KS AS")
TRICKS = 5
RESULTS = ("made", "bete", "revoke")


@dataclass(slots=True)
class Trick(TrickBase, players=2):
    """A trick of two cards; ``win`` the index of the card winning it so far."""

    win: int = 0

    @property
    def winner(self) -> int:
        return (self.leader + self.win) % 2


def beats(c: int, best: int) -> bool:
    """Card ``c`` beats ``best`` (the card winning the trick): the same suit, higher."""
    return suit_of(c) == suit_of(best) and c > best


def legal(hand: int, trick: list[int]) -> int:
    """The cards of ``hand`` that may be played to ``trick``: the suit led when held."""
    if not trick:
        return hand
    follow = sum(1 << c for c in cards_of(hand) if suit_of(c) == suit_of(trick[0]))
    return follow or hand


@dataclass(slots=True)
class Double:
    seat: int
    seq: int
    fault: str | None = None


@dataclass(slots=True)
class Outcome:
    """How a round scored: tricks per seat, the result for the elder (``made``: it took
    more tricks, ``bete``: fewer, ``revoke``), the stake."""

    tricks: list[int]
    result: str
    stake: int
    score: list[int]
    ruled: list[int] | None
    final: list[int]


class Round:
    """One round: the hands (when seen), the doubles and the four tricks."""

    def __init__(self, number: int, dealer: int, hands: list[int] | None) -> None:
        self.number, self.dealer, self.elder = number, dealer, 1 - dealer
        self.hands_known = hands is not None
        self.dealt: list[int] | None = list(hands) if hands is not None else None
        self.hands: list[int] = list(hands) if hands is not None else [0, 0]
        self.doubles: list[Double] = []
        self.tricks: list[Trick] = []
        self.played = 0
        self.plays = 0
        self.by_seat = [0, 0]
        self.pending: list[tuple[int, int, int]] = []   # plays to judge: (seat, card, seq)
        self.violations: list[Violation] = []
        self.revoke_seq: int | None = None
        self.revoke_seat: int | None = None
        self.ruling: Ruling | None = None
        self.rulings: list[Ruling] = []
        self.closed = False
        self.score_only: ScoreOnly | None = None
        self.claim: RestClaim | None = None

    @property
    def over(self) -> bool:
        return self.claim is not None or (len(self.tricks) == TRICKS and self.tricks[-1].complete)

    @property
    def doubled(self) -> bool:
        return any(d.fault is None for d in self.doubles)


class ToyGame(RoundBook[Round]):
    """A game of the toy: two players, each for himself."""

    players = 2
    scores = 2
    game = "toy"
    round_word = "round"

    def __init__(self, options: dict[str, Any], dealer: int = 0) -> None:
        if not 0 <= dealer < 2:
            raise IntegrityError("bad_seat", f"dealer {dealer} is not a seat ({seats_text(2)})")
        self.options = options
        self.first_dealer = dealer
        self.rounds_to_play = int(options["rounds"])
        self.revoke = str(options["revoke"])
        self.rounds: list[Round] = []
        self.violations: list[Violation] = []

    def copy(self) -> ToyGame:
        return copy.deepcopy(self)

    def dealer_of(self, number: int) -> int:
        return (self.first_dealer + number - 1) % 2

    _dealer_due = dealer_of

    def _busy_note(self, r: Round) -> str:
        return f"{r.plays} of 10 cards played"

    def expected(self) -> tuple[str, int | None]:
        """What comes next: (``deal``|``play``|``over``, seat); a double is never awaited."""
        if not self.rounds or self.rounds[-1].closed:
            return ("over", None) if self.finished else ("deal", self.dealer_of(len(self.rounds) + 1))
        return "play", self._due(self.rounds[-1])

    def _due(self, r: Round) -> int:
        if not r.tricks:
            return r.elder
        t = r.tricks[-1]
        return t.winner if t.complete else t.seat_of(len(t.cards))

    def legal_plays(self) -> int:
        r = self.current_round
        kind, seat = self.expected()
        if kind != "play" or seat is None or not r.hands_known:
            return 0
        t = r.tricks[-1] if r.tricks else None
        return legal(r.hands[seat], [] if t is None or t.complete else t.cards)

    # ------------------------------------------------------------------ scoring

    def outcome(self, r: Round) -> Outcome:
        tricks = [0, 0]
        for t in r.tricks:
            if t.complete:
                tricks[t.winner] += 1
        if r.claim is not None:
            tricks[r.claim.taker] += r.claim.tricks
        ruled = list(r.ruling.score) if r.ruling else None
        if r.score_only is not None:
            so = r.score_only
            return Outcome(tricks, so.result or "score_only", 1, list(so.score), ruled,
                           ruled or list(so.score))
        if not r.over:
            return Outcome(tricks, "unfinished", 1, [0, 0], ruled, ruled or [0, 0])
        stake = 2 if r.doubled else 1
        if r.revoke_seat is not None and self.revoke == "penalty":
            tricks = [0, 0]
            tricks[1 - r.revoke_seat] = TRICKS   # every trick to the revoker's opponent
            result = "revoke"
        else:
            e = tricks[r.elder]
            result = "made" if e > TRICKS - e else "bete"
        score = [n * stake for n in tricks]
        return Outcome(tricks, result, stake, score, ruled, ruled or score)

    def outcomes(self) -> list[Outcome]:
        return [self.outcome(r) for r in self.rounds]

    @property
    def winner(self) -> int | None:
        """After the last round (option ``rounds``) the seat with the higher total; equal
        totals play on, a round at a time."""
        if len(self.rounds) < self.rounds_to_play or not self.rounds[-1].closed:
            return None
        a, b = self.totals()
        return None if a == b else int(b > a)

    def most_round_score(self) -> int:
        return 2 * TRICKS

    def check_score(self, so: ScoreOnly) -> str:
        if so.result is not None and so.result not in RESULTS:
            return f"result {so.result!r} is not a toy result ({', '.join(RESULTS)})"
        if sum(so.score) not in (TRICKS, 2 * TRICKS):
            return f"score {'-'.join(map(str, so.score))}: a round scores 5 (10 when doubled)"
        return ""

    def _score_only_round(self, number: int, dealer: int, so: ScoreOnly) -> Round:
        r = Round(number, dealer, None)
        r.score_only, r.closed = so, True
        return r

    # ------------------------------------------------------------------ actions

    def deal(self, hands: list[int] | None, dealer: int | None = None, seq: int = -1) -> None:
        number, due = self._next_round(dealer)
        if hands is not None:
            check_hands(hands, "toy", 2, 5, pack=PACK, pack_text="10 J Q K A of hearts and spades")
        self.rounds.append(Round(number, due, hands))

    def double(self, seat: int, seq: int = -1) -> None:
        """``seat`` doubles the round's stakes: before the first lead, once a round."""
        r = self._open_round()
        self._check_seat(seat)
        d = Double(seat, seq)
        if r.plays:
            d.fault = "double_late"
            self._violate(r, "double_late", f"seat {seat} doubled after the first lead: it does "
                          "not count", seat=seat, seq=seq)
        elif r.doubled:
            d.fault = "double_twice"
            self._violate(r, "double_twice", f"seat {seat} doubled a round already doubled: it "
                          "does not count", seat=seat, seq=seq)
        r.doubles.append(d)

    def play(self, seat: int, c: int, seq: int = -1) -> None:
        r = self._open_round()
        self._check_seat(seat)
        if not PACK >> c & 1:
            raise IntegrityError("card_not_in_pack", f"{card_text(c)} is not in the toy pack "
                                 "(10 J Q K A of hearts and spades)", seat=seat, card=c)
        due = self._due(r)
        self._check_play(seat, c, due, r.played)
        if r.hands_known and not r.hands[seat] >> c & 1:
            raise IntegrityError("card_not_held", f"seat {seat} played {card_text(c)}, which is not "
                                 f"in its hand ({hand_text(r.hands[seat])})", seat=seat, card=c)
        if not r.tricks or r.tricks[-1].complete:
            r.tricks.append(Trick(len(r.tricks) + 1, due))
        t = r.tricks[-1]
        if r.hands_known:
            self._judge(r, t, seat, c, r.hands[seat], t.cards, seq)
            r.hands[seat] &= ~(1 << c)
        else:  # judged at the end, from the cards each seat played
            r.hands[seat] |= 1 << c
            r.pending.append((seat, c, seq))
        r.played |= 1 << c
        r.by_seat[seat] |= 1 << c
        r.plays += 1
        if t.cards and beats(c, t.cards[t.win]):
            t.win = len(t.cards)
        t.cards.append(c)
        t.seqs.append(seq)
        if t.complete:
            t.points = 1
            if t.number == TRICKS:
                self._close(r)

    def _judge(self, r: Round, t: Trick, seat: int, c: int, hand: int, before: list[int],
               seq: int) -> None:
        if not legal(hand, before) >> c & 1:
            bad = ("must_follow_suit", f"played {card_text(c)} but holds the suit led "
                   f"({card_text(before[0])})")
            self._revoke(r, bad, seat, c, seq, t.number, self.revoke == "reject")

    def _close(self, r: Round) -> None:
        r.closed = True
        if r.hands_known:
            return
        hands = list(r.hands)   # each seat held what it played
        r.dealt, r.hands_known = list(hands), True
        for k, (seat, c, seq) in enumerate(r.pending):
            t = r.tricks[k // 2]
            self._judge(r, t, seat, c, hands[seat], t.cards[:k % 2], seq)
            hands[seat] &= ~(1 << c)
        r.pending.clear()
        r.hands = hands

    def _claim_rest(self, r: Round, seat: int) -> tuple[int, int, int, int]:
        if not r.hands_known:
            raise IntegrityError("claim_needs_hands", f"seat {seat} claimed the rest of round "
                                 f"{r.number}, recorded without its hands: record its score "
                                 "with a ruling", seat=seat)
        t = r.tricks[-1] if r.tricks else None
        first = 1 if t is None else t.number + 1 if t.complete else t.number
        cards = r.hands[0] | r.hands[1]
        if t is not None and not t.complete:
            cards |= sum(1 << c for c in t.cards)
        tricks = TRICKS + 1 - first
        return first, tricks, cards, tricks
