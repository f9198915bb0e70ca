"""What the solver knows of a game: its rules as tables (:class:`SolveRules`), a position
(:class:`Position`), and what a game's ``solver`` adapter hands the analysis: a
:class:`Problem` to solve, a recorded round as a :class:`Deal`, or why a round has no par
(:class:`NoPar`).

Each game declares in its ``solver`` adapter (``jaslog/games/<game>/solver.py``, loaded by
``Game.adapter("solver")``) how its rules look as these tables; the search cores
(:mod:`jaslog.analysis.search`, and the compiled ``_solver``) read nothing else and know no
game by name. Cards keep the numbering of :mod:`jaslog.cards`. The two *sides* are 0, the
side whose par is told (Klaverjas: the chooser's team; Klaberjass: the maker; Kloepper: the
black queens), which maximizes, and 1, the others, who minimize.

>>> r = SolveRules(players=2, suit=tuple(c >> 3 for c in range(32)), trump=2,
...                strength=tuple(c & 7 for c in range(32)), points=(1,) * 32)
>>> r.suit_masks()[2] == 0xFF << 16
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: When void in the suit led and holding a trump, a player must: play any card,
VOID_ANY = 0
#: play a trump (any trump),
VOID_TRUMP = 1
#: beat the highest trump in the trick if able, else (``undertrump``) any trump, or any card,
VOID_OVERTRUMP = 2
#: follow Klaverjas's Amsterdam rules: trump an opponent, never undertrump a partner's trump.
VOID_AMSTERDAM = 3

#: Amsterdam, the partner winning with a trump: no undertrump unless holding nothing else,
PARTNER_NO_UNDERTRUMP = 0
#: a card of another suit unless holding only trumps,
PARTNER_DISCARD_ONLY = 1
#: anything.
PARTNER_FREE = 2

#: Scoring: the side with more (card points, roem, bonuses) makes it (Klaverjas, Klaberjass),
SCORE_MAJORITY = 0
#: or a table of side 0's card points and whether it took no trick, some or all (Kloepper).
SCORE_TABLE = 1

#: A tie of the majority scoring: side 0 made it (value 0),
TIE_MADE = 0
#: it failed (value minus everything: Klaverjas's nat),
TIE_NAT = 1
#: it scores nothing and the others their own total (Klaberjass).
TIE_HALF = 2

#: A position as the search cores take it: (hands, leader, trick, points, roem, won).
State = tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, int], tuple[int, int],
              tuple[int, int]]


@dataclass(frozen=True, slots=True)
class SolveRules:
    """The rules of one round as the solver needs them.

    ``suit``: each card's effective suit (0-4; a Kloepper trump is suit 4); ``trump``: the
    suit that is trumps (-1: none); ``strength``: each card's rank within its effective suit,
    higher wins; ``points``: card points. Cards outside the pack may have any values.
    """

    players: int
    suit: tuple[int, ...]
    trump: int
    strength: tuple[int, ...]
    points: tuple[int, ...]
    last_bonus: int = 0
    #: on a trump lead, beat the highest trump in the trick if able (else any trump)
    head_trump_lead: bool = True
    #: on a plain lead, beat the card winning the trick if able (Klaberjass option)
    head_plain_lead: bool = False
    void: int = VOID_ANY
    #: VOID_OVERTRUMP: unable to beat the highest trump, still play a trump
    undertrump: bool = True
    #: VOID_AMSTERDAM: the options of rule book 3.3
    partner_trump: int = PARTNER_NO_UNDERTRUMP
    opponent_undertrump: bool = False
    #: the roem of a trick of four (Klaverjas): runs of three and four in run order (the
    #: rank of :mod:`jaslog.cards`, 7 to A), the stuk (both cards of the mask ``stuk``),
    #: four of a kind by rank, three of a kind
    run3: int = 0
    run4: int = 0
    stuk: int = 0
    stuk_value: int = 0
    four_kind: tuple[int, ...] = (0,) * 8
    three_kind: int = 0
    scoring: int = SCORE_MAJORITY
    tie: int = TIE_NAT
    #: the bonus of a side that takes every trick (SCORE_MAJORITY): side 0's, side 1's
    pit: tuple[int, int] = (0, 0)
    #: SCORE_TABLE: the value for side 0's card points p and its tricks k (0: none, 1: some,
    #: 2: all) at ``table[3 * p + k]``; more points than its last row score as that row (a
    #: table's thresholds are "at least": Kloepper's rows run to the 120 of the pack)
    table: tuple[int, ...] = ()

    def suit_masks(self) -> tuple[int, ...]:
        """The cards of each effective suit (five masks; only the pack's cards matter)."""
        masks = [0] * 5
        for c, s in enumerate(self.suit):
            masks[s] |= 1 << c
        return tuple(masks)

    def as_tuple(self) -> tuple[object, ...]:
        """The rules as plain values, in the order the compiled core reads them.

        >>> len(SolveRules(players=4, suit=(0,) * 32, trump=-1, strength=(0,) * 32,
        ...                points=(0,) * 32).as_tuple())
        22
        """
        return (self.players, self.suit, self.trump, self.strength, self.points,
                self.last_bonus, int(self.head_trump_lead), int(self.head_plain_lead),
                self.void, int(self.undertrump), self.partner_trump,
                int(self.opponent_undertrump), self.run3, self.run4, self.stuk,
                self.stuk_value, self.four_kind, self.three_kind, self.scoring, self.tie,
                self.pit, self.table)


@dataclass(frozen=True, slots=True)
class Position:
    """A position of a round whose hands are all known.

    ``hands``: the cards each seat still holds (masks); ``leader``: who led the current
    trick, whose cards so far are ``trick`` (in play order); ``points``, ``roem``: what each
    side has taken (card points with any last-trick bonus; roem, and whatever else counts as
    already scored: a stuk in hand, a Klaberjass bella); ``won``: whether each side has
    taken a trick.
    """

    hands: tuple[int, ...]
    leader: int
    trick: tuple[int, ...] = ()
    points: tuple[int, int] = (0, 0)
    roem: tuple[int, int] = (0, 0)
    won: tuple[bool, bool] = (False, False)

    @property
    def to_move(self) -> int:
        """The seat to play.

        >>> Position((0b1, 0b10, 0b100, 0b1000), leader=3, trick=(5,)).to_move
        0
        """
        return (self.leader + len(self.trick)) % len(self.hands)

    @property
    def over(self) -> bool:
        """Every card is played.

        >>> Position((0, 0), leader=1).over, Position((0b1, 0), leader=1, trick=(3,)).over
        (True, False)
        """
        return not self.trick and not any(self.hands)

    def state(self) -> State:
        """The position as the search cores take it.

        >>> Position((0b1, 0b10), leader=1, won=(True, False)).state()
        ((1, 2), 1, (), (0, 0), (0, 0), (1, 0))
        """
        return (self.hands, self.leader, self.trick, self.points, self.roem,
                (int(self.won[0]), int(self.won[1])))


@dataclass(frozen=True, slots=True)
class Problem:
    """A position to solve, as a game's adapter reads it from a ``solve`` query: the rules,
    each seat's side, the points a side scores only once it takes a trick (``pending``), and
    the order in which to list the cards of the seat to play (the query's)."""

    rules: SolveRules
    side: tuple[int, ...]
    position: Position
    pending: tuple[int, int] = (0, 0)
    order: tuple[int, ...] = ()


@dataclass(frozen=True)
class Deal:
    """A recorded round whose hands are known, as a game's adapter hands it to the analysis.

    ``plays``: every card played, as (seat, card, seq), legal or not; ``result`` and
    ``score``: the round's outcome as recorded (the rule book's result word and each
    team's or player's score); ``difference``: side 0's score minus side 1's as recorded
    (per player of each side in Kloepper); ``outcome``: the result word of a position
    played out (for the par result); ``sides``: who each side is, in words; ``note``: what
    the reader should know (hands rebuilt from the plays, a ruling).
    """

    round: int
    rules: SolveRules
    side: tuple[int, ...]
    start: Position
    plays: tuple[tuple[int, int, int], ...]
    result: str
    score: tuple[int, ...]
    difference: int | None
    outcome: Callable[[Position], str]
    sides: tuple[str, str]
    pending: tuple[int, int] = (0, 0)
    note: str = ""


@dataclass(frozen=True, slots=True)
class NoPar:
    """A round the analysis cannot solve, and why (its hands are not known...)."""

    round: int
    reason: str
    result: str | None = None
    score: tuple[int, ...] | None = None
