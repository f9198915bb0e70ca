"""Kloepper events as rule actions, the report of its deals, and a seat's view.

Events: ``dealt`` (four hands of six, or none), ``partner_call``, ``knock``, ``knock_back``,
``play``, ``ruling`` (four scores, one per player) and ``note``.

:func:`seat_view` is the one place that decides what a seat may see of a Kloepper game: its
own hand, the cards played, the public calls and knocks, and the partnerships only as far as
the cards have revealed them (:func:`jaslog.games.kloepper.rules.known_sides`). The terminal
renderer and the service build on it; a live round never shows another hand.
"""

from __future__ import annotations

from typing import ClassVar, cast

from mypy_extensions import mypyc_attr

from jaslog.engine.base import IntegrityError
from jaslog.engine.common import (
    PlayerFold,
    hand_masks,
)
from jaslog.engine.fold import Handlers
from jaslog.events import Dealt, GameStarted
from jaslog.games.kloepper.events import Knock, KnockBack, PartnerCall
from jaslog.games.kloepper.rules import KloepperGame


@mypyc_attr(allow_interpreted_subclasses=True)
class KloepperFold(PlayerFold):
    game: ClassVar[str] = "kloepper"
    players: ClassVar[int] = 4
    handlers: ClassVar[Handlers] = {Dealt: "dealt", PartnerCall: "partner_call", Knock: "knock",
                                    KnockBack: "knock_back"}

    def initial(self, started: GameStarted) -> KloepperGame:
        return KloepperGame(self.options, started.dealer)

    def game_state(self) -> KloepperGame:
        """The state, as the Kloepper game it is."""
        return cast(KloepperGame, self.state)

    def dealt(self, e: Dealt) -> None:
        for unused in ("turn_up", "stock"):
            if getattr(e, unused) is not None:
                raise IntegrityError("bad_event", f"field {unused!r} is not used in kloepper "
                                     "(it belongs to a klaberjass deal)")
        self.game_state().deal(hand_masks(e.hands, 4, 6, "a kloepper deal"), e.dealer, e.seq)

    def partner_call(self, e: PartnerCall) -> None:
        self.game_state().call(e.seat, e.call, e.seq)

    def knock(self, e: Knock) -> None:
        self.game_state().knock(e.seat, e.seq)

    def knock_back(self, e: KnockBack) -> None:
        self.game_state().knock_back(e.seat, e.seq)


