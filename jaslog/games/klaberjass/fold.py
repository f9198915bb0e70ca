"""Klaberjass events as rule actions, the report of its deals, and a seat's view.

Events: ``dealt`` (two hands of six, ``turn_up``, ``stock`` when known), ``bid``,
``second_deal`` (three more cards each, ``bottom``), ``dix``, ``sequence``, ``bella``,
``play``, ``ruling`` (two scores, one per player) and ``note``. A field the game does not use
is refused.
"""

from __future__ import annotations

from typing import Any, ClassVar

from jaslog.cards import CARD_INDEX
from jaslog.engine.base import IntegrityError
from jaslog.engine.common import (
    PlayerFold,
    cards_mask,
    hand_masks,
)
from jaslog.events import GameStarted
from jaslog.games.klaberjass.rules import KlaberjassGame


def _hands(hands: list[list[str]] | None, size: int, what: str) -> list[int] | None:
    return hand_masks(hands, 2, size, what)


class KlaberjassFold(PlayerFold):
    game = "klaberjass"
    players = 2
    handlers: ClassVar[dict[str, str]] = {
        "dealt": "dealt", "bid": "bid", "second_deal": "second_deal", "dix": "dix",
        "sequence": "sequence", "bella": "bella", "play": "play", "ruling": "ruling"}
    state: KlaberjassGame

    def initial(self, started: GameStarted) -> KlaberjassGame:
        return KlaberjassGame(self.options, started.dealer)

    def dealt(self, e: Any) -> None:
        if e.turn_up is None:
            raise IntegrityError("bad_deal", "a klaberjass deal names its turn-up card (turn_up)")
        hands = _hands(e.hands, 6, "a klaberjass deal")
        stock = [CARD_INDEX[c] for c in e.stock] if e.stock is not None else None
        self.state.deal(hands, CARD_INDEX[e.turn_up], stock, e.dealer, e.seq)

    def bid(self, e: Any) -> None:
        self.state.bid(e.seat, e.call, e.seq)

    def second_deal(self, e: Any) -> None:
        self.state.second_deal(_hands(e.hands, 3, "a second deal"), CARD_INDEX[e.bottom], e.seq)

    def dix(self, e: Any) -> None:
        self.state.dix(e.seat, e.seq)

    def sequence(self, e: Any) -> None:
        self.state.declare(e.seat, cards_mask(e.cards, "a sequence"), e.seq)

    def bella(self, e: Any) -> None:
        self.state.bella(e.seat, e.seq)


