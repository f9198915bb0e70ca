"""Properties of random Klaberjass games played by the bots: they fold clean, their scores
add up, hiding the hands changes nothing, and a single changed card is either legal or
reported with the rule an independent reading of rule book 4.7 names."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaslog.cards import CARD_TEXT, card_points, cards_of
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import event_from_dict
from jaslog.games.klaberjass.rules import ScoreRules, score_deal
from jaslog.play.audit import game_report
from jaslog.play.fold import fold, start_fold
from jaslog.play.sim import Faults, simulate_game

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPTIONS = st.sampled_from([None, {"must_head_plain_lead": True}, {"tie_mode": "carry_over"},
                           {"schmeiss_enabled": False, "second_round_any_suit": True},
                           {"dealer_rotation": "round_winner_deals", "target": 300},
                           {"sequences_require_announcement": True, "sequence_tie": "elder_wins"}])


def game(seed: int, options: dict[str, Any] | None, bot: str = "random",
         faults: Faults = Faults()) -> list[dict[str, Any]]:
    return simulate_game(f"p{seed}", "klaberjass-2p", options, seed=seed, bot=bot, faults=faults)


def folded(events: list[dict[str, Any]]) -> GameFold:
    return fold(event_from_dict(e) for e in events)


@SETTINGS
@given(seed=st.integers(0, 10**6), options=OPTIONS, bot=st.sampled_from(["random", "heuristic"]))
def test_random_legal_games_fold_clean_and_add_up(seed: int, options: dict[str, Any] | None,
                                                  bot: str) -> None:
    f = folded(game(seed, options, bot))
    rep = game_report(f.game_id, f)
    assert rep["error"] is None and rep["violations"] == [] and rep["finished"]
    assert len(rep["totals"]) == 2
    g = f.state
    total = [0, 0]
    for r, o, rr in zip(g.rounds, g.outcomes(), rep["rounds"], strict=True):
        if rr["result"] == "annulled":
            assert rr["score"] == [0, 0] and rr["tricks"] == []
            continue
        played = r.playing
        assert played is not None and [h.bit_count() for h in played] == [9, 9]
        trump = r.trump
        assert trump is not None
        # every card point of the 18 cards played, and the last trick's 10, went to someone
        assert sum(o.points) == sum(card_points(c, trump) for h in played for c in cards_of(h)) + 10
        assert sum(o.tricks) == 9
        ds = score_deal(ScoreRules.from_options(g.options), o.totals, r.maker or 0)
        assert (o.score, o.result) == (ds.score, ds.result)
        assert o.totals == [o.points[s] + o.sequences[s] + o.bella[s] for s in (0, 1)]
        assert 0 in o.sequences   # only one player scores sequences
        total = [total[s] + o.final[s] for s in (0, 1)]
    assert total == rep["totals"]
    assert max(total) >= g.target and total[rep["winner"]] == max(total)


@SETTINGS
@given(seed=st.integers(0, 10**6), options=OPTIONS)
def test_hiding_the_hands_changes_no_judgement(seed: int, options: dict[str, Any] | None) -> None:
    events = game(seed, options, faults=Faults(revoke_rate=0.05, false_roem_rate=0.2))
    hidden = [{k: v for k, v in e.items() if not (e["type"] in ("dealt", "second_deal")
                                                  and k in ("hands", "stock"))} for e in events]
    a, b = folded(events), folded(hidden)
    ra, rb = game_report(a.game_id, a), game_report(b.game_id, b)
    key = [(v["seq"], v["rule"], v["seat"], v["card"]) for v in ra["violations"]]
    assert key == [(v["seq"], v["rule"], v["seat"], v["card"]) for v in rb["violations"]]
    assert ra["totals"] == rb["totals"]
    assert [r["score"] for r in ra["rounds"]] == [r["score"] for r in rb["rounds"]]


TRUMP_ORDER = ["J", "9", "A", "10", "K", "Q", "8", "7"]
PLAIN_ORDER = ["A", "10", "K", "Q", "J", "9", "8", "7"]


def reference(hand: list[str], led: str | None, card: str, trump: str, head: bool) -> str | None:
    """Rule book 4.7 read afresh: follow suit; on a trump lead play higher if you can; void,
    trump if you can (and with must_head_plain_lead, beat a plain lead if you can)."""
    if led is None:
        return None
    suit = led[-1]
    same = [x for x in hand if x[-1] == suit]
    if same and card[-1] != suit:
        return "must_follow_suit"
    if same:
        order = TRUMP_ORDER if suit == trump else PLAIN_ORDER
        higher = [x for x in same if order.index(x[:-1]) < order.index(led[:-1])]
        if (suit == trump or head) and higher and card not in higher:
            return "must_overtrump" if suit == trump else "must_head"
        return None
    if any(x[-1] == trump for x in hand) and card[-1] != trump:
        return "must_trump"
    return None


@SETTINGS
@given(seed=st.integers(0, 10**6), pick=st.integers(0, 10**6), head=st.booleans())
def test_a_changed_card_is_legal_or_named(seed: int, pick: int, head: bool) -> None:
    options = {"must_head_plain_lead": True} if head else None
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
    led = CARD_TEXT[t.cards[0]] if t is not None and len(t.cards) == 1 else None
    rng = random.Random(pick)
    card = rng.choice(hand)
    f.apply(event_from_dict({**events[i], "card": card}))
    got = [v.rule for v in f.state.violations if v.seq == events[i]["seq"]]
    expected = reference(hand, led, card, "CDHS"[r.trump], head)
    assert got == ([expected] if expected else [])
    # a card from outside the hand is no play at all
    outside = [CARD_TEXT[c] for c in range(32) if CARD_TEXT[c] not in hand]
    g = start_fold(event_from_dict(events[0]))
    for e in events[1:i]:
        g.apply(event_from_dict(e))
    bad = rng.choice(outside)
    try:
        g.apply(event_from_dict({**events[i], "card": bad}))
    except FoldError as err:
        assert err.code in ("card_not_held", "card_played_twice")
    else:
        raise AssertionError(f"{bad} is not in seat {seat}'s hand {hand}")
