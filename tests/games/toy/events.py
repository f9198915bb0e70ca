"""The toy game's one event of its own, with its words (how the notation writes and reads it)."""

from __future__ import annotations

from typing import ClassVar, Literal

from jaslog.events import SEAT_ARG, Arg, CardText, Event, Seat, Words


class Swap(Event):
    """Toy: ``seat`` swaps ``card``, from its hand, for the card in the pot."""

    words: ClassVar[Words] = Words("Swap", ("exchange",), args=(SEAT_ARG, Arg("card", "card")))

    type: Literal["toy_swap"]
    seat: Seat
    card: CardText


EVENTS: tuple[type[Event], ...] = (Swap,)
