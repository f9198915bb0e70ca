"""A game of Klaberjass as a state that actions move forward (rule book section 4).

Actions, each taking the ``seq`` of the event it comes from: :meth:`KlaberjassGame.deal`
(two hands of six, the turn-up, the stock when known), :meth:`~KlaberjassGame.bid`,
:meth:`~KlaberjassGame.second_deal` (three more cards each, the stock's bottom card),
:meth:`~KlaberjassGame.dix`, :meth:`~KlaberjassGame.declare` (a sequence),
:meth:`~KlaberjassGame.bella`, :meth:`~KlaberjassGame.play` and the referee's
:meth:`~KlaberjassGame.rule`. Each moves the state on, recording any rule it broke as a
:class:`Violation`, or raises an :class:`IntegrityError` and changes nothing.

When the hands were seen every action is judged at once; when they were not, the cards each
player held are rebuilt from the plays once the ninth trick is in, and every play,
declaration and bella of the deal is judged then, in order.

>>> from jaslog.cards import parse_card as p, parse_hand as h
>>> from jaslog.games.klaberjass.options import resolve
>>> g = KlaberjassGame(resolve("klaberjass-2p"), dealer=1)
>>> g.deal([h("JH 9H AS KS QS 7C"), h("AH 10H 8C 9C 10C AD")], p("QH"))
>>> g.bid(0, "take"); g.expected()
('second_deal', 1)
>>> g.second_deal([h("JS 8H 7H"), h("KH 7D 8D")], p("KD"))
>>> g.dix(0)
>>> hand_text(g.current_round.hands[0])
'7C 8H 9H JH QH JS QS KS AS'
>>> g.expected(), hand_text(g.legal_plays())
(('play', 0), '7C 8H 9H JH QH JS QS KS AS')
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from jaslog.cards import (
    FULL_DECK,
    SUIT_NAMES,
    card_text,
    cards_of,
    hand_text,
    popcount,
)
from jaslog.engine.base import (
    IntegrityError,
    RoundBook,
    ScoreOnly,
    Violation,
    check_hands,
    seats_text,
)
from jaslog.engine.jacknine import trick_points
from jaslog.games.klaberjass.rules.bidding import Bidding
from jaslog.games.klaberjass.rules.play import (
    PlayRules,
    ScoreRules,
    SequenceRules,
    bella_cards,
    dix_card,
    judge,
    legal,
    run_of,
    run_text,
    score_deal,
)
from jaslog.games.klaberjass.rules.round import (
    TRICKS,
    Announcement,
    Declaration,
    Outcome,
    Round,
    Trick,
)

__all__ = ["KlaberjassGame", "hand_text"]


class KlaberjassGame(RoundBook[Round]):
    """A game of Klaberjass (two players, seats 0 and 1) from its options and first dealer.

    Compiled, a native class (as :class:`RoundBook` is), whose copy is written out."""

    players: ClassVar[int] = 2
    scores: ClassVar[int] = 2
    game: ClassVar[str] = "klaberjass"

    def __init__(self, options: dict[str, Any], dealer: int = 0) -> None:
        if dealer not in (0, 1):
            raise IntegrityError("bad_seat", f"dealer {dealer} is not a seat ({seats_text(2)})")
        self.options = options
        self.first_dealer = dealer
        self.play_rules = PlayRules.from_options(options)
        self.seq_rules = SequenceRules.from_options(options)
        self.score_rules = ScoreRules.from_options(options)
        self.seq_announced = bool(options["sequences_require_announcement"])
        self.bella_announced = bool(options["bella_requires_announcement"])
        self.bella_points = int(options["bella"])
        self.last_bonus = int(options["last_trick_bonus"])
        self.target = int(options["target"])
        self.reject_revokes = options["revoke"] == "reject"
        self.rounds: list[Round] = []
        self.violations: list[Violation] = []

    def copy(self) -> KlaberjassGame:
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> KlaberjassGame:
        """A copy that shares nothing mutable with this game: made from its options, its
        deals and violations copied."""
        new = KlaberjassGame(copy.deepcopy(self.options, memo), self.first_dealer)
        memo[id(self)] = new
        new.rounds = [copy.deepcopy(r, memo) for r in self.rounds]
        new.violations = copy.deepcopy(self.violations, memo)
        return new

    def check_score(self, so: ScoreOnly) -> str:
        """What does not add up in a score-only deal (only 18 of the 32 cards are played, so
        the card points of a deal vary): points above the 162 the pack and the last trick
        hold, melds (``roem``: sequences and bella) not in tens, a score that is none of the
        shapes of rule book 4.8, or, when the points and melds are written, not the score
        they give (the maker's too, when written)."""
        most = 152 + self.last_bonus
        results = ("made", "bete", "tie", "revoke")
        if so.result is not None and so.result not in results:
            return f"result {so.result!r} is not a klaberjass result ({', '.join(results)})"
        if so.points is not None and not self.last_bonus <= sum(so.points) <= most:
            a, b = so.points
            return (f"points {a} + {b} = {a + b}: a deal's card points add up to "
                    f"{self.last_bonus}-{most}")
        if so.roem is not None and any(x % 10 for x in so.roem):
            return f"melds {so.roem[0]}-{so.roem[1]}: sequences and bella come in tens"
        a, b = so.score
        m = so.chooser
        if so.result in ("bete", "tie") and m is not None and so.score[m]:
            return f"a {so.result} deal scores nothing for the maker, not {so.score[m]}"
        if so.result in ("bete", "revoke", "tie") and 0 not in so.score:
            return f"a {so.result} deal scores for one player only, not {a}-{b}"
        if so.points is None or so.roem is None:
            return ""
        totals = [so.points[i] + so.roem[i] for i in (0, 1)]
        makers = (m,) if m is not None else (0, 1)
        revokes: tuple[int | None, ...] = (0, 1) if so.result == "revoke" else (None,)
        options = [score_deal(self.score_rules, totals, k, r) for k in makers for r in revokes]
        if any(o.score == so.score for o in options):
            return ""
        o = options[0]
        who = f"seat {m} made; " if m is not None else ""
        return (f"{who}with totals {totals[0]}-{totals[1]} the deal scores {o.score[0]}-"
                f"{o.score[1]} ({o.result}), not {a}-{b}")

    def _score_only_round(self, number: int, dealer: int, so: ScoreOnly) -> Round:
        r = Round(number, dealer, None, -1, None, Bidding(dealer, -1, self.options))
        r.score_only, r.closed = so, True
        return r

    def most_round_score(self) -> int:
        """The card points, every sequence both hands can hold, both bellas, and as much
        again held over from a tied deal: a bound no ruling may pass."""
        one = (152 + self.last_bonus + 4 * max(self.seq_rules.four_plus, self.seq_rules.three)
               + 2 * self.bella_points)
        return 2 * one

    # ------------------------------------------------------------------ reading the state

    def next_dealer(self) -> int:
        """Who deals the next deal (rule book 4.2, 4.3): alternate, or the last deal's winner;
        after an annulled deal as the bidding rules say."""
        if not self.rounds:
            return self.first_dealer
        r = self.rounds[-1]
        if r.annulled == "all_pass":
            return r.elder                       # the deal passes to the non-dealer
        if r.annulled == "schmeiss":
            same = self.options["schmeiss_annul_next_dealer"] == "same"
            return r.dealer if same else r.elder
        if self.options["dealer_rotation"] == "round_winner_deals":
            final = self.outcomes()[-1].final
            if final[0] != final[1]:
                return 0 if final[0] > final[1] else 1
        return 1 - r.dealer

    def expected(self) -> tuple[str, int | None]:
        """What the record expects next: (``deal``|``bid``|``second_deal``|``play``|``over``, seat)."""
        if not self.rounds or self.rounds[-1].closed:
            return ("over", None) if self.finished else ("deal", self.next_dealer())
        r = self.rounds[-1]
        if not r.bidding.over:
            return "bid", r.bidding.turn
        if not r.second_done:
            return "second_deal", r.dealer
        return "play", self._due(r)

    def _due(self, r: Round) -> int:
        if not r.tricks:
            return r.elder
        t = r.tricks[-1]
        return r.winner_of(t) if t.complete else t.seat_of(len(t.cards))

    def legal_plays(self) -> int:
        """The legal cards (mask) for the seat to play, when the hands were seen."""
        r = self.current_round
        kind, seat = self.expected()
        if kind != "play" or seat is None or r.trump is None or not r.hands_known:
            return 0
        t = r.tricks[-1] if r.tricks else None
        trick = [] if t is None or t.complete else t.cards
        return legal(r.hands[seat], trick, r.trump, self.play_rules)

    def outcomes(self) -> list[Outcome]:
        """Every deal's outcome, with points held on a tie passed to the next deal's winner."""
        out = []
        held = 0
        for r in self.rounds:
            o = r.outcome(self.seq_rules, self.score_rules, seq_announced=self.seq_announced,
                          bella_announced=self.bella_announced, bella_points=self.bella_points)
            if o.ruled is None and o.result in ("made", "bete", "revoke") and held:
                w = 0 if o.score[0] > o.score[1] else 1
                o.received = held
                o.final = list(o.score)
                o.final[w] += held
                held = 0
            elif o.ruled is None and o.result == "tie":
                held += o.held
            out.append(o)
        return out

    @property
    def winner(self) -> int | None:
        """The winning seat once the game is over (rule book 4.9), else None."""
        return self.winner_of(None)

    def winner_of(self, totals: list[int] | None) -> int | None:
        if not self.rounds or not self.rounds[-1].closed:
            return None
        tot = self.totals() if totals is None else totals
        if max(tot) < self.target or tot[0] == tot[1]:
            return None  # below the target, or both on the same total: another deal
        return 0 if tot[0] > tot[1] else 1

    # ------------------------------------------------------------------ actions

    def deal(self, hands: list[int] | None, turn_up: int, stock: list[int] | None = None,
             dealer: int | None = None, seq: int = -1) -> None:
        """Open a deal: two hands of six by seat (None: not seen), the turn-up card and, when
        known, the stock from its top card to its bottom card."""
        number, due = self._next_round(dealer)
        check_first_deal(hands, turn_up, stock)
        bidding = Bidding(due, turn_up >> 3, self.options)
        self.rounds.append(Round(number, due, hands, turn_up, stock, bidding))

    def bid(self, seat: int, call: str, seq: int = -1) -> None:
        r = self._open_round()
        self._check_seat(seat)
        for code, msg in r.bidding.bid(seat, call):
            self._violate(r, code, msg, seat=seat, seq=seq)
        if r.annulled:
            r.closed = True

    def second_deal(self, hands: list[int] | None, bottom: int, seq: int = -1) -> None:
        """Three more cards to each player (by seat; None: not seen) and the stock's bottom card."""
        r = self._open_round()
        if not r.bidding.done:
            raise IntegrityError("trump_not_chosen", "the second deal comes after trumps are fixed")
        if r.second_done:
            raise IntegrityError("dealt_twice", f"deal {r.number} already had its second deal")
        if (hands is not None) != r.hands_known:
            raise IntegrityError("bad_deal", "the second deal's hands are recorded exactly when "
                                 "the first deal's were")
        seen = (r.dealt[0] | r.dealt[1] if r.dealt else 0) | 1 << r.turn_up
        if r.dix_seat is not None:
            seen |= 1 << dix_card(r.trump or 0)
        if seen >> bottom & 1 or r.played >> bottom & 1:
            raise IntegrityError("bad_deal", f"the bottom card {card_text(bottom)} is already "
                                 "in a hand or on the table")
        if hands is not None:
            if len(hands) != 2 or any(popcount(h) != 3 for h in hands):
                raise IntegrityError("bad_deal", "a second deal gives 3 cards to each player, not "
                                     f"[{', '.join(str(popcount(h)) for h in hands)}]")
            both = hands[0] | hands[1]
            twice = (hands[0] & hands[1]) | (both & seen) | (both & 1 << bottom)
            if twice:
                raise IntegrityError("dealt_twice", f"{hand_text(twice)} dealt twice")
        if r.stock is not None:
            top6 = sum(1 << c for c in r.stock[:6])
            if hands is not None and hands[0] | hands[1] != top6:
                raise IntegrityError("bad_deal", "the second deal is not the top six cards of the "
                                     f"recorded stock ({hand_text(top6)})")
            if hands is not None:  # three each, the non-dealer first (rule book 4.4)
                for s, packet in ((r.elder, r.stock[0:3]), (r.dealer, r.stock[3:6])):
                    want = sum(1 << c for c in packet)
                    if hands[s] != want:
                        who = "non-dealer" if s == r.elder else "dealer"
                        raise IntegrityError("bad_deal", f"the second deal gives the {who} (seat "
                                             f"{s}) {hand_text(hands[s])}, but the recorded stock "
                                             f"deals it {hand_text(want)} (three each, the "
                                             "non-dealer first)", seat=s)
            if bottom != r.stock[-1]:
                raise IntegrityError("bad_deal", f"the bottom card is {card_text(r.stock[-1])} in "
                                     f"the recorded stock, not {card_text(bottom)}")
        r.second = list(hands) if hands is not None else None
        r.bottom = bottom
        r.second_done = True
        if hands is not None:
            r.hands = [r.hands[s] | hands[s] for s in (0, 1)]

    def dix(self, seat: int, seq: int = -1) -> None:
        """``seat`` exchanges the seven of trumps for the turn-up card (rule book 4.4)."""
        r = self._open_round()
        self._check_seat(seat)
        trump = r.trump
        if trump is None:
            raise IntegrityError("trump_not_chosen", "the dix is exchanged after trumps are fixed",
                                 seat=seat)
        if r.dix_seat is not None:
            raise IntegrityError("dix_twice", f"the dix was already exchanged by seat {r.dix_seat}",
                                 seat=seat)
        seven = dix_card(trump)
        if seven == r.turn_up:
            raise IntegrityError("card_not_held", f"the turn-up {card_text(seven)} is the dix "
                                 "itself: nobody holds it", seat=seat, card=seven)
        if r.played >> seven & 1:
            raise IntegrityError("card_not_held", f"{card_text(seven)} was already played",
                                 seat=seat, card=seven)
        if r.hands_known and not r.hands[seat] >> seven & 1:
            raise IntegrityError("card_not_held", f"seat {seat} exchanged the dix but does not "
                                 f"hold {card_text(seven)} ({hand_text(r.hands[seat])})",
                                 seat=seat, card=seven)
        if not self.options["dix_exchange"]:
            self._violate(r, "dix_not_allowed", f"seat {seat} exchanged the dix, but option "
                          "dix_exchange is false", seat=seat, card=seven, seq=seq)
        elif trump != r.turn_up >> 3:
            self._violate(r, "dix_not_allowed", f"seat {seat} exchanged the dix, but trumps "
                          f"({SUIT_NAMES[trump]}) are not the turn-up's suit: no exchange",
                          seat=seat, card=seven, seq=seq)
        elif not r.bidding.turn_up_accepted:
            self._violate(r, "dix_not_allowed", f"seat {seat} exchanged the dix, but trumps "
                          f"({SUIT_NAMES[trump]}) were named in round 2, not accepted with the "
                          "turn-up in round 1: no exchange", seat=seat, card=seven, seq=seq)
        if not r.second_done:
            self._violate(r, "dix_early", f"seat {seat} exchanged the dix before the second deal "
                          "(it is exchanged after the second deal, before the first lead)",
                          seat=seat, card=seven, seq=seq)
        if r.plays:
            self._violate(r, "dix_late", f"seat {seat} exchanged the dix after the first lead",
                          seat=seat, card=seven, seq=seq)
        r.dix_seat, r.dix_seq = seat, seq
        if r.hands_known:
            r.hands[seat] = r.hands[seat] & ~(1 << seven) | 1 << r.turn_up
        else:
            r.pending.append(("dix", seat, 0, seq))

    def declare(self, seat: int, cards: int, seq: int = -1) -> None:
        """``seat`` declares the sequence ``cards`` (a mask) before the first trick (4.5)."""
        r = self._open_round()
        self._check_seat(seat)
        if not r.second_done:
            raise IntegrityError("second_deal_missing", "sequences are declared after the second "
                                 "deal", seat=seat)
        run = run_of(cards)
        if run is None:
            raise IntegrityError("bad_sequence", f"{hand_text(cards)} is not a sequence (three or "
                                 "more cards of one suit in a row: 7 8 9 10 J Q K A)", seat=seat)
        d = Declaration(seat, cards, run, seq, len(r.declarations))
        r.declarations.append(d)
        if len(r.tricks) >= 2:
            d.fault = "sequence_late"
            self._violate(r, "sequence_late", f"seat {seat} declared {run_text(run)} after the "
                          "first trick: it does not count", seat=seat, seq=seq, trick=len(r.tricks))
        if r.hands_known:
            self._judge_declaration(r, d, r.hands[seat] | r.by_seat[seat])
        else:
            r.pending.append(("sequence", seat, d.order, seq))

    def bella(self, seat: int, seq: int = -1) -> None:
        """``seat`` announces bella on playing the second of the king and queen of trumps.

        The announcement may follow the deal's last card (until the next deal)."""
        r = self.current_round
        if r.closed and not r.over:
            raise IntegrityError("round_over", f"deal {r.number} is over ({r.phase})", seat=seat)
        self._check_seat(seat)
        if not r.second_done:
            raise IntegrityError("second_deal_missing", "bella is announced in the play", seat=seat)
        a = Announcement(seat, seq, len(r.bellas))
        r.bellas.append(a)
        if r.hands_known or r.over:  # seen, or rebuilt at the end of the deal
            self._judge_bella(r, a, r.hands[seat] | r.by_seat[seat], _plays(r))
        else:
            r.pending.append(("bella", seat, a.order, seq))

    def play(self, seat: int, c: int, seq: int = -1) -> None:
        r = self._open_round()
        self._check_seat(seat)
        trump = r.trump
        if trump is None:
            raise IntegrityError("trump_not_chosen", f"seat {seat} played {card_text(c)} before "
                                 "trumps were fixed", seat=seat, card=c)
        if not r.second_done:
            raise IntegrityError("second_deal_missing", f"seat {seat} played {card_text(c)} "
                                 "before the second deal", seat=seat, card=c)
        due = self._due(r)
        self._check_play(seat, c, due, r.played)
        if r.hands_known:
            hand = r.hands[seat]
            if not hand >> c & 1:
                raise IntegrityError("card_not_held", f"seat {seat} played {card_text(c)}, which "
                                     f"is not in its hand ({hand_text(hand)})", seat=seat, card=c)
        else:
            where = self._out_of_play(r, seat, c)
            if where:
                raise IntegrityError("card_not_held", f"seat {seat} played {card_text(c)}, which "
                                     f"{where}", seat=seat, card=c)
        if not r.tricks or r.tricks[-1].complete:
            r.tricks.append(Trick(len(r.tricks) + 1, due))
        t = r.tricks[-1]
        if r.hands_known:
            self._judge_play(r, t, seat, c, r.hands[seat], seq)
            r.hands[seat] &= ~(1 << c)
        else:
            r.hands[seat] |= 1 << c
            r.pending.append(("play", seat, c, seq))
        r.played |= 1 << c
        r.by_seat[seat] |= 1 << c
        r.plays += 1
        t.cards.append(c)
        t.seqs.append(seq)
        if t.complete:
            t.points = trick_points(t.cards, trump) + (self.last_bonus if t.number == TRICKS else 0)
            if t.number == TRICKS:
                self._close(r)

    def _claim_rest(self, r: Round, seat: int) -> tuple[int, int, int, int]:
        """Every trick still to play, once the second deal is in: the trick in progress
        (its card on the table) and those after it. The cards left are known only from the
        hands: a deal recorded without them cannot be claimed (its score needs a ruling)."""
        trump = r.trump
        if trump is None or not r.second_done:
            raise IntegrityError("claim_before_play", f"seat {seat} claimed before the play "
                                 "began (trumps fixed and the second deal in)", seat=seat)
        if not r.hands_known:
            raise IntegrityError("claim_needs_hands", f"seat {seat} claimed the rest of deal "
                                 f"{r.number}, recorded without its hands: the cards left are "
                                 "not known, so record the deal's score with a ruling", seat=seat)
        t = r.tricks[-1] if r.tricks else None
        first = 1 if t is None else t.number + 1 if t.complete else t.number
        cards = r.hands[0] | r.hands[1]
        if t is not None and not t.complete:
            for c in t.cards:
                cards |= 1 << c
        points = trick_points(list(cards_of(cards)), trump) + self.last_bonus
        return first, TRICKS + 1 - first, cards, points

    def _end_play(self, r: Round) -> None:
        """Close a claimed deal: each seat played it with the cards it played and those it
        showed (its sequences and bella count from them)."""
        r.closed = True
        r.playing = [r.by_seat[s] | r.hands[s] for s in (0, 1)]

    def _out_of_play(self, r: Round, seat: int, c: int) -> str:
        """Why a card cannot be in ``seat``'s hand, from what the table shows ('' if it may)."""
        assert r.trump is not None
        if c == r.turn_up:
            if r.dix_seat is None:
                return "is the turn-up card, on the table"
            if r.dix_seat != seat:
                return f"is the turn-up card, taken by seat {r.dix_seat} with the dix"
        if r.dix_seat is not None and c == dix_card(r.trump):
            return f"was put under the stock by seat {r.dix_seat}'s dix exchange"
        if c == r.bottom:
            return "is the bottom card of the stock"
        if r.stock is not None and c in r.stock[6:]:
            return "is in the stock"
        return ""

    def _close(self, r: Round) -> None:
        r.closed = True
        if r.hands_known:
            r.playing = list(r.by_seat)
            return
        # hands not seen: each player held what he played; rebuild the hands as they were
        # after the second deal (the dix undone) and judge the deal's actions in order
        assert r.trump is not None
        r.playing = list(r.by_seat)
        hands = list(r.by_seat)
        seven = dix_card(r.trump)
        if r.dix_seat is not None:
            hands[r.dix_seat] = hands[r.dix_seat] & ~(1 << r.turn_up) | 1 << seven
        played = [0, 0]
        plays: list[tuple[int, int]] = []
        k = 0
        for kind, seat, x, seq in r.pending:
            if kind == "dix":
                hands[seat] = hands[seat] & ~(1 << seven) | 1 << r.turn_up
            elif kind == "play":
                t = r.tricks[k // 2]
                self._judge_play(r, t, seat, x, hands[seat], seq, t.cards[:k % 2])
                hands[seat] &= ~(1 << x)
                played[seat] |= 1 << x
                plays.append((seat, x))
                k += 1
            elif kind == "sequence":
                d = next(d for d in r.declarations if d.order == x)
                self._judge_declaration(r, d, hands[seat] | played[seat])
            else:
                a = next(a for a in r.bellas if a.order == x)
                self._judge_bella(r, a, hands[seat] | played[seat], plays)
        r.pending.clear()
        r.hands = hands

    # ------------------------------------------------------------------ judging

    def _judge_play(self, r: Round, t: Trick, seat: int, c: int, hand: int, seq: int,
                    before: list[int] | None = None) -> None:
        assert r.trump is not None
        trick = t.cards if before is None else before
        bad = judge(hand, trick, r.trump, self.play_rules, c)
        if bad is not None:
            self._revoke(r, bad, seat, c, seq, t.number, self.reject_revokes)

    def _judge_declaration(self, r: Round, d: Declaration, held: int) -> None:
        text = run_text(d.run)
        missing = d.cards & ~held
        if missing:
            fault, why = "sequence_false", f"does not hold {hand_text(missing)}"
        elif any(o.seat == d.seat and o is not d and o.fault is None and o.cards & d.cards
                 and o.seq < d.seq for o in r.declarations):
            fault, why = "sequence_false", "uses a card of a sequence already declared"
        else:
            return
        if d.fault is None:
            d.fault = fault
        self._violate(r, fault, f"seat {d.seat} declared {text} but {why}", seat=d.seat,
                      seq=d.seq, trick=len(r.tricks) or None)

    def _judge_bella(self, r: Round, a: Announcement, held: int,
                     plays: list[tuple[int, int]]) -> None:
        """Bella is announced with the second of the king and queen of trumps: from that card
        until the first card of the next trick (``plays``: the deal's cards so far)."""
        assert r.trump is not None
        kq = bella_cards(r.trump)
        name = f"{SUIT_NAMES[r.trump]}"
        mine = [i for i, (s, c) in enumerate(plays) if s == a.seat and kq >> c & 1]
        if held & kq != kq:
            fault, why = "bella_false", f"did not hold both the king and queen of {name}"
        elif any(b.seat == a.seat and b is not a and b.fault is None and b.order < a.order
                 for b in r.bellas):
            fault, why = "bella_false", "had already announced it"
        elif len(mine) < 2:
            fault, why = "bella_early", "has not yet played both the king and queen of trumps"
        elif mine[-1] // 2 != (len(plays) - 1) // 2:
            fault, why = "bella_late", ("announced it after the next trick began (announce it "
                                        "with the second of them)")
        else:
            return
        a.fault = fault
        self._violate(r, fault, f"seat {a.seat} announced bella but {why}", seat=a.seat,
                      seq=a.seq, trick=len(r.tricks) or None)

    # ------------------------------------------------------------------ the referee

    def _over_note(self, r: Round) -> str:
        return f" ({r.phase})"

    def _busy_note(self, r: Round) -> str:
        return r.phase

    def _dealer_due(self, number: int) -> int:
        return self.next_dealer()


def _plays(r: Round) -> list[tuple[int, int]]:
    """The deal's cards so far as (seat, card), in play order."""
    return [(t.seat_of(i), c) for t in r.tricks for i, c in enumerate(t.cards)]


def check_first_deal(hands: list[int] | None, turn_up: int, stock: list[int] | None) -> None:
    """Two hands of six, the turn-up and the stock (19 cards) must be distinct cards of the pack."""
    seen = 1 << turn_up
    if hands is not None:
        seen = check_hands(hands, "klaberjass", 2, 6, seen=seen)
    if stock is not None:
        mask = sum(1 << c for c in set(stock))
        if len(stock) != 19 or popcount(mask) != 19:
            raise IntegrityError("bad_deal", f"the stock holds 19 different cards, not {len(stock)}"
                                 f" ({popcount(mask)} different)")
        if seen & mask:
            raise IntegrityError("dealt_twice", f"{hand_text(seen & mask)} both dealt and in the stock")
        if hands is not None and seen | mask != FULL_DECK:  # pragma: no cover - 32 distinct cards
            raise IntegrityError("bad_deal", "the hands, turn-up and stock are not the pack")
