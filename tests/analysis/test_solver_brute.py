"""The solver against brute force: on random endgames of every game and many rule options,
the par of the position and the par after each legal card are those of a plain minimax over
every legal play, written here from the games' own rules (their legal plays, trick winners,
points, roem and round scoring); it shares no code with the solver's search. Both of the
solver's cores (compiled, when built, and pure Python) give the same answers.

The bigger endgames are in ``test_solver_brute_big.py``, marked ``soak``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from jaslog.analysis.core import Solver, compiled_core
from jaslog.analysis.model import Position
from jaslog.cards import RANK_TEXT, parse_card, parse_hand
from jaslog.engine.jacknine import trick_points, trick_winner
from jaslog.games.klaberjass import rules as kb
from jaslog.games.klaberjass import solver as kb_solver
from jaslog.games.klaberjass.options import resolve as kb_resolve
from jaslog.games.klaverjas import solver as kv_solver
from jaslog.games.klaverjas.options import resolve as kv_resolve
from jaslog.games.klaverjas.rules.play import (
    PlayRules,
    RoemRules,
    ScoreRules,
    legal,
    score_round,
    trick_value,
)
from jaslog.games.kloepper import rules as kp
from jaslog.games.kloepper import solver as kp_solver
from jaslog.games.kloepper.options import resolve as kp_resolve

CORES = [False, True] if compiled_core() else [False]


def cards(mask: int) -> list[int]:
    return [c for c in range(32) if mask >> c & 1]


@dataclass
class Case:
    """An endgame: the solver's view (rules, sides, pending, position) and a brute force."""

    name: str
    solver: Callable[[bool], Solver]
    position: Position
    brute: Callable[[], tuple[int, dict[int, int]]]   # par, and the par after each legal card


# ---------------------------------------------------------------- Klaverjas

KLAVERJAS_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("amsterdam", {}),
    ("rotterdam", {}),
    ("amsterdam", {"amsterdam_partner_trump": "discard_only"}),
    ("amsterdam", {"amsterdam_partner_trump": "free", "amsterdam_cannot_overtrump": "must_undertrump"}),
    ("rotterdam", {"rotterdam_must_undertrump": False, "tie_is_failure": False}),
    ("amsterdam-kbn", {"roem.three_of_a_kind": 50, "pit_for": "playing_team"}),
    ("amsterdam", {"roem.run3": 30, "roem.four_kind_ranks": ["A", "K", "Q", "10", "9", "8", "7"],
                   "last_trick_bonus": 0, "pit_bonus": 50}),
]


def klaverjas_case(rng: random.Random, per_hand: int) -> Case:
    ruleset, overrides = rng.choice(KLAVERJAS_OPTIONS)
    opts = kv_resolve(ruleset, overrides)
    play_rules, roem_rules, score_rules = (PlayRules.from_options(opts), RoemRules.from_options(opts),
                                           ScoreRules.from_options(opts))
    last_bonus = int(opts["last_trick_bonus"])
    trump, chooser, leader = rng.randrange(4), rng.randrange(4), rng.randrange(4)
    pack = list(range(32))
    rng.shuffle(pack)
    in_trick = rng.randrange(4)
    hands = [0] * 4
    trick: list[int] = []
    for i in range(4):
        seat = (leader + i) % 4
        n = per_hand - (1 if i < in_trick else 0)
        hands[seat] = sum(1 << pack.pop() for _ in range(n))
    # the trick so far: legal cards of hands one card bigger
    for i in range(in_trick):
        seat = (leader + i) % 4
        c = pack.pop()
        whole = hands[seat] | 1 << c
        allowed = legal(whole, trick, trump, play_rules)
        if not allowed >> c & 1:  # make it legal: play one of the allowed cards instead
            c = rng.choice(cards(allowed))
            hands[seat] = whole & ~(1 << c)
        trick.append(c)
    done = 8 - per_hand
    t0 = rng.randint(0, done)
    tricks = [t0, done - t0]
    points = [rng.randint(0, 90) if tricks[t] else 0 for t in (0, 1)]
    roem = [rng.choice((0, 0, 20, 40, 100)) if tricks[t] else 0 for t in (0, 1)]
    p = chooser & 1

    def value(pts: list[int], rm: list[int], tr: list[int]) -> int:
        score, _ = score_round(score_rules, pts, rm, tr, p)
        return score[p] - score[1 - p]

    def minimax(h: list[int], lead: int, tr_cards: list[int], pts: list[int], rm: list[int],
                tr: list[int]) -> int:
        n = len(tr_cards)
        if n == 4:
            w = (lead + trick_winner(tr_cards, trump)) % 4
            a, b, c, d = tr_cards
            cp, cr = trick_value(a, b, c, d, trump, roem_rules)
            if not any(h):
                cp += last_bonus
            t = w & 1
            pts, rm, tr = list(pts), list(rm), list(tr)
            pts[t] += cp
            rm[t] += cr
            tr[t] += 1
            if not any(h):
                return value(pts, rm, tr)
            return minimax(h, w, [], pts, rm, tr)
        seat = (lead + n) % 4
        options = legal(h[seat], tr_cards, trump, play_rules)
        vals = []
        for c in cards(options):
            h2 = list(h)
            h2[seat] &= ~(1 << c)
            vals.append(minimax(h2, lead, [*tr_cards, c], pts, rm, tr))
        return max(vals) if seat & 1 == p else min(vals)

    def brute() -> tuple[int, dict[int, int]]:
        seat = (leader + len(trick)) % 4
        after = {}
        for c in cards(legal(hands[seat], trick, trump, play_rules)):
            h2 = list(hands)
            h2[seat] &= ~(1 << c)
            after[c] = minimax(h2, leader, [*trick, c], points, roem, tricks)
        return minimax(list(hands), leader, list(trick), points, roem, tricks), after

    rules = kv_solver.rules_of(opts, trump)
    side = tuple(0 if s & 1 == p else 1 for s in range(4))
    pos = Position(tuple(hands), leader, tuple(trick), (points[p], points[1 - p]),
                   (roem[p], roem[1 - p]), (tricks[p] > 0, tricks[1 - p] > 0))
    return Case(f"klaverjas {ruleset} {overrides}", lambda compiled: Solver(rules, side, compiled=compiled),
                pos, brute)


# ---------------------------------------------------------------- Klaberjass

def klaberjass_case(rng: random.Random, per_hand: int) -> Case:
    overrides: dict[str, Any] = {"must_head_plain_lead": rng.random() < 0.3,
                                 "sequences_require_a_trick": rng.random() < 0.3,
                                 "tie_mode": rng.choice(("half_bete", "carry_over"))}
    opts = kb_resolve("klaberjass-2p", overrides)
    play_rules, score_rules = kb.PlayRules.from_options(opts), kb.ScoreRules.from_options(opts)
    last_bonus = int(opts["last_trick_bonus"])
    trump, maker, leader = rng.randrange(4), rng.randrange(2), rng.randrange(2)
    pack = list(range(32))
    rng.shuffle(pack)
    hands = [sum(1 << pack.pop() for _ in range(per_hand)) for _ in range(2)]
    trick: list[int] = []
    if rng.random() < 0.5:
        c = rng.choice(cards(hands[leader]))
        hands[leader] &= ~(1 << c)
        trick.append(c)
    done = 9 - per_hand
    t0 = rng.randint(0, done)
    tricks = [t0, done - t0]
    points = [rng.randint(0, 80) if tricks[s] else 0 for s in (0, 1)]
    seqs = [rng.choice((0, 0, 20, 50)) for _ in (0, 1)]
    bella = [rng.choice((0, 0, 20)) for _ in (0, 1)]
    require = bool(opts["sequences_require_a_trick"])

    def value(pts: list[int], tr: list[int]) -> int:
        totals = [pts[s] + bella[s] + (seqs[s] if tr[s] or not require else 0) for s in (0, 1)]
        score = kb.score_deal(score_rules, totals, maker).score
        return score[maker] - score[1 - maker]

    def minimax(h: list[int], lead: int, tr_cards: list[int], pts: list[int], tr: list[int]) -> int:
        if len(tr_cards) == 2:
            w = (lead + trick_winner(tr_cards, trump)) % 2
            pts, tr = list(pts), list(tr)
            pts[w] += trick_points(tr_cards, trump) + (last_bonus if not any(h) else 0)
            tr[w] += 1
            if not any(h):
                return value(pts, tr)
            return minimax(h, w, [], pts, tr)
        seat = (lead + len(tr_cards)) % 2
        vals = []
        for c in cards(kb.legal(h[seat], tr_cards, trump, play_rules)):
            h2 = list(h)
            h2[seat] &= ~(1 << c)
            vals.append(minimax(h2, lead, [*tr_cards, c], pts, tr))
        return max(vals) if seat == maker else min(vals)

    def brute() -> tuple[int, dict[int, int]]:
        seat = (leader + len(trick)) % 2
        after = {}
        for c in cards(kb.legal(hands[seat], trick, trump, play_rules)):
            h2 = list(hands)
            h2[seat] &= ~(1 << c)
            after[c] = minimax(h2, leader, [*trick, c], points, tricks)
        return minimax(list(hands), leader, list(trick), points, tricks), after

    rules = kb_solver.rules_of(opts, trump)
    side = (0, 1) if maker == 0 else (1, 0)
    fixed = [bella[s] + (0 if require else seqs[s]) for s in (0, 1)]
    pending = (seqs[maker], seqs[1 - maker]) if require else (0, 0)
    pos = Position(tuple(hands), leader, tuple(trick), (points[maker], points[1 - maker]),
                   (fixed[maker], fixed[1 - maker]), (tricks[maker] > 0, tricks[1 - maker] > 0))
    return Case(f"klaberjass {overrides}",
                lambda compiled: Solver(rules, side, pending, compiled=compiled), pos, brute)


# ---------------------------------------------------------------- Kloepper

KLOEPPER_PACK = cards(kp.PACK)


def kloepper_case(rng: random.Random, per_hand: int) -> Case:
    overrides: dict[str, Any] = {"must_trump_when_void": rng.random() < 0.3}
    opts = kp_resolve("kloepper", overrides)
    trumps = kp.Trumps.from_options(opts)
    table = kp.ScoreTable.from_options(opts)
    must = bool(opts["must_trump_when_void"])
    leader = rng.randrange(4)
    queens = sorted(rng.sample(range(4), rng.choice((1, 2, 2))))
    mode = "alone" if len(queens) == 1 else "pair"
    knock = rng.random() < 0.3
    back = knock and rng.random() < 0.5
    pack = list(KLOEPPER_PACK)
    rng.shuffle(pack)
    in_trick = rng.randrange(4)
    hands = [0] * 4
    trick: list[int] = []
    for i in range(4):
        seat = (leader + i) % 4
        hands[seat] = sum(1 << pack.pop() for _ in range(per_hand))
    for i in range(in_trick):
        seat = (leader + i) % 4
        c = rng.choice(cards(kp.legal(hands[seat], trick, trumps, must)))
        hands[seat] &= ~(1 << c)
        trick.append(c)
    done = 6 - per_hand
    tricks = [0] * 4
    for _ in range(done):
        tricks[rng.randrange(4)] += 1
    # the points taken are those of the cards gone (4 a trick), so the pack's 120 add up
    points = [sum(kp.points(pack.pop()) for _ in range(4 * tricks[s])) for s in range(4)]
    q_pts = sum(points[s] for s in queens)
    o_pts = sum(points) - q_pts
    q_tr = sum(tricks[s] for s in queens)
    o_tr = done - q_tr

    def value(qp: int, qt: int) -> int:
        ds = kp.score_deal(table, mode, qp, qt, knock=knock, knock_back=back)
        return ds.queens_each - ds.others_each

    def minimax(h: list[int], lead: int, tr_cards: list[int], qp: int, qt: int) -> int:
        if len(tr_cards) == 4:
            w = (lead + trumps.winner(tr_cards)) % 4
            if w in queens:
                qp, qt = qp + kp.trick_points(tr_cards), qt + 1
            if not any(h):
                return value(qp, qt)
            return minimax(h, w, [], qp, qt)
        seat = (lead + len(tr_cards)) % 4
        vals = []
        for c in cards(kp.legal(h[seat], tr_cards, trumps, must)):
            h2 = list(h)
            h2[seat] &= ~(1 << c)
            vals.append(minimax(h2, lead, [*tr_cards, c], qp, qt))
        return max(vals) if seat in queens else min(vals)

    def brute() -> tuple[int, dict[int, int]]:
        seat = (leader + len(trick)) % 4
        after = {}
        for c in cards(kp.legal(hands[seat], trick, trumps, must)):
            h2 = list(hands)
            h2[seat] &= ~(1 << c)
            after[c] = minimax(h2, leader, [*trick, c], q_pts, q_tr)
        return minimax(list(hands), leader, list(trick), q_pts, q_tr), after

    rules = kp_solver.rules_of(opts, mode, knock=knock, knock_back=back)
    side = tuple(0 if s in queens else 1 for s in range(4))
    pos = Position(tuple(hands), leader, tuple(trick), (q_pts, o_pts), (0, 0), (q_tr > 0, o_tr > 0))
    return Case(f"kloepper {mode} knock={knock} back={back} {overrides}",
                lambda compiled: Solver(rules, side, compiled=compiled), pos, brute)


# ---------------------------------------------------------------- the comparison

def check(case: Case) -> None:
    par, after = case.brute()
    for compiled in CORES:
        s = case.solver(compiled)
        core = "compiled" if compiled else "python"
        assert s.par(case.position) == par, (case.name, core, case.position)
        got = s.values(case.position)
        assert got == after, (case.name, core, case.position)
        assert s.par(case.position, guess=par + 37) == par, (case.name, core, "guess")


def run(make: Callable[[random.Random, int], Case], seed: int, count: int, sizes: tuple[int, ...]) -> None:
    rng = random.Random(seed)
    for i in range(count):
        check(make(rng, sizes[i % len(sizes)]))


#: Endgames per game in `make test`; the soak run adds :data:`MORE` of each.
QUICK = 400
MORE = 1600


def test_klaverjas_small_endgames() -> None:
    run(klaverjas_case, 1, QUICK, (1, 2, 3))


def test_klaberjass_small_endgames() -> None:
    run(klaberjass_case, 2, QUICK, (1, 2, 3, 4))


def test_kloepper_small_endgames() -> None:
    run(kloepper_case, 3, QUICK, (1, 2, 3))


@pytest.mark.soak
class TestThousandsOfSmallEndgames:
    """Two thousand endgames of each game in all, with the quick run's (other seeds); a
    class so that pytest-xdist gives it a worker of its own."""

    def test_klaverjas(self) -> None:
        run(klaverjas_case, 101, MORE, (1, 2, 3))

    def test_klaberjass(self) -> None:
        run(klaberjass_case, 102, MORE, (1, 2, 3, 4))

    def test_kloepper(self) -> None:
        run(kloepper_case, 103, MORE, (1, 2, 3))


def test_kloepper_points_past_the_score_table() -> None:
    """A Kloepper endgame whose black queens hold more points than the pack's 120 can give
    (52 taken, 73 still out: no deal comes to it, but a position may say so) scores as the
    table's last row: they take every trick (10H, AH, then KH), +6 each, as the game's
    score_deal says for any points. Both cores once read past the table and said 4."""
    opts = kp_resolve("kloepper", {"must_trump_when_void": False})
    rules = kp_solver.rules_of(opts, "pair", knock=False, knock_back=False)
    hands = tuple(parse_hand(h) for h in ("KC 10S KS", "9C 10H", "KH AH", "10C KD QH"))
    pos = Position(hands, leader=1, trick=(parse_card("JH"), parse_card("AD")), points=(52, 0),
                   won=(True, False))
    table = kp.ScoreTable.from_options(opts)
    assert kp.score_deal(table, "pair", 52 + 73, 6).queens_each == 6
    for compiled in CORES:
        s = Solver(rules, (1, 0, 0, 1), compiled=compiled)
        assert (s.par(pos), s.values(pos)) == (6, {parse_card("KD"): 6}), compiled
        after = s.step(s.step(pos, parse_card("KD")), parse_card("KC"))
        assert s.values(after) == {parse_card("9C"): 4, parse_card("10H"): 6}, compiled


def test_the_brute_force_can_fail() -> None:
    """The comparison is not empty: a solver told the wrong side disagrees with the brute force."""
    rng = random.Random(5)
    for _ in range(50):
        case = klaverjas_case(rng, 2)
        par, _ = case.brute()
        s = case.solver(False)
        wrong = Solver(s.rules, tuple(1 - x for x in s.side), compiled=False)
        if wrong.par(case.position) != par:
            return
    pytest.fail("flipping the sides never changed the par")


def test_four_of_a_kind_ranks_are_the_options() -> None:
    """Klaverjas roem of four of a kind follows roem.four_kind_ranks (KBN: 9, 8, 7 too)."""
    assert RANK_TEXT.index("7") == 0
    pagat = kv_solver.rules_of(kv_resolve("amsterdam"), 0).four_kind
    kbn = kv_solver.rules_of(kv_resolve("amsterdam-kbn"), 0).four_kind
    assert pagat[0] == 0 and kbn[0] == 100 and pagat[4] == kbn[4] == 200
