"""The hands of a deal as a scorer types them: seat by seat, every card checked against the
pack and the cards already dealt, ``unseen`` for a deal recorded without hands."""

from __future__ import annotations

import copy
import random
from typing import Any

from jaslog.cards import CARD_TEXT, CardError, cards_of, hand_text, parse_card, parse_hand
from jaslog.engine.fold import FoldError
from jaslog.events import event_from_dict
from jaslog.record.base import UNSEEN, Ask, InputError, RecorderBase, Show


class HandEntry(RecorderBase):
    """Asking the hands of a deal (each game's recorder says which hands, and what else)."""

    def read_four_hands(self, ask: Ask, show: Show, size: int) -> dict[str, Any]:
        """A deal to four seats of ``size`` cards: seats 0-2 are asked, seat 3 gets the rest of
        the pack; 'unseen' for the first hand records the deal without hands."""
        hands: list[int] = []
        seen = 0
        for seat in range(3):
            h = self.ask_hand(ask, show, seat, size, seen, allow_unseen=seat == 0)
            if h is None:
                return self.base("dealt")
            seen |= h
            hands.append(h)
        rest = self.pack & ~seen
        show(f"hand of {self.who(3)}: the rest of the pack: {hand_text(rest)}")
        hands.append(rest)
        return self.base("dealt", hands=[hand_text(h).split() for h in hands])

    def ask_hand(self, ask: Ask, show: Show, seat: int, size: int, seen: int,
                 allow_unseen: bool, what: str = "hand of") -> int | None:
        """Ask ``seat``'s hand of ``size`` cards of the pack, none of ``seen``; None: unseen."""
        extra = ", or 'unseen'" if allow_unseen else ""
        while True:
            example = hand_text(sum(1 << c for c in list(cards_of(self.pack))[:size]))
            text = self.ask_in(ask, show, f"{what} {self.who(seat)} ({size} cards{extra})> ",
                               f"the {size} cards of {self.who(seat)} (e.g. {example}){extra}").strip()
            if text.lower() in UNSEEN and allow_unseen:
                return None
            try:
                h = parse_hand(text)
            except CardError as e:
                show(f"✗ {e}")
                continue
            if h.bit_count() != size:
                show(f"✗ a hand is {size} cards, not {h.bit_count()}")
                continue
            if h & ~self.pack:
                show(f"✗ {hand_text(h & ~self.pack)} not in the {self.fold.game} pack")
                continue
            if h & seen:
                show(f"✗ {hand_text(h & seen)} already dealt")
                continue
            return h

    def ask_card(self, ask: Ask, show: Show, what: str, taken: int) -> int:
        """Ask one card of the pack that is not in ``taken``."""
        while True:
            example = CARD_TEXT[next(iter(cards_of(self.pack & ~taken)))]
            text = self.ask_in(ask, show, f"{what}> ", f"{what}, one card (e.g. {example})").strip()
            try:
                c = parse_card(text, lenient=True)
            except CardError as e:
                show(f"✗ {e}")
                continue
            if not self.pack >> c & 1:
                show(f"✗ {CARD_TEXT[c]} is not in the {self.fold.game} pack")
            elif taken >> c & 1:
                show(f"✗ {CARD_TEXT[c]} is already dealt")
            else:
                return c

    def read_deal(self, ask: Ask, show: Show, unseen: bool = False) -> dict[str, Any]:
        """The hands of a new round, asked seat by seat (the last seat gets the rest)."""
        raise NotImplementedError

    def random_deal(self, rng: random.Random) -> dict[str, Any]:
        """A new round dealt here by shuffling."""
        raise NotImplementedError

    def trial_deal(self) -> dict[str, Any]:
        """A deal without hands, to ask the rules whether a deal may be recorded now."""
        return self.base("dealt")

    def check_deal_allowed(self) -> None:
        """Refuse a deal the rules would refuse (a round still in play, a finished game) before
        any hand is asked, with the rule's sentence and code."""
        trial = copy.deepcopy(self.fold)
        try:
            trial.apply(event_from_dict(self.trial_deal()))
        except FoldError as e:
            raise InputError(f"refused: {e.message} [{e.code}]") from None
