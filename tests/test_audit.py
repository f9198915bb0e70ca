"""The audit of a game (what ``check --json`` prints): exact keys and values for hand-written
games (Deal M of tests.rules.logs: team 0 133 points + 20 roem, team 1 29 + 50)."""

from __future__ import annotations

import orjson

from jaslog.engine.fold import FoldError
from jaslog.logs import read_lines
from jaslog.play.audit import ERROR_KEYS, REPORT_KEYS, error_dict, game_report
from jaslog.play.fold import FileGame, fold_lines

from .rules.logs import DEAL_M, REVOKE_SEQ_M, TRICKS_M, TRICKS_M_REVOKE, Log, round_m

ROUND_KEYS = {"round", "dealer", "trump", "chooser", "tricks", "points", "roem", "roem_on_table",
              "result", "score", "ruling", "rulings", "final", "totals", "recorded",
              "hands_recorded", "irregularities", "claim"}
TRICK_KEYS = {"leader", "cards", "winner", "points", "roem", "roem_on_table"}
VIOLATION_KEYS = {"seq", "round", "trick", "seat", "card", "rule", "message"}


def test_report_of_a_clean_round() -> None:
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M, {7: (2, 20), 8: (1, 50)})
    rep = log.report()
    assert tuple(rep) == REPORT_KEYS
    assert rep["game"] == "g1" and rep["ruleset"] == "amsterdam"
    assert rep["ok"] is True and rep["error"] is None and rep["violations"] == []
    assert rep["totals"] == [153, 79]
    assert rep["finished"] is False and rep["winner"] is None
    [r] = rep["rounds"]
    assert set(r) == ROUND_KEYS
    assert (r["round"], r["dealer"], r["trump"], r["chooser"]) == (1, 3, "H", 0)
    assert (r["points"], r["roem"], r["roem_on_table"]) == ([133, 29], [20, 50], [20, 50])
    assert (r["result"], r["score"], r["ruling"]) == ("made", [153, 79], None)
    assert len(r["tricks"]) == 8
    assert all(set(t) == TRICK_KEYS for t in r["tricks"])
    assert r["tricks"][0] == {"leader": 0, "cards": ["JH", "KH", "8H", "7H"], "winner": 0,
                              "points": 24, "roem": 0, "roem_on_table": 0}
    assert r["tricks"][6] == {"leader": 2, "cards": ["AC", "7C", "8C", "9C"], "winner": 2,
                              "points": 11, "roem": 20, "roem_on_table": 20}
    assert r["tricks"][7] == {"leader": 2, "cards": ["KC", "QC", "JC", "10C"], "winner": 1,
                              "points": 29, "roem": 50, "roem_on_table": 50}
    orjson.dumps(rep)  # JSON-ready


def test_trick_roem_shows_claimed_and_on_table() -> None:
    rep = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M, {8: (1, 20)}).report()
    t7, t8 = rep["rounds"][0]["tricks"][6:]
    assert (t7["roem"], t7["roem_on_table"]) == (0, 20)
    assert (t8["roem"], t8["roem_on_table"]) == (20, 50)
    auto = round_m(Log(options={"roem.claim_mode": "auto"}).deal(DEAL_M).bid(0, "H"), TRICKS_M)
    t7, t8 = auto.report()["rounds"][0]["tricks"][6:]
    assert (t7["roem"], t8["roem"]) == (20, 50)


def test_round_in_play_and_trick_in_play() -> None:
    log = Log().deal(DEAL_M).bid(0, "H").trick(0, "JH KH 8H 7H").play(0, "9H")
    rep = log.report()
    [r] = rep["rounds"]
    assert r["result"] == "unfinished" and r["score"] == [0, 0]
    assert r["tricks"][1] == {"leader": 0, "cards": ["9H"], "winner": None, "points": 0,
                              "roem": 0, "roem_on_table": 0}
    assert r["points"] == [24, 0]
    # a round being bid on has no trump, no chooser, no tricks
    rep = Log().deal(DEAL_M).bid(0, "pass").report()
    assert (rep["rounds"][0]["trump"], rep["rounds"][0]["chooser"], rep["rounds"][0]["tricks"]) == \
        (None, None, [])


def test_violations_in_seq_order_even_when_found_late() -> None:
    # hands not recorded: the revoke of trick 4 is found at the 32nd card, after a false
    # claim made after trick 5 was already reported
    log = Log().deal(None).bid(0, "H")
    round_m(log, TRICKS_M_REVOKE, {5: (0, 20)})
    rep = log.report()
    assert [v["rule"] for v in rep["violations"]] == ["must_follow_suit", "roem_false"]
    v, w = rep["violations"]
    assert set(v) == VIOLATION_KEYS
    assert (v["seq"], v["round"], v["trick"], v["seat"], v["card"]) == (REVOKE_SEQ_M, 1, 4, 1, "9D")
    assert (w["seq"], w["trick"], w["seat"], w["card"]) == (3 + 20, 5, 0, None)
    assert "played 9D to a spades lead while holding spades (QS KS)" in v["message"]
    assert rep["ok"] is False
    r = rep["rounds"][0]
    assert (r["result"], r["score"]) == ("revoke", [162, 0])


def test_ruling_in_report() -> None:
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M).ruling(1, [100, 62], "misdeal found")
    rep = log.report()
    r = rep["rounds"][0]
    assert r["score"] == [133, 29]
    assert r["ruling"] == {"score": [100, 62], "reason": "misdeal found", "seq": log.seq,
                           "after_end": False}
    assert r["rulings"] == [{**r["ruling"], "superseded": False}]
    assert rep["totals"] == [100, 62]
    assert rep["ok"] is True                  # a ruling is not a violation


def test_report_with_an_integrity_error_keeps_what_was_folded() -> None:
    log = Log(game="a").deal(DEAL_M).bid(0, "H").trick(0, "JH KH 8H 7H").play(1, "10H")
    [g] = list(fold_lines(read_lines(iter(log.jsonl().splitlines(keepends=True)), "x.jsonl")))
    assert isinstance(g, FileGame) and g.error is not None
    rep = game_report(g.game, g.fold, g.error)
    assert rep["ok"] is False
    assert rep["error"] == ("x.jsonl:8: game a seq 7: seat 1 played 10H but it is seat 0's turn "
                            "[not_your_turn]")
    assert error_dict(g.error) == {"file": "x.jsonl", "line": 8, "game": "a", "seq": 7, "seat": 1,
                                   "card": "10H", "code": "not_your_turn",
                                   "message": "seat 1 played 10H but it is seat 0's turn"}
    assert tuple(error_dict(g.error)) == ERROR_KEYS
    assert rep["rounds"][0]["points"] == [24, 0]


def test_report_of_a_line_without_a_game() -> None:
    e = FoldError("not valid JSON: x", code="bad_event", source="x.jsonl", line=3)
    rep = game_report(None, None, e)
    assert tuple(rep) == REPORT_KEYS
    assert rep["game"] is None and rep["ok"] is False
    assert rep["error"] == "x.jsonl:3: not valid JSON: x [bad_event]"
    assert error_dict(e) == {
        "file": "x.jsonl", "line": 3, "game": None, "seq": None, "seat": None, "card": None,
        "code": "bad_event", "message": "not valid JSON: x"}
    assert (rep["rounds"], rep["violations"], rep["totals"], rep["finished"], rep["winner"]) == \
        ([], [], [0, 0], False, None)
