"""Bots that play the toy game and write it as ``jaslog/1`` events, deterministic for a seed.

* ``random``: any legal card; doubles now and then.
* ``heuristic``: wins a trick with its lowest winning card, else throws its lowest; doubles
  holding two aces.

Faults: ``revoke_rate``, ``no_hands_rate``, ``claim_rate``, and ``false_roem_rate`` (here: a
double after the first lead, which does not count).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from jaslog.cards import CARD_TEXT, cards_of, rank_of
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
from tests.games.toy.options import resolve
from tests.games.toy.rules import PACK, ToyGame, beats, legal


class ToyBot(RandomPlayer):
    """The ``random`` player."""

    def doubles(self, hand: int) -> bool:
        return self.rng.random() < 0.2


class ToyHeuristicBot(ToyBot):
    """The ``heuristic`` player."""

    def doubles(self, hand: int) -> bool:
        return sum(rank_of(c) == 7 for c in cards_of(hand)) == 2

    def play(self, game: ToyGame, seat: int, hand: int, legal_mask: int) -> int:
        r = game.current_round
        trick = current_trick(r.tricks)
        cards = list(cards_of(legal_mask))
        if trick:
            winners = [c for c in cards if beats(c, trick[0])]
            return min(winners) if winners else min(cards, key=rank_of)
        return max(cards, key=rank_of)


BOTS = {"random": ToyBot, "heuristic": ToyHeuristicBot}


def simulate_toy(game_id: str, ruleset: str, options: dict[str, Any] | None, *,
                 rng: random.Random, seats: list[str] | None, bot: str,
                 faults: Faults) -> Iterator[dict[str, Any]]:
    """A game of the toy between two bots of the kind ``bot``."""
    opts = resolve(ruleset, options)
    seats, dealer = set_up(rng, seats, 2)
    game = ToyGame(opts, dealer)
    player = BOTS.get(bot, ToyHeuristicBot)(rng)
    ev = EventLog(game_id)
    yield ev.started(ruleset, options, seats, dealer)
    revoking = may_revoke(opts, faults)
    hands = [0, 0]
    for kind, seat in turns(game, game_id):
        if kind == "deal":
            deck = list(cards_of(PACK))
            rng.shuffle(deck)
            hands = [sum(1 << c for c in deck[:5]), sum(1 << c for c in deck[5:])]
            seen = hands_seen(rng, faults)
            game.deal(hands if seen else None, seq=ev.seq)
            yield ev("dealt", hands=hand_texts(hands)) if seen else ev("dealt")
            r = game.current_round
            for s in (r.elder, r.dealer):
                if not r.doubled and player.doubles(hands[s]):
                    game.double(s, ev.seq)
                    yield ev("double", seat=s)
            continue
        r = game.current_round
        assert seat is not None
        if r.plays == 1 and faults.false_roem_rate and rng.random() < faults.false_roem_rate / 4:
            game.double(seat, ev.seq)   # too late: a violation
            yield ev("double", seat=seat)
        gives = claim_now(rng, faults, r.tricks) if r.hands_known else None
        if gives is not None:
            game.claim(seat, gives, ev.seq)
            yield ev("claim", seat=seat, gives=gives)
            continue
        hand = hands[seat] & ~r.played
        legal_mask = legal(hand, current_trick(r.tricks))
        c = with_revoke(player.play(game, seat, hand, legal_mask), hand, legal_mask, r.number,
                        rng, faults, revoking)
        game.play(seat, c, ev.seq)
        yield ev("play", seat=seat, card=CARD_TEXT[c])
