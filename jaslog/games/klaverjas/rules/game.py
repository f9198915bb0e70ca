"""A game of Klaverjas as a state that actions move forward.

The actions are what happens at the table: :meth:`KlaverjasGame.deal`,
:meth:`~KlaverjasGame.turn_trump`, :meth:`~KlaverjasGame.bid`, :meth:`~KlaverjasGame.play`,
:meth:`~KlaverjasGame.claim_roem` and the referee's :meth:`~KlaverjasGame.rule`. Each
either moves the state on (recording any rule it broke as a :class:`Violation`) or raises an
:class:`IntegrityError` and leaves the state as it was. Every action takes the ``seq`` of
the event it comes from, so a violation can name it.

The state is changed in place for speed (a fold makes one per game); :meth:`copy` keeps a
snapshot.

>>> from jaslog.cards import parse_hand as h
>>> from jaslog.games.klaverjas.options import resolve
>>> g = KlaverjasGame(resolve("amsterdam"), dealer=3)
>>> g.deal([h("JH 9H AH 10H KH QH 8H 7H"), h("AS 10S KS QS JS 9S 8S 7S"),
...         h("AC 10C KC QC JC 9C 8C 7C"), h("AD 10D KD QD JD 9D 8D 7D")])
>>> g.bid(0, "H")
>>> g.expected()
('play', 0)
>>> for seat, c in zip(range(4), "JH AS AC AD".split()): g.play(seat, parse_card(c))
>>> g.current_round.tricks[0].winner, g.current_round.tricks[0].points
(0, 53)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, ClassVar

from jaslog.cards import (
    CARD_TEXT,
    FULL_DECK,
    PLAIN_STRENGTH,
    SUIT_NAMES,
    TRUMP_STRENGTH,
    card_points,
    card_text,
    cards_of,
    hand_text,
    parse_card,
    popcount,
)
from jaslog.engine.base import (
    IntegrityError,
    RestClaim,
    RoundBook,
    Ruling,
    ScoreOnly,
    Violation,
    check_hands,
    check_seat,
    seats_text,
)
from jaslog.games.klaverjas.rules.play import (
    PlayRules,
    RoemRules,
    ScoreRules,
    _walk,
    judge,
    legal,
    score_round,
    stuk_cards,
    trick_value,
)
from jaslog.games.klaverjas.rules.trump import TrumpSelection, make_selection

__all__ = ["KlaverjasGame", "Round", "Trick", "parse_card"]


class Trick:
    """A trick of four cards: its number in the round (from 1), the seat that led, the cards
    in play order and the seq of each card's event, its card points once complete (with the
    last-trick bonus on trick 8), the card winning so far, and once complete its roem.

    It has the fields and methods of every game's trick (:class:`jaslog.engine.trick.Trick`),
    written out in a class of its own: compiled, it is a native class, whose fields the play
    path reads and writes directly, and a native class cannot derive from a plain one.

    >>> t = Trick(1, leader=3, cards=[0, 8])
    >>> t.complete, t.seat_of(1), t.winner, t
    (False, 0, 3, Trick(number=1, leader=3, cards=[0, 8], seqs=[], points=0, win=0, roem=0, claimed=0))
    """

    players: ClassVar[int] = 4

    def __init__(self, number: int, leader: int, cards: list[int] | None = None,
                 seqs: list[int] | None = None, points: int = 0, win: int = 0, roem: int = 0,
                 claimed: int = 0) -> None:
        self.number = number
        self.leader = leader
        self.cards: list[int] = [] if cards is None else cards
        self.seqs: list[int] = [] if seqs is None else seqs
        self.points = points    # card points (and the last-trick bonus), once complete
        self.win = win          # index in cards of the card winning so far
        self.roem = roem        # roem on the table, once complete
        self.claimed = claimed  # roem validly claimed for this trick

    def _fields(self) -> tuple[int, int, list[int], list[int], int, int, int, int]:
        return (self.number, self.leader, self.cards, self.seqs, self.points, self.win,
                self.roem, self.claimed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trick) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # (mutable, compared by its fields)

    def __repr__(self) -> str:
        return (f"Trick(number={self.number}, leader={self.leader}, cards={self.cards}, "
                f"seqs={self.seqs}, points={self.points}, win={self.win}, roem={self.roem}, "
                f"claimed={self.claimed})")

    def __deepcopy__(self, memo: dict[int, Any]) -> Trick:
        """A copy that shares no list with this trick (written out, as a compiled class is
        copied by its constructor)."""
        return Trick(self.number, self.leader, list(self.cards), list(self.seqs), self.points,
                     self.win, self.roem, self.claimed)

    @property
    def complete(self) -> bool:
        """Every player has played to it."""
        return len(self.cards) == 4

    def seat_of(self, i: int) -> int:
        """The seat that played the ``i``-th card."""
        return (self.leader + i) % 4

    @property
    def winner(self) -> int:
        """Seat winning (or that won) the trick."""
        return (self.leader + self.win) % 4

    def report(self, claimed_mode: bool) -> dict[str, Any]:
        """The trick in a round's report (``check --json``): who led, the cards, who won it
        once complete, its card points, its roem (what was claimed for it, in the claimed
        mode: ``claimed_mode``) and the roem on the table.

        >>> t = Trick(1, leader=3, cards=[0, 8, 19, 31], points=10, win=2, roem=20)
        >>> t.report(True)["cards"], t.report(True)["winner"], t.report(True)["roem"]
        (['7C', '7D', '10H', 'AS'], 1, 0)
        """
        cards = [CARD_TEXT[c] for c in self.cards]
        return {"leader": self.leader, "cards": cards,
                "winner": (self.leader + self.win) % 4 if len(self.cards) == 4 else None,
                "points": self.points, "roem": self.claimed if claimed_mode else self.roem,
                "roem_on_table": self.roem}


@dataclass(slots=True)
class Outcome:
    """How a round scored: as played, and as ruled when a referee ruled on it."""

    points: list[int]
    roem: list[int]
    roem_on_table: list[int]
    tricks: list[int]
    result: str
    score: list[int]
    ruled: list[int] | None
    final: list[int]


#: What a :class:`Round` keeps beyond its constructor's arguments (its copy copies them).
_ROUND_STATE = ("forehand", "hands_known", "dealt", "hands", "played", "tricks", "violations",
                "revoke_seq", "revoke_seat", "hand_roem", "ruling", "rulings", "closed",
                "score_only", "claim")


class Round:
    """One deal: its hands, the trump choice, the tricks, and what went wrong in it."""

    def __init__(self, number: int, dealer: int, hands: list[int] | None,
                 selection: TrumpSelection) -> None:
        self.number = number
        self.dealer = dealer
        self.forehand = (dealer + 1) % 4
        self.hands_known = hands is not None
        self.dealt: list[int] | None = list(hands) if hands is not None else None
        self.hands: list[int] = list(hands) if hands is not None else [0, 0, 0, 0]
        self.played = 0
        self.selection = selection
        self.tricks: list[Trick] = []
        self.violations: list[Violation] = []
        self.revoke_seq: int | None = None
        self.revoke_seat: int | None = None
        self.hand_roem = [0, 0]
        self.ruling: Ruling | None = None
        self.rulings: list[Ruling] = []   # every ruling, in order; the last counts
        self.closed = False   # 32 cards played, claimed, or abandoned by a ruling
        self.score_only: ScoreOnly | None = None   # recorded by its score alone
        self.claim: RestClaim | None = None   # the rest claimed or conceded

    def __deepcopy__(self, memo: dict[int, Any]) -> Round:
        """A copy that shares nothing mutable with this round (a game's :meth:`~KlaverjasGame.
        copy`); written out, as a compiled class is copied by its constructor."""
        new = Round(self.number, self.dealer, None, copy.deepcopy(self.selection, memo))
        for name in _ROUND_STATE:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

    @property
    def trump(self) -> int | None:
        return self.selection.trump if self.score_only is None else self.score_only.trump

    @property
    def chooser(self) -> int | None:
        return self.selection.chooser if self.score_only is None else self.score_only.chooser

    @property
    def revoke_team(self) -> int | None:
        """The team of the round's first revoke (it decides the round's score), or None."""
        return None if self.revoke_seat is None else self.revoke_seat & 1

    @property
    def over(self) -> bool:
        """The play is over: all eight tricks are complete, or the rest was claimed."""
        return self.claim is not None or (len(self.tricks) == 8 and self.tricks[7].complete)

    def outcome(self, opts: ScoreRules, claimed_mode: bool) -> Outcome:
        if self.score_only is not None:
            return self._recorded_outcome(self.score_only)
        points, roem, table, won = [0, 0], list(self.hand_roem), [0, 0], [0, 0]
        for t in self.tricks:
            if not t.complete:
                continue
            team = t.winner & 1
            points[team] += t.points
            table[team] += t.roem
            roem[team] += t.claimed if claimed_mode else t.roem
            won[team] += 1
        c = self.claim
        if c is not None:  # the tricks claimed: their card points and the last trick, no roem
            points[c.taker & 1] += c.points
            won[c.taker & 1] += c.tricks
        table = [table[i] + self.hand_roem[i] for i in (0, 1)]
        if self.over and self.chooser is not None:
            score, result = score_round(opts, points, roem, won, self.chooser & 1,
                                        self.revoke_team)
        else:
            score, result = [0, 0], "unfinished"
        ruled = list(self.ruling.score) if self.ruling else None
        return Outcome(points, roem, table, won, result, score, ruled, ruled or score)


    def _recorded_outcome(self, so: ScoreOnly) -> Outcome:
        """A score-only round's outcome: what the sheet says (zeros where it says nothing;
        the report shows those as unknown)."""
        ruled = list(self.ruling.score) if self.ruling else None
        roem = list(so.roem) if so.roem is not None else [0, 0]
        points = list(so.points) if so.points is not None else [0, 0]
        return Outcome(points, roem, list(roem), [0, 0], so.result or recorded_result(so),
                       list(so.score), ruled, ruled or list(so.score))


def recorded_result(so: ScoreOnly) -> str:
    """The result a score-only round's score shows, when the sheet does not say it: with
    the chooser known, ``nat`` when the choosing team scored nothing, ``pit`` when the
    others did, else ``made``; without, ``score_only``.

    >>> recorded_result(ScoreOnly([0, 182], chooser=2)), recorded_result(ScoreOnly([102, 60]))
    ('nat', 'score_only')
    """
    if so.chooser is None:
        return "score_only"
    p = so.chooser & 1
    if so.score[p] == 0 and so.score[1 - p]:
        return "nat"
    return "pit" if so.score[1 - p] == 0 else "made"


class KlaverjasGame(RoundBook[Round]):
    """A game of Klaverjas from its options and first dealer: four players, scored by team.

    Compiled, a native class (as :class:`RoundBook` is), whose copy is written out."""

    players: ClassVar[int] = 4
    scores: ClassVar[int] = 2
    game: ClassVar[str] = "klaverjas"
    round_word: ClassVar[str] = "round"

    def __init__(self, options: dict[str, Any], dealer: int = 0) -> None:
        if not 0 <= dealer < 4:
            raise IntegrityError("bad_seat", f"dealer {dealer} is not a seat ({seats_text(4)})")
        self.options = options
        self.first_dealer = dealer
        self.play_rules = PlayRules.from_options(options)
        self.roem_rules = RoemRules.from_options(options)
        self.score_rules = ScoreRules.from_options(options)
        self.claimed_mode = options["roem.claim_mode"] == "claimed"
        self.claim_by_winner = options["roem.claim_by"] == "winning_team"
        self.reject_revokes = options["revoke"] == "reject"
        self.last_bonus = int(options["last_trick_bonus"])
        self.rounds: list[Round] = []
        self.violations: list[Violation] = []

    def copy(self) -> KlaverjasGame:
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> KlaverjasGame:
        """A copy that shares nothing mutable with this game: made from its options, its
        rounds and violations copied."""
        new = KlaverjasGame(copy.deepcopy(self.options, memo), self.first_dealer)
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
        return f"{popcount(r.played)} of 32 cards played"

    def _ruling_rule(self) -> str:
        return "a ruling's score is two whole numbers >= 0"

    def check_score(self, so: ScoreOnly) -> str:
        """What does not add up in a score-only round: points that are not 162 between them,
        roem not in tens, a score that is not 162 plus the roem (and the pit bonus), or,
        when the chooser, points and roem are all written, not the score they give."""
        rules, total = self.score_rules, self.score_rules.total
        results = ("made", "nat", "pit", "revoke")
        if so.result is not None and so.result not in results:
            return f"result {so.result!r} is not a klaverjas result ({', '.join(results)})"
        if so.points is not None and sum(so.points) != total:
            a, b = so.points
            return f"points {a} + {b} = {a + b}, not {total}"
        if so.roem is not None and any(x % 10 for x in so.roem):
            return f"roem {so.roem[0]}-{so.roem[1]}: roem comes in tens"
        a, b = so.score
        s = a + b
        if so.roem is not None:
            roem = sum(so.roem)
            if s not in (total + roem, total + roem + rules.pit_bonus):
                return (f"score {a} + {b} = {s}, not {total} + roem {roem} = {total + roem}"
                        f" (or {total + roem + rules.pit_bonus} with the pit bonus)")
        elif s < total or (s - total) % 10:
            return (f"score {a} + {b} = {s}: a round's scores add up to {total} plus its roem "
                    "and any pit bonus, which come in tens")
        if max(so.score) > self.most_round_score():
            return f"score {a}-{b} is more than a round can score"
        if so.chooser is not None and so.points is not None and so.roem is not None:
            return self._check_full_score(so)
        if so.chooser is not None and so.result in ("made", "nat", "pit"):
            p = so.chooser & 1
            if so.result == "nat" and so.score[p]:
                return f"a nat round scores nothing for the choosing team, not {so.score[p]}"
            if so.result == "pit" and so.score[1 - p]:
                return f"a pit round scores nothing for the other team, not {so.score[1 - p]}"
            if so.result == "made" and not so.score[p]:
                return "a made round scores for the choosing team"
        return ""

    def _check_full_score(self, so: ScoreOnly) -> str:
        """The score the chooser, points and roem give (each way the tricks may have gone)."""
        assert so.chooser is not None and so.points is not None and so.roem is not None
        rules, points, roem, p = self.score_rules, so.points, so.roem, so.chooser & 1
        options: list[tuple[list[int], str]] = []
        for tricks in ([4, 4], [8, 0], [0, 8]):
            if (tricks[0] == 8 and points[1]) or (tricks[1] == 8 and points[0]):
                continue  # a team that took every trick left the others no points
            options.append(score_round(rules, points, roem, tricks, p))
        if so.result == "revoke":
            options = [score_round(rules, points, roem, [4, 4], p, t) for t in (0, 1)]
        matching = {res for sc, res in options if sc == so.score}
        if matching and (so.result is None or so.result in matching):
            return ""
        if matching:
            return (f"seat {so.chooser} chose, points {points[0]}-{points[1]} and roem "
                    f"{roem[0]}-{roem[1]} score {so.score[0]}-{so.score[1]} as "
                    f"{' or '.join(sorted(matching))}, not {so.result}")
        sc, res = options[0]
        return (f"seat {so.chooser} chose, points {points[0]}-{points[1]} and roem "
                f"{roem[0]}-{roem[1]} score {sc[0]}-{sc[1]} ({res}), not "
                f"{so.score[0]}-{so.score[1]}")

    def _score_only_round(self, number: int, dealer: int, so: ScoreOnly) -> Round:
        r = Round(number, dealer, None, make_selection(self.options, dealer, number))
        r.score_only, r.closed = so, True
        return r

    def most_round_score(self) -> int:
        """162 card points, the pit bonus, and the roem that eight tricks (and a stuk in
        hand) can hold: a bound no ruling may pass."""
        r, s = self.roem_rules, self.score_rules
        trick = max(r.four_jacks, r.four_kind, r.run4 + r.stuk, r.three_of_a_kind + r.stuk)
        return s.total + s.pit_bonus + 8 * trick + r.stuk

    def expected(self) -> tuple[str, int | None]:
        """What the record expects next: (``deal``|``turn``|``bid``|``play``|``over``, seat)."""
        if not self.rounds or self.rounds[-1].closed:
            return ("over", None) if self.finished else ("deal", self.dealer_of(len(self.rounds) + 1))
        r = self.rounds[-1]
        sel = r.selection
        if not sel.done:
            return (sel.expects, sel.turn if sel.expects == "bid" else r.dealer)
        t = r.tricks[-1]
        if t.complete:
            return "play", t.winner
        return "play", t.seat_of(len(t.cards))

    def legal_plays(self) -> int:
        """The legal cards (mask) for the seat to play; when the hands were not recorded,
        every card not played yet in the round (any of them may be in that hand)."""
        r = self.current_round
        kind, seat = self.expected()
        if kind != "play" or seat is None or r.trump is None:
            return 0
        if not r.hands_known:
            return FULL_DECK & ~r.played
        t = r.tricks[-1]
        trick = [] if t.complete else t.cards
        return legal(r.hands[seat], trick, r.trump, self.play_rules)

    def outcomes(self) -> list[Outcome]:
        return [r.outcome(self.score_rules, self.claimed_mode) for r in self.rounds]

    @property
    def winner(self) -> int | str | None:
        """Team index, ``"draw"``, or None while the game goes on."""
        return self.winner_of(None)

    def winner_of(self, totals: list[int] | None) -> int | str | None:
        if not self.rounds or not self.rounds[-1].closed:
            return None
        end = self.options["game_end"]
        if end["type"] == "deals" and len(self.rounds) < end["count"]:
            return None  # (game_winner's first test, before the scores are added up)
        return game_winner(self.options, len(self.rounds),
                           self.totals() if totals is None else totals)

    # ------------------------------------------------------------------ actions

    def deal(self, hands: list[int] | None, dealer: int | None = None, seq: int = -1) -> None:
        """Open a round. ``hands`` are four masks by seat, or None when nobody saw them."""
        number, due = self._next_round(dealer)
        if hands is not None:
            check_deal(hands)
        self.rounds.append(Round(number, due, hands, make_selection(self.options, due, number)))

    def turn_trump(self, text: str, seq: int = -1) -> None:
        r = self._open_round()
        dealer_hand = r.hands[r.dealer] if r.hands_known else None
        for code, msg in r.selection.turn_card(text, self.options["random.source"], dealer_hand):
            self._violate(r, code, msg, seq=seq)
        self._open_first_trick(r)

    def bid(self, seat: int, call: str, seq: int = -1) -> None:
        r = self._open_round()
        if not 0 <= seat < 4:
            check_seat(seat, 4)
        for code, msg in r.selection.bid(seat, call):
            self._violate(r, code, msg, seat=seat, seq=seq)
        self._open_first_trick(r)

    def _open_first_trick(self, r: Round) -> None:
        if r.selection.done and not r.tricks:
            first = r.chooser if self.options["first_lead"] == "trump_chooser" else r.forehand
            r.tricks.append(Trick(1, first if first is not None else r.forehand))

    def play(self, seat: int, c: int, seq: int = -1) -> None:
        # the hot path of every fold: properties and helpers are inlined here
        r = self.rounds[-1] if self.rounds else None
        if r is None or r.closed:
            r = self._open_round()  # raises the right error
        if not 0 <= seat < 4:
            check_seat(seat, 4)
        chosen = r.selection.trump
        if chosen is None:
            raise IntegrityError("trump_not_chosen",
                                 f"seat {seat} played {card_text(c)} before trumps were chosen",
                                 seat=seat, card=c)
        trump: int = chosen  # (compiled: a plain int from here on, not unboxed at each use)
        t = r.tricks[-1]
        cards = t.cards
        n = len(cards)
        leader = t.leader
        opens = n == 4  # the last trick is complete: this card opens the next
        if opens:  # (the trick is added once the play stands: a refused card changes nothing)
            leader = (leader + t.win) % 4
            n = 0
        due = (leader + n) % 4
        if seat != due:
            raise IntegrityError("not_your_turn",
                                 f"seat {seat} played {card_text(c)} but it is seat {due}'s turn",
                                 seat=seat, card=c)
        bit = 1 << c
        if r.played & bit:
            raise IntegrityError("card_played_twice",
                                 f"{card_text(c)} was already played in this round",
                                 seat=seat, card=c)
        suit = c >> 3
        hands = r.hands
        if r.hands_known:
            hand = hands[seat]
            if not hand & bit:
                raise IntegrityError("card_not_held",
                                     f"seat {seat} played {card_text(c)}, which is not in its hand "
                                     f"({hand_text(hand)})", seat=seat, card=c)
            # a lead, or a card of the plain suit led, is always legal (rule book 3.3)
            if n and (suit != cards[0] >> 3 or suit == trump) \
                    and not _walk(hand, cards, trump, self.play_rules)[0] & bit:
                self._judge_play(r, t, cards, seat, c, hand, seq)
            hands[seat] = hand & ~bit
        else:
            hands[seat] |= bit  # collected, to rebuild the hands at the end
        if opens:
            t = Trick(t.number + 1, leader)
            r.tricks.append(t)
            cards = t.cards
        r.played |= bit
        win = t.win
        if n:  # does c beat the card winning so far (jacknine.beats, inlined)?
            best = cards[win]
            if suit == trump:
                if best >> 3 != trump or TRUMP_STRENGTH[c & 7] > TRUMP_STRENGTH[best & 7]:
                    t.win = n
            elif suit == best >> 3 != trump and PLAIN_STRENGTH[c & 7] > PLAIN_STRENGTH[best & 7]:
                t.win = n
        cards.append(c)
        t.seqs.append(seq)
        if n == 3:  # the trick is complete
            # its card points and roem, by card set and trump
            points, t.roem = trick_value(cards[0], cards[1], cards[2], c, trump, self.roem_rules)
            if t.number == 8:
                t.points = points + self.last_bonus
                try:
                    self._close_round(r)
                except IntegrityError:  # revoke: reject, hands unseen: an earlier play is refused
                    cards.pop()         # with this card; take it back, as if never played
                    t.seqs.pop()
                    t.win, t.points, t.roem = win, 0, 0
                    r.played &= ~bit
                    hands[seat] &= ~bit
                    raise
            else:
                t.points = points

    def _judge_play(self, r: Round, t: Trick, before: list[int], seat: int, c: int, hand: int,
                    seq: int) -> None:
        """Record (or, with revoke: reject, refuse) the illegal play of ``c`` by ``seat``
        holding ``hand`` after the cards ``before`` of trick ``t``."""
        assert r.trump is not None
        bad = judge(hand, before, r.trump, self.play_rules, c) or ("revoke", "")
        self._revoke(r, bad, seat, c, seq, t.number, self.reject_revokes)

    def _close_round(self, r: Round) -> None:
        """Close ``r`` after its 32nd card; with the hands unseen, judge every play now. With
        ``revoke: reject`` a revoke raises before ``r`` changes."""
        trump = r.trump
        assert trump is not None
        if not r.hands_known:  # rebuild the hands from the plays, then judge every play
            dealt = list(r.hands)
            hands = list(r.hands)
            for t in r.tricks:
                for i, c in enumerate(t.cards):
                    seat = t.seat_of(i)
                    if not legal(hands[seat], t.cards[:i], trump, self.play_rules) >> c & 1:
                        self._judge_play(r, t, t.cards[:i], seat, c, hands[seat], t.seqs[i])
                    hands[seat] &= ~(1 << c)
            r.dealt, r.hands_known, r.hands = dealt, True, hands
        self._end_play(r)

    def _claim_rest(self, r: Round, seat: int) -> tuple[int, int, int, int]:
        """Every trick still to play, once trumps are chosen: the trick in progress (its
        cards on the table) and those after it, with every card not yet played (known with
        or without the hands: the pack is dealt out)."""
        trump = r.trump
        if trump is None or not r.tricks:
            raise IntegrityError("claim_before_play", f"seat {seat} claimed before trumps were "
                                 "chosen: a claim ends the play", seat=seat)
        t = r.tricks[-1]
        first = t.number + 1 if t.complete else t.number
        cards = FULL_DECK & ~r.played
        if not t.complete:
            for c in t.cards:
                cards |= 1 << c
        points = sum(card_points(c, trump) for c in cards_of(cards)) + self.last_bonus
        return first, 9 - first, cards, points

    def _end_play(self, r: Round) -> None:
        """Close a round played out or claimed; a stuk held in a dealt hand counts (option
        ``roem.stuk_in_hand``)."""
        r.closed = True
        if self.options["roem.stuk_in_hand"] and r.dealt is not None and r.trump is not None:
            stuk = stuk_cards(r.trump)
            for seat, hand in enumerate(r.dealt):
                if hand & stuk == stuk:
                    r.hand_roem[seat & 1] += self.roem_rules.stuk

    def claim_roem(self, seat: int, points: int, seq: int = -1) -> None:
        """A claim of ``points`` roem for the trick just completed (rule book 9.3)."""
        if not 0 <= seat < 4:
            check_seat(seat, 4)
        if points < 0:
            raise IntegrityError("bad_roem", f"roem of {points} points cannot be claimed", seat=seat)
        r = self.current_round
        last = r.tricks[-1] if r.tricks else None
        if last is None or not last.complete:
            before = last.number - 1 if last is not None and last.cards else 0
            if not before and len(self.rounds) > 1:  # the previous round's trick 8 is scored
                prev = self.rounds[-2]
                self._violate(prev, "roem_late",
                              f"seat {seat} claimed {points} roem after round {r.number} was "
                              f"dealt; round {prev.number} is scored",
                              seat=seat, seq=seq, trick=len(prev.tricks) or None)
                return
            self._violate(r, "roem_late" if before else "roem_no_trick",
                          f"seat {seat} claimed {points} roem "
                          + (f"after the next trick began; trick {before} is covered"
                             if before else "before any trick was complete"),
                          seat=seat, seq=seq, trick=last.number if last else None)
            return
        if self.claim_by_winner and (seat & 1) != (last.winner & 1):
            self._violate(r, "roem_claim_not_allowed",
                          f"seat {seat} claimed roem for trick {last.number}, won by the other "
                          "team (option roem.claim_by: winning_team)",
                          seat=seat, seq=seq, trick=last.number)
            return
        if points > last.roem:
            self._violate(r, "roem_false",
                          f"seat {seat} claimed {points} roem but trick {last.number} "
                          f"({' '.join(card_text(c) for c in last.cards)}) holds {last.roem}",
                          seat=seat, seq=seq, trick=last.number)
            return
        last.claimed = max(last.claimed, points)



def game_winner(options: dict[str, Any], rounds: int, tot: list[int]) -> int | str | None:
    """The winning team (or ``draw``) of a game of ``rounds`` rounds, its last closed, whose
    final scores add up to ``tot``; None while it goes on (rule book 3, game end).

    >>> opts = {"game_end": {"type": "deals", "count": 16}, "game_tie": "draw"}
    >>> game_winner(opts, 15, [900, 600]), game_winner(opts, 16, [900, 600])
    (None, 0)
    """
    end = options["game_end"]
    if end["type"] == "deals" and rounds < end["count"]:
        return None  # decided without adding up the scores (checked at every deal)
    if end["type"] != "deals" and max(tot) < end["points"]:
        return None
    if tot[0] != tot[1]:
        return 0 if tot[0] > tot[1] else 1
    if end["type"] == "deals" and options["game_tie"] == "draw":
        return "draw"
    return None  # equal totals: another deal


def check_deal(hands: list[int]) -> None:
    """Four hands of eight cards that together are the 32-card pack, or an IntegrityError."""
    seen = check_hands(hands, "klaverjas", 4, 8, what="a deal")
    assert seen == FULL_DECK  # four disjoint hands of eight are the whole pack


def suit_name(s: int | None) -> str:
    return SUIT_NAMES[s] if s is not None else "-"
