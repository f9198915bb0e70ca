"""One Klaberjass deal through the fold, worked out by hand (see ``logs.py``), and its
variants: sequences declared or not, bella, the dix, hands seen or not, the stock."""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.engine.fold import FoldError
from jaslog.play.audit import REPORT_KEYS

from .logs import POINTS_K, WINNERS_K, Log, deal_k, words


def only_round(rep: dict) -> dict:
    assert len(rep["rounds"]) == 1
    return rep["rounds"][0]


@pytest.mark.parametrize("seen, stock", [(True, False), (True, True), (False, False)])
def test_deal_k_scores_as_worked_by_hand(seen: bool, stock: bool) -> None:
    rep = deal_k(Log(), seen=seen, stock=stock).report()
    assert tuple(rep) == REPORT_KEYS
    assert rep["ok"], rep["violations"]
    r = only_round(rep)
    assert [t["points"] for t in r["tricks"]] == POINTS_K
    assert [t["winner"] for t in r["tricks"]] == WINNERS_K
    assert r["trump"] == "H" and r["chooser"] == 0 and r["dix"] == 0 and r["bottom"] == "KD"
    assert r["points"] == [78, 35]
    assert r["tricks_won"] == [7, 2]
    assert r["sequences"] == [70, 0] and r["sequence_best"] == 0
    assert r["bella"] == [20, 0]
    assert r["deal_totals"] == [168, 35]
    assert (r["result"], r["score"]) == ("made", [168, 35])
    assert rep["totals"] == [168, 35]            # one entry per player
    assert rep["finished"] is False and rep["winner"] is None
    assert r["hands"] == [["7C", "9H", "JH", "QH", "KH", "JS", "QS", "KS", "AS"],
                          ["8C", "9C", "10C", "7D", "8D", "AD", "8H", "10H", "AH"]]


def test_declarations_are_reported_and_need_not_be_made() -> None:
    r = only_round(deal_k(Log()).report())
    assert [(d["seat"], d["sequence"], d["valid"]) for d in r["declarations"]] == [
        (0, "JS-AS", True), (0, "JH-KH", True), (1, "8C-10C", True)]
    assert r["bella_calls"] == [{"seat": 0, "valid": True, "fault": None}]
    # the defaults compute sequences and bella from the hands: no announcements needed
    quiet = only_round(deal_k(Log(), declare=False, bella=False).report())
    assert quiet["sequences"] == [70, 0] and quiet["bella"] == [20, 0]
    assert quiet["score"] == [168, 35]


def test_announcements_required() -> None:
    opts = {"sequences_require_announcement": True, "bella_requires_announcement": True}
    r = only_round(deal_k(Log(options=opts), declare=False, bella=False).report())
    assert r["sequences"] == [0, 0] and r["bella"] == [0, 0]
    assert r["score"] == [78, 35]
    # only seat 1 declares: seat 1's 20 is the only sequence on the table
    log = Log(options=opts)
    log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH").bid(0, "take")
    log.second(["JS KH 7H", "8H 7D 8D"], "KD").dix(0).play(0, "JH").sequence(1, "8C 9C 10C")
    log.play(1, "8H")
    for leader, cards in [(0, "9H 10H"), (0, "KH AH"), (1, "AD QH")]:
        log.trick(leader, cards)
    log.bella(0)
    for leader, cards in [(0, "AS 7D"), (0, "KS 8D"), (0, "QS 8C"), (0, "JS 9C"), (0, "7C 10C")]:
        log.trick(leader, cards)
    r = only_round(log.report())
    assert r["sequences"] == [0, 20] and r["bella"] == [20, 0]
    assert r["score"] == [98, 55]


def test_a_declared_part_of_a_run_scores_as_declared() -> None:
    opts = {"sequences_require_announcement": True}
    log = Log(options=opts)
    log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH").bid(0, "take")
    log.second(["JS KH 7H", "8H 7D 8D"], "KD").dix(0).sequence(0, "QS KS AS")
    for leader, cards in [(0, "JH 8H"), (0, "9H 10H"), (0, "KH AH"), (1, "AD QH"), (0, "AS 7D"),
                          (0, "KS 8D"), (0, "QS 8C"), (0, "JS 9C"), (0, "7C 10C")]:
        log.trick(leader, cards)
    r = only_round(log.report())
    assert r["sequences"] == [20, 0]     # three of his four spades, as declared


@pytest.mark.parametrize("seen", [True, False])
def test_false_and_late_declarations(seen: bool) -> None:
    log = Log()
    log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"] if seen else None, "QH").bid(0, "take")
    log.second(["JS KH 7H", "8H 7D 8D"] if seen else None, "KD").dix(0)
    log.sequence(1, "QD KD AD")          # seat 1 holds AD only: false
    log.sequence(0, "7H 8H 9H")          # 7H went under the stock with the dix: false
    log.play(0, "JH").play(1, "8H").play(0, "9H")
    log.sequence(0, "JS QS KS")          # after trick 2 began: late (held, but too late)
    log.play(1, "10H")
    for leader, cards in [(0, "KH AH"), (1, "AD QH"), (0, "AS 7D"), (0, "KS 8D"), (0, "QS 8C"),
                          (0, "JS 9C"), (0, "7C 10C")]:
        log.trick(leader, cards)
    rep = log.report()
    got = [(v["rule"], v["seat"], v["seq"]) for v in rep["violations"]]
    assert got == [("sequence_false", 1, 5), ("sequence_false", 0, 6), ("sequence_late", 0, 10)]
    assert "does not hold QD KD" in rep["violations"][0]["message"]
    r = only_round(rep)
    assert [d["fault"] for d in r["declarations"]] == ["sequence_false", "sequence_false",
                                                       "sequence_late"]
    # the default scores sequences from the hands all the same
    assert r["sequences"] == [70, 0]


def test_a_card_declared_twice() -> None:
    log = Log()
    log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH").bid(0, "take")
    log.second(["JS KH 7H", "8H 7D 8D"], "KD").dix(0)
    log.sequence(0, "JS QS KS").sequence(0, "QS KS AS")
    rep = log.report()
    assert [(v["rule"], v["seq"]) for v in rep["violations"]] == [("sequence_false", 6)]
    assert "already declared" in rep["violations"][0]["message"]


def test_not_a_sequence_is_an_integrity_error() -> None:
    log = Log()
    log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH").bid(0, "take")
    log.second(["JS KH 7H", "8H 7D 8D"], "KD").sequence(0, "JS KS AS")
    with pytest.raises(FoldError) as err:
        log.fold()
    assert err.value.code == "bad_sequence" and err.value.seq == 4


@pytest.mark.parametrize("seen", [True, False])
def test_bella_false_early_late(seen: bool) -> None:
    log = Log()
    log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"] if seen else None, "QH").bid(0, "take")
    log.second(["JS KH 7H", "8H 7D 8D"] if seen else None, "KD").dix(0)
    log.trick(0, "JH 8H").bella(1)                   # seat 1 holds KH? no: AH 10H 8H: false
    log.trick(0, "9H 10H")
    log.play(0, "KH").bella(0)                       # QH not yet played: early
    log.play(1, "AH")
    log.trick(1, "AD QH").play(0, "AS").bella(0)     # a card later: late
    log.play(1, "7D")
    for leader, cards in [(0, "KS 8D"), (0, "QS 8C"), (0, "JS 9C"), (0, "7C 10C")]:
        log.trick(leader, cards)
    rep = log.report()
    assert [(v["rule"], v["seat"]) for v in rep["violations"]] == [
        ("bella_false", 1), ("bella_early", 0), ("bella_late", 0)]
    r = only_round(rep)
    assert r["bella"] == [20, 0]     # held: it counts (bella_requires_announcement false)
    opts_log = Log(options={"bella_requires_announcement": True})
    opts_log.events[1:] = [{**e, "game": opts_log.game} for e in log.events[1:]]
    assert only_round(opts_log.report())["bella"] == [0, 0]


def test_bella_after_the_last_card_counts() -> None:
    # hearts named in round 2; seat 0 leads its seven spades (seat 1 can neither follow nor
    # trump), then KH, and QH as the deal's last card: bella is announced after it
    log = Log()
    log.deal(["KH QH 7S 8S 9S 10S", "7C 8C 9C 10C JC QC"], "7D")
    log.bid(0, "pass").bid(1, "pass").bid(0, "H").second(["JS QS KS", "KC AC AD"], "AH")
    for a, b in zip(words("7S 8S 9S 10S JS QS KS KH QH"), words("7C 8C 9C 10C JC QC KC AC AD"),
                    strict=True):
        log.trick(0, f"{a} {b}")
    log.bella(0)
    rep = log.report()
    assert rep["violations"] == []
    r = only_round(rep)
    assert r["bella_calls"][0]["valid"] and r["bella"] == [20, 0]
    # 7S-KS and 7C-AC are runs of seven (50 each, never split); the ace-high one is best
    assert r["sequences"] == [0, 50]
    log.bella(0)                            # announced twice
    assert [v["rule"] for v in log.report()["violations"]] == ["bella_false"]
    with pytest.raises(FoldError) as err:   # the next deal closes the window
        log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH").bella(0).fold()
    assert err.value.code == "second_deal_missing"


def test_dix_rules() -> None:
    def base(trump_call: list[tuple[int, str]], dix_after_lead: bool = False) -> Log:
        log = Log()
        log.deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH")
        for seat, call in trump_call:
            log.bid(seat, call)
        log.second(["JS KH 7H", "8H 7D 8D"], "KD")
        if dix_after_lead:
            log.play(0, "JH")
        return log.dix(0)

    assert base([(0, "take")]).report()["violations"] == []
    late = base([(0, "take")], dix_after_lead=True).report()["violations"]
    assert [v["rule"] for v in late] == ["dix_late"]
    # hearts named in round 2 would be suit_not_allowed; spades named: the 7 of spades is
    # not held by seat 0 at all
    with pytest.raises(FoldError) as err:
        base([(0, "pass"), (1, "pass"), (0, "S")]).fold()
    assert err.value.code == "card_not_held"
    # clubs named in round 2: seat 0 holds 7C, but no exchange after round 2
    named = base([(0, "pass"), (1, "pass"), (0, "C")]).report()["violations"]
    assert [v["rule"] for v in named] == ["dix_not_allowed"]
    off = Log(options={"dix_exchange": False})
    off.events[1:] = [{**e, "game": off.game} for e in base([(0, "take")]).events[1:]]
    assert [v["rule"] for v in off.report()["violations"]] == ["dix_not_allowed"]
    with pytest.raises(FoldError) as err:
        base([(0, "take")]).dix(1).fold()
    assert err.value.code == "dix_twice"
    with pytest.raises(FoldError) as err:   # the turn-up is the seven of trumps itself
        Log().deal(None, "7H").bid(0, "take").second(None, "KD").dix(0).fold()
    assert err.value.code == "card_not_held" and "dix itself" in str(err.value)


def test_unseen_hands_cards_on_the_table_cannot_be_played() -> None:
    def start(dix: bool) -> Log:
        log = Log().deal(None, "QH").bid(0, "take").second(None, "KD")
        return log.dix(0) if dix else log

    for log, card, where in [
        (start(False), "QH", "turn-up card, on the table"),
        (start(False), "KD", "bottom card of the stock"),
        (start(True), "7H", "under the stock"),
    ]:
        with pytest.raises(FoldError) as err:
            log.play(0, card).fold()
        assert err.value.code == "card_not_held" and where in str(err.value)
    with pytest.raises(FoldError) as err:
        start(True).play(0, "JH").play(1, "QH").fold()   # the turn-up is seat 0's now
    assert err.value.code == "card_not_held" and "taken by seat 0" in str(err.value)


def test_stock_must_fit_the_deal() -> None:
    from .logs import stock_k

    good = stock_k()
    assert deal_k(Log(), stock=True).report()["error"] is None
    for stock, code in [(good[:-1], "bad_deal"), ([*good[1:], good[0]], "bad_deal"),
                        ([*good[:-1], "JH"], "dealt_twice")]:
        log = Log().deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH", stock=stock)
        log.bid(0, "take").second(["JS KH 7H", "8H 7D 8D"], "KD")
        with pytest.raises(FoldError) as err:
            log.fold()
        assert err.value.code == code


@pytest.mark.parametrize("hands, turn_up, code", [
    (["JH 9H AS KS QS", "AH 10H 8C 9C 10C AD"], "QH", "bad_deal"),
    (["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C JH"], "QH", "dealt_twice"),
    (["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "JH", "dealt_twice"),
    (["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD", "7D 8D 9D 10D JD QD"], "QH", "bad_deal"),
])
def test_bad_deals(hands: list[str], turn_up: str, code: str) -> None:
    with pytest.raises(FoldError) as err:
        Log().deal(hands, turn_up).fold()
    assert err.value.code == code


def test_a_deal_without_turn_up_and_klaverjas_fields() -> None:
    with pytest.raises(FoldError) as err:
        Log().add("dealt", hands=[["JH"]]).fold()
    assert err.value.code == "bad_deal" and "turn_up" in str(err.value)
    bad: list[dict[str, Any]] = [{"type": "trump_turned", "card": "4H"},
                                 {"type": "roem", "seat": 0, "points": 20},
                                 {"type": "knock", "seat": 0}]
    for ev in bad:
        log = Log().deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH")
        log.add(ev.pop("type"), **ev)
        with pytest.raises(FoldError) as err:
            log.fold()
        assert err.value.code == "misplaced_event"


def test_second_deal_checks() -> None:
    log = Log().deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH")
    with pytest.raises(FoldError) as err:
        Log().deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH").second(
            ["JS KH 7H", "8H 7D 8D"], "KD").fold()
    assert err.value.code == "trump_not_chosen"
    log.bid(0, "take")
    for hands, bottom, code in [(["JS KH", "8H 7D 8D"], "KD", "bad_deal"),
                                (["JS KH 7H", "8H 7D JH"], "KD", "dealt_twice"),
                                (["JS KH 7H", "8H 7D 8D"], "QH", "bad_deal"),
                                (["JS KH 7H", "8H 7D 8D"], "8D", "dealt_twice"),
                                (None, "KD", "bad_deal")]:
        bad = Log()
        bad.events[1:] = [dict(e) for e in log.events[1:]]
        with pytest.raises(FoldError) as err:
            bad.second(hands, bottom).fold()
        assert err.value.code == code, (hands, bottom)
    with pytest.raises(FoldError) as err:
        log.second(["JS KH 7H", "8H 7D 8D"], "KD").second(["9S 10S 7S", "9D 10D JD"], "AC").fold()
    assert err.value.code == "dealt_twice"


def test_play_order_and_phases() -> None:
    log = Log().deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH")
    with pytest.raises(FoldError) as err:
        Log().deal(["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"], "QH").play(0, "JH").fold()
    assert err.value.code == "trump_not_chosen"
    log.bid(0, "take")
    with pytest.raises(FoldError) as err:
        Log(game="k1").add("dealt", hands=[h.split() for h in ["JH 9H AS KS QS 7C",
                                                                "AH 10H 8C 9C 10C AD"]],
                           turn_up="QH").bid(0, "take").play(0, "JH").fold()
    assert err.value.code == "second_deal_missing"
    log.second(["JS KH 7H", "8H 7D 8D"], "KD")
    for seat, card, code in [(1, "AH", "not_your_turn"), (0, "AH", "card_not_held")]:
        bad = Log()
        bad.events[1:] = [dict(e) for e in log.events[1:]]
        with pytest.raises(FoldError) as err:
            bad.play(seat, card).fold()
        assert err.value.code == code
