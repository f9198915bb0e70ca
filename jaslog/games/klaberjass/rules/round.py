"""One deal of Klaberjass as data: its cards, bidding, declarations, tricks and outcome.

:class:`Round` holds what was recorded; :class:`~jaslog.games.klaberjass.rules.game.KlaberjassGame`
moves it on. :meth:`Round.outcome` scores a deal that was played out (rule book 4.8).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, ClassVar

from jaslog.engine.base import RestClaim, Ruling, ScoreOnly, Violation
from jaslog.engine.jacknine import trick_winner
from jaslog.games.klaberjass.rules.bidding import Bidding
from jaslog.games.klaberjass.rules.play import (
    DealScore,
    Run,
    ScoreRules,
    SequenceRules,
    has_bella,
    runs,
    score_deal,
    score_sequences,
)

TRICKS = 9


class Trick:
    """A trick of two cards: its number in the deal (from 1), the seat that led, the cards in
    play order and the seq of each card's event, and its card points once complete (with the
    last-trick bonus on trick 9).

    It has the fields and methods of every game's trick (:class:`jaslog.engine.trick.Trick`),
    written out in a class of its own: compiled, it is a native class (which cannot derive
    from a plain one), copied field by field.

    >>> t = Trick(1, leader=1, cards=[4, 12])
    >>> t.complete, t.seat_of(1), t
    (True, 0, Trick(number=1, leader=1, cards=[4, 12], seqs=[], points=0))
    """

    players: ClassVar[int] = 2

    def __init__(self, number: int, leader: int, cards: list[int] | None = None,
                 seqs: list[int] | None = None, points: int = 0) -> None:
        self.number = number
        self.leader = leader
        self.cards: list[int] = [] if cards is None else cards
        self.seqs: list[int] = [] if seqs is None else seqs
        self.points = points   # card points (and the last-trick bonus), once complete

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trick) and (
            self.number, self.leader, self.cards, self.seqs, self.points) == (
            other.number, other.leader, other.cards, other.seqs, other.points)

    __hash__ = None  # type: ignore[assignment]  # (mutable, compared by its fields)

    def __repr__(self) -> str:
        return (f"Trick(number={self.number}, leader={self.leader}, cards={self.cards}, "
                f"seqs={self.seqs}, points={self.points})")

    def __deepcopy__(self, memo: dict[int, Any]) -> Trick:
        return Trick(self.number, self.leader, list(self.cards), list(self.seqs), self.points)

    @property
    def complete(self) -> bool:
        """Both players have played to it."""
        return len(self.cards) == 2

    def seat_of(self, i: int) -> int:
        """The seat that played the ``i``-th card."""
        return (self.leader + i) % 2

    def win_index(self, trump: int) -> int:
        return trick_winner(self.cards, trump)


@dataclass(slots=True)
class Declaration:
    """A sequence declared by ``seat``; ``fault`` is the violation code that voids it."""

    seat: int
    cards: int
    run: Run
    seq: int
    order: int              # its index among the deal's declarations
    fault: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Declaration:
        return Declaration(self.seat, self.cards, self.run, self.seq, self.order, self.fault)


@dataclass(slots=True)
class Announcement:
    """A bella announced by ``seat``; ``fault`` is the violation code that voids it."""

    seat: int
    seq: int
    order: int              # its index among the deal's announcements
    fault: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Announcement:
        return Announcement(self.seat, self.seq, self.order, self.fault)


@dataclass(slots=True)
class Outcome:
    """How a deal scored. ``score`` is the deal as played; ``received`` the points held
    from earlier tied deals (option ``tie_mode: carry_over``) that its winner takes;
    ``final`` is what counts: the referee's score, or ``score`` plus ``received``."""

    points: list[int]
    tricks: list[int]
    sequences: list[int]
    sequence_best: int | None
    bella: list[int]
    totals: list[int]
    result: str            # made | tie | bete | revoke | annulled | unfinished
    score: list[int]
    held: int
    received: int
    ruled: list[int] | None
    final: list[int]


#: What a :class:`Round` keeps beyond its constructor's arguments (its copy copies them).
_ROUND_STATE = ("elder", "hands_known", "dealt", "second", "second_done", "bottom", "hands",
                "playing", "dix_seat", "dix_seq", "declarations", "bellas", "tricks", "played",
                "by_seat", "plays", "pending", "violations", "revoke_seq", "revoke_seat",
                "ruling", "rulings", "closed", "score_only", "claim")


class Round:
    """One deal: dealt hands (when seen), the turn-up, bidding, second deal, play."""

    def __init__(self, number: int, dealer: int, hands: list[int] | None, turn_up: int,
                 stock: list[int] | None, bidding: Bidding) -> None:
        self.number = number
        self.dealer = dealer
        self.elder = 1 - dealer
        self.hands_known = hands is not None
        self.dealt: list[int] | None = list(hands) if hands is not None else None
        self.turn_up = turn_up
        self.stock = stock
        self.bidding = bidding
        self.second: list[int] | None = None
        self.second_done = False
        self.bottom: int | None = None
        #: the hands now (seen), or the cards each seat has played (not seen)
        self.hands: list[int] = list(hands) if hands is not None else [0, 0]
        #: the nine-card hands each seat played the deal with, once known
        self.playing: list[int] | None = None
        self.dix_seat: int | None = None
        self.dix_seq: int | None = None
        self.declarations: list[Declaration] = []
        self.bellas: list[Announcement] = []
        self.tricks: list[Trick] = []
        self.played = 0          # cards played (mask)
        self.by_seat = [0, 0]    # cards played by each seat (mask)
        self.plays = 0           # cards played (count)
        #: actions to judge once the hands are known, in order: (kind, seat, card or index, seq)
        self.pending: list[tuple[str, int, int, int]] = []
        self.violations: list[Violation] = []
        self.revoke_seq: int | None = None
        self.revoke_seat: int | None = None
        self.ruling: Ruling | None = None
        self.rulings: list[Ruling] = []   # every ruling, in order; the last counts
        self.closed = False
        self.score_only: ScoreOnly | None = None   # recorded by its score alone
        self.claim: RestClaim | None = None   # the rest claimed or conceded

    def __deepcopy__(self, memo: dict[int, Any]) -> Round:
        """A copy that shares nothing mutable with this deal; written out, as a compiled
        class is copied by its constructor."""
        new = Round(self.number, self.dealer, None, self.turn_up, copy.deepcopy(self.stock, memo),
                    self.bidding.copy())
        for name in _ROUND_STATE:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

    @property
    def trump(self) -> int | None:
        return self.bidding.trump if self.score_only is None else self.score_only.trump

    @property
    def maker(self) -> int | None:
        return self.bidding.maker if self.score_only is None else self.score_only.chooser

    @property
    def annulled(self) -> str | None:
        return self.bidding.annulled

    @property
    def over(self) -> bool:
        """The play is over: all nine tricks are complete, or the rest was claimed."""
        return self.claim is not None or (len(self.tricks) == TRICKS and self.tricks[-1].complete)

    @property
    def phase(self) -> str:
        """``bidding``, ``second_deal``, ``play``, ``over``, ``annulled`` or ``abandoned``."""
        if self.annulled:
            return "annulled"
        if self.over:
            return "over"
        if self.closed:
            return "abandoned"
        if not self.bidding.done:
            return "bidding"
        return "play" if self.second_done else "second_deal"

    def winner_of(self, t: Trick) -> int:
        assert self.trump is not None
        return t.seat_of(t.win_index(self.trump))

    def won(self) -> tuple[list[int], list[int]]:
        """(card points, tricks) won by each seat in the complete tricks, and those claimed."""
        points, tricks = [0, 0], [0, 0]
        for t in self.tricks:
            if t.complete:
                w = self.winner_of(t)
                points[w] += t.points
                tricks[w] += 1
        c = self.claim
        if c is not None:
            points[c.taker] += c.points
            tricks[c.taker] += c.tricks
        return points, tricks

    def sequences_of(self, seat: int, announced_only: bool) -> list[Run]:
        """The sequences a seat scores with: as declared (and not voided), or from its hand."""
        if announced_only:
            return [d.run for d in self.declarations if d.seat == seat and d.fault is None]
        return runs(self.playing[seat]) if self.playing is not None else []

    def outcome(self, seq_rules: SequenceRules, score_rules: ScoreRules, *,
                seq_announced: bool, bella_announced: bool, bella_points: int) -> Outcome:
        """The deal's score as played (``received`` and carry-over are the game's business)."""
        points, tricks = self.won()
        ruled = list(self.ruling.score) if self.ruling else None
        so = self.score_only
        if so is not None:  # what the sheet says; zeros where it says nothing
            pts = list(so.points) if so.points is not None else [0, 0]
            melds = list(so.roem) if so.roem is not None else [0, 0]
            return Outcome(pts, [0, 0], melds, None, [0, 0], [pts[s] + melds[s] for s in (0, 1)],
                           so.result or "score_only", list(so.score), 0, 0, ruled,
                           ruled or list(so.score))
        if self.annulled or not self.over or self.trump is None or self.maker is None:
            result = "annulled" if self.annulled else "unfinished"
            return Outcome(points, tricks, [0, 0], None, [0, 0], list(points), result, [0, 0],
                           0, 0, ruled, ruled or [0, 0])
        trump = self.trump
        seqs = score_sequences([self.sequences_of(s, seq_announced) for s in (0, 1)], trump,
                               self.elder, seq_rules)
        seq_points = list(seqs.points)
        if seq_rules.require_a_trick:
            seq_points = [p if tricks[s] else 0 for s, p in enumerate(seq_points)]
        bella = [0, 0]
        for s in (0, 1):
            if bella_announced:
                ok = any(b.seat == s and b.fault is None for b in self.bellas)
            else:
                ok = self.playing is not None and has_bella(self.playing[s], trump)
            bella[s] = bella_points if ok else 0
        totals = [points[s] + seq_points[s] + bella[s] for s in (0, 1)]
        ds: DealScore = score_deal(score_rules, totals, self.maker, self.revoke_seat)
        return Outcome(points, tricks, seq_points, seqs.best, bella, totals, ds.result, ds.score,
                       ds.held, 0, ruled, ruled or list(ds.score))
