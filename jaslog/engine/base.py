"""What every game's rules share: the two ways an action can be wrong.

* An :class:`IntegrityError` means the record cannot describe a real game: a card that is
  not in the player's hand, a play by a seat whose turn it is not, a deal of 31 cards.
  The fold stops there; a store refuses the batch.
* A :class:`Violation` is a rule broken at the table: a revoke, a false roem claim, a bid
  out of turn. It is a fact that happened; it is recorded in the state, reported, and the
  round is scored by the game's ``revoke`` option.

Both carry a stable ``code`` (``must_follow_suit``, ``not_your_turn``...) for programs and
a plain sentence for people.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from mypy_extensions import mypyc_attr

from jaslog.cards import card_text, hand_text, popcount
from jaslog.errors import JaslogError


@mypyc_attr(native_class=False)  # (its base is a plain Python class)
class IntegrityError(JaslogError, ValueError):
    """An action the record cannot contain. ``code`` is stable; ``str(e)`` is a sentence."""

    def __init__(self, code: str, message: str, *, seat: int | None = None,
                 card: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.seat = seat
        self.card = card


@dataclass(frozen=True, slots=True)
class Violation:
    """A rule broken at the table.

    ``round`` and ``trick`` count from 1; ``seq`` is the position of the event in the game's
    log that broke the rule (given to the action by the caller); ``card`` is a card index.
    """

    rule: str
    message: str
    round: int
    trick: int | None = None
    seat: int | None = None
    card: int | None = None
    seq: int = -1

    def __deepcopy__(self, memo: dict[int, Any]) -> Violation:
        """Itself: a violation never changes (compiled, a frozen class cannot be rebuilt
        field by field as :func:`copy.deepcopy` would)."""
        return self


def team_of(seat: int) -> int:
    """Seats 0 and 2 are team 0; seats 1 and 3 are team 1."""
    return seat & 1


# ---------------------------------------------------------------- shared bookkeeping

def seats_text(players: int) -> str:
    """How an error names the seats of a ``players``-player game: '0 or 1', '0-3'."""
    return "0 or 1" if players == 2 else f"0-{players - 1}"


def check_seat(seat: int, players: int) -> None:
    """An :class:`IntegrityError` unless ``seat`` is a seat of a ``players``-player game."""
    if not 0 <= seat < players:
        raise IntegrityError("bad_seat", f"{seat} is not a seat ({seats_text(players)})")


def check_hands(hands: list[int], game: str, players: int, size: int, *, seen: int = 0,
                pack: int | None = None, pack_text: str = "", what: str = "") -> int:
    """``players`` hands of ``size`` cards, disjoint from each other and from ``seen`` (and
    inside ``pack`` when given, described by ``pack_text``); returns ``seen`` and the hands.
    ``what`` names a deal in the error on the number of hands (default 'a GAME deal').

    >>> check_hands([0b111, 0b111000], "klaberjass", 2, 3) == 0b111111
    True
    >>> check_hands([0b111], "klaverjas", 4, 8, what="a deal")
    Traceback (most recent call last):
    ...
    jaslog.engine.base.IntegrityError: a deal has 4 hands, not 1
    """
    if len(hands) != players:
        raise IntegrityError("bad_deal", f"{what or f'a {game} deal'} has {players} hands, "
                             f"not {len(hands)}")
    for seat, hand in enumerate(hands):
        if popcount(hand) != size:
            raise IntegrityError("bad_deal", f"seat {seat} was dealt {popcount(hand)} cards, "
                                 f"not {size}", seat=seat)
        if pack is not None and hand & ~pack:
            raise IntegrityError("card_not_in_pack", f"{hand_text(hand & ~pack)} not in the {game} "
                                 f"pack ({pack_text})", seat=seat)
        if seen & hand:
            raise IntegrityError("dealt_twice", f"{hand_text(seen & hand)} dealt twice", seat=seat)
        seen |= hand
    return seen


@dataclass(slots=True)
class Ruling:
    """A referee's score for a round (one number per seat or team), the reason, its event's
    seq, and whether the game was already over when it was made (referees decide late)."""

    score: list[int]
    reason: str
    seq: int
    after_end: bool = False

    def __deepcopy__(self, memo: dict[int, Any]) -> Ruling:
        return Ruling(list(self.score), self.reason, self.seq, self.after_end)


@dataclass(frozen=True, slots=True)
class ScoreOnly:
    """A round recorded by its score alone (rule book 9.1, decision 11): the score (one
    number per seat or team), its event's seq, and what else the sheet says (None: not
    written): who chose trumps (or made, or held the black queens), the trump suit (an
    index), card points and roem per seat or team, and the game's word for the result."""

    score: list[int]
    seq: int = -1
    chooser: int | None = None
    trump: int | None = None
    points: list[int] | None = None
    roem: list[int] | None = None
    result: str | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> ScoreOnly:
        return ScoreOnly(list(self.score), self.seq, self.chooser, self.trump,
                         None if self.points is None else list(self.points),
                         None if self.roem is None else list(self.roem), self.result)


@dataclass(slots=True)
class RestClaim:
    """A claim (``gives: rest_to_claimer``) or a concession (``rest_to_opponents``) of every
    trick still to play, by ``seat`` at the event of ``seq`` (rule book 9.1, decision 13).

    ``trick`` is the first trick it gives (the trick in progress, or the next one),
    ``tricks`` how many it gives, ``cards`` the cards they hold (a mask: those on the table
    in the trick in progress and those not yet played), ``points`` their card points with
    the last-trick bonus, and ``taker`` the seat they are credited to (the claimer, or the
    next seat of the other side). ``guaranteed`` is the solver's verdict on a claim made
    with the hands known (None: a concession, or hands not known: the claim stands).

    >>> c = RestClaim(2, "rest_to_claimer", 40, trick=7, tricks=2, cards=0, points=35, taker=2)
    >>> c.to_claimer, c.guaranteed
    (True, None)
    """

    seat: int
    gives: str
    seq: int
    trick: int
    tricks: int
    cards: int
    points: int
    taker: int
    guaranteed: bool | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> RestClaim:
        return RestClaim(self.seat, self.gives, self.seq, self.trick, self.tricks, self.cards,
                         self.points, self.taker, self.guaranteed)

    @property
    def to_claimer(self) -> bool:
        return self.gives == "rest_to_claimer"


#: Judges a claim of the rest with the hands known: ``judge(state, round, seat)`` is True when
#: the claimer's side takes every trick still to play against every defence. The rules know
#: no solver: the fold is given one (:mod:`jaslog.play.fold` passes the game's ``solver`` adapter's).
ClaimJudge = Callable[[Any, Any, int], bool]


class RoundLike(Protocol):
    number: int
    closed: bool
    hands_known: bool
    claim: RestClaim | None
    ruling: Ruling | None
    rulings: list[Ruling]
    violations: list[Violation]
    revoke_seq: int | None
    revoke_seat: int | None
    score_only: ScoreOnly | None


class Scored(Protocol):
    score: list[int]    # the round as played, per seat
    final: list[int]    # what counts: a ruling's score, or the score (and what it received)


R = TypeVar("R", bound=RoundLike)

_COUNTS = {2: "two", 3: "three", 4: "four"}


@mypyc_attr(allow_interpreted_subclasses=True)
class RoundBook(Generic[R]):
    """The round bookkeeping a game state shares: its rounds, the rule broken in them, the
    referee's rulings. A game sets ``game`` (its name), ``players``, ``scores`` (how many
    scores a round gives: one per player, or one per team), ``round_word`` (what its errors
    call a round: 'deal', 'round') and the lists ``rounds`` and ``violations``.

    Compiled, it is a native class that the games' states, compiled or not, derive from:
    what a game sets for all its states is a class constant (``ClassVar``), what each state
    holds is declared here or in the game's class."""

    game: ClassVar[str] = ""
    players: ClassVar[int] = 0
    scores: ClassVar[int] = 0
    round_word: ClassVar[str] = "deal"
    rounds: list[R]
    violations: list[Violation]

    @property
    def current_round(self) -> R:
        if not self.rounds:
            raise IntegrityError("no_deal", f"no {self.round_word} has been dealt yet")
        return self.rounds[-1]

    def _over_note(self, r: R) -> str:
        """What an error about a round that is over adds after its number ('' or ' (...)')."""
        return ""

    def _busy_note(self, r: R) -> str:
        """How far round ``r``, not yet over, has come (for the error on dealing again)."""
        return ""

    def _dealer_due(self, number: int) -> int:
        """Who deals round ``number`` (the next one)."""
        raise NotImplementedError

    def _next_round(self, dealer: int | None) -> tuple[int, int]:
        """The next round's number and dealer, checked: the last round is over, the game is
        not, and ``dealer`` (when recorded) is the seat due to deal."""
        word = self.round_word
        if self.rounds and not self.rounds[-1].closed:
            r = self.rounds[-1]
            raise IntegrityError("round_not_over", f"{word} {r.number} is not over ({self._busy_note(r)})")
        if self.finished:
            raise IntegrityError("game_over", "the game is over; no more deals")
        number = len(self.rounds) + 1
        due = self._dealer_due(number)
        if dealer is not None and dealer != due:
            raise IntegrityError("wrong_dealer", f"{word} {number} is dealt by seat {due}, "
                                 f"not seat {dealer}", seat=dealer)
        return number, due

    def outcomes(self) -> Sequence[Scored]:
        """Every round's outcome (the game says how a round scores)."""
        raise NotImplementedError

    def totals(self, ruled: bool = True) -> list[int]:
        """Each seat's (or team's) total: of the rounds' final scores (``ruled``), or as
        played."""
        n = self.scores
        tot = [0] * n
        for o in self.outcomes():
            s = o.final if ruled else o.score
            for i in range(n):
                tot[i] += s[i]
        return tot

    @property
    def winner(self) -> int | str | None:
        """The winner once the game is over (a seat or team, or the game's word for another
        end, such as 'draw'), else None (the game's rule)."""
        raise NotImplementedError

    def winner_of(self, totals: list[int] | None) -> int | str | None:
        """:attr:`winner`, given the totals when the caller has them already (``totals``, as
        :meth:`totals` gives them; None: added up when the game's rule needs them), so a
        report that adds up the rounds' outcomes has them worked out once. A game whose rule
        reads the totals says so; by default, :attr:`winner`."""
        return self.winner

    @property
    def finished(self) -> bool:
        return self.winner is not None

    def _open_round(self) -> R:
        r = self.current_round
        if r.closed:
            raise IntegrityError("round_over", f"{self.round_word} {r.number} is over{self._over_note(r)}")
        return r

    def _check_seat(self, seat: int) -> None:
        check_seat(seat, self.players)

    def _violate(self, r: R, rule: str, message: str, *, seat: int | None = None,
                 card: int | None = None, seq: int = -1, trick: int | None = None) -> None:
        v = Violation(rule, message, r.number, trick, seat, card, seq)
        r.violations.append(v)
        self.violations.append(v)

    def _check_play(self, seat: int, c: int, due: int, played: int) -> None:
        """A card played out of turn, or already played in the round, is an IntegrityError."""
        if seat != due:
            raise IntegrityError("not_your_turn", f"seat {seat} played {card_text(c)} but it is "
                                 f"seat {due}'s turn", seat=seat, card=c)
        if played >> c & 1:
            raise IntegrityError("card_played_twice", f"{card_text(c)} was already played in this "
                                 f"{self.round_word}", seat=seat, card=c)

    def _revoke(self, r: R, bad: tuple[str, str], seat: int, c: int, seq: int, trick: int,
                reject: bool) -> None:
        """A play that broke a rule (``bad``: code and sentence from the game's judge): an
        IntegrityError under option ``revoke: reject``, else a violation, the round's first
        revoke remembered (by seq) for its scoring."""
        code, sentence = bad
        if reject:
            raise IntegrityError(code, f"seat {seat} {sentence} (option revoke: reject)",
                                 seat=seat, card=c)
        self._violate(r, code, f"seat {seat} {sentence}", seat=seat, card=c, seq=seq, trick=trick)
        if r.revoke_seq is None or seq < r.revoke_seq:
            r.revoke_seq, r.revoke_seat = seq, seat

    def _ruling_rule(self) -> str:
        """What a ruling's score must be, for the error on one that is not."""
        n = self.scores
        return (f"a {self.game} ruling's score is {_COUNTS.get(n, str(n))} whole numbers >= 0, "
                "one per player")

    def most_round_score(self) -> int:
        """The most one side can score in one round (the game's rule): a ruling above it is
        ``bad_ruling``."""
        raise NotImplementedError

    def record_score(self, number: int, so: ScoreOnly) -> None:
        """Round ``number`` recorded by its score alone, in place of its deal and play: only
        the round due, once the last one is over; a score a real round could have, else
        ``bad_round_score`` naming what does not add up (the game's :meth:`check_score`)."""
        word = self.round_word
        due, dealer = self._next_round(None)
        if number != due:
            raise IntegrityError("bad_round_score", f"the score names {word} {number}, but "
                                 f"{word} {due} is due")
        n = self.scores
        whose = "team" if n < self.players else "player"
        for name, v in (("score", so.score), ("points", so.points), ("roem", so.roem)):
            if v is not None and len(v) != n:
                raise IntegrityError("bad_round_score", f"a {self.game} {word}'s {name} is "
                                     f"{_COUNTS.get(n, str(n))} numbers, one per {whose}, not "
                                     f"{len(v)}")
        if so.chooser is not None:
            check_seat(so.chooser, self.players)
        problem = self.check_score(so)
        if problem:
            raise IntegrityError("bad_round_score", f"{word} {number}: {problem}")
        self.rounds.append(self._score_only_round(due, dealer, so))

    def check_score(self, so: ScoreOnly) -> str:
        """What does not add up in a score-only round ('' when it could be real)."""
        raise NotImplementedError

    def _score_only_round(self, number: int, dealer: int, so: ScoreOnly) -> R:
        """The round a score-only record makes: closed, with no cards (the game's)."""
        raise NotImplementedError

    def claim(self, seat: int, gives: str, seq: int = -1, judge: ClaimJudge | None = None) -> None:
        """``seat`` claims (``rest_to_claimer``) or concedes (``rest_to_opponents``) every
        trick still to play: the round ends, those tricks credited to the side named (rule
        book 9.1, decision 13). With the hands known and a ``judge``, a claim its side could
        not make against every defence is the violation ``claim_not_guaranteed``; the round
        is scored as claimed all the same (a ruling may correct it)."""
        r = self._open_round()
        check_seat(seat, self.players)
        if gives not in ("rest_to_claimer", "rest_to_opponents"):
            raise IntegrityError("bad_event", f"a claim gives the rest to the claimer or to the "
                                 f"opponents, not {gives!r}", seat=seat)
        to_claimer = gives == "rest_to_claimer"
        first, tricks, cards, points = self._claim_rest(r, seat)
        taker = seat if to_claimer else self._opponent_of(r, seat)
        c = RestClaim(seat, gives, seq, first, tricks, cards, points, taker)
        if to_claimer and r.hands_known and judge is not None:
            c.guaranteed = judge(self, r, seat)
            if not c.guaranteed:
                self._violate(r, "claim_not_guaranteed",
                              f"seat {seat} claimed the rest ({tricks} trick"
                              f"{'' if tricks == 1 else 's'} from trick {first}) but its side "
                              "cannot take every one against every defence",
                              seat=seat, seq=seq, trick=first)
        r.claim = c
        self._end_play(r)

    def _claim_rest(self, r: R, seat: int) -> tuple[int, int, int, int]:
        """What a claim by ``seat`` gives in round ``r``: the first trick, how many tricks,
        their cards (mask) and card points with the last-trick bonus; or an IntegrityError
        when the round cannot be claimed now (the game's rule)."""
        raise NotImplementedError

    def _opponent_of(self, r: R, seat: int) -> int:
        """The seat a concession by ``seat`` credits: the next seat of the other side."""
        return (seat + 1) % self.players

    def _end_play(self, r: R) -> None:
        """Close round ``r``, its play over (here: claimed; the game may do more)."""
        r.closed = True

    def rule(self, number: int, score: list[int], reason: str, seq: int = -1) -> None:
        """A referee's score for round ``number``; it replaces the score as played (and any
        earlier ruling on the round, which stays on record as superseded). A ruling on a
        round in play abandons it: no more cards, the next round may follow. A ruling after
        the game ended is allowed and marked so."""
        word = self.round_word
        if not 1 <= number <= len(self.rounds):
            raise IntegrityError("no_such_round", f"a ruling names {word} {number}, but "
                                 f"{len(self.rounds)} {word}s have been dealt")
        if len(score) != self.scores or any(not isinstance(s, int) or s < 0 for s in score):
            raise IntegrityError("bad_ruling", self._ruling_rule())
        most = self.most_round_score()
        if max(score) > most:
            raise IntegrityError("bad_ruling", f"a ruling of {'-'.join(map(str, score))} is more "
                                 f"than a {self.game} {word} can score ({most} at most)")
        after_end = self.finished
        r = self.rounds[number - 1]
        r.ruling = Ruling(list(score), reason, seq, after_end)
        r.rulings.append(r.ruling)
        r.closed = True
