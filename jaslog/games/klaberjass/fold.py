"""Klaberjass events as rule actions, the report of its deals, and a seat's view.

Events: ``dealt`` (two hands of six, ``turn_up``, ``stock`` when known), ``bid``,
``second_deal`` (three more cards each, ``bottom``), ``dix``, ``sequence``, ``bella``,
``play``, ``ruling`` (two scores, one per player) and ``note``. A field the game does not use
is refused.
"""

from __future__ import annotations

from typing import ClassVar, cast

from mypy_extensions import mypyc_attr

from jaslog.cards import CARD_INDEX
from jaslog.engine.base import IntegrityError
from jaslog.engine.common import (
    PlayerFold,
    cards_mask,
    hand_masks,
)
from jaslog.engine.fold import Handlers
from jaslog.events import Bid, Dealt, GameStarted
from jaslog.games.klaberjass.events import Bella, Dix, SecondDeal, SequenceDeclared
from jaslog.games.klaberjass.rules import KlaberjassGame


def _hands(hands: list[list[str]] | None, size: int, what: str) -> list[int] | None:
    return hand_masks(hands, 2, size, what)


@mypyc_attr(allow_interpreted_subclasses=True)
class KlaberjassFold(PlayerFold):
    game: ClassVar[str] = "klaberjass"
    players: ClassVar[int] = 2
    handlers: ClassVar[Handlers] = {Dealt: "dealt", Bid: "bid", SecondDeal: "second_deal",
                                    Dix: "dix", SequenceDeclared: "sequence", Bella: "bella"}

    def initial(self, started: GameStarted) -> KlaberjassGame:
        return KlaberjassGame(self.options, started.dealer)

    def game_state(self) -> KlaberjassGame:
        """The state, as the Klaberjass game it is."""
        return cast(KlaberjassGame, self.state)

    def dealt(self, e: Dealt) -> None:
        if e.turn_up is None:
            raise IntegrityError("bad_deal", "a klaberjass deal names its turn-up card (turn_up)")
        hands = _hands(e.hands, 6, "a klaberjass deal")
        stock = [CARD_INDEX[c] for c in e.stock] if e.stock is not None else None
        self.game_state().deal(hands, CARD_INDEX[e.turn_up], stock, e.dealer, e.seq)

    def bid(self, e: Bid) -> None:
        self.game_state().bid(e.seat, e.call, e.seq)

    def second_deal(self, e: SecondDeal) -> None:
        self.game_state().second_deal(_hands(e.hands, 3, "a second deal"), CARD_INDEX[e.bottom], e.seq)

    def dix(self, e: Dix) -> None:
        self.game_state().dix(e.seat, e.seq)

    def sequence(self, e: SequenceDeclared) -> None:
        self.game_state().declare(e.seat, cards_mask(e.cards, "a sequence"), e.seq)

    def bella(self, e: Bella) -> None:
        self.game_state().bella(e.seat, e.seq)


