"""Klaberjass legal plays (4.7), sequences (4.5), deal scoring (4.8) and the game (4.9)."""

from __future__ import annotations

import pytest

from jaslog.cards import HEARTS, hand_text, parse_card, parse_hand
from jaslog.games.klaberjass.rules import (
    PlayRules,
    ScoreRules,
    SequenceRules,
    explain,
    judge,
    legal,
    run_text,
    runs,
    score_deal,
    score_sequences,
)

from .logs import Log, words

FREE, HEAD = PlayRules(), PlayRules(must_head_plain_lead=True)


def c(t: str) -> int:
    return parse_card(t)


@pytest.mark.parametrize("hand, trick, rules, expected", [
    ("7H 9H AS KC", "", FREE, "7H 9H KC AS"),            # lead: anything
    ("7H 9H AS KC", "JH", FREE, "7H 9H"),                # trump lead, nothing beats J: any trump
    ("7H 9H AS KC", "10H", FREE, "9H"),                  # 9 beats 10 in trumps: head it
    ("7H 8H AS KC", "10H", FREE, "7H 8H"),               # cannot head: any trump
    ("AS KC 7D", "10H", FREE, "KC 7D AS"),               # no trump: anything
    ("7S AS KC 9H", "10S", FREE, "7S AS"),               # plain lead: follow, need not win
    ("7S AS KC 9H", "10S", HEAD, "AS"),                  # option: head a plain lead
    ("7S 8S KC 9H", "10S", HEAD, "7S 8S"),               # cannot head: any of the suit
    ("KC 9H 7H", "10S", FREE, "7H 9H"),                  # void: must trump (any trump)
    ("KC 7D", "10S", FREE, "KC 7D"),                     # void, no trumps: anything
])
def test_legal(hand: str, trick: str, rules: PlayRules, expected: str) -> None:
    mask = legal(parse_hand(hand), [c(x) for x in trick.split()], HEARTS, rules)
    assert hand_text(mask) == hand_text(parse_hand(expected))
    assert explain(parse_hand(hand), [c(x) for x in trick.split()], HEARTS, rules)[0] == mask


@pytest.mark.parametrize("hand, trick, card, rules, code", [
    ("7S AS KC 9H", "10S", "KC", FREE, "must_follow_suit"),
    ("7S AS KC 9H", "10S", "9H", FREE, "must_follow_suit"),   # trumping while able to follow
    ("7H 9H AS", "10H", "7H", FREE, "must_overtrump"),
    ("7H 9H AS", "10H", "AS", FREE, "must_follow_suit"),
    ("7S AS KC", "10S", "7S", HEAD, "must_head"),
    ("KC 9H 7H", "10S", "KC", FREE, "must_trump"),
])
def test_judge_codes(hand: str, trick: str, card: str, rules: PlayRules, code: str) -> None:
    got = judge(parse_hand(hand), [c(x) for x in trick.split()], HEARTS, rules, c(card))
    assert got is not None and got[0] == code
    assert card in got[1]


def test_judge_none_for_legal_cards() -> None:
    assert judge(parse_hand("7S AS KC"), [c("10S")], HEARTS, FREE, c("7S")) is None


# ---------------------------------------------------------------- sequences

def test_runs_are_maximal_and_never_split() -> None:
    assert [run_text(r) for r in runs(parse_hand("7C 8C 9C 10C JC QC KC AC"))] == ["7C-AC"]
    assert [run_text(r) for r in runs(parse_hand("7C 8C 9C JC QC KC 9H 10H"))] == ["7C-9C", "JC-KC"]
    assert runs(parse_hand("9H 10H QH KH")) == []      # 10 and Q are not adjacent without J
    assert [run_text(r) for r in runs(parse_hand("9H 10H JH"))] == ["9H-JH"]   # T between 9 and J


RULES = SequenceRules()


def seqs(h0: str, h1: str, trump: int = HEARTS, elder: int = 0,
         rules: SequenceRules = RULES) -> tuple[int | None, list[int]]:
    r = score_sequences([runs(parse_hand(h0)), runs(parse_hand(h1))], trump, elder, rules)
    return r.best, r.points


@pytest.mark.parametrize("h0, h1, best, points", [
    ("7C 8C 9C", "", 0, [20, 0]),
    ("7C 8C 9C 10C", "QS KS AS", 0, [50, 0]),                # 50 beats 20 whatever its top
    ("7C 8C 9C 10C JC", "8S 9S 10S JS", None, [0, 0]),       # five or four: both 50, top J
    ("7C 8C 9C 10C JC", "8H 9H 10H JH", 1, [0, 50]),         # ... the trump one is best
    ("JC QC KC", "10S JS QS", 0, [20, 0]),                   # equal value: higher top card
    ("JC QC KC 7D 8D 9D", "10S JS QS", 0, [40, 0]),          # the best holder scores all his
    ("JC QC KC", "JH QH KH", 1, [0, 20]),                    # same top: the trump one
    ("JC QC KC", "JS QS KS", None, [0, 0]),                  # still equal: neither scores
])
def test_best_sequence(h0: str, h1: str, best: int | None, points: list[int]) -> None:
    assert seqs(h0, h1) == (best, points)


def test_sequence_options() -> None:
    elder = SequenceRules(tie="elder_wins")
    assert seqs("JC QC KC", "JS QS KS", elder=1, rules=elder) == (1, [0, 20])
    assert seqs("JC QC KC", "JS QS KS", elder=0, rules=elder) == (0, [20, 0])
    values = SequenceRules(three=30, four_plus=100)
    assert seqs("JC QC KC AC 7D 8D 9D", "", rules=values) == (0, [130, 0])


def test_sequences_require_a_trick() -> None:
    # seat 0 (no sequence) takes all nine tricks; seat 1 holds the only sequence, 7C-9C
    log = Log(options={"sequences_require_a_trick": True})
    log.deal(["7H 9H JH KH AS KS", "7C 8C 9C 7S 9S 10S"], "8H").bid(0, "take")
    log.second(["AD KD AC", "7D 9D 10D"], "QC")
    for cards in ["AS 7S", "KS 9S", "AD 7D", "KD 9D", "AC 7C", "JH 8C", "9H 9C", "KH 10S", "7H 10D"]:
        log.trick(0, cards)
    rep = log.report()
    assert rep["violations"] == []
    r = rep["rounds"][0]
    assert r["tricks_won"] == [9, 0]
    assert r["sequences"] == [0, 0] and r["sequence_best"] == 1
    plain = Log()
    plain.events[1:] = [dict(e) for e in log.events[1:]]
    assert plain.report()["rounds"][0]["sequences"] == [0, 20]


# ---------------------------------------------------------------- deal scoring

@pytest.mark.parametrize("totals, maker, mode, revoke, score, result, held", [
    ([100, 60], 0, "half_bete", None, [100, 60], "made", 0),
    ([60, 100], 1, "half_bete", None, [60, 100], "made", 0),
    ([80, 80], 0, "half_bete", None, [0, 80], "tie", 0),
    ([80, 80], 1, "half_bete", None, [80, 0], "tie", 0),
    ([80, 80], 0, "carry_over", None, [0, 80], "tie", 80),
    ([60, 100], 0, "half_bete", None, [0, 160], "bete", 0),
    ([100, 60], 1, "half_bete", None, [160, 0], "bete", 0),
    ([100, 60], 0, "half_bete", 0, [0, 160], "revoke", 0),
    ([100, 60], 0, "half_bete", 1, [160, 0], "revoke", 0),
])
def test_score_deal(totals: list[int], maker: int, mode: str, revoke: int | None,
                    score: list[int], result: str, held: int) -> None:
    ds = score_deal(ScoreRules(tie_mode=mode), totals, maker, revoke)
    assert (ds.score, ds.result, ds.held) == (score, result, held)


def test_revoke_ignore_scores_as_played() -> None:
    ds = score_deal(ScoreRules(revoke="ignore"), [100, 60], 0, revoke_seat=0)
    assert (ds.score, ds.result) == ([100, 60], "made")


# ---------------------------------------------------------------- through the fold

def revoked_deal(log: Log) -> Log:
    """Deal K, but in trick 5 seat 0 leads 7C and seat 1, holding 8C 9C 10C, throws 7D."""
    log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH").bid(0, "take")
    log.second(["JS KH 7H", "8H 7D 8D"], "KD").dix(0)
    for leader, cards in [(0, "JH 8H"), (0, "9H 10H"), (0, "KH AH"), (1, "AD QH"), (0, "7C 7D"),
                          (0, "AS 8D"), (0, "KS 8C"), (0, "QS 9C"), (0, "JS 10C")]:
        log.trick(leader, cards)
    return log


def test_revoke_penalty_and_reject() -> None:
    rep = revoked_deal(Log()).report()
    assert [(v["rule"], v["seat"], v["card"], v["trick"]) for v in rep["violations"]] == [
        ("must_follow_suit", 1, "7D", 5)]
    r = rep["rounds"][0]
    # seat 1 revoked: it scores 0, seat 0 both totals (card points 113 + sequences + bella)
    assert r["result"] == "revoke"
    assert r["score"] == [sum(r["deal_totals"]), 0]
    with pytest.raises(Exception) as err:
        revoked_deal(Log(options={"revoke": "reject"})).fold()
    assert getattr(err.value, "code", None) == "must_follow_suit"
    ignore = revoked_deal(Log(options={"revoke": "ignore"})).report()["rounds"][0]
    assert ignore["result"] == "made" and ignore["score"] == ignore["deal_totals"]


def play_deal(log: Log, dealer: int, maker_wins: bool) -> Log:
    """A quick deal: the elder takes; the elder holds all the trumps (maker_wins) or the
    dealer does, so one player takes every trick."""
    elder = 1 - dealer
    strong, weak = ("JH 9H AH 10H KH QH", "7C 8C 9C 10C JC QC")
    hands = [""] * 2
    hands[elder], hands[dealer] = (strong, weak) if maker_wins else (weak, strong)
    log.deal(hands, "8H").bid(elder, "take" if maker_wins else "pass")
    if not maker_wins:
        log.bid(dealer, "take")
    second = [""] * 2
    second[elder], second[dealer] = ("7S 8S 9S", "KC AC 7D") if maker_wins else ("KC AC 7D", "7S 8S 9S")
    log.second(second, "AS")
    winner = elder if maker_wins else dealer
    w_cards = words("JH 9H AH 10H KH QH 7S 8S 9S")
    l_cards = words("7C 8C 9C 10C JC QC KC AC 7D")
    lead = elder
    for a, b in zip(w_cards, l_cards, strict=True):
        log.trick(lead, f"{a} {b}" if lead == winner else f"{b} {a}")
        lead = winner
    return log


def test_game_to_500_alternating_dealers() -> None:
    log = Log(dealer=1)
    totals = [0, 0]
    dealer = 1
    while True:
        play_deal(log, dealer, maker_wins=True)
        rep = log.report()
        r = rep["rounds"][-1]
        assert r["dealer"] == dealer
        totals[1 - dealer] += r["score"][1 - dealer]
        assert rep["totals"] == totals
        if rep["finished"]:
            break
        dealer = 1 - dealer
    assert max(totals) >= 500 and rep["winner"] == totals.index(max(totals))
    with pytest.raises(Exception) as err:
        play_deal(log, 1 - dealer, maker_wins=True).fold()
    assert getattr(err.value, "code", None) == "game_over"


def test_both_over_the_target_with_equal_totals_play_on() -> None:
    from .logs import deal_k

    log = deal_k(Log(dealer=1, options={"target": 100})).ruling(1, [150, 150], "a draw ruled")
    rep = log.report()
    assert rep["totals"] == [150, 150] and not rep["finished"] and rep["winner"] is None
    assert log.fold().state.expected() == ("deal", 0)
    log.ruling(1, [150, 149], "corrected")
    rep = log.report()
    assert rep["finished"] and rep["winner"] == 0


def test_round_winner_deals() -> None:
    log = Log(dealer=1, options={"dealer_rotation": "round_winner_deals"})
    play_deal(log, 1, maker_wins=True)        # seat 0 wins the deal: seat 0 deals next
    assert log.fold().state.expected() == ("deal", 0)
    play_deal(log, 0, maker_wins=False)       # the dealer (seat 0) makes and wins: deals again
    assert log.fold().state.expected() == ("deal", 0)


def tie_deal(log: Log) -> Log:
    """Dealer 1; seat 0 takes hearts (the turn-up 8H) though nobody holds a heart. Seat 0
    wins three club leads (AC 10S, 10C 7S, 7C KS: 35 points), loses 7D to 8D, and seat 1
    takes its five spade leads (8S 8C, 9S 9C, JS JC, QS QC, AS KC: 25 + 10 last = 35).
    Both hold a plain ace-high run of eight (50 each): equal, neither scores. 35 to 35."""
    log.deal(["7C 8C 9C 10C JC QC", "7S 8S 9S 10S JS QS"], "8H").bid(0, "take")
    log.second(["KC AC 7D", "KS AS 8D"], "AH")
    for leader, cards in [(0, "AC 10S"), (0, "10C 7S"), (0, "7C KS"), (0, "7D 8D"), (1, "8S 8C"),
                          (1, "9S 9C"), (1, "JS JC"), (1, "QS QC"), (1, "AS KC")]:
        log.trick(leader, cards)
    return log


def test_a_tie_half_bete_and_carry_over() -> None:
    r = tie_deal(Log(dealer=1)).report()["rounds"][0]
    assert (r["deal_totals"], r["sequences"], r["result"]) == ([35, 35], [0, 0], "tie")
    assert (r["score"], r["held"]) == ([0, 35], 0)          # half bete: the maker scores 0
    log = tie_deal(Log(dealer=1, options={"tie_mode": "carry_over"}))
    r = log.report()["rounds"][0]
    assert (r["score"], r["held"]) == ([0, 35], 35)         # the maker's 35 are set aside
    # deal 2 (dealer 0): seat 1 takes and wins every trick: 102 card points, 70 sequences
    # (9H-AH beats 7C-AC: same value and top card, trumps), bella 20; it takes the 35 held
    play_deal(log, 0, maker_wins=True)
    rep = log.report()
    r2 = rep["rounds"][1]
    assert (r2["result"], r2["score"], r2["received"]) == ("made", [0, 192], 35)
    assert rep["totals"] == [0, 35 + 192 + 35]
