"""Hand-written jaslog/1 logs for the tests: a builder and a few deals worked out by hand.

Nothing here asks the engine what should happen: seats, leaders and the expected numbers in
the tests are worked out from the rule book.
"""

from __future__ import annotations

from typing import Any, Self

import orjson

from jaslog.cards import parse_card, parse_hand
from jaslog.engine.fold import GameFold
from jaslog.events import event_from_dict
from jaslog.play.audit import game_report
from jaslog.play.fold import fold

SEATS = ["ann", "bob", "cor", "dirk"]


class LogBase:
    """A game's events, written one call per event; ``seq`` is counted here. Each game's
    log (Klaverjas here, Klaberjass and Kloepper in their test packages) sets ``players`` and
    adds a method per event of its own."""

    players = 4

    def __init__(self, game: str, ruleset: str, seats: list[str], dealer: int,
                 options: dict[str, Any] | None) -> None:
        self.game = game
        self.events: list[dict[str, Any]] = []
        start: dict[str, Any] = {"ruleset": ruleset, "seats": seats, "dealer": dealer}
        if options:
            start["options"] = options
        self.add("game_started", **start)

    @property
    def seq(self) -> int:
        """The seq of the last event written."""
        return len(self.events) - 1

    def add(self, type_: str, **fields: Any) -> Self:
        self.events.append({"game": self.game, "seq": len(self.events), "type": type_, **fields})
        return self

    def play(self, seat: int, card: str) -> Self:
        return self.add("play", seat=seat, card=card)

    def trick(self, leader: int, cards: str) -> Self:
        """The cards of one trick in play order, the first played by ``leader``."""
        for i, c in enumerate(cards.split()):
            self.play((leader + i) % self.players, c)
        return self

    def ruling(self, round_: int, score: list[int], reason: str = "referee") -> Self:
        return self.add("ruling", round=round_, score=score, reason=reason)

    def jsonl(self) -> bytes:
        return b"".join(orjson.dumps(e) + b"\n" for e in self.events)

    def fold(self) -> GameFold:
        return fold(event_from_dict(e) for e in self.events)

    def report(self) -> dict[str, Any]:
        return game_report(self.game, self.fold())


class Log(LogBase):
    """A Klaverjas game's events, written one call per event; ``seq`` is counted here."""

    def __init__(self, game: str = "g1", ruleset: str = "amsterdam",
                 options: dict[str, Any] | None = None, dealer: int = 3,
                 seats: list[str] | None = None) -> None:
        super().__init__(game, ruleset, seats or SEATS, dealer, options)

    def deal(self, hands: list[str] | None = None, **fields: Any) -> Log:
        if hands is None:
            return self.add("dealt", **fields)
        return self.add("dealt", hands=[h.split() for h in hands], **fields)

    def bid(self, seat: int, call: str) -> Log:
        return self.add("bid", seat=seat, call=call)

    def bids(self, *calls: tuple[int, str]) -> Log:
        for seat, call in calls:
            self.bid(seat, call)
        return self

    def turn(self, card: str) -> Log:
        return self.add("trump_turned", card=card)

    def roem(self, seat: int, points: int) -> Log:
        return self.add("roem", seat=seat, points=points)

    def note(self, text: str, **fields: Any) -> Log:
        return self.add("note", text=text, **fields)


def masks(hands: list[str]) -> list[int]:
    return [parse_hand(h, lenient=False) for h in hands]


def c(text: str) -> int:
    return parse_card(text, lenient=True)


def cards(text: str) -> list[int]:
    return [c(t) for t in text.split()]


# ---------------------------------------------------------------------------------------
# Deal M: a mixed deal, dealer 3 (seat 0 is forehand), trumps hearts. Every play below is
# legal in Amsterdam and in Rotterdam (each card follows suit, or its player holds neither
# the suit led nor a trump). Worked out by hand from rule book 2.3, 2.4 and 3.4:
#
#  trick leader cards (play order)  winner  points           roem
#    1     0    JH KH 8H 7H           0     20+4+0+0  = 24   -
#    2     0    9H 10H QH 7S          0     14+10+3+0 = 27   - (9-10 then Q: no run)
#    3     0    AH 8D 9S 8S           0     11        = 11   -
#    4     0    AS QS JS KD           0     11+3+2+4  = 20   - (A, Q-J: no run of 3)
#    5     0    10S KS 10D QD         0     10+4+10+3 = 27   - (10S beats KS)
#    6     0    7D 9D AD JD           2     0+0+11+2  = 13   -
#    7     2    AC 7C 8C 9C           2     11        = 11   run 7-8-9: 20
#    8     2    KC QC JC 10C          1     4+3+2+10  = 19   run 10-J-Q-K: 50  (+10 last)
#
# Team 0 (seats 0, 2) takes tricks 1-7: 24+27+11+20+27+13+11 = 133 points, 20 roem.
# Team 1 (seats 1, 3) takes trick 8: 19+10 = 29 points, 50 roem.  133 + 29 = 162.
DEAL_M = [
    "JH 9H AH JC 8C AS 10S 7D",
    "10H KH 9C 10C KS QS 8D 9D",
    "QH 8H AC KC JS 9S AD 10D",
    "7H 7C QC 8S 7S KD QD JD",
]
TRICKS_M = [
    (0, "JH KH 8H 7H"),
    (0, "9H 10H QH 7S"),
    (0, "AH 8D 9S 8S"),
    (0, "AS QS JS KD"),
    (0, "10S KS 10D QD"),
    (0, "7D 9D AD JD"),
    (2, "AC 7C 8C 9C"),
    (2, "KC QC JC 10C"),
]
POINTS_M = [24, 27, 11, 20, 27, 13, 11, 19 + 10]
WINNERS_M = [0, 0, 0, 0, 0, 2, 2, 1]
ROEM_M = [0, 0, 0, 0, 0, 0, 20, 50]

# The same deal with a revoke: in trick 4 seat 1 throws 9D on the spade lead while holding
# KS and QS (must_follow_suit, team 1). Then seat 1 keeps QS, plays KS to trick 5 and,
# void in diamonds, QS to trick 6. Points: trick 4 = 11+0+2+4 = 17, trick 6 = 0+3+11+2 = 16;
# team 0 still takes tricks 1-7 (24+27+11+17+27+16+11 = 133), team 1 trick 8 (29).
TRICKS_M_REVOKE = [
    (0, "JH KH 8H 7H"),
    (0, "9H 10H QH 7S"),
    (0, "AH 8D 9S 8S"),
    (0, "AS 9D JS KD"),
    (0, "10S KS 10D QD"),
    (0, "7D QS AD JD"),
    (2, "AC 7C 8C 9C"),
    (2, "KC QC JC 10C"),
]
#: seq of the revoke when the log is game_started, dealt, one bid, then the plays:
#: plays start at seq 3; trick 4 card 2 is the 14th play.
REVOKE_SEQ_M = 3 + 3 * 4 + 1


def round_m(log: Log, tricks: list[tuple[int, str]] = TRICKS_M,
            claims: dict[int, tuple[int, int]] | None = None) -> Log:
    """Play the eight tricks; ``claims`` maps a trick number to a (seat, points) claim made
    right after that trick."""
    for n, (leader, cs) in enumerate(tricks, 1):
        log.trick(leader, cs)
        if claims and n in claims:
            log.roem(*claims[n])
    return log


# ---------------------------------------------------------------------------------------
# The suit deal: each player holds one whole suit; the forehand holds hearts, names hearts
# and wins every trick (nobody else has a trump). Trick k is four cards of one rank, so
# every trick is four of a kind: J 200, A K Q 10 100 each, 9 8 7 0 (100 under KBN).
# Each round: 162 card points + 100 pit to the forehand's team; roem on the table 600
# (900 with KBN's 9/8/7), credited only when claimed (default claim mode).
SUIT_ORDER = ["J", "9", "A", "10", "K", "Q", "8", "7"]
SUIT_OF_OFFSET = ("H", "S", "C", "D")  # forehand, its left, partner, dealer


def suit_hands(dealer: int) -> list[str]:
    f = (dealer + 1) % 4
    hands = [""] * 4
    for off, s in enumerate(SUIT_OF_OFFSET):
        hands[(f + off) % 4] = " ".join(r + s for r in SUIT_ORDER)
    return hands


def suit_round(log: Log, dealer: int, *, trump: str = "H", bids: list[tuple[int, str]] | None = None,
               claim: bool = False) -> Log:
    """Deal the suit deal and play it out; the forehand names ``trump`` (one bid)."""
    f = (dealer + 1) % 4
    log.deal(suit_hands(dealer))
    for seat, call in bids if bids is not None else [(f, trump)]:
        log.bid(seat, call)
    offsets = SUIT_OF_OFFSET
    winner = f if trump == "H" else (f + offsets.index(trump)) % 4
    lead = f
    for r in SUIT_ORDER:
        log.trick(lead, " ".join(r + offsets[(lead - f + i) % 4] for i in range(4)))
        if claim and r not in ("9", "8", "7"):
            log.roem(winner, 200 if r == "J" else 100)
        lead = winner
    return log
