"""Kloepper cards and play: the 24-card pack, the permanent trumps, effective suits, legal
plays, trick winners and card points (rule book 5.1, 5.4).

Cards keep the numbering of :mod:`jaslog.cards` (0-31); the Kloepper pack is the 24 cards
9 10 J Q K A. A card's *effective suit* is ``TRUMPS`` (4) when it is one of the permanent
trumps, else its printed suit: the jack of hearts is a trump, not a heart.

>>> from jaslog.cards import parse_card as p, parse_hand, hand_text
>>> t = Trumps.from_options({})
>>> t.effective(p("JH")), t.effective(p("QH")), t.effective(p("QS"))
(4, 2, 4)
>>> hand_text(legal(parse_hand("JH QH 9C"), [p("AH")], t))    # JH does not follow hearts
'QH'
>>> hand_text(legal(parse_hand("JH 9C"), [p("AH")], t))       # void in hearts: any card
'9C JH'
>>> t.winner([p("AH"), p("9D"), p("KH"), p("QC")])            # QC is the highest trump
3
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jaslog.cards import (
    ACE,
    CARD_INDEX,
    CLUBS,
    NINE,
    QUEEN,
    RANK_TEXT,
    SPADES,
    SUIT_NAMES,
    card,
    card_text,
    hand_text,
)
from jaslog.engine.base import IntegrityError

TRUMPS = 4
SUIT_WORDS = (*SUIT_NAMES, "trumps")

#: The 24 cards of the pack: 9 10 J Q K A of each suit.
PACK = sum(1 << card(r, s) for s in range(4) for r in range(NINE, ACE + 1))
QC, QS = card(QUEEN, CLUBS), card(QUEEN, SPADES)
BLACK_QUEENS = 1 << QC | 1 << QS
ACES = tuple(card(ACE, s) for s in range(4))

#: Card points: A 11, 10 10, K 4, Q 3, J 2, 9 0 (120 in the pack).
POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
#: Strength within a plain suit, high wins: A 10 K Q J 9.
PLAIN_STRENGTH = (0, 0, 1, 5, 2, 3, 4, 6)
DEFAULT_TRUMPS = ("QC", "QS", "JC", "JS", "JH", "JD", "AD", "10D", "KD", "QD", "9D")


def points(c: int) -> int:
    return POINTS[c & 7]


def trick_points(cards: Sequence[int]) -> int:
    return sum(POINTS[c & 7] for c in cards)


@dataclass(frozen=True, slots=True)
class Trumps:
    """The permanent trumps (high to low) and what follows from them."""

    order: tuple[int, ...]
    mask: int
    rank: tuple[int, ...]       # for each card: its trump strength (higher wins), or -1
    suit_mask: tuple[int, ...]  # for each effective suit 0-4: its cards in the pack

    @classmethod
    def from_cards(cls, order: Sequence[int]) -> Trumps:
        if len(set(order)) != len(order) or not order:
            raise IntegrityError("bad_options", "option 'trumps' must name different cards")
        for c in order:
            if not PACK >> c & 1:
                raise IntegrityError("bad_options", f"option 'trumps': {card_text(c)} is not in the "
                                     "kloepper pack (9 10 J Q K A)")
        mask = sum(1 << c for c in order)
        rank = [-1] * 32
        for i, c in enumerate(order):
            rank[c] = len(order) - i
        suits = [sum(1 << c for c in range(32) if PACK >> c & 1 and c >> 3 == s and not mask >> c & 1)
                 for s in range(4)]
        return cls(tuple(order), mask, tuple(rank), (*suits, mask))

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> Trumps:
        return cls.from_cards([CARD_INDEX[t] for t in o.get("trumps", DEFAULT_TRUMPS)])

    def effective(self, c: int) -> int:
        """The suit a card belongs to in play: ``TRUMPS`` (4) or its printed suit."""
        return TRUMPS if self.mask >> c & 1 else c >> 3

    def beats(self, c: int, best: int) -> bool:
        """Does ``c`` beat ``best``, the card winning the trick so far?"""
        rc, rb = self.rank[c], self.rank[best]
        if rc >= 0:
            return rb < 0 or rc > rb
        return rb < 0 and c >> 3 == best >> 3 and PLAIN_STRENGTH[c & 7] > PLAIN_STRENGTH[best & 7]

    def winner(self, cards: Sequence[int]) -> int:
        """Index (play order) of the card winning the trick: the highest trump, else the
        highest card of the effective suit led."""
        best = 0
        for i in range(1, len(cards)):
            if self.beats(cards[i], cards[best]):
                best = i
        return best

    def __deepcopy__(self, memo: dict[int, Any]) -> Trumps:
        """Itself: it never changes (compiled, a frozen class is not rebuilt field by field)."""
        return self


# ---------------------------------------------------------------- legal plays (5.4)


def _walk(hand: int, trick: Sequence[int], trumps: Trumps, must_trump: bool) -> tuple[int, str]:
    if not trick:
        return hand, "lead"
    led = trumps.effective(trick[0])
    follow = hand & trumps.suit_mask[led]
    if follow:
        return follow, "follow"
    if must_trump and hand & trumps.mask:
        return hand & trumps.mask, "must_trump"
    return hand, "void"


def legal(hand: int, trick: Sequence[int], trumps: Trumps, must_trump: bool = False) -> int:
    """The legal cards (mask): follow the effective suit led; if void, any card (or a trump,
    option ``must_trump_when_void``)."""
    return _walk(hand, trick, trumps, must_trump)[0]


def explain(hand: int, trick: Sequence[int], trumps: Trumps,
            must_trump: bool = False) -> tuple[int, str]:
    mask, branch = _walk(hand, trick, trumps, must_trump)
    led = SUIT_WORDS[trumps.effective(trick[0])] if trick else ""
    return mask, {
        "lead": "You lead: any card.",
        "follow": f"{led.capitalize()} were led: follow with {led} (a jack or black queen is a "
                  "trump, not of its printed suit); you need not win.",
        "must_trump": f"You cannot follow {led}: you must play a trump (option "
                      "must_trump_when_void).",
        "void": f"You cannot follow {led}: any card (no obligation to trump).",
    }[branch]


def judge(hand: int, trick: Sequence[int], trumps: Trumps, c: int,
          must_trump: bool = False) -> tuple[str, str] | None:
    """None when ``c`` is legal; else (rule code, sentence): ``must_follow_suit`` or
    ``must_trump``."""
    mask, branch = _walk(hand, trick, trumps, must_trump)
    if mask >> c & 1:
        return None
    led = trumps.effective(trick[0])
    if branch == "follow":
        return "must_follow_suit", (
            f"played {card_text(c)} to {card_text(trick[0])} ({SUIT_WORDS[led]}) while holding "
            f"{SUIT_WORDS[led]} ({hand_text(mask)}): must follow suit")
    return "must_trump", (f"played {card_text(c)} unable to follow {SUIT_WORDS[led]} while "
                          f"holding trumps ({hand_text(mask)}): must trump")


def rank_text(c: int) -> str:
    return RANK_TEXT[c & 7]
