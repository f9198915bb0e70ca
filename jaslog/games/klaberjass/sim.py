"""Bots that play complete games of Klaberjass and write them as ``jaslog/1`` events.

The simulator drives the real rules engine (:class:`KlaberjassGame`): it asks what the record
expects next and which cards are legal, and lets a bot choose. Each bot sees only its own
hand, the turn-up, the bottom card and the cards played. Deterministic for a seed.

* ``random``: takes or names a suit on a loose threshold, plays any legal card.
* ``heuristic``: values a suit by its jack, nine and length, schmeisses now and then with a
  fair hand, declares its sequences, announces bella, wins tricks cheaply and throws low.

Faults (:class:`jaslog.play.sim.Faults`): ``revoke_rate`` (an illegal card when there is one),
``no_hands_rate`` (the scorer saw no hands), ``false_roem_rate`` (here: a sequence declared
that is not held, or a bella that is not there).

>>> import random
>>> from jaslog.engine.sim import Faults
>>> evs = list(simulate_klaberjass("k1", "klaberjass-2p", None, rng=random.Random(3),
...                                seats=None, bot="heuristic", faults=Faults()))
>>> evs[0]["type"], evs[1]["type"], len(evs[1]["hands"]), "turn_up" in evs[1]
('game_started', 'dealt', 2, True)
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from jaslog.cards import (
    CARD_TEXT,
    JACK,
    NINE,
    SUIT_LETTERS,
    SUIT_MASK,
    card,
    card_points,
    cards_of,
)
from jaslog.engine.jacknine import trick_winner
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
from jaslog.games.klaberjass.options import resolve
from jaslog.games.klaberjass.rules import (
    KlaberjassGame,
    bella_cards,
    dix_card,
    legal,
    run_mask,
    runs,
)


class KlaberjassBot(RandomPlayer):
    """The ``random`` player: a loose bidder that plays any legal card."""

    def strength(self, hand: int, suit: int) -> int:
        """What ``hand`` is worth with ``suit`` as trumps (jack and nine count most)."""
        trumps = hand & SUIT_MASK[suit]
        value = 10 * trumps.bit_count()
        value += 25 * (trumps >> card(JACK, suit) & 1) + 15 * (trumps >> card(NINE, suit) & 1)
        value += sum(card_points(c, suit) // 2 for c in cards_of(hand & ~SUIT_MASK[suit]))
        return value

    def threshold(self) -> int:
        return self.rng.choice((30, 40, 50))

    def call(self, game: KlaberjassGame, seat: int, hand: int) -> str:
        r = game.current_round
        allowed = r.bidding.allowed_calls()
        if "annul" in allowed:  # answer a schmeiss: play when the suit suits us
            suit = r.turn_up >> 3
            return "play" if self.strength(hand, suit) >= self.threshold() - 5 else "annul"
        suits = [SUIT_LETTERS.index(c) for c in allowed if len(c) == 1]
        if "take" in allowed:
            up = r.turn_up >> 3
            s = self.strength(hand | 1 << r.turn_up, up)
            if s >= self.threshold() + 10:
                return "take"
            if "schmeiss" in allowed and s >= self.threshold() and self.rng.random() < 0.15:
                return "schmeiss"
            return "pass"
        best = max(suits, key=lambda x: self.strength(hand, x))
        if "pass" not in allowed:  # must name
            return SUIT_LETTERS[best]
        s = self.strength(hand, best)
        if s >= self.threshold() + 10:
            return SUIT_LETTERS[best]
        if "schmeiss" in allowed and s >= self.threshold() and self.rng.random() < 0.15:
            return "schmeiss"
        return "pass"


class KlaberjassHeuristicBot(KlaberjassBot):
    """The ``heuristic`` player: wins a trick cheaply, keeps its trumps for the points."""

    def threshold(self) -> int:
        return 36

    def play(self, game: KlaberjassGame, seat: int, hand: int, legal_mask: int) -> int:
        r = game.current_round
        trump = r.trump
        assert trump is not None
        t = r.tricks[-1] if r.tricks else None
        trick = [] if t is None or t.complete else t.cards
        cards = list(cards_of(legal_mask))

        def pts(c: int) -> int:
            return card_points(c, trump) + (5 if c >> 3 == trump else 0)

        if not trick:
            jack = card(JACK, trump)
            if legal_mask >> jack & 1:
                return jack
            plain = [c for c in cards if c >> 3 != trump]
            return max(plain or cards, key=pts)
        winners = [c for c in cards if trick_winner([trick[0], c], trump) == 1]
        if winners and (card_points(trick[0], trump) >= 10 or self.rng.random() < 0.6):
            return min(winners, key=pts)
        return min(cards, key=pts)


BOTS = {"random": KlaberjassBot, "heuristic": KlaberjassHeuristicBot}


def simulate_klaberjass(game_id: str, ruleset: str, options: dict[str, Any] | None, *,
                        rng: random.Random, seats: list[str] | None, bot: str,
                        faults: Faults) -> Iterator[dict[str, Any]]:
    """A game of Klaberjass between two bots of the kind ``bot``."""
    opts = resolve(ruleset, options)
    seats, dealer = set_up(rng, seats, 2)
    game = KlaberjassGame(opts, dealer)
    player = BOTS.get(bot, KlaberjassHeuristicBot)(rng)
    ev = EventLog(game_id)
    yield ev.started(ruleset, options, seats, dealer)
    revoking = may_revoke(opts, faults)
    hands = [0, 0]
    stock: list[int] = []
    seen = True
    declared = False
    for kind, seat in turns(game, game_id):
        if kind == "deal":
            deck = list(range(32))
            rng.shuffle(deck)
            r_dealer = game.next_dealer()
            elder = 1 - r_dealer
            hands = [0, 0]
            hands[elder] = sum(1 << c for c in deck[0:3] + deck[6:9])
            hands[r_dealer] = sum(1 << c for c in deck[3:6] + deck[9:12])
            turn_up, stock = deck[12], deck[13:]
            seen = hands_seen(rng, faults)
            fields: dict[str, Any] = {}
            if seen:
                fields["hands"] = hand_texts(hands)
            fields["turn_up"] = CARD_TEXT[turn_up]
            if seen and rng.random() < 0.5:  # an online table knows the stock's order
                fields["stock"] = [CARD_TEXT[c] for c in stock]
            game.deal(hands if seen else None, turn_up, [c for c in stock] if "stock" in fields
                      else None, seq=ev.seq)
            declared = False
            yield ev("dealt", **fields)
            continue
        r = game.current_round
        if kind == "bid":
            assert seat is not None
            call = player.call(game, seat, hands[seat])
            game.bid(seat, call, ev.seq)
            yield ev("bid", seat=seat, call=call)
            continue
        if kind == "second_deal":
            extra = [0, 0]
            extra[r.elder] = sum(1 << c for c in stock[0:3])
            extra[r.dealer] = sum(1 << c for c in stock[3:6])
            hands = [hands[s] | extra[s] for s in (0, 1)]
            game.second_deal(extra if seen else None, stock[-1], ev.seq)
            fields = {"bottom": CARD_TEXT[stock[-1]]}
            if seen:
                fields = {"hands": hand_texts(extra), **fields}
            yield ev("second_deal", **fields)
            trump = r.trump
            assert trump is not None
            seven = dix_card(trump)
            if opts["dix_exchange"] and r.bidding.turn_up_accepted:
                for s in (r.elder, r.dealer):
                    if hands[s] >> seven & 1:
                        game.dix(s, ev.seq)
                        hands[s] = hands[s] & ~(1 << seven) | 1 << r.turn_up
                        yield ev("dix", seat=s)
            continue
        assert seat is not None and r.trump is not None
        # declarations: the elder before leading, the dealer before replying
        if not declared and ((seat == r.elder and not r.tricks)
                             or (seat == r.dealer and len(r.tricks) == 1)):
            for m in _declarations(game, hands[seat] | r.by_seat[seat], rng, faults):
                game.declare(seat, m, ev.seq)
                yield ev("sequence", seat=seat, cards=[CARD_TEXT[x] for x in cards_of(m)])
            declared = seat == r.dealer
        gives = claim_now(rng, faults, r.tricks) if r.hands_known else None
        if gives is not None:
            game.claim(seat, gives, ev.seq)
            yield ev("claim", seat=seat, gives=gives)
            continue
        hand = hands[seat] & ~r.played
        legal_mask = legal(hand, current_trick(r.tricks), r.trump, game.play_rules)
        c = with_revoke(player.play(game, seat, hand, legal_mask), hand, legal_mask, r.number,
                        rng, faults, revoking)
        game.play(seat, c, ev.seq)
        yield ev("play", seat=seat, card=CARD_TEXT[c])
        kq = bella_cards(r.trump)
        if kq >> c & 1 and r.by_seat[seat] & kq == kq:
            game.bella(seat, ev.seq)
            yield ev("bella", seat=seat)
        elif faults.false_roem_rate and rng.random() < faults.false_roem_rate / 9 and not r.closed:
            game.bella(seat, ev.seq)  # a bella that is not there
            yield ev("bella", seat=seat)


def _declarations(game: KlaberjassGame, hand: int, rng: random.Random,
                  faults: Faults) -> list[int]:
    """The sequences a player declares (masks): usually all he holds; now and then (a fault)
    one he may not hold."""
    decl = [run_mask(run) for run in runs(hand)
            if game.seq_announced or rng.random() < 0.9]
    if faults.false_roem_rate and rng.random() < faults.false_roem_rate:
        decl.append(run_mask((rng.randrange(4), rng.randrange(6), 3)))
    return decl
