"""How Klaverjas deals from a deck in a fixed order (rule book 9.3, decision 20).

The seat ``k`` places after the dealer (forehand first) gets the deck's cards ``8(k-1)`` to
``8(k-1)+7``.

>>> hands = deal_from_deck(list(PACK), dealer=3)["dealt"]["hands"]
>>> hands[0][:3], hands[3][:3]
(['7C', '8C', '9C'], ['7S', '8S', '9S'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.cards import ALL_CARDS, CARD_TEXT

#: The 32 cards, in canonical text.
PACK: tuple[str, ...] = tuple(CARD_TEXT[c] for c in ALL_CARDS)


def deal_from_deck(deck: Sequence[str], dealer: int) -> dict[str, dict[str, Any]]:
    """The fields of the ``dealt`` event a deck gives, by event type."""
    hands: list[list[str]] = [[] for _ in range(4)]
    for k in range(1, 5):
        hands[(dealer + k) % 4] = list(deck[8 * (k - 1):8 * k])
    return {"dealt": {"hands": hands}}
