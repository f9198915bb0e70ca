"""How Klaberjass deals from a deck in a fixed order (rule book 4.2, 4.4 and 9.3, decision 20).

As at the table, in packets of three, the non-dealer first: the non-dealer gets the deck's
cards 0-2 and 6-8, the dealer 3-5 and 9-11; card 12 is turned up; cards 13-31 are the stock,
from its top card to its bottom card. The second deal gives the non-dealer the stock's first
three cards and the dealer the next three, and turns up the stock's bottom card.

>>> d = deal_from_deck(list(PACK), dealer=0)
>>> d["dealt"]["hands"][1], d["dealt"]["turn_up"], d["second_deal"]["bottom"]
(['7C', '8C', '9C', 'KC', 'AC', '7D'], 'JD', 'AS')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.cards import ALL_CARDS, CARD_TEXT

#: The 32 cards, in canonical text.
PACK: tuple[str, ...] = tuple(CARD_TEXT[c] for c in ALL_CARDS)


def deal_from_deck(deck: Sequence[str], dealer: int) -> dict[str, dict[str, Any]]:
    """The fields of the ``dealt`` and ``second_deal`` events a deck gives, by event type."""
    elder = 1 - dealer
    hands: list[list[str]] = [[], []]
    hands[elder] = [*deck[0:3], *deck[6:9]]
    hands[dealer] = [*deck[3:6], *deck[9:12]]
    stock = list(deck[13:32])
    second: list[list[str]] = [[], []]
    second[elder], second[dealer] = stock[0:3], stock[3:6]
    return {"dealt": {"hands": hands, "turn_up": deck[12], "stock": stock},
            "second_deal": {"hands": second, "bottom": stock[-1]}}
