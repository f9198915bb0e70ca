"""What every game's rules share: the two ways an action can be wrong.

* An :class:`IntegrityError` means the record cannot describe a real game: a card that is
  not in the player's hand, a play by a seat whose turn it is not, a deal of 31 cards.
  The fold stops there; a store refuses the batch.
* A :class:`Violation` is a rule broken at the table: a revoke, a false roem claim, a bid
  out of turn. It is a fact that happened; it is recorded in the state, reported, and the
  round is scored by the game's ``revoke`` option.

Both carry a stable ``code`` (``must_follow_suit``, ``not_your_turn``...) for programs and
a plain sentence for people.
"""

from __future__ import annotations

from dataclasses import dataclass


class IntegrityError(ValueError):
    """An action the record cannot contain. ``code`` is stable; ``str(e)`` is a sentence."""

    def __init__(self, code: str, message: str, *, seat: int | None = None,
                 card: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.seat = seat
        self.card = card


@dataclass(frozen=True, slots=True)
class Violation:
    """A rule broken at the table.

    ``round`` and ``trick`` count from 1; ``seq`` is the position of the event in the game's
    log that broke the rule (given to the action by the caller); ``card`` is a card index.
    """

    rule: str
    message: str
    round: int
    trick: int | None = None
    seat: int | None = None
    card: int | None = None
    seq: int = -1


def team_of(seat: int) -> int:
    """Seats 0 and 2 are team 0; seats 1 and 3 are team 1."""
    return seat & 1
