"""Property tests: random legal games fold and score by the rule book; a changed play is
legal or reported with the right rule; the sample replays check as expected."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaslog.cards import CARD_INDEX, cards_of, hand_mask
from jaslog.engine.fold import FoldError
from jaslog.events import event_from_dict
from jaslog.games import resolve
from jaslog.games.klaverjas.rules import PlayRules, judge, legal
from jaslog.logs import read_file
from jaslog.play.audit import REPORT_KEYS, game_report
from jaslog.play.fold import fold, fold_lines
from jaslog.play.sim import Faults, simulate_game

ROOT = Path(__file__).resolve().parent.parent
#: JASLOG_EXAMPLES=2000 for a longer hunt; the default keeps the suite fast.
SETTINGS = settings(max_examples=int(os.environ.get("JASLOG_EXAMPLES", "60")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

RULESETS = ["amsterdam", "rotterdam", "amsterdam-kbn", "klaverjas-online-501"]
CHOICES: dict[str, list[Any]] = {
    "trump_selection": ["free", "utrecht", "random", "dealer_must_choose"],
    "free.start": ["forehand", "dealer"],
    "free.forced": ["starter", "dealer", "forehand"],
    "random.all_pass": ["second_card_forced", "forehand_names_other", "second_round_other_suits",
                        "twents", "second_card_auction"],
    "random.first_deal_clubs": [True, False],
    "random.source": ["separate_pack", "dealers_last_card"],
    "first_lead": ["forehand", "trump_chooser"],
    "play": ["amsterdam", "rotterdam"],
    "amsterdam_partner_trump": ["no_undertrump", "discard_only", "free"],
    "amsterdam_cannot_overtrump": ["discard", "must_undertrump"],
    "rotterdam_must_undertrump": [True, False],
    "roem.claim_mode": ["claimed", "auto"],
    "roem.claim_by": ["any_player", "winning_team"],
    "roem.three_of_a_kind": [0, 20],
    "roem.stuk_in_hand": [True, False],
    "pit_for": ["any_team", "playing_team"],
    "tie_is_failure": [True, False],
    "game_tie": ["draw", "extra_deal"],
    "game_end": [{"type": "deals", "count": n} for n in (1, 2, 3, 4)]
    + [{"type": "target", "points": p} for p in (300, 501, 800)],
}


@st.composite
def games(draw: st.DrawFn) -> tuple[str, dict[str, Any], int]:
    ruleset = draw(st.sampled_from(RULESETS))
    keys = draw(st.lists(st.sampled_from(sorted(CHOICES)), unique=True, max_size=8))
    options = {k: draw(st.sampled_from(CHOICES[k])) for k in keys}
    if "game_end" not in options:       # keep each example short
        options["game_end"] = {"type": "deals", "count": draw(st.integers(1, 3))}
    return ruleset, options, draw(st.integers(0, 2**32 - 1))


def expected_score(o: Any, chooser_team: int, opts: dict[str, Any]) -> tuple[list[int], str]:
    """Rule book 3.5, written again here."""
    p, d = chooser_team, 1 - chooser_team
    bonus = [opts["pit_bonus"] if o.tricks[t] == 8 and (opts["pit_for"] == "any_team" or t == p)
             else 0 for t in (0, 1)]
    tot = [o.points[t] + o.roem[t] + bonus[t] for t in (0, 1)]
    if tot[p] > tot[d] or (tot[p] == tot[d] and not opts["tie_is_failure"]):
        return tot, "pit" if o.tricks[p] == 8 else "made"
    score = [0, 0]
    score[d] = tot[0] + tot[1]
    return score, "nat"


@SETTINGS
@given(games())
def test_random_legal_games_fold_and_score_by_the_rule_book(g: tuple[str, dict[str, Any], int]) -> None:
    ruleset, options, seed = g
    events = simulate_game("p", ruleset, options, seed=seed)
    f = fold(event_from_dict(e) for e in events)
    opts = resolve(ruleset, options)
    state = f.state
    assert state.violations == []
    assert state.finished
    totals = [0, 0]
    history = []
    for r, o in zip(state.rounds, state.outcomes(), strict=True):
        assert r.over and r.chooser is not None and r.trump is not None
        cards = [c for t in r.tricks for c in t.cards]
        assert len(cards) == 32 and hand_mask(cards) == (1 << 32) - 1
        assert sum(o.points) == 152 + opts["last_trick_bonus"] == 162
        assert sum(o.tricks) == 8
        for t in (0, 1):
            assert 0 <= o.roem[t] <= o.roem_on_table[t]
        if opts["roem.claim_mode"] == "auto":
            assert o.roem == o.roem_on_table
        assert (o.score, o.result) == expected_score(o, r.chooser & 1, opts)
        totals = [totals[0] + o.score[0], totals[1] + o.score[1]]
        history.append(list(totals))
    assert state.totals() == totals
    end = opts["game_end"]
    w = state.winner
    if w == "draw":
        assert totals[0] == totals[1] and end["type"] == "deals" and opts["game_tie"] == "draw"
        assert len(state.rounds) == end["count"]
    else:
        assert w in (0, 1) and totals[w] > totals[1 - w]
    if end["type"] == "deals":
        assert len(state.rounds) >= end["count"]
        for tot in history[end["count"] - 1:-1]:
            assert tot[0] == tot[1]             # extra deals only after a tie
    else:
        assert max(totals) >= end["points"]
        for tot in history[:-1]:
            assert max(tot) < end["points"] or tot[0] == tot[1]
    rep = game_report("p", f)
    assert tuple(rep) == REPORT_KEYS and rep["ok"] and rep["totals"] == totals


# ---------------------------------------------------------------- legal plays, written again

TRUMP_RANK = {r: i for i, r in enumerate(["7", "8", "Q", "K", "10", "A", "9", "J"])}
PLAIN_RANK = {r: i for i, r in enumerate(["7", "8", "9", "J", "Q", "K", "10", "A"])}


def my_legal(hand: list[str], trick: list[str], trump: str, o: dict[str, Any]) -> set[str]:
    """Rule book 3.3's pseudocode, line by line, on card texts."""
    def suit(c: str) -> str:
        return c[-1]

    def trank(c: str) -> int:
        return TRUMP_RANK[c[:-1]]

    if not trick:
        return set(hand)
    led = suit(trick[0])
    follow = {c for c in hand if suit(c) == led}
    my_trumps = {c for c in hand if suit(c) == trump}
    non_trumps = set(hand) - my_trumps
    trumps_in = [c for c in trick if suit(c) == trump]
    top = max(trumps_in, key=trank) if trumps_in else None
    higher = {c for c in my_trumps if top is None or trank(c) > trank(top)}
    if led == trump:
        return higher or my_trumps or set(hand)
    if follow:
        return follow
    if not my_trumps:
        return set(hand)
    if o["play"] == "rotterdam":
        if higher:
            return higher
        return my_trumps if o["rotterdam_must_undertrump"] else set(hand)
    if top is not None:
        w = trick.index(top)
    else:
        w = max((i for i, c in enumerate(trick) if suit(c) == led),
                key=lambda i: PLAIN_RANK[trick[i][:-1]])
    partner_winning = w == len(trick) - 2
    if not partner_winning:
        if higher:
            return higher
        if o["amsterdam_cannot_overtrump"] == "must_undertrump":
            return my_trumps
        return non_trumps or set(hand)
    if suit(trick[w]) != trump:
        return set(hand)
    mode = o["amsterdam_partner_trump"]
    if mode == "no_undertrump":
        return (non_trumps | higher) or set(hand)
    if mode == "discard_only":
        return non_trumps or set(hand)
    return set(hand)


DECK = [r + s for s in "CDHS" for r in ["7", "8", "9", "10", "J", "Q", "K", "A"]]


@st.composite
def situations(draw: st.DrawFn) -> tuple[list[str], list[str], str, dict[str, Any]]:
    cards = draw(st.permutations(DECK))
    n_trick = draw(st.integers(0, 3))
    n_hand = draw(st.integers(1, 8))
    options = {k: draw(st.sampled_from(CHOICES[k])) for k in
               ("play", "rotterdam_must_undertrump", "amsterdam_partner_trump",
                "amsterdam_cannot_overtrump")}
    # bias towards the interesting cases: few suits in play
    suits = draw(st.sets(st.sampled_from("CDHS"), min_size=1, max_size=4))
    pool = [c for c in cards if c[-1] in suits] or cards
    trick, hand = pool[:n_trick], pool[n_trick:n_trick + n_hand]
    if not hand:
        hand = [c for c in cards if c not in trick][:1]
    return hand, trick, draw(st.sampled_from(sorted(suits))), options


@settings(max_examples=int(os.environ.get("JASLOG_EXAMPLES", "200")), deadline=None)
@given(situations())
def test_legal_matches_the_rule_books_pseudocode(
        s: tuple[list[str], list[str], str, dict[str, Any]]) -> None:
    hand, trick, trump, options = s
    rules = PlayRules.from_options(resolve("amsterdam", options))
    h = hand_mask(CARD_INDEX[c] for c in hand)
    t = [CARD_INDEX[c] for c in trick]
    tr = "CDHS".index(trump)
    got = legal(h, t, tr, rules)
    assert {c for c in hand if got >> CARD_INDEX[c] & 1} == my_legal(hand, trick, trump, options)
    for c in cards_of(h):
        assert (judge(h, t, tr, rules, c) is None) == bool(got >> c & 1)


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[dict[str, Any]], int, str]:
    ruleset, options, seed = draw(games())
    options["game_end"] = {"type": "deals", "count": 1}
    if draw(st.booleans()):
        options["revoke"] = draw(st.sampled_from(["penalty", "reject", "ignore"]))
    events = simulate_game("m", ruleset, options, seed=seed)
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    i = draw(st.sampled_from(plays[:-4]))      # in the last trick nobody has another card
    # the player's hand at that moment, from the deal and his earlier plays (not the fold)
    dealt = next(e for e in events if e["type"] == "dealt")
    seat = events[i]["seat"]
    played = {e["card"] for e in events[:i] if e["type"] == "play" and e["seat"] == seat}
    held = [c for c in dealt["hands"][seat] if c not in played and c != events[i]["card"]]
    return ruleset, options, events, i, draw(st.sampled_from(held))


@SETTINGS
@given(mutations())
def test_a_changed_play_is_legal_or_reported_with_the_right_rule(
        m: tuple[str, dict[str, Any], list[dict[str, Any]], int, str]) -> None:
    ruleset, options, events, i, card = m
    seat = events[i]["seat"]
    # trick and hand at that moment, worked out from the events
    round_plays = [e for e in events[:i] if e["type"] == "play"]
    trick = [CARD_INDEX[e["card"]] for e in round_plays[len(round_plays) // 4 * 4:]]
    dealt = next(e for e in events if e["type"] == "dealt")
    gone = {e["card"] for e in round_plays if e["seat"] == seat}
    hand = hand_mask(CARD_INDEX[c] for c in dealt["hands"][seat] if c not in gone)
    before = fold(event_from_dict(e) for e in events[:i])
    trump = before.state.rounds[-1].trump
    assert trump is not None
    verdict = judge(hand, trick, trump, PlayRules.from_options(resolve(ruleset, options)),
                    CARD_INDEX[card])

    changed = [*events[:i], {**events[i], "card": card}]
    reject = options.get("revoke") == "reject"
    if verdict is not None and reject:
        with pytest.raises(FoldError) as err:
            fold(event_from_dict(e) for e in changed)
        assert (err.value.code, err.value.seq, err.value.card) == (verdict[0], i, card)
        return
    f = fold(event_from_dict(e) for e in changed)
    found = [(v.rule, v.seat, v.seq) for v in f.state.violations]
    assert found == ([] if verdict is None else [(verdict[0], seat, i)])
    # the rest of the original log on top: a fold error at worst, never a crash
    try:
        for e in events[i + 1:]:
            f.apply(event_from_dict(e))
    except FoldError as e:
        assert e.code and e.message and e.seq is not None and e.seq > i


# ---------------------------------------------------------------- the sample replays

SAMPLES = {
    # game: (file, ok, totals, winner, [(seq, rule)])
    "dehoop-2026-11-20-t3": ("amsterdam-free.jsonl", True, [1271, 1741], 1, []),
    "troef-2026-11-21-t1": ("rotterdam-random-trump.jsonl", True, [1755, 1317], 0, []),
    "kantine-2026-11-28": ("amsterdam-no-hands.jsonl", True, [1579, 1483], 0, []),
    "dehoop-2026-11-27-t2": ("amsterdam-revoke-ruling.jsonl", False, [1425, 1265], 0, [
        (46, "must_follow_suit"), (56, "must_overtrump"), (64, "must_follow_suit"),
        (108, "roem_false"), (315, "roem_false"), (390, "roem_false")]),
}


@pytest.mark.parametrize("game", sorted(SAMPLES))
def test_samples_check_as_expected(game: str) -> None:
    name, ok, totals, winner, violations = SAMPLES[game]
    [g] = list(fold_lines(read_file(ROOT / "replays" / name)))
    assert not isinstance(g, FoldError)
    rep = game_report(g.game, g.fold, g.error)
    assert rep["game"] == game and rep["error"] is None
    assert (rep["ok"], rep["totals"], rep["finished"], rep["winner"]) == (ok, totals, True, winner)
    assert [(v["seq"], v["rule"]) for v in rep["violations"]] == violations
    assert len(rep["rounds"]) == 16
    for r in rep["rounds"]:
        assert sum(r["points"]) == 162
        assert [len(t["cards"]) for t in r["tricks"]] == [4] * 8
    if game == "dehoop-2026-11-27-t2":
        r2 = rep["rounds"][1]
        # round 2: team 0 revoked first (seq 46); team 1 gets 162 + all roem claimed in the
        # round (20 for the diamond run of trick 3, 50 for the run of trick 4) = 232; the
        # director struck the round: 0-0
        assert (r2["result"], r2["score"]) == ("revoke", [0, 232])
        assert r2["ruling"]["score"] == [0, 0]


@SETTINGS
@given(games(), st.floats(0.02, 0.3))
def test_hands_not_recorded_judge_the_same(g: tuple[str, dict[str, Any], int], rate: float) -> None:
    """A game with revokes folds to the same violations and scores when its deals carry no
    hands: the round is judged when its 32 cards are in."""
    ruleset, options, seed = g
    if options.get("revoke") == "reject":
        options["revoke"] = "penalty"
    events = simulate_game("h", ruleset, options, seed=seed, faults=Faults(revoke_rate=rate,
                                                                           false_roem_rate=0.05))
    seen = fold(event_from_dict(e) for e in events)
    blind = fold(event_from_dict({k: v for k, v in e.items() if k != "hands"}) for e in events)
    key = sorted((v.seq, v.rule, v.seat, v.card, v.trick) for v in seen.state.violations)
    assert sorted((v.seq, v.rule, v.seat, v.card, v.trick) for v in blind.state.violations) == key
    assert blind.state.outcomes() == seen.state.outcomes()
    assert blind.state.winner == seen.state.winner


# ---------------------------------------------------------------- any event, never a crash

CARDS = st.sampled_from(DECK)
SEATS_ = st.integers(0, 3)


@st.composite
def any_event(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["dealt", "dealt_hands", "trump_turned", "bid", "play", "play",
                                 "play", "roem", "ruling", "note"]))
    if kind == "dealt":
        return {"type": "dealt", **({"dealer": draw(SEATS_)} if draw(st.booleans()) else {})}
    if kind == "dealt_hands":
        deck = draw(st.permutations(DECK))
        hands = [deck[i * 8:i * 8 + 8] for i in range(4)]
        if draw(st.booleans()):                   # sometimes a bad deal
            hands[draw(SEATS_)][0] = draw(CARDS)
        return {"type": "dealt", "hands": hands}
    if kind == "trump_turned":
        return {"type": "trump_turned",
                "card": draw(st.sampled_from(["2", "4", "6", "7", "10", "J"])) + draw(
                    st.sampled_from("CDHS"))}
    if kind == "bid":
        return {"type": "bid", "seat": draw(SEATS_),
                "call": draw(st.sampled_from(["pass", "accept", "C", "D", "H", "S"]))}
    if kind == "play":
        return {"type": "play", "seat": draw(SEATS_), "card": draw(CARDS)}
    if kind == "roem":
        return {"type": "roem", "seat": draw(SEATS_), "points": draw(st.sampled_from([0, 20, 50, 70]))}
    if kind == "ruling":
        return {"type": "ruling", "round": draw(st.integers(1, 3)), "reason": "r",
                "score": draw(st.lists(st.integers(0, 300), min_size=2, max_size=3))}
    return {"type": "note", "text": "n", **({"round": draw(st.integers(1, 3))} if draw(st.booleans())
                                           else {})}


@SETTINGS
@given(games(), st.lists(any_event(), max_size=80), st.integers(0, 200))
def test_any_events_give_a_fold_error_at_worst(g: tuple[str, dict[str, Any], int],
                                               extra: list[dict[str, Any]], cut: int) -> None:
    """A real game cut anywhere, then random events: each is applied or refused with a
    FoldError (and then changes nothing); the report and the table can always be drawn."""
    from jaslog.play.render import render_table

    ruleset, options, seed = g
    events = simulate_game("x", ruleset, options, seed=seed)[:cut + 1]
    f = fold(event_from_dict(e) for e in events)
    for e in extra:
        seq = f.next_seq
        before = game_report("x", f)
        try:
            f.apply(event_from_dict({"game": "x", "seq": seq, **e}))
        except FoldError as err:
            assert err.code and err.game == "x" and err.seq == seq
            assert f.next_seq == seq
            assert game_report("x", f) == before
    rep = game_report("x", f)
    assert tuple(rep) == REPORT_KEYS
    for viewer in (None, 0, 3):
        render_table(f, viewer)
