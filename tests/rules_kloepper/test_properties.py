"""Properties of random Kloepper games played by the bots: they fold clean, their scores add
up by the table, hiding the hands changes nothing, and a single changed card is either legal
or reported with the rule an independent reading of rule book 5.4 names."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaslog.cards import CARD_TEXT, cards_of
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import event_from_dict
from jaslog.games.kloepper.rules import PACK, ScoreTable, score_deal
from jaslog.play.audit import game_report
from jaslog.play.fold import fold, start_fold
from jaslog.play.sim import Faults, simulate_game

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPTIONS = st.sampled_from([None, {"must_trump_when_void": True}, {"both_queens": ["alone"]},
                           {"call_own_ace_allowed": True, "target": 20},
                           {"trumps": ["QC", "QS", "JC", "JS", "JH", "JD"]}])
TRUMPS = ["QC", "QS", "JC", "JS", "JH", "JD", "AD", "10D", "KD", "QD", "9D"]


def game(seed: int, options: dict[str, Any] | None, bot: str = "random",
         faults: Faults = Faults()) -> list[dict[str, Any]]:
    return simulate_game(f"p{seed}", "kloepper", options, seed=seed, bot=bot, faults=faults)


def folded(events: list[dict[str, Any]]) -> GameFold:
    return fold(event_from_dict(e) for e in events)


@SETTINGS
@given(seed=st.integers(0, 10**6), options=OPTIONS, bot=st.sampled_from(["random", "heuristic"]))
def test_random_legal_games_fold_clean_and_add_up(seed: int, options: dict[str, Any] | None,
                                                  bot: str) -> None:
    f = folded(game(seed, options, bot))
    rep = game_report(f.game_id, f)
    assert rep["error"] is None and rep["violations"] == [] and rep["finished"]
    assert len(rep["totals"]) == 4
    table = ScoreTable.from_options(f.state.options)
    total = [0] * 4
    for r in rep["rounds"]:
        assert sum(r["points"]) == 120 and sum(r["tricks_won"]) == 6
        queens = r["queens"]
        assert queens and all(r["score"][s] == r["score"][queens[0]] for s in queens)
        others = [s for s in range(4) if s not in queens]
        assert all(r["score"][s] == r["score"][others[0]] for s in others)
        assert r["queens_points"] == sum(r["points"][s] for s in queens)
        ds = score_deal(table, "alone" if r["mode"] == "alone" else "pair", r["queens_points"],
                        r["queens_tricks"], knock=r["knock"], knock_back=r["knock_back"])
        assert r["row"] == ds.row
        assert r["score"] == [ds.queens_each if s in queens else ds.others_each for s in range(4)]
        total = [total[s] + r["score"][s] for s in range(4)]
    assert total == rep["totals"]
    top = max(total)
    assert top >= f.state.target and total.count(top) == 1 and rep["winner"] == total.index(top)


@SETTINGS
@given(seed=st.integers(0, 10**6), options=OPTIONS)
def test_hiding_the_hands_changes_no_judgement(seed: int, options: dict[str, Any] | None) -> None:
    events = game(seed, options, faults=Faults(revoke_rate=0.05, false_roem_rate=0.3))
    hidden = [{k: v for k, v in e.items() if not (e["type"] == "dealt" and k == "hands")}
              for e in events]
    a, b = folded(events), folded(hidden)
    ra, rb = game_report(a.game_id, a), game_report(b.game_id, b)
    key = [(v["seq"], v["rule"], v["seat"], v["card"]) for v in ra["violations"]]
    assert key == [(v["seq"], v["rule"], v["seat"], v["card"]) for v in rb["violations"]]
    assert ra["totals"] == rb["totals"]
    assert [r["score"] for r in ra["rounds"]] == [r["score"] for r in rb["rounds"]]


def effective(card: str, trumps: list[str]) -> str:
    return "T" if card in trumps else card[-1]


def reference(hand: list[str], led: str | None, card: str, trumps: list[str],
              must_trump: bool) -> str | None:
    """Rule book 5.4 read afresh: follow the effective suit led (a trump lead wants a trump,
    a jack or black queen is no card of its printed suit); if you cannot, any card."""
    if led is None:
        return None
    suit = effective(led, trumps)
    same = [x for x in hand if effective(x, trumps) == suit]
    if same and effective(card, trumps) != suit:
        return "must_follow_suit"
    if not same and must_trump and any(x in trumps for x in hand) and card not in trumps:
        return "must_trump"
    return None


@SETTINGS
@given(seed=st.integers(0, 10**6), pick=st.integers(0, 10**6), must=st.booleans())
def test_a_changed_card_is_legal_or_named(seed: int, pick: int, must: bool) -> None:
    options = {"must_trump_when_void": True} if must else None
    events = game(seed, options)
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    i = plays[pick % len(plays)]
    f = start_fold(event_from_dict(events[0]))
    for e in events[1:i]:
        f.apply(event_from_dict(e))
    r = f.state.current_round
    seat = events[i]["seat"]
    hand = [CARD_TEXT[c] for c in cards_of(r.hands[seat])]
    t = r.tricks[-1] if r.tricks else None
    led = CARD_TEXT[t.cards[0]] if t is not None and not t.complete else None
    rng = random.Random(pick)
    card = rng.choice(hand)
    f.apply(event_from_dict({**events[i], "card": card}))
    got = [v.rule for v in f.state.violations if v.seq == events[i]["seq"]]
    expected = reference(hand, led, card, TRUMPS, must)
    assert got == ([expected] if expected else [])
    outside = [CARD_TEXT[c] for c in cards_of(PACK) if CARD_TEXT[c] not in hand]
    g = start_fold(event_from_dict(events[0]))
    for e in events[1:i]:
        g.apply(event_from_dict(e))
    try:
        g.apply(event_from_dict({**events[i], "card": rng.choice(outside)}))
    except FoldError as err:
        assert err.code in ("card_not_held", "card_played_twice")
    else:
        raise AssertionError("a card from outside the hand was taken")
