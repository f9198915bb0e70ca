"""The toy game's own event, and its words: a player doubles the round's stakes."""

from __future__ import annotations

from typing import ClassVar, Literal

from jaslog.events import SEAT_ARG, Event, Seat, Words


class Double(Event):
    """Toy: ``seat`` doubles the round's stakes (before the first lead; once a round)."""

    words: ClassVar[Words] = Words("Double", args=(SEAT_ARG,))

    type: Literal["double"]
    seat: Seat


EVENTS: tuple[type[Event], ...] = (Double,)
