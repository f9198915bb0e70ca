"""The trick every game's rules can build on: a plain Python dataclass that a game
subclasses with its number of players as a class argument (:mod:`jaslog.engine.base` gives
it to the games; it lives here, never compiled, because each game makes it anew).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar


@dataclass(slots=True)
class Trick:
    """One trick: its number in the round (from 1), the seat that led, the cards in play
    order and the seq of each card's event, and its points once complete. A game subclasses
    it with its number of players as a class argument and whatever else it keeps of a trick.

    >>> @dataclass(slots=True)
    ... class TwoHanded(Trick, players=2):
    ...     pass
    >>> t = TwoHanded(1, leader=1, cards=[4, 12])
    >>> TwoHanded.players, t.complete, t.seat_of(0), t.seat_of(1)
    (2, True, 1, 0)
    """

    players: ClassVar[int] = 0
    number: int
    leader: int
    cards: list[int] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    points: int = 0   # card points (and any last-trick bonus), once complete

    def __init_subclass__(cls, players: int = 0) -> None:
        # (no super(): a slots dataclass is made anew, and dataclass(slots=True) makes the
        # subclass again without its class arguments: the second time changes nothing)
        if players:
            cls.players = players
            _count_in(cls, players)

    @property
    def complete(self) -> bool:
        """Every player has played to it."""
        return len(self.cards) == self.players

    def seat_of(self, i: int) -> int:
        """The seat that played the ``i``-th card."""
        return (self.leader + i) % self.players


def _count_in(cls: type[Trick], players: int) -> None:
    """Give a trick class ``complete`` and ``seat_of`` with its number of players as a
    constant: they are on every play's path, where reading a class attribute per call costs
    more than the rest of them."""

    def complete(self: Trick) -> bool:
        return len(self.cards) == players

    def seat_of(self: Trick, i: int) -> int:
        return (self.leader + i) % players

    complete.__doc__, seat_of.__doc__ = Trick.complete.__doc__, Trick.seat_of.__doc__
    setattr(cls, "complete", property(complete))  # noqa: B010 - mypy refuses a property here
    setattr(cls, "seat_of", seat_of)  # noqa: B010
