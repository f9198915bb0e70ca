"""Bots that play complete games of Kloepper and write them as ``jaslog/1`` events.

The simulator drives :class:`KloepperGame`: what comes next, which cards are legal. A bot
sees its own hand, the partner call, the knocks and the cards played; it knows its own side
only as far as its hand and the call tell it (a player without a black queen who does not
hold the called ace is against the queens). Deterministic for a seed.

* ``random``: any legal card; calls a random ace it does not hold; knocks rarely.
* ``heuristic``: wins a trick with points cheaply, throws its lowest card otherwise; the
  holder of both queens goes alone with a strong hand, knocks with five trumps or more.

Faults (:class:`jaslog.play.sim.Faults`): ``revoke_rate``, ``no_hands_rate`` and
``false_roem_rate`` (here: a knock by a player without a black queen).

>>> import random
>>> from jaslog.engine.sim import Faults
>>> evs = list(simulate_kloepper("q1", "kloepper", None, rng=random.Random(2), seats=None,
...                              bot="heuristic", faults=Faults()))
>>> evs[0]["type"], [len(h) for h in evs[1]["hands"]]
('game_started', [6, 6, 6, 6])
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from jaslog.cards import CARD_INDEX, CARD_TEXT, cards_of
from jaslog.engine.sim import (
    EventLog,
    Faults,
    RandomPlayer,
    claim_now,
    current_trick,
    hand_texts,
    hands_seen,
    may_revoke,
    set_up,
    turns,
    with_revoke,
)
from jaslog.games.kloepper.options import resolve
from jaslog.games.kloepper.rules import (
    ACES,
    BLACK_QUEENS,
    PACK,
    QC,
    KloepperGame,
    holder,
    legal,
    points,
)


class KloepperBot(RandomPlayer):
    """The ``random`` player."""

    def trumps_held(self, game: KloepperGame, hand: int) -> int:
        return (hand & game.trumps.mask).bit_count()

    def call(self, game: KloepperGame, seat: int, hand: int) -> str:
        options = game.both_queens
        aces = [a for a in ACES if not game.trumps.mask >> a & 1 and not hand >> a & 1]
        if "call_ace" not in options or not aces:
            return "alone"
        if "alone" in options and self.go_alone(game, hand):
            return "alone"
        return CARD_TEXT[self.rng.choice(aces)]

    def go_alone(self, game: KloepperGame, hand: int) -> bool:
        return self.rng.random() < 0.2

    def knocks(self, game: KloepperGame, hand: int) -> bool:
        return self.rng.random() < 0.03

    def knocks_back(self, game: KloepperGame, hand: int) -> bool:
        return self.rng.random() < 0.2


class KloepperHeuristicBot(KloepperBot):
    """The ``heuristic`` player."""

    def go_alone(self, game: KloepperGame, hand: int) -> bool:
        return self.trumps_held(game, hand) >= 5

    def knocks(self, game: KloepperGame, hand: int) -> bool:
        return self.trumps_held(game, hand) >= 5 and bool(hand >> game.trumps.order[0] & 1)

    def knocks_back(self, game: KloepperGame, hand: int) -> bool:
        aces = sum(hand >> a & 1 for a in ACES)
        return self.trumps_held(game, hand) >= 3 or aces >= 2

    def play(self, game: KloepperGame, seat: int, hand: int, legal_mask: int) -> int:
        r = game.current_round
        t = r.tricks[-1] if r.tricks else None
        trick = [] if t is None or t.complete else t.cards
        cards = list(cards_of(legal_mask))
        tr = game.trumps

        def strength(c: int) -> int:
            return 100 + tr.rank[c] if tr.rank[c] >= 0 else points(c)

        if not trick:
            return max(cards, key=strength) if self.rng.random() < 0.5 else min(cards, key=strength)
        winners = [c for c in cards if tr.winner([*trick, c]) == len(trick)]
        at_stake = sum(points(c) for c in trick)
        if winners and (at_stake >= 10 or len(trick) == 3):
            return min(winners, key=strength)
        return min(cards, key=lambda c: (points(c), strength(c)))


BOTS = {"random": KloepperBot, "heuristic": KloepperHeuristicBot}


def simulate_kloepper(game_id: str, ruleset: str, options: dict[str, Any] | None, *,
                      rng: random.Random, seats: list[str] | None, bot: str,
                      faults: Faults) -> Iterator[dict[str, Any]]:
    """A game of Kloepper between four bots of the kind ``bot``."""
    opts = resolve(ruleset, options)
    seats, dealer = set_up(rng, seats, 4)
    game = KloepperGame(opts, dealer)
    player = BOTS.get(bot, KloepperHeuristicBot)(rng)
    ev = EventLog(game_id)
    yield ev.started(ruleset, options, seats, dealer)
    revoking = may_revoke(opts, faults)
    hands = [0, 0, 0, 0]
    knocked = False
    for kind, seat in turns(game, game_id):
        if kind == "deal":
            deck = list(cards_of(PACK))
            rng.shuffle(deck)
            hands = [sum(1 << c for c in deck[6 * i:6 * i + 6]) for i in range(4)]
            seen = hands_seen(rng, faults)
            game.deal(hands if seen else None, seq=ev.seq)
            knocked = False
            if seen:
                yield ev("dealt", hands=hand_texts(hands))
            else:
                yield ev("dealt")
            hq = holder(hands, QC)
            if not seen and hq is not None and hands[hq] & BLACK_QUEENS == BLACK_QUEENS:
                call = player.call(game, hq, hands[hq])  # the call is made, seen or not
                game.call(hq, call, ev.seq)
                yield ev("partner_call", seat=hq, call=call)
            continue
        r = game.current_round
        assert seat is not None
        if kind == "call":
            call = player.call(game, seat, hands[seat])
            game.call(seat, call, ev.seq)
            yield ev("partner_call", seat=seat, call=call)
            continue
        if not knocked and r.plays == 0:
            knocked = True
            for what, who in _knocks(game, player, hands, rng, faults):
                game.knock(who, ev.seq, back=what == "knock_back")
                yield ev(what, seat=who)
        gives = claim_now(rng, faults, r.tricks) if r.hands_known else None
        if gives is not None:
            game.claim(seat, gives, ev.seq)
            yield ev("claim", seat=seat, gives=gives)
            continue
        hand = hands[seat] & ~r.played
        legal_mask = legal(hand, current_trick(r.tricks), game.trumps, game.must_trump)
        c = with_revoke(player.play(game, seat, hand, legal_mask), hand, legal_mask, r.number,
                        rng, faults, revoking)
        game.play(seat, c, ev.seq)
        yield ev("play", seat=seat, card=CARD_TEXT[c])


def _knocks(game: KloepperGame, player: KloepperBot, hands: list[int], rng: random.Random,
            faults: Faults) -> list[tuple[str, int]]:
    """The knock and knock-back made before the first lead, as the bots decide them."""
    r = game.current_round
    order = [(r.forehand + i) % 4 for i in range(4)]
    call = r.call.call if r.call is not None else None
    ace = None if call in (None, "alone") else CARD_INDEX[str(call)]

    def on_queens(s: int) -> bool:
        return bool(hands[s] & BLACK_QUEENS) or (ace is not None and bool(hands[s] >> ace & 1))

    knocker = next((s for s in order if hands[s] & BLACK_QUEENS and player.knocks(game, hands[s])),
                   None)
    if knocker is None and faults.false_roem_rate and rng.random() < faults.false_roem_rate:
        knocker = next((s for s in order if not hands[s] & BLACK_QUEENS), None)  # a false knock
    if knocker is None:
        return []
    out = [("knock", knocker)]
    back = next((s for s in order if not on_queens(s) and player.knocks_back(game, hands[s])), None)
    if back is not None and hands[knocker] & BLACK_QUEENS:
        out.append(("knock_back", back))
    return out
