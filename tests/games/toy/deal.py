"""How the toy deals from a deck: the elder gets the deck's first five cards, the dealer the
next five."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaslog.cards import CARD_TEXT, cards_of
from tests.games.toy.rules import PACK as PACK_MASK

PACK: tuple[str, ...] = tuple(CARD_TEXT[c] for c in cards_of(PACK_MASK))


def deal_from_deck(deck: Sequence[str], dealer: int) -> dict[str, dict[str, Any]]:
    hands: list[list[str]] = [[], []]
    hands[1 - dealer], hands[dealer] = list(deck[:5]), list(deck[5:10])
    return {"dealt": {"hands": hands}}
