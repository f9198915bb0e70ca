"""Claims of the rest judged by the solver (rule book decision 13): on random endgames of every
game, ``can_take_rest`` says what a plain search written here says: can the side take every
trick still to play, whatever the others do? It uses the games' own legal plays and trick
winners, nothing of the solver's search."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from jaslog.analysis.claims import can_take_rest
from jaslog.analysis.core import compiled_core
from jaslog.analysis.model import Position, SolveRules
from jaslog.engine.jacknine import trick_winner
from jaslog.games.klaberjass import rules as kb
from jaslog.games.klaberjass import solver as kb_solver
from jaslog.games.klaberjass.options import resolve as kb_resolve
from jaslog.games.klaverjas import solver as kv_solver
from jaslog.games.klaverjas.options import resolve as kv_resolve
from jaslog.games.klaverjas.rules.play import PlayRules, legal
from jaslog.games.kloepper import rules as kp
from jaslog.games.kloepper import solver as kp_solver
from jaslog.games.kloepper.options import resolve as kp_resolve

CORES = [False, True] if compiled_core() else [False]

Legal = Callable[[int, list[int]], int]
Winner = Callable[[list[int]], int]


def takes_all(hands: list[int], leader: int, trick: list[int], side: tuple[int, ...], taker: int,
              legal_of: Legal, winner: Winner) -> bool:
    players = len(hands)
    if len(trick) == players:
        w = (leader + winner(trick)) % players
        if side[w] != taker:
            return False
        if not any(hands):
            return True
        return takes_all(hands, w, [], side, taker, legal_of, winner)
    seat = (leader + len(trick)) % players
    results = []
    for c in range(32):
        if legal_of(hands[seat], trick) >> c & 1:
            h = list(hands)
            h[seat] &= ~(1 << c)
            results.append(takes_all(h, leader, [*trick, c], side, taker, legal_of, winner))
    return any(results) if side[seat] == taker else all(results)


def deal(rng: random.Random, pack: list[int], players: int, per_hand: int) -> list[int]:
    cards = list(pack)
    rng.shuffle(cards)
    return [sum(1 << cards.pop() for _ in range(per_hand)) for _ in range(players)]


def cases(game: str, rng: random.Random) -> tuple[SolveRules, tuple[int, ...], list[int], int, Legal, Winner]:
    if game == "klaverjas":
        opts = kv_resolve(rng.choice(("amsterdam", "rotterdam")))
        trump = rng.randrange(4)
        pr = PlayRules.from_options(opts)
        side: tuple[int, ...] = (0, 1, 0, 1) if rng.random() < 0.5 else (1, 0, 1, 0)
        return (kv_solver.rules_of(opts, trump), side, deal(rng, list(range(32)), 4, rng.randint(1, 3)),
                rng.randrange(4), lambda h, t: legal(h, t, trump, pr), lambda t: trick_winner(t, trump))
    if game == "klaberjass":
        opts = kb_resolve("klaberjass-2p", {"must_head_plain_lead": rng.random() < 0.5})
        trump = rng.randrange(4)
        pr2 = kb.PlayRules.from_options(opts)
        return (kb_solver.rules_of(opts, trump), (0, 1), deal(rng, list(range(32)), 2, rng.randint(1, 5)),
                rng.randrange(2), lambda h, t: kb.legal(h, t, trump, pr2), lambda t: trick_winner(t, trump))
    opts = kp_resolve("kloepper", {"must_trump_when_void": rng.random() < 0.5})
    trumps = kp.Trumps.from_options(opts)
    must = bool(opts["must_trump_when_void"])
    side = tuple(rng.choice((0, 1)) for _ in range(4))
    return (kp_solver.rules_of(opts, "pair", knock=False, knock_back=False), side,
            deal(rng, [c for c in range(32) if kp.PACK >> c & 1], 4, rng.randint(1, 3)),
            rng.randrange(4), lambda h, t: kp.legal(h, t, trumps, must), trumps.winner)


@pytest.mark.parametrize("game", ["klaverjas", "klaberjass", "kloepper"])
def test_can_take_rest_is_the_plain_search(game: str) -> None:
    rng = random.Random(game)
    seen = {True: 0, False: 0}
    for _ in range(300):
        rules, side, hands, leader, legal_of, winner = cases(game, rng)
        taker = rng.randrange(2)
        want = takes_all(hands, leader, [], side, taker, legal_of, winner)
        for compiled in CORES:
            pos = Position(tuple(hands), leader)
            assert can_take_rest(rules, side, pos, taker, compiled=compiled) == want
        seen[want] += 1
    assert seen[True] > 10 and seen[False] > 10, seen
