"""How Kloepper deals from a deck in a fixed order (rule book 9.3, decision 20).

The 24 cards (nine to ace of each suit): the seat ``k`` places after the dealer gets the
deck's cards ``6(k-1)`` to ``6(k-1)+5``.

>>> len(PACK), deal_from_deck(list(PACK), dealer=0)["dealt"]["hands"][1]
(24, ['9C', '10C', 'JC', 'QC', 'KC', 'AC'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.cards import CARD_TEXT, cards_of
from jaslog.games.kloepper.rules import PACK as PACK_MASK

#: The 24 cards, in canonical text.
PACK: tuple[str, ...] = tuple(CARD_TEXT[c] for c in cards_of(PACK_MASK))


def deal_from_deck(deck: Sequence[str], dealer: int) -> dict[str, dict[str, Any]]:
    """The fields of the ``dealt`` event a deck gives, by event type."""
    hands: list[list[str]] = [[] for _ in range(4)]
    for k in range(1, 5):
        hands[(dealer + k) % 4] = list(deck[6 * (k - 1):6 * k])
    return {"dealt": {"hands": hands}}
