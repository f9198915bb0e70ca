"""Klaberjass's own events (beside the shared ones of :mod:`jaslog.events`) and their words.

The deal's ``turn_up`` and ``stock`` are fields of the shared ``dealt``; the second deal, the
dix, sequences and bella are the game's. :data:`EVENTS` is what the game registers
(``Game.events``).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from jaslog.events import SEAT_ARG, Arg, CardText, Event, Seat, Words


class SecondDeal(Event):
    """Klaberjass: after trumps are fixed, three more cards to each player, and the stock's
    bottom card turned face up. ``hands`` is given exactly when the deal's hands were."""

    words: ClassVar[Words] = Words("Second deal", ("seconddeal", "second"), args=(
        Arg("bottom", "card", "bottom and the stock's bottom card", word="bottom",
            example="Second deal bottom KD"),), hands=True)

    type: Literal["second_deal"]
    hands: list[list[CardText]] | None = Field(default=None, description="3 cards by seat")
    bottom: CardText = Field(description="The stock's bottom card, turned face up")


class Dix(Event):
    """Klaberjass: ``seat`` exchanges the seven of trumps (the dix) for the turn-up card."""

    words: ClassVar[Words] = Words("Dix", args=(SEAT_ARG,))

    type: Literal["dix"]
    seat: Seat


class SequenceDeclared(Event):
    """Klaberjass: ``seat`` declares a sequence (3 or more cards of a suit in a row) that it
    holds, before the first card of trick 2."""

    words: ClassVar[Words] = Words("Sequence", args=(SEAT_ARG, Arg(
        "cards", "cards", "the sequence's cards", least=1, example="Sequence 0 JS QS KS")))

    type: Literal["sequence"]
    seat: Seat
    cards: list[CardText] = Field(min_length=3, max_length=8, description="The sequence's cards")


class Bella(Event):
    """Klaberjass: ``seat`` announces bella on playing the second of the king and queen of
    trumps."""

    words: ClassVar[Words] = Words("Bella", args=(SEAT_ARG,), trick="in")

    type: Literal["bella"]
    seat: Seat


#: The game's own events, in the order they are registered.
EVENTS: tuple[type[Event], ...] = (SecondDeal, Dix, SequenceDeclared, Bella)
