"""The toy game's own event: a player doubles the round's stakes."""

from __future__ import annotations

from typing import Literal

from jaslog.events import Event, Seat


class Double(Event):
    """Toy: ``seat`` doubles the round's stakes (before the first lead; once a round)."""

    type: Literal["double"]
    seat: Seat


EVENTS: tuple[type[Event], ...] = (Double,)
