"""Bots that play complete, legal games of Klaverjas and write them as ``jaslog/1`` events.

The simulator drives the real rules engine: it asks the state what it expects next
(:meth:`KlaverjasGame.expected`) and which cards are legal, and lets a bot choose. It is
deterministic for a seed.

>>> events = simulate_game("demo-1", seed=7)
>>> events[0]["type"], events[1]["type"], len(events) > 16 * 33
('game_started', 'dealt', True)
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jaslog.cards import (
    CARD_TEXT,
    SUIT_LETTERS,
    SUIT_MASK,
    TRUMP_POINTS,
    cards_of,
    popcount,
)
from jaslog.rules.klaverjas import KlaverjasGame, trick_roem
from jaslog.rules.options import resolve

PLAYER_POOL = ("ann", "bob", "cor", "dirk", "eva", "finn", "gijs", "hanna", "ilse", "joop",
               "kees", "lies", "maud", "noor", "otto", "piet")


@dataclass(frozen=True)
class Faults:
    """Rates of the faults real records contain (each a probability per chance)."""

    revoke_rate: float = 0.0       # per play: play an illegal card when one exists
    false_roem_rate: float = 0.0   # per trick: claim more roem than is on the table
    no_hands_rate: float = 0.0     # per round: the scorer did not see the hands
    unclaimed_roem_rate: float = 0.1  # per trick with roem: nobody claims it
    revoke_rounds: tuple[int, ...] | None = None  # only revoke in these rounds (1-based)


class RandomBot:
    """Any legal card; trumps chosen from the hand (the longest, strongest suit)."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def suit_strength(self, hand: int, suit: int) -> int:
        return sum(TRUMP_POINTS[c & 7] + 8 for c in cards_of(hand & SUIT_MASK[suit]))

    def bid(self, game: KlaverjasGame, seat: int, hand: int | None) -> str:
        sel = game.current_round.selection
        allowed = [s for s in range(4) if sel.allowed >> s & 1]
        if hand is None:
            return SUIT_LETTERS[self.rng.choice(allowed)]
        best = max(allowed, key=lambda s: self.suit_strength(hand, s))
        strength = self.suit_strength(hand, best)
        if not sel.forced and strength < self.threshold():
            return "pass"
        if sel.proposed is not None and best == sel.proposed and sel.allowed == 1 << best:
            return "accept"
        return SUIT_LETTERS[best]

    def threshold(self) -> int:
        return self.rng.choice((50, 60, 70))

    def play(self, game: KlaverjasGame, seat: int, legal: int) -> int:
        return self.rng.choice(list(cards_of(legal)))


class HeuristicBot(RandomBot):
    """Plays like a careful club player: wins cheaply, saves points for the partner's tricks."""

    name = "heuristic"

    def threshold(self) -> int:
        return 58

    def play(self, game: KlaverjasGame, seat: int, legal: int) -> int:
        r = game.current_round
        trump = r.trump
        assert trump is not None
        t = r.tricks[-1]
        trick = [] if t.complete else t.cards
        cards = list(cards_of(legal))
        from jaslog.rules.jacknine import trick_winner

        def pts(c: int) -> int:
            from jaslog.cards import card_points
            return card_points(c, trump)

        if not trick:  # lead: a high trump if holding the jack, else the highest plain card
            jack = 8 * trump + 4
            if legal >> jack & 1:
                return jack
            plain = [c for c in cards if c >> 3 != trump]
            return max(plain or cards, key=pts)
        partner_idx = len(trick) - 2
        win = trick_winner(trick, trump)
        if win == partner_idx and len(trick) == 3:
            return max(cards, key=pts)  # partner has it: give points
        winners = [c for c in cards if trick_winner([*trick, c], trump) == len(trick)]
        if winners:
            return min(winners, key=pts) if len(trick) < 3 else max(winners, key=pts)
        return min(cards, key=pts)


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}


def _deal(rng: random.Random) -> list[int]:
    deck = list(range(32))
    rng.shuffle(deck)
    return [sum(1 << c for c in deck[i * 8:(i + 1) * 8]) for i in range(4)]


def simulate_game(game_id: str, ruleset: str = "amsterdam", options: dict[str, Any] | None = None,
                  *, seed: int | None = None, seats: list[str] | None = None,
                  bot: str = "heuristic", faults: Faults = Faults(),
                  at: str | None = None) -> list[dict[str, Any]]:
    """One complete game as a list of event dicts in seq order."""
    return list(iter_game(game_id, ruleset, options, seed=seed, seats=seats, bot=bot,
                          faults=faults, at=at))


def iter_game(game_id: str, ruleset: str = "amsterdam", options: dict[str, Any] | None = None,
              *, seed: int | None = None, seats: list[str] | None = None,
              bot: str = "heuristic", faults: Faults = Faults(),
              at: str | None = None) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    opts = resolve(ruleset, options)
    seats = seats or rng.sample(PLAYER_POOL, 4)
    dealer = rng.randrange(4)
    game = KlaverjasGame(opts, dealer)
    player = BOTS[bot](rng)
    seq = 0

    def ev(type_: str, **fields: Any) -> dict[str, Any]:
        nonlocal seq
        e = {"game": game_id, "seq": seq, "type": type_, **fields}
        if at is not None:
            e["at"] = at
        seq += 1
        return e

    start: dict[str, Any] = {"ruleset": ruleset, "seats": seats, "dealer": dealer}
    if options:
        start["options"] = options
    yield ev("game_started", **start)
    claimed = opts["roem.claim_mode"] == "claimed"
    guard = 0
    while True:
        guard += 1
        if guard > 10000:  # pragma: no cover - a bug in the engine, not in the bot
            raise RuntimeError("simulation did not end")
        kind, seat = game.expected()
        if kind == "over":
            return
        if kind == "deal":
            hands = _deal(rng)
            seen = rng.random() >= faults.no_hands_rate
            game.deal(hands, seq=seq)
            if seen:
                yield ev("dealt", hands=[[CARD_TEXT[c] for c in cards_of(h)] for h in hands])
            else:
                yield ev("dealt")
            true_hands = hands
            continue
        r = game.current_round
        if kind == "turn":
            if opts["random.source"] == "separate_pack" or r.selection.turned:
                text = rng.choice("23456") + rng.choice(SUIT_LETTERS)
            else:
                text = CARD_TEXT[max(cards_of(true_hands[r.dealer]))]
            game.turn_trump(text, seq)
            yield ev("trump_turned", card=text)
            continue
        assert seat is not None
        if kind == "bid":
            call = player.bid(game, seat, true_hands[seat])
            game.bid(seat, call, seq)
            yield ev("bid", seat=seat, call=call)
            continue
        hand = r.hands[seat] if r.hands_known else true_hands[seat] & ~r.played
        legal_mask = game.legal_plays() if r.hands_known else _legal_unseen(game, seat, hand)
        c = player.play(game, seat, legal_mask)
        if faults.revoke_rate and rng.random() < faults.revoke_rate and hand & ~legal_mask \
                and opts["revoke"] != "reject" and (
                    faults.revoke_rounds is None or r.number in faults.revoke_rounds):
            c = rng.choice(list(cards_of(hand & ~legal_mask)))
        game.play(seat, c, seq)
        yield ev("play", seat=seat, card=CARD_TEXT[c])
        t = r.tricks[-1]
        if t.complete and claimed:
            roem = trick_roem(t.cards, r.trump or 0, game.roem_rules)
            claimer = (t.winner + rng.choice((0, 2))) % 4
            if roem and rng.random() >= faults.unclaimed_roem_rate:
                game.claim_roem(claimer, roem, seq)
                yield ev("roem", seat=claimer, points=roem)
            elif faults.false_roem_rate and rng.random() < faults.false_roem_rate:
                false = roem + rng.choice((20, 50))
                game.claim_roem(claimer, false, seq)
                yield ev("roem", seat=claimer, points=false)


def _legal_unseen(game: KlaverjasGame, seat: int, hand: int) -> int:
    from jaslog.rules.klaverjas import legal

    r = game.current_round
    t = r.tricks[-1]
    trick = [] if t.complete else t.cards
    return legal(hand, trick, r.trump or 0, game.play_rules)


def simulate(n: int, ruleset: str = "amsterdam", options: dict[str, Any] | None = None, *,
             seed: int = 0, prefix: str = "sim", bot: str = "heuristic",
             faults: Faults = Faults()) -> Iterator[dict[str, Any]]:
    """``n`` games one after another, as event dicts; game ids ``{prefix}-{ruleset}-{i}``."""
    for i in range(n):
        yield from iter_game(f"{prefix}-{ruleset}-{i:06d}", ruleset, options,
                             seed=seed * 1_000_003 + i, bot=bot, faults=faults)


def count_cards(hand: int) -> int:
    return popcount(hand)
