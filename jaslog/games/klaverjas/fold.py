"""Klaverjas events as rule actions.

Compiled (``jaslog.native.HOT_PATH``), :class:`KlaverjasFold` is a native class: a play in
its place goes from the event to the native game state without a Python attribute read on
the way.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, cast

from mypy_extensions import mypyc_attr

from jaslog.cards import CARD_INDEX, CARD_TEXT
from jaslog.engine.base import IntegrityError
from jaslog.engine.fold import GameFold, Handlers
from jaslog.events import Bid, Dealt, Event, GameStarted, Play, Roem, Ruling
from jaslog.events.fast import FastPlay
from jaslog.games.klaverjas.events import TrumpTurned
from jaslog.games.klaverjas.rules import KlaverjasGame

#: The classes of a play (compiled: read once, not looked up by name at every event).
PLAY: Final = Play
FAST_PLAY: Final = FastPlay


def cards_mask(texts: list[str]) -> int:
    """The mask of the cards named, or -1 when one is named twice."""
    m = 0
    for t in texts:
        bit = 1 << CARD_INDEX[t]
        if m & bit:
            return -1
        m |= bit
    return m


@mypyc_attr(allow_interpreted_subclasses=True)
class KlaverjasFold(GameFold):
    game: ClassVar[str] = "klaverjas"
    players: ClassVar[int] = 4
    handlers: ClassVar[Handlers] = {Dealt: "dealt", TrumpTurned: "trump_turned", Bid: "bid",
                                    Play: "play", Roem: "roem", Ruling: "ruling"}

    def initial(self, started: GameStarted) -> KlaverjasGame:
        return KlaverjasGame(self.options, started.dealer)

    def dealt(self, e: Dealt) -> None:
        if e.turn_up is not None or e.stock is not None:
            name = "turn_up" if e.turn_up is not None else "stock"
            raise IntegrityError("bad_event", f"field {name!r} is not used in klaverjas "
                                 "(it belongs to a klaberjass deal)")
        hands = None
        texts_by_seat = e.hands
        if texts_by_seat is not None:
            if len(texts_by_seat) != 4 or any(len(h) != 8 for h in texts_by_seat):
                sizes = ", ".join(str(len(h)) for h in texts_by_seat)
                raise IntegrityError("bad_deal", f"a deal is 4 hands of 8 cards, not [{sizes}]")
            hands = []
            for seat in range(4):
                texts = texts_by_seat[seat]
                h = cards_mask(texts)
                if h < 0:  # a card named twice
                    twice = sorted({t for t in texts if texts.count(t) > 1})
                    raise IntegrityError("dealt_twice",
                                         f"{', '.join(twice)} dealt twice to seat {seat}",
                                         seat=seat)
                hands.append(h)
        self.game_state().deal(hands, e.dealer, e.seq)

    def game_state(self) -> KlaverjasGame:
        """The state, as the Klaverjas game it is."""
        return cast(KlaverjasGame, self.state)

    def trump_turned(self, e: TrumpTurned) -> None:
        self.game_state().turn_trump(e.card, e.seq)

    def bid(self, e: Bid) -> None:
        self.game_state().bid(e.seat, e.call, e.seq)

    def play(self, e: Play) -> None:
        self.game_state().play(e.seat, CARD_INDEX[e.card], e.seq)

    def apply(self, e: Event) -> None:
        # The hot path: a play in its place goes straight to the rules, with the checks and
        # errors of GameFold.apply, which takes every other event (and a misplaced play).
        # Its fields are read from the event's ``__dict__`` (a model's and a FastPlay's hold
        # them all), one dict read each instead of an attribute look-up through the model's
        # class.
        kind = type(e)
        if kind is not PLAY and kind is not FAST_PLAY:
            GameFold.apply(self, e)
            return
        d: dict[str, Any] = e.__dict__
        seq: int = d["seq"]
        game: str = d["game"]
        if seq != self.next_seq or game != self.game_id:
            GameFold.apply(self, e)  # (which says what is wrong)
            return
        try:
            cast(KlaverjasGame, self.state).play(d["seat"], CARD_INDEX[d["card"]], seq)
        except IntegrityError as err:
            raise self.located(err, e) from None
        self.entries.append(e)
        self.next_seq = seq + 1
        at: str | None = d["at"]
        if at is not None:
            self.last_at = at

    def apply_play(self, seat: int, card: int, at: str | None = None,
                   event: Event | bytes | int | None = None) -> None:
        # A play given as ints goes straight to the rules, as a play event in its place
        # goes through apply (a fold class that takes plays by a handler of its own: that
        # handler, by way of the event)
        if self._apply.get(PLAY) is not PLAY_HANDLER:
            GameFold.apply_play(self, seat, card, at, event)
            return
        seq = self.next_seq
        try:
            cast(KlaverjasGame, self.state).play(seat, card, seq)
        except IntegrityError as err:
            raise self.play_refused(err, seat, card) from None
        # (GameFold.played written out: a method of a class Python may derive from is
        # called by name, compiled)
        play: Any = event if event is not None else \
            FastPlay(self.game_id, seq, seat, CARD_TEXT[card], at, None, None)
        if self.unread < 0 and isinstance(play, (bytes, int)):
            self.unread = len(self.entries)
        self.entries.append(play)
        self.next_seq = seq + 1
        if at is not None:
            self.last_at = at

    def roem(self, e: Roem) -> None:
        self.game_state().claim_roem(e.seat, e.points, e.seq)

    def ruling(self, e: Ruling) -> None:
        if len(e.score) != 2:
            raise IntegrityError("bad_ruling", f"a klaverjas ruling gives 2 scores (one per team), "
                                 f"not {len(e.score)}")
        self.game_state().rule(e.round, list(e.score), e.reason, e.seq)


#: The handler of a play that :meth:`KlaverjasFold.apply_play` stands for.
PLAY_HANDLER: Final = KlaverjasFold.dispatch[Play]
