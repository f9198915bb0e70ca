"""The solver's budget: on a deal made to be hard (hill-climbed for the most positions to
search), either core stops past the positions or the seconds it was given, with ``too_hard``;
a budget never changes an answer it lets through, and a search cut short leaves nothing
wrong in the tables. The compiled core searches without the GIL: other threads run while
it searches."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from jaslog.analysis.core import Budget, Solver, TooHard, compiled_core, solve
from jaslog.analysis.model import Problem
from jaslog.analysis.query import problem_of
from jaslog.analysis.search import OutOfBudget
from jaslog.cards import card_text
from jaslog.games import get_game, resolve

CORES = [False, True] if compiled_core() else [False]
needs_compiled = pytest.mark.skipif(not compiled_core(), reason="the compiled core is not built")

#: A Klaverjas deal hill-climbed (cards swapped between hands while the solve grew) for the
#: most positions to search: about 190 million for its par and the par after each card of
#: the first lead on the compiled core, some seconds of it (a random deal: 1.6 million).
HARD_DEAL: dict[str, Any] = {
    "op": "solve", "ruleset": "amsterdam", "trump": "S", "chooser": 0, "leader": 0,
    "hands": [["7S", "9S", "10H", "QS", "QC", "KD", "9H", "JD"],
              ["KC", "JH", "KH", "AH", "8H", "9D", "QD", "9C"],
              ["7D", "JC", "7C", "QH", "10C", "AC", "7H", "8C"],
              ["JS", "AS", "10D", "AD", "8S", "KS", "8D", "10S"]],
}


def problem(q: dict[str, Any]) -> Problem:
    return problem_of(get_game("klaverjas"), q, resolve(q.get("ruleset", "amsterdam")))


def random_deals(n: int, seed: int = 11, tricks: int = 8) -> list[dict[str, Any]]:
    """``n`` random Klaverjas positions of ``tricks`` tricks to play (8: a whole deal), as
    ``solve`` queries."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cards = [card_text(c) for c in range(32)]
        rng.shuffle(cards)
        done, trump = 8 - tricks, rng.choice("HDCS")
        hands = [cards[i * 8:i * 8 + tricks] for i in range(4)]
        taken = sum(card_points(c, trump) for c in cards if not any(c in h for h in hands))
        out.append({"trump": trump, "chooser": rng.randrange(4), "leader": 0, "hands": hands,
                    "tricks": [done - done // 2, done // 2],
                    "points": [taken, 0] if done else [0, 0]})
    return out


def card_points(card: str, trump: str) -> int:
    """A card's points in Klaverjas (Amsterdam)."""
    rank = card[:-1]
    if card[-1] == trump:
        return {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}.get(rank, 0)
    return {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}.get(rank, 0)


def some_deals(compiled: bool, seed: int) -> list[dict[str, Any]]:
    """Whole deals for the compiled core, endgames of five tricks for the pure-Python one
    (a whole deal takes it minutes)."""
    return random_deals(4, seed) if compiled else random_deals(3, seed, tricks=5)


@pytest.mark.parametrize("compiled", CORES)
def test_a_node_budget_stops_either_core_on_a_hard_deal(compiled):
    p = problem(HARD_DEAL)
    solver = Solver(p.rules, p.side, p.pending, compiled=compiled, budget=Budget(nodes=20_000))
    started = time.monotonic()
    with pytest.raises(TooHard) as e:
        solver.solve(p.position, p.order)
    assert e.value.code == "too_hard"
    assert 20_000 <= e.value.nodes <= 20_001, e.value.nodes
    assert "too hard to solve within the budget of 20,000 positions" in str(e.value)
    assert time.monotonic() - started < 30  # a pure-Python search of 20,000 positions
    # spent is spent: the next question is refused at once
    with pytest.raises(TooHard):
        solver.par(p.position)
    assert solver.nodes <= 20_002


@pytest.mark.parametrize("compiled", CORES)
def test_a_time_budget_stops_either_core_in_time(compiled):
    started = time.monotonic()
    with pytest.raises(TooHard) as e:
        solve(problem(HARD_DEAL), compiled=compiled, budget=Budget(seconds=0.3))
    took = time.monotonic() - started
    assert 0.3 <= took < 3, took
    assert "0.3 s" in str(e.value) and e.value.nodes > 0


@pytest.mark.parametrize("compiled", CORES)
def test_a_budget_changes_no_answer_it_lets_through(compiled):
    """Random deals solved within a budget they fit give the answers of an unlimited solve."""
    for q in some_deals(compiled, 11):
        p = problem(q)
        free = solve(p, compiled=compiled)
        assert solve(p, compiled=compiled, budget=Budget(nodes=50_000_000, seconds=120)) == free


@pytest.mark.parametrize("compiled", CORES)
def test_a_search_cut_short_leaves_its_tables_right(compiled):
    """A core stopped part way through, given room again, answers as a fresh one: nothing
    of a position cut short was kept in its tables."""
    from jaslog.analysis import core

    for q in some_deals(compiled, 5):
        p = problem(q)
        fresh = Solver(p.rules, p.side, p.pending, compiled=compiled)
        want = fresh.par(p.position)
        cut = Solver(p.rules, p.side, p.pending, compiled=compiled)
        raw = cut._core
        spent = (OutOfBudget, core._compiled.OutOfBudget) if compiled else OutOfBudget
        raw.limit(max(1, fresh.nodes // 3), 0.0)
        with pytest.raises(spent):
            raw.par(p.position.state())
        raw.limit(0, 0.0)
        assert raw.par(p.position.state()) == want


@needs_compiled
def test_the_compiled_core_lets_other_threads_run_while_it_searches():
    """While a thread searches the hard deal, this thread runs: it would wait for the whole
    search if the core held the GIL."""
    p = problem(HARD_DEAL)
    out: dict[str, Any] = {}

    def search() -> None:
        try:
            solve(p, compiled=True, budget=Budget(seconds=1.5))  # alive well past the loop below
        except TooHard as e:
            out["error"] = e

    t = threading.Thread(target=search)
    t.start()
    time.sleep(0.3)  # the search is under way
    started = time.monotonic()
    for _ in range(5):
        sum(range(20_000))
        time.sleep(0.01)
    took = time.monotonic() - started
    assert t.is_alive(), "the search ended before this thread ran"
    t.join()
    assert took < 0.5, took
    assert isinstance(out.get("error"), TooHard)


@needs_compiled
def test_one_compiled_solver_searches_in_one_thread_at_a_time():
    p = problem(HARD_DEAL)
    solver = Solver(p.rules, p.side, p.pending, compiled=True, budget=Budget(seconds=1))
    out: list[BaseException] = []

    def search() -> None:
        try:
            solver.par(p.position)
        except TooHard as e:
            out.append(e)

    t = threading.Thread(target=search)
    t.start()
    deadline = time.monotonic() + 1.5
    while solver.nodes == 0 and time.monotonic() < deadline:  # the search is under way
        time.sleep(0.01)
    assert solver.nodes > 0
    with pytest.raises(RuntimeError, match="searching in another thread"):
        solver.par(p.position)
    t.join()
    assert len(out) == 1
