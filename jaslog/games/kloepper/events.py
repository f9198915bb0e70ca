"""Kloepper's own events (beside the shared ones of :mod:`jaslog.events`) and their words.

The black-queen player's partner call, the knock and the knock back. :data:`EVENTS` is what
the game registers (``Game.events``).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from jaslog.events import SEAT_ARG, Arg, Event, Seat, Words


class PartnerCall(Event):
    """Kloepper: the player holding both black queens calls a non-trump ace (its holder is his
    secret partner) or goes alone, before the first lead."""

    words: ClassVar[Words] = Words("Call", ("partner", "partnercall"), args=(
        SEAT_ARG, Arg("call", "choice", "an ace (AC, AD, AH, AS) or alone")))

    type: Literal["partner_call"]
    seat: Seat
    call: Literal["AC", "AD", "AH", "AS", "alone"]


class Knock(Event):
    """Kloepper: ``seat`` (holding a black queen) knocks: his side undertakes every trick."""

    words: ClassVar[Words] = Words("Knock", args=(SEAT_ARG,))

    type: Literal["knock"]
    seat: Seat


class KnockBack(Event):
    """Kloepper: after a knock, ``seat`` (of the other side) knocks back: his side undertakes
    to win a trick."""

    words: ClassVar[Words] = Words("Knock back", ("knockback",), args=(SEAT_ARG,))

    type: Literal["knock_back"]
    seat: Seat


#: The game's own events, in the order they are registered.
EVENTS: tuple[type[Event], ...] = (PartnerCall, Knock, KnockBack)
