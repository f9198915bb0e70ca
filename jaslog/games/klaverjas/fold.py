"""Klaverjas events as rule actions.

Compiled (``jaslog.native.HOT_PATH``), :class:`KlaverjasFold` is a native class: a play in
its place goes from the event to the native game state without a Python attribute read on
the way; so does a stored deal, bid or roem claim read from the store's columns
(:meth:`KlaverjasFold.apply_row`), with no event built until the log is read.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, cast, get_args

import orjson
from mypy_extensions import mypyc_attr

from jaslog.cards import CARD_INDEX, CARD_TEXT
from jaslog.engine.base import IntegrityError
from jaslog.engine.fold import GameFold, Handlers
from jaslog.events import MOST_POINTS, Bid, Dealt, Event, GameStarted, Play, Roem, Ruling
from jaslog.events.fast import FastPlay
from jaslog.games.klaverjas.events import TrumpTurned
from jaslog.games.klaverjas.rules import KlaverjasGame

#: The classes of a play (compiled: read once, not looked up by name at every event).
PLAY: Final = Play
FAST_PLAY: Final = FastPlay


#: A stored bid's ``rest`` (its call, as the store writes it: ``["pass"]``) to its call, for
#: every call the model takes.
CALLS: Final[dict[bytes, str]] = {orjson.dumps([c]): c
                                  for c in get_args(Bid.model_fields["call"].annotation)}
#: A stored roem claim's ``rest`` (``[20]``) to its points, as they were met (0 to
#: :data:`MOST_POINTS`; None: not a roem claim's rest the model takes).
_POINTS: dict[bytes, int | None] = {}


def roem_points(rest: bytes) -> int | None:
    """The points of a stored roem claim's ``rest`` (``[20]``), or None when it is not one
    the model takes as it is (an int from 0 to :data:`MOST_POINTS`).

    >>> roem_points(b"[20]"), roem_points(b"[true]"), roem_points(b"[-10]"), roem_points(b"[")
    (20, None, None, None)
    """
    known = _POINTS.get(rest, -1)
    if known != -1:
        return known
    try:
        v: Any = orjson.loads(rest)
    except orjson.JSONDecodeError:
        v = None
    points: int | None = None
    if type(v) is list and len(v) == 1:
        p = v[0]
        if type(p) is int and 0 <= p <= MOST_POINTS:
            points = p
    if len(_POINTS) < 1024:
        _POINTS[rest] = points
    return points


def deal_masks(rest: bytes | None) -> tuple[list[int] | None, int | None] | None:
    """The hands (four masks of eight cards) and dealer of a stored Klaverjas deal's
    ``rest`` (``[hands, dealer]``, either left out: :mod:`jaslog.store.compact`), or None
    when it is not one the model takes and the rules deal as it is (no ``turn_up``, no
    ``stock``, every card named by its text, four hands of eight, no card twice in a hand,
    the dealer a seat): the event then says what is wrong.

    >>> hands = [["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"]] * 4
    >>> masks, dealer = deal_masks(orjson.dumps([hands, 2]))
    >>> [hex(m) for m in masks], dealer
    (['0xff', '0xff', '0xff', '0xff'], 2)
    >>> deal_masks(None), deal_masks(b"[null,1]"), deal_masks(b'[null,null,"7C"]')
    ((None, None), (None, 1), None)
    """
    if rest is None:
        return None, None
    try:
        v: Any = orjson.loads(rest)
    except orjson.JSONDecodeError:
        return None
    if type(v) is not list:
        return None
    parts: list[Any] = v
    n = len(parts)
    if n > 2:
        return None  # (a turn-up or a stock: refused by the handler, from the event)
    dealer: Any = parts[1] if n > 1 else None
    if dealer is not None and (type(dealer) is not int or not 0 <= dealer <= 3):
        return None
    given: Any = parts[0] if n > 0 else None
    if given is None:
        return None, dealer
    if type(given) is not list or len(given) != 4:
        return None
    index = CARD_INDEX
    hands: list[int] = []
    for h in given:
        if type(h) is not list or len(h) != 8:
            return None
        m = 0
        for t in h:
            if type(t) is not str:
                return None
            c = index.get(t, -1)
            if c < 0 or m >> c & 1:
                return None
            m |= 1 << c
        hands.append(m)
    return hands, dealer


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

    def apply_row(self, name: str, seat: Any, card: Any, rest: bytes | None,
                  entry: Any) -> bool:
        # A stored deal, bid or roem claim in its usual form goes to the rules as its
        # fields, with no event (GameFold.apply_row); anything else the event's way. Only
        # when this class's own handler takes the event (a fold class that takes it by a
        # handler of its own: by way of the event).
        seq = self.next_seq
        state = cast(KlaverjasGame, self.state)
        handlers = self._apply
        if name == "bid":
            call = None if rest is None else CALLS.get(rest)
            if call is None or card is not None or type(seat) is not int or \
                    not 0 <= seat <= 3 or handlers.get(Bid) is not BID_HANDLER:
                return False
            state.bid(seat, call, seq)
        elif name == "roem":
            points = None if rest is None else roem_points(rest)
            if points is None or card is not None or type(seat) is not int or \
                    not 0 <= seat <= 3 or handlers.get(Roem) is not ROEM_HANDLER:
                return False
            state.claim_roem(seat, points, seq)
        elif name == "dealt":
            deal = deal_masks(rest)
            if deal is None or seat is not None or card is not None or \
                    handlers.get(Dealt) is not DEALT_HANDLER:
                return False
            state.deal(deal[0], deal[1], seq)
        else:
            return False
        GameFold.row_applied(self, name, entry)
        return True

    def roem(self, e: Roem) -> None:
        self.game_state().claim_roem(e.seat, e.points, e.seq)

    def ruling(self, e: Ruling) -> None:
        if len(e.score) != 2:
            raise IntegrityError("bad_ruling", f"a klaverjas ruling gives 2 scores (one per team), "
                                 f"not {len(e.score)}")
        self.game_state().rule(e.round, list(e.score), e.reason, e.seq)


#: The handler of a play that :meth:`KlaverjasFold.apply_play` stands for.
PLAY_HANDLER: Final = KlaverjasFold.dispatch[Play]
#: The handlers of a deal, a bid and a roem claim that :meth:`KlaverjasFold.apply_row`
#: stands for.
DEALT_HANDLER: Final = KlaverjasFold.dispatch[Dealt]
BID_HANDLER: Final = KlaverjasFold.dispatch[Bid]
ROEM_HANDLER: Final = KlaverjasFold.dispatch[Roem]
