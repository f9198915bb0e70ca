"""Bots that play complete games of Klaverjas and write them as ``jaslog/1`` events.

The simulator drives the real rules engine: it asks the state what it expects next and
which cards are legal, and lets a bot (:mod:`jaslog.games.klaverjas.bots`) choose; faults
(:class:`~jaslog.engine.sim.Faults`) add revokes, false or missing roem claims and rounds
whose hands nobody saw.

>>> import random
>>> evs = list(simulate_klaverjas("k1", "amsterdam", None, rng=random.Random(2), seats=None,
...                               bot="random", faults=Faults()))
>>> evs[0]["type"], evs[1]["type"], evs[-1]["type"] in ("play", "roem")
('game_started', 'dealt', True)
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from jaslog.cards import CARD_TEXT, SUIT_LETTERS, cards_of
from jaslog.engine.sim import Faults, claim_now, set_up
from jaslog.games.klaverjas.bots import HeuristicBot, RandomBot
from jaslog.games.klaverjas.options import resolve
from jaslog.games.klaverjas.rules import KlaverjasGame, legal, roem_parts, trick_roem

#: The bots by name (:data:`jaslog.engine.sim.BOT_NAMES`).
BOTS: dict[str, type[RandomBot]] = {"random": RandomBot, "heuristic": HeuristicBot}


def _deal(rng: random.Random) -> list[int]:
    deck = list(range(32))
    rng.shuffle(deck)
    return [sum(1 << c for c in deck[i * 8:(i + 1) * 8]) for i in range(4)]


def simulate_klaverjas(game_id: str, ruleset: str, options: dict[str, Any] | None, *,
                       rng: random.Random, seats: list[str] | None, bot: str,
                       faults: Faults) -> Iterator[dict[str, Any]]:
    """A game of Klaverjas played by four bots of the kind ``bot``."""
    opts = resolve(ruleset, options)
    seats, dealer = set_up(rng, seats, 4)
    game = KlaverjasGame(opts, dealer)
    player = BOTS[bot](rng)
    seq = 0

    def ev(type_: str, **fields: Any) -> dict[str, Any]:
        nonlocal seq
        e = {"game": game_id, "seq": seq, "type": type_, **fields}
        seq += 1
        return e

    start: dict[str, Any] = {"ruleset": ruleset}
    if options:
        start["options"] = options
    start.update(seats=seats, dealer=dealer)
    yield ev("game_started", **start)
    claimed = opts["roem.claim_mode"] == "claimed"
    winners_claim = opts["roem.claim_by"] == "winning_team"
    may_revoke = opts["revoke"] != "reject" and faults.revoke_rate > 0
    separate_pack = opts["random.source"] == "separate_pack"
    true_hands = [0, 0, 0, 0]
    for _guard in range(100_000):
        kind, seat = game.expected()
        if kind == "over":
            return
        if kind == "deal":
            true_hands = _deal(rng)
            seen = not faults.no_hands_rate or rng.random() >= faults.no_hands_rate
            game.deal(true_hands, seq=seq)
            if seen:
                yield ev("dealt", hands=[[CARD_TEXT[c] for c in cards_of(h)] for h in true_hands])
            else:
                yield ev("dealt")
            continue
        r = game.current_round
        if kind == "turn":
            if separate_pack or r.selection.turned:
                text = rng.choice("23456") + rng.choice(SUIT_LETTERS)
            else:  # the dealer's last card, turned face up
                text = CARD_TEXT[rng.choice(list(cards_of(true_hands[r.dealer])))]
            game.turn_trump(text, seq)
            yield ev("trump_turned", card=text)
            continue
        assert seat is not None
        if kind == "bid":
            call = player.bid(game, seat, true_hands[seat])
            game.bid(seat, call, seq)
            yield ev("bid", seat=seat, call=call)
            continue
        gives = claim_now(rng, faults, r.tricks)
        if gives is not None:
            game.claim(seat, gives, seq)
            yield ev("claim", seat=seat, gives=gives)
            continue
        hand = true_hands[seat] & ~r.played
        t = r.tricks[-1]
        trick = [] if t.complete else t.cards
        legal_mask = legal(hand, trick, r.trump or 0, game.play_rules)
        c = player.play(game, seat, hand, legal_mask)
        if may_revoke and hand & ~legal_mask and rng.random() < faults.revoke_rate and (
                faults.revoke_rounds is None or r.number in faults.revoke_rounds):
            c = rng.choice(list(cards_of(hand & ~legal_mask)))
        game.play(seat, c, seq)
        yield ev("play", seat=seat, card=CARD_TEXT[c])
        t = r.tricks[-1]
        if t.complete and claimed:
            claim = _roem_claim(game, t.cards, r.trump or 0, t.winner, rng, faults, winners_claim)
            if claim is not None:
                claimer, points = claim
                game.claim_roem(claimer, points, seq)
                yield ev("roem", seat=claimer, points=points)
    raise RuntimeError(f"game {game_id}: the simulation did not end")  # pragma: no cover


def _roem_claim(game: KlaverjasGame, cards: list[int], trump: int, winner: int,
                rng: random.Random, faults: Faults, winners_claim: bool) -> tuple[int, int] | None:
    """Who claims how much roem for a completed trick, as people do (or None)."""
    roem = trick_roem(cards, trump, game.roem_rules)
    claimer = (winner + rng.choice((0, 2))) % 4
    if not winners_claim and rng.random() < 0.1:
        claimer = (claimer + 1) % 4  # an opponent calls it: "roem for you"
    if roem:
        if rng.random() < faults.unclaimed_roem_rate:
            return None
        parts = [p for _, p in roem_parts(cards, trump, game.roem_rules) if p]
        if len(parts) > 1 and rng.random() < faults.partial_roem_rate:
            return claimer, max(parts)  # the stuk (or the run) overlooked
    if faults.false_roem_rate and rng.random() < faults.false_roem_rate:
        return claimer, roem + rng.choice((20, 20, 50))
    return (claimer, roem) if roem else None
