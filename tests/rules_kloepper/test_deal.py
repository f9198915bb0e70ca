"""Kloepper deals through the fold, worked out by hand (``logs.py``): partnerships, calls,
knocks, scoring per player, the end of the game, integrity errors, unseen hands."""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.engine.fold import FoldError
from jaslog.play.audit import REPORT_KEYS

from .logs import HANDS_C, HANDS_P, POINTS_P, TRICKS_P, WINNERS_P, Log

# Deal C (seat 0 holds both black queens), played out:
#  1: 0 AH 9H 9S QH -> 0 (14)   2: 0 QC JC JH 9D -> 0 (7)    3: 0 KH 9C 10S QD -> 3 (17)
#  4: 3 AD JD 10C JS -> 2 (25)  5: 2 AS 10D 10H KC -> 3 (35) 6: 3 KD QS AC KS -> 0 (22)
# Seat 0 makes 43 in 3 tricks; the called AC is seat 1's (no trick): the pair makes 43.
TRICKS_C = [(0, "AH 9H 9S QH"), (0, "QC JC JH 9D"), (0, "KH 9C 10S QD"), (3, "AD JD 10C JS"),
            (2, "AS 10D 10H KC"), (3, "KD QS AC KS")]

# Deal S: seat 0 holds the six highest trumps and leads them: every trick is his.
HANDS_S = ["QC QS JC JS JH JD", "AD 10D KD QD 9D 9C", "AC 10C KC 9S 10S KS",
           "AS 9H 10H QH KH AH"]
TRICKS_S = [(0, "QC 9D 9S 9H"), (0, "QS QD 10S 10H"), (0, "JC KD KS QH"), (0, "JS 10D 10C KH"),
            (0, "JH AD KC AH"), (0, "JD 9C AC AS")]


def deal(log: Log, hands: list[str], tricks: list[tuple[int, str]], *, seen: bool = True,
         before: list[tuple[str, int, Any]] | None = None) -> Log:
    log.deal(hands if seen else None)
    for kind, seat, arg in before or []:
        if kind == "call":
            log.call(seat, arg)
        else:
            log.add(kind, seat=seat)
    return log.tricks(tricks)


def one(log: Log) -> dict[str, Any]:
    rep = log.report()
    assert rep["error"] is None
    return rep


@pytest.mark.parametrize("seen", [True, False])
def test_deal_p_as_worked_by_hand(seen: bool) -> None:
    rep = one(deal(Log(), HANDS_P, TRICKS_P, seen=seen))
    assert tuple(rep) == REPORT_KEYS and rep["ok"]
    r = rep["rounds"][0]
    assert [t["points"] for t in r["tricks"]] == POINTS_P
    assert [t["winner"] for t in r["tricks"]] == WINNERS_P
    assert (r["queens"], r["mode"], r["queens_points"], r["queens_tricks"]) == ([0, 1], "pair", 39, 3)
    assert r["points"] == [21, 18, 0, 81] and r["tricks_won"] == [2, 1, 0, 3]
    assert (r["result"], r["row"], r["score"]) == ("others", "no_knock.non_queens_61", [0, 0, 4, 4])
    assert rep["totals"] == [0, 0, 4, 4]           # one entry per player
    assert [set(h) for h in r["hands"]] == [set(h.split()) for h in HANDS_P]


@pytest.mark.parametrize("seen", [True, False])
@pytest.mark.parametrize("before, score, row, rules", [
    ([("knock", 0, None)], [0, 0, 12, 12], "failed_pair_knock_no_contra", []),
    ([("knock", 0, None), ("knock_back", 3, None)], [0, 0, 24, 24],
     "knock.knock_back_takes_a_trick", []),
    ([("knock", 2, None)], [0, 0, 4, 4], "no_knock.non_queens_61", ["knock_not_allowed"]),
    ([("knock", 0, None), ("knock_back", 1, None)], [0, 0, 12, 12],
     "failed_pair_knock_no_contra", ["knock_back_not_allowed"]),
    ([("knock_back", 3, None)], [0, 0, 4, 4], "no_knock.non_queens_61", ["knock_back_not_allowed"]),
    ([("knock", 0, None), ("knock", 1, None)], [0, 0, 12, 12], "failed_pair_knock_no_contra",
     ["knock_twice"]),
])
def test_knocks_on_deal_p(seen: bool, before: list, score: list[int], row: str,
                          rules: list[str]) -> None:
    rep = one(deal(Log(), HANDS_P, TRICKS_P, seen=seen, before=before))
    r = rep["rounds"][0]
    assert (r["score"], r["row"]) == (score, row)
    assert [v["rule"] for v in rep["violations"]] == rules


def test_the_knock_window_closes_at_trick_2() -> None:
    log = Log().deal(HANDS_P).trick(0, "AH 9C 9S QH").knock(0)      # after trick 1: in time
    log.play(0, "QC").knock_back(3)                                  # in trick 2: too late
    log.trick(1, "JC JH 9D")
    for leader, cards in TRICKS_P[2:]:
        log.trick(leader, cards)
    rep = one(log)
    assert [(v["rule"], v["seat"]) for v in rep["violations"]] == [("knock_late", 3)]
    assert rep["rounds"][0]["knock"] and not rep["rounds"][0]["knock_back"]


@pytest.mark.parametrize("seen", [True, False])
@pytest.mark.parametrize("call, score, mode, rules", [
    ("AC", [0, 0, 4, 4], "called", []),                          # partner seat 1 (holds AC)
    ("alone", [0, 6, 6, 6], "alone", []),                        # 77 >= 61: 6 to each (alone)
    ("AH", [0, 6, 6, 6], "alone", ["call_own_ace"]),             # his own ace: he is alone
    ("AD", [0, 6, 6, 6], "alone", ["partner_call_not_allowed"]),  # a trump, not a called ace
    (None, [0, 6, 6, 6], "alone", ["partner_call_missing"]),
])
def test_calls(seen: bool, call: str | None, score: list[int], mode: str, rules: list[str]) -> None:
    before = [("call", 0, call)] if call else []
    rep = one(deal(Log(), HANDS_C, TRICKS_C, seen=seen, before=before))
    r = rep["rounds"][0]
    assert (r["score"], r["mode"], r["queens_points"]) == (score, mode, 43)
    assert [v["rule"] for v in rep["violations"]] == rules
    said = {"AH": "seat 0 called 'AH' but it holds AH itself",
            "AD": "seat 0 called 'AD' but AD is a trump: the call is of a non-trump ace"}
    if call in said:  # the sentence reads as one
        assert rep["violations"][0]["message"] == said[call]


def test_call_by_the_wrong_player_and_options() -> None:
    rep = one(deal(Log(), HANDS_C, TRICKS_C, before=[("call", 1, "AS")]))
    assert [v["rule"] for v in rep["violations"]] == ["partner_call_not_allowed",
                                                      "partner_call_missing"]
    rep = one(deal(Log(options={"both_queens": ["call_ace"]}), HANDS_C, TRICKS_C,
                   before=[("call", 0, "alone")]))
    assert [v["rule"] for v in rep["violations"]] == ["partner_call_not_allowed"]
    rep = one(deal(Log(options={"call_own_ace_allowed": True}), HANDS_C, TRICKS_C,
                   before=[("call", 0, "AH")]))
    assert rep["violations"] == [] and rep["rounds"][0]["mode"] == "alone"
    late = Log().deal(HANDS_C).play(0, "AH").call(0, "AC")
    late.play(1, "9H").play(2, "9S").play(3, "QH")
    for leader, cards in TRICKS_C[1:]:
        late.trick(leader, cards)
    rep = one(late)
    assert [v["rule"] for v in rep["violations"]] == ["partner_call_missing", "partner_call_late"]
    assert rep["rounds"][0]["mode"] == "called"
    with pytest.raises(FoldError) as err:
        Log().deal(HANDS_C).call(0, "AC").call(0, "AS").fold()
    assert err.value.code == "partner_call_twice"


def test_the_expected_call() -> None:
    f = Log().deal(HANDS_C).fold()
    assert f.state.expected() == ("call", 0)
    f = Log().deal(HANDS_C).call(0, "AC").fold()
    assert f.state.expected() == ("play", 0)


@pytest.mark.parametrize("before, score, row", [
    ([("call", 0, "alone")], [18, 0, 0, 0], "no_knock.queens_all_tricks"),
    ([("call", 0, "alone"), ("knock", 0, None)], [30, 0, 0, 0], "knock.knockers_all_tricks"),
    ([("call", 0, "alone"), ("knock", 0, None), ("knock_back", 2, None)], [24, 0, 0, 0],
     "knock.knock_back_takes_none"),
    ([("call", 0, "AS"), ("knock", 0, None)], [12, 0, 0, 12], "knock.knockers_all_tricks"),
])
def test_all_six_tricks(before: list, score: list[int], row: str) -> None:
    r = one(deal(Log(), HANDS_S, TRICKS_S, before=before))["rounds"][0]
    assert (r["score"], r["row"], r["queens_tricks"], r["queens_points"]) == (score, row, 6, 120)


def test_alone_knocker_fails() -> None:
    r = one(deal(Log(), HANDS_C, TRICKS_C, before=[("call", 0, "alone"), ("knock", 0, None)]))
    assert (r["rounds"][0]["score"], r["rounds"][0]["row"]) == ([0, 30, 30, 30],
                                                               "knock.alone_knocker_fails")


def test_revoke_scores_as_if_the_other_side_took_every_trick() -> None:
    # trick 1: seat 3 trumps the heart lead with 9D while holding QH (must follow) and wins
    log = Log().deal(HANDS_P).tricks([
        (0, "AH 9C 9S 9D"), (3, "QH 9H 10C 10S"), (3, "AD JD JC JH"), (1, "AC KS 10D 10H"),
        (3, "KD QC QS JS"), (0, "KH KC AS QD")])
    rep = one(log)
    assert [(v["rule"], v["seat"], v["card"], v["trick"]) for v in rep["violations"]] == [
        ("must_follow_suit", 3, "9D", 1)]
    r = rep["rounds"][0]
    assert (r["result"], r["row"], r["score"]) == ("revoke", "no_knock.queens_all_tricks",
                                                   [6, 6, 0, 0])
    reject = Log(options={"revoke": "reject"})
    reject.events[1:] = [dict(e) for e in log.events[1:]]
    with pytest.raises(FoldError) as err:
        reject.fold()
    assert err.value.code == "must_follow_suit"


def test_game_end_needs_30_and_a_unique_leader() -> None:
    log = deal(Log(), HANDS_S, TRICKS_S, before=[("call", 0, "alone"), ("knock", 0, None)])
    rep = one(log)
    assert rep["totals"] == [30, 0, 0, 0] and rep["finished"] and rep["winner"] == 0
    with pytest.raises(FoldError) as err:
        log.deal(HANDS_P).fold()
    assert err.value.code == "game_over"
    tie = Log().deal(HANDS_P).tricks(TRICKS_P).ruling(1, [30, 30, 0, 0], "split")
    rep = one(tie)
    assert rep["totals"] == [30, 30, 0, 0] and not rep["finished"]
    assert tie.fold().state.expected() == ("deal", 0)       # dealer rotates clockwise
    tie.deal(HANDS_P).ruling(2, [0, 1, 0, 0], "abandoned")
    assert one(tie)["winner"] == 1


@pytest.mark.parametrize("hands, code", [
    (["7C 9H 10H KH AH JD", "QS AC 9C 10C KC JC", "AS 9S 10S KS JS JH", "AD 10D KD QD 9D QH"],
     "card_not_in_pack"),
    (["QC 9H 10H KH AH", "QS AC 9C 10C KC JC", "AS 9S 10S KS JS JH", "AD 10D KD QD 9D QH"],
     "bad_deal"),
    (["QC 9H 10H KH AH JD", "QS AC 9C 10C KC JC", "AS 9S 10S KS JS JH", "AD 10D KD QD 9D AH"],
     "dealt_twice"),
    (["QC 9H 10H KH AH JD", "QS AC 9C 10C KC JC", "AS 9S 10S KS JS JH"], "bad_deal"),
])
def test_bad_deals(hands: list[str], code: str) -> None:
    with pytest.raises(FoldError) as err:
        Log().deal(hands).fold()
    assert err.value.code == code


def test_integrity_of_plays_and_events() -> None:
    cases: list[tuple[Log, str]] = [
        (Log().deal(HANDS_P).play(1, "QS"), "not_your_turn"),
        (Log().deal(HANDS_P).play(0, "QS"), "card_not_held"),
        (Log().deal().play(0, "8H"), "card_not_in_pack"),
        (Log().deal().trick(0, "AH 9C 9S QH").play(0, "AH"), "card_played_twice"),
        (Log().deal(HANDS_P, turn_up="QH"), "bad_event"),
        (Log().deal(HANDS_P).add("bid", seat=0, call="pass"), "misplaced_event"),
        (Log().deal(HANDS_P).add("sequence", seat=0, cards=["9H", "10H", "JH"]), "misplaced_event"),
        (Log().deal(HANDS_P).tricks(TRICKS_P).ruling(1, [1, 2]), "bad_ruling"),
        (Log().deal(HANDS_P).tricks(TRICKS_P).knock(0), "round_over"),
    ]
    for log, code in cases:
        with pytest.raises(FoldError) as err:
            log.fold()
        assert err.value.code == code, (code, log.events[-1])


def test_a_ruling_abandons_a_deal_in_play() -> None:
    log = Log().deal(HANDS_P).trick(0, "AH 9C 9S QH").ruling(1, [0, 2, 0, 2], "misdeal")
    rep = one(log)
    r = rep["rounds"][0]
    assert r["result"] == "unfinished" and r["ruling"]["score"] == [0, 2, 0, 2]
    assert rep["totals"] == [0, 2, 0, 2]
    assert log.fold().state.expected() == ("deal", 0)
