"""The Jack-Nine card system shared by Klaverjas and Klaberjass (rule book section 2).

>>> from jaslog.cards import parse_card as p, HEARTS, SPADES
>>> trick_winner([p("AS"), p("7H"), p("10S"), p("KS")], trump=HEARTS)
1
>>> trick_winner([p("AS"), p("7D"), p("10S"), p("KS")], trump=HEARTS)
0
>>> trick_points([p("JH"), p("9H"), p("AS"), p("7C")], trump=HEARTS)
45
>>> longest_run(0b01111000)   # 10 J Q K of one suit
4
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from jaslog.cards import PLAIN_POINTS, PLAIN_STRENGTH, TRUMP_POINTS, TRUMP_STRENGTH


def beats(c: int, best: int, trump: int) -> bool:
    """Does card ``c`` beat the card ``best`` that is winning a trick so far?

    ``best`` is always of the suit led or a trump; an off-suit plain card never wins.
    """
    cs, bs = c >> 3, best >> 3
    if cs == trump:
        return bs != trump or TRUMP_STRENGTH[c & 7] > TRUMP_STRENGTH[best & 7]
    return cs == bs and bs != trump and PLAIN_STRENGTH[c & 7] > PLAIN_STRENGTH[best & 7]


def trick_winner(cards: Sequence[int], trump: int) -> int:
    """Index in ``cards`` (play order) of the card winning the trick so far (rule book 2.4)."""
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best], trump):
            best = i
    return best


#: Card points of every card (0-31) with each suit as trumps: ``CARD_POINTS[trump][card]``.
CARD_POINTS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(TRUMP_POINTS[c & 7] if c >> 3 == t else PLAIN_POINTS[c & 7] for c in range(32))
    for t in range(4))


def trick_points(cards: Sequence[int], trump: int) -> int:
    """Card points in a trick, without the last-trick bonus."""
    return sum(TRUMP_POINTS[c & 7] if c >> 3 == trump else PLAIN_POINTS[c & 7] for c in cards)


def _run(bits: int) -> int:
    best = cur = 0
    for r in range(8):
        cur = cur + 1 if bits >> r & 1 else 0
        best = max(best, cur)
    return best


#: Longest run of adjacent ranks (sequence order 7 8 9 10 J Q K A) in an 8-bit rank set.
RUN_LENGTH: Final[tuple[int, ...]] = tuple(_run(b) for b in range(256))


def longest_run(rank_bits: int) -> int:
    return RUN_LENGTH[rank_bits]
