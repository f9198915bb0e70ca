"""Cards as small ints, hands as bitmasks, and the text forms people and logs use.

A card is an ``int`` from 0 to 31: ``suit * 8 + rank``. Ranks are numbered in the
*sequence order* of the rule book (section 2.2): ``7 8 9 10 J Q K A`` is 0..7, so two
cards of one suit are adjacent in a run exactly when their ranks differ by one. Suits are
``C D H S`` = 0..3. A hand is an ``int`` whose bit ``c`` is set when card ``c`` is held.

>>> parse_card("10H")
19
>>> card_text(19)
'10H'
>>> parse_card("t♥", lenient=True)
19
>>> hand_text(parse_hand("JC,7C,AS"))
'7C JC AS'
>>> popcount(SUIT_MASK[HEARTS])
8

Logs are strict (canonical text only); people may type ``T`` for ten, lower case, and
the suit symbols. Canonical text is always what jaslog writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from mypy_extensions import mypyc_attr

from jaslog.errors import JaslogError

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

SEVEN: Final = 0
EIGHT: Final = 1
NINE: Final = 2
TEN: Final = 3
JACK: Final = 4
QUEEN: Final = 5
KING: Final = 6
ACE: Final = 7
RANKS = tuple(range(8))
RANK_TEXT = ("7", "8", "9", "10", "J", "Q", "K", "A")
RANK_NAMES = ("seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")

ALL_CARDS = tuple(range(32))
FULL_DECK: Final = (1 << 32) - 1
SUIT_MASK: Final[tuple[int, ...]] = tuple(0xFF << (8 * s) for s in SUITS)
RANK_MASK: Final[tuple[int, ...]] = tuple(sum(1 << (s * 8 + r) for s in SUITS) for r in RANKS)



@mypyc_attr(native_class=False)  # (its base is a plain Python class: its code must override)
class CardError(JaslogError, ValueError):
    """A text that is not a card (or not a hand) in the form asked for."""

    code = "bad_card"


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` and ``suit``.

    >>> card_text(card(JACK, CLUBS))
    'JC'
    """
    return suit * 8 + rank


def suit_of(c: int) -> int:
    return c >> 3


def rank_of(c: int) -> int:
    return c & 7


def bit(c: int) -> int:
    return 1 << c


CARD_TEXT: Final[tuple[str, ...]] = tuple(RANK_TEXT[c & 7] + SUIT_LETTERS[c >> 3] for c in ALL_CARDS)
CARD_INDEX: Final[dict[str, int]] = {t: i for i, t in enumerate(CARD_TEXT)}

_LENIENT_RANK = {"7": SEVEN, "8": EIGHT, "9": NINE, "10": TEN, "T": TEN, "J": JACK,
                 "Q": QUEEN, "K": KING, "A": ACE}
_LENIENT_SUIT = {"C": CLUBS, "D": DIAMONDS, "H": HEARTS, "S": SPADES,
                 "♣": CLUBS, "♦": DIAMONDS, "♥": HEARTS, "♠": SPADES,
                 "♧": CLUBS, "♢": DIAMONDS, "♡": HEARTS, "♤": SPADES}


def card_text(c: int) -> str:
    """Canonical text of a card: rank ``7 8 9 10 J Q K A`` then suit ``C D H S``."""
    return CARD_TEXT[c]


def parse_card(text: str, *, lenient: bool = False) -> int:
    """Read one card.

    Strict (the default, for logs) accepts only canonical text such as ``10H``.
    Lenient (for people) also accepts ``T`` for ten, lower case, spaces, and suit symbols.

    >>> parse_card("jh", lenient=True) == parse_card("JH")
    True
    >>> parse_card("TH")
    Traceback (most recent call last):
    ...
    jaslog.cards.CardError: 'TH' is not a card in canonical form (e.g. 10H, JC, AS)
    """
    c = CARD_INDEX.get(text)
    if c is not None:
        return c
    if lenient:
        t = text.strip().upper().replace(" ", "")
        if len(t) >= 2:
            r = _LENIENT_RANK.get(t[:-1])
            s = _LENIENT_SUIT.get(t[-1])
            if r is None and s is None:  # maybe the suit came first: "H10", "♥J"
                s = _LENIENT_SUIT.get(t[0])
                r = _LENIENT_RANK.get(t[1:])
            if r is not None and s is not None:
                return card(r, s)
        raise CardError(f"{text!r} is not a card (try e.g. 10H, TH, jh or J♥)")
    raise CardError(f"{text!r} is not a card in canonical form (e.g. 10H, JC, AS)")


def parse_suit(text: str, *, lenient: bool = False) -> int:
    """Read a suit letter (``C D H S``; lenient also takes lower case, symbols and names).

    >>> parse_suit("h", lenient=True)
    2
    """
    if len(text) == 1 and text in SUIT_LETTERS:
        return SUIT_LETTERS.index(text)
    if lenient:
        t = text.strip()
        s = _LENIENT_SUIT.get(t.upper())
        if s is not None:
            return s
        if t.lower() in SUIT_NAMES:
            return SUIT_NAMES.index(t.lower())
    raise CardError(f"{text!r} is not a suit (C, D, H or S)")


def suit_text(s: int) -> str:
    return SUIT_LETTERS[s]


def cards_of(mask: int) -> Iterator[int]:
    """The cards of a hand, lowest index first.

    >>> [card_text(c) for c in cards_of(parse_hand("AS 7C"))]
    ['7C', 'AS']
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def hand_mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def popcount(mask: int) -> int:
    return mask.bit_count()


def parse_hand(text: str, *, lenient: bool = True) -> int:
    """A hand from text separated by commas or spaces. A card named twice is an error."""
    m = 0
    for part in text.replace(",", " ").split():
        c = parse_card(part, lenient=lenient)
        if m >> c & 1:
            raise CardError(f"{card_text(c)} is named twice")
        m |= 1 << c
    return m


def hand_text(mask: int, sep: str = " ") -> str:
    return sep.join(CARD_TEXT[c] for c in cards_of(mask))


# ---- the three orders and the points of the Jack-Nine games (rule book section 2) ----

#: Strength of each rank when its suit is trump: J 9 A 10 K Q 8 7, high to low.
TRUMP_STRENGTH: Final[tuple[int, ...]] = (0, 1, 6, 4, 7, 2, 3, 5)
#: Strength of each rank in a plain suit: A 10 K Q J 9 8 7, high to low.
PLAIN_STRENGTH: Final[tuple[int, ...]] = (0, 1, 2, 6, 3, 4, 5, 7)
#: Card points when the card's suit is trump, and when it is plain.
TRUMP_POINTS: Final[tuple[int, ...]] = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS: Final[tuple[int, ...]] = (0, 0, 0, 10, 2, 3, 4, 11)


def _higher_trumps(c: int) -> int:
    s, r = c >> 3, c & 7
    return hand_mask(card(x, s) for x in RANKS if TRUMP_STRENGTH[x] > TRUMP_STRENGTH[r])


#: For each card, the cards of its own suit that beat it when that suit is trump.
HIGHER_TRUMPS: Final[tuple[int, ...]] = tuple(_higher_trumps(c) for c in ALL_CARDS)


def card_points(c: int, trump: int) -> int:
    """Points of a card in the Jack-Nine games (rule book 2.3).

    >>> card_points(parse_card("JH"), HEARTS), card_points(parse_card("JH"), SPADES)
    (20, 2)
    """
    return TRUMP_POINTS[c & 7] if c >> 3 == trump else PLAIN_POINTS[c & 7]
