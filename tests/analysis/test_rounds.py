"""The analysis of recorded rounds, on real folds: a simulated game whose one round is played
again along a line the solver chooses, folded by the game's own rules and scored by them.

* A round in which every play keeps the par (each player plays a best card) costs nothing
  and ends exactly at its par: the game's own score of it, side 0's minus side 1's.
* When only one side errs (the other plays best), the losses of its plays add up to the gap
  between the par and the result; the other side's plays cost nothing.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from jaslog.analysis.core import Solver
from jaslog.analysis.model import Deal
from jaslog.analysis.rounds import MISTAKE, analyze_deal, analyze_fold
from jaslog.cards import card_text
from jaslog.engine.fold import GameFold
from jaslog.events import event_from_dict
from jaslog.games import get_game
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game

GAMES: list[tuple[str, dict[str, Any] | None]] = [
    ("amsterdam", {"roem.claim_mode": "auto"}),
    ("rotterdam", {"roem.claim_mode": "auto", "pit_for": "playing_team"}),
    ("klaberjass-2p", None),
    ("klaberjass-2p", {"sequences_require_a_trick": True, "must_head_plain_lead": True}),
    ("kloepper", None),
]


def folded(events: list[dict[str, Any]]) -> GameFold:
    return fold(event_from_dict(e) for e in events)


def deals_of(f: GameFold) -> list[Deal]:
    return [d for d in get_game(f.game).adapter("solver").deals(f) if isinstance(d, Deal)]


def line(deal: Deal, policy: dict[int, str], rng: random.Random) -> list[tuple[int, int]]:
    """A round played from its first card: a side whose policy is ``best`` plays the
    lowest-numbered card that keeps the par, the other a random legal card."""
    s = Solver(deal.rules, deal.side, deal.pending)
    pos = deal.start
    out = []
    while not pos.over:
        seat = pos.to_move
        legal = [c for c in range(32) if s.legal(pos) >> c & 1]
        if policy[deal.side[seat]] == "best":
            par = s.par(pos)
            card = next(c for c in legal if s.after(pos, c, par) == par)
        else:
            card = rng.choice(legal)
        out.append((seat, card))
        pos = s.step(pos, card)
    return out


def replayed(events: list[dict[str, Any]], number: int, plays: list[tuple[int, int]]) -> GameFold:
    """The game up to the end of round ``number``, its plays replaced by ``plays``."""
    out: list[dict[str, Any]] = []
    rounds = k = 0
    for e in events:
        if e["type"] == "dealt":
            rounds += 1
            if rounds > number:
                break
        if rounds == number and e["type"] == "play":
            seat, c = plays[k]
            k += 1
            e = {**e, "seat": seat, "card": card_text(c)}
        elif rounds == number and e["type"] == "roem":
            continue  # claims of the old plays' roem (claim_mode auto counts the table's)
        out.append({**e, "seq": len(out)})
        if rounds == number and k == len(plays):
            break
    return folded(out)


def rounds_to_check(ruleset: str, options: dict[str, Any] | None,
                    seed: int) -> list[tuple[list[dict[str, Any]], Deal]]:
    events = simulate_game(f"t-{seed}", ruleset, options, seed=seed)
    f = folded(events)
    deals = [d for d in deals_of(f) if len(d.plays) == len(d.start.hands) * d.start.hands[0].bit_count()]
    rng = random.Random(seed)
    return [(events, d) for d in rng.sample(deals, min(3, len(deals)))]


@pytest.mark.parametrize(("ruleset", "options"), GAMES)
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.soak)])  # quick: seed 1
def test_best_play_costs_nothing_and_ends_at_par(ruleset: str, options: dict[str, Any] | None,
                                                 seed: int) -> None:
    rng = random.Random(seed)
    for events, deal in rounds_to_check(ruleset, options, seed):
        plays = line(deal, {0: "best", 1: "best"}, rng)
        f = replayed(events, deal.round, plays)
        a = analyze_fold(f, round=deal.round)[0]
        assert a.reason is None and a.par is not None
        assert [p.loss for p in a.plays] == [0] * len(plays)
        assert a.pars == [a.par] * (len(plays) + 1)
        assert a.end == a.par == a.difference, (ruleset, deal.round, a.result, a.score)
        assert a.par_result == a.result


@pytest.mark.parametrize(("ruleset", "options"), GAMES)
@pytest.mark.parametrize("erring", [0, pytest.param(1, marks=pytest.mark.soak)])
def test_one_sides_losses_are_the_gap_to_par(ruleset: str, options: dict[str, Any] | None,
                                             erring: int) -> None:
    rng = random.Random(erring + 7)
    seen_loss = False
    for events, deal in rounds_to_check(ruleset, options, 10 + erring):
        plays = line(deal, {erring: "random", 1 - erring: "best"}, rng)
        f = replayed(events, deal.round, plays)
        a = analyze_fold(f, round=deal.round)[0]
        assert a.par is not None and a.difference is not None
        lost = sum(p.loss for p in a.plays if p.side == erring)
        assert all(p.loss == 0 for p in a.plays if p.side != erring)
        gap = a.par - a.difference if erring == 0 else a.difference - a.par
        assert lost == gap, (ruleset, deal.round)
        for p in a.costly:
            assert p.best and p.card not in p.best
            assert p.result_before is not None and p.result_after is not None
            assert p.mistake == (p.loss >= MISTAKE)
        seen_loss |= lost > 0
    assert seen_loss, "random cards never cost anything: the test would prove nothing"


def test_a_blunder_turns_the_result() -> None:
    """In Klaverjas a made round lost by one card is a blunder; its result turns."""
    for seed in range(1, 30):
        events = simulate_game(f"b-{seed}", "amsterdam", {"roem.claim_mode": "auto"}, seed=seed)
        f = folded(events)
        # round by round, in order: the game's later rounds are not analysed after a blunder
        for a in (a for k in range(1, len(f.state.rounds) + 1) for a in analyze_fold(f, round=k)):
            for p in a.costly:
                if p.blunder:
                    assert p.result_before != p.result_after
                    assert (p.before > 0) != (p.after > 0) or "pit" in (p.result_before,
                                                                        p.result_after)
                    return
    pytest.fail("no blunder in 29 simulated games")


def test_a_revoke_is_marked_and_never_gains() -> None:
    from jaslog.play.sim import Faults

    events = simulate_game("r", "amsterdam", {"revoke": "ignore", "roem.claim_mode": "auto"}, seed=4,
                           faults=Faults(revoke_rate=0.2))
    f = folded(events)  # the first two rounds (a fifth of the cards revoked: revokes enough)
    revokes = [p for k in (1, 2) for a in analyze_fold(f, round=k) for p in a.plays if not p.legal]
    assert len(revokes) >= 2 and all(p.loss >= 0 for p in revokes)


def cores_agree(deal: Deal) -> None:
    a = analyze_deal(deal, compiled=False)
    if Solver(deal.rules, deal.side).compiled:
        b = analyze_deal(deal, compiled=True)
        assert [p.to_json() for p in a.plays] == [p.to_json() for p in b.plays]
        assert (a.par, a.par_result, a.pars) == (b.par, b.par_result, b.pars)


@pytest.mark.parametrize("ruleset", ["klaberjass-2p", pytest.param("kloepper", marks=pytest.mark.soak)])
def test_the_cores_agree_on_whole_rounds(ruleset: str) -> None:
    for deal in deals_of(folded(simulate_game("c", ruleset, seed=5)))[:4]:
        cores_agree(deal)


@pytest.mark.soak
def test_the_cores_agree_on_a_whole_klaverjas_round() -> None:
    cores_agree(deals_of(folded(simulate_game("c", "rotterdam", seed=5)))[2])
