"""Klaverjas's own events (beside the shared ones of :mod:`jaslog.events`) and their words.

Random trump (option ``trump: random``) turns a card of a separate full pack: ``trump_turned``.
:data:`EVENTS` is what the game registers (``Game.events``).
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import StringConstraints

from jaslog.events import TURNED_PATTERN, Arg, Event, Words


class TrumpTurned(Event):
    """Random trump: a card turned to propose (or fix) the trump suit."""

    words: ClassVar[Words] = Words("Turn", ("turned", "trumpturned"), args=(
        Arg("card", "full_card", "the card turned (2-10, J, Q, K or A and a suit)"),))

    type: Literal["trump_turned"]
    card: Annotated[str, StringConstraints(pattern=TURNED_PATTERN)]


#: The game's own events, in the order they are registered.
EVENTS: tuple[type[Event], ...] = (TrumpTurned,)
