"""The toy game's events as rule actions: ``dealt`` (two hands of five, or none), its own
``double``, and ``play`` and ``ruling`` as every game where players score alone."""

from __future__ import annotations

from typing import ClassVar

from jaslog.engine.base import IntegrityError
from jaslog.engine.common import PlayerFold, hand_masks
from jaslog.engine.fold import Handlers
from jaslog.events import Dealt, GameStarted
from tests.games.toy.events import Double
from tests.games.toy.rules import ToyGame


class ToyFold(PlayerFold):
    game = "toy"
    players = 2
    state: ToyGame
    handlers: ClassVar[Handlers] = {Dealt: "dealt", Double: "double"}

    def initial(self, started: GameStarted) -> ToyGame:
        return ToyGame(self.options, started.dealer)

    def dealt(self, e: Dealt) -> None:
        for unused in ("turn_up", "stock"):
            if getattr(e, unused) is not None:
                raise IntegrityError("bad_event", f"field {unused!r} is not used in the toy game")
        self.state.deal(hand_masks(e.hands, 2, 5, "a toy deal"), e.dealer, e.seq)

    def double(self, e: Double) -> None:
        self.state.double(e.seat, e.seq)
