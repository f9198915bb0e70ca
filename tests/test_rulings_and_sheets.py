"""Rulings, score-only rounds and irregularities in the fold (rule book 9.1, decisions 10-12):
what is accepted, and the code and sentence of what is not."""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import Event, event_from_dict
from jaslog.play.audit import game_report
from jaslog.play.fold import fold

SEATS = {"amsterdam": 4, "klaberjass-2p": 2, "kloepper": 4}


def log(ruleset: str, *events: dict[str, Any], **options: Any) -> list[Event]:
    start: dict[str, Any] = {"game": "g", "seq": 0, "type": "game_started", "ruleset": ruleset,
                             "seats": ["ann", "bob", "cor", "dirk"][:SEATS[ruleset]], "dealer": 3
                             if SEATS[ruleset] == 4 else 1}
    if options:
        start["options"] = options
    return [event_from_dict(start)] + [event_from_dict({"game": "g", "seq": i, **e})
                                       for i, e in enumerate(events, 1)]


def refused(events: list[Event]) -> FoldError:
    with pytest.raises(FoldError) as err:
        fold(events)
    return err.value


def score(r: int, s: list[int], **known: Any) -> dict[str, Any]:
    return {"type": "round_score", "round": r, "score": s, **known}


# ------------------------------------------------------------------ score-only rounds

@pytest.mark.parametrize("known, sentence", [
    ({"score": [90, 80]}, "score 90 + 80 = 170: a round's scores add up to 162 plus its roem"),
    ({"score": [102, 60], "points": [90, 80]}, "points 90 + 80 = 170, not 162"),
    ({"score": [102, 60], "roem": [25, 0]}, "roem 25-0: roem comes in tens"),
    ({"score": [102, 60], "roem": [20, 0]}, "score 102 + 60 = 162, not 162 + roem 20 = 182"),
    ({"score": [102, 60], "result": "won"}, "result 'won' is not a klaverjas result"),
    ({"score": [0, 162], "chooser": 1, "result": "nat"},
     "a nat round scores nothing for the choosing team, not 162"),
    ({"score": [110, 72], "chooser": 1, "points": [90, 72], "roem": [20, 0]},
     "seat 1 chose, points 90-72 and roem 20-0 score 182-0 (nat), not 110-72"),
    ({"score": [102, 60, 0]}, "a klaverjas round's score is two numbers, one per team, not 3"),
    ({"score": [262, 0], "chooser": 1, "points": [162, 0], "roem": [0, 0], "result": "pit"},
     "seat 1 chose, points 162-0 and roem 0-0 score 262-0 as nat, not pit"),
])
def test_a_klaverjas_sheet_that_does_not_add_up_says_what(known: dict[str, Any],
                                                          sentence: str) -> None:
    err = refused(log("amsterdam", {"type": "round_score", "round": 1, **known}))
    assert err.code == "bad_round_score"
    assert sentence in err.message


def test_a_klaverjas_sheet_scores_and_says_what_it_knows() -> None:
    f = fold(log("amsterdam", score(1, [102, 60]), score(2, [0, 182], chooser=0, result="nat"),
                 score(3, [262, 0], chooser=0, points=[162, 0], roem=[0, 0], result="pit"),
                 score(4, [0, 182], chooser=2, points=[70, 92], roem=[20, 0])))
    rep = game_report("g", f)
    assert rep["totals"] == [364, 424]
    assert [r["result"] for r in rep["rounds"]] == ["score_only", "nat", "pit", "nat"]
    first = rep["rounds"][0]
    assert (first["points"], first["roem"], first["chooser"], first["trump"]) == (None,) * 4
    assert rep["rounds"][3]["points"] == [70, 92]
    assert {r["recorded"] for r in rep["rounds"]} == {"score_only"}


@pytest.mark.parametrize("ruleset, first, bad, sentence", [
    ("klaberjass-2p", [102, 80], {"score": [0, 90], "result": "bete", "chooser": 1},
     "a bete deal scores nothing for the maker, not 90"),
    ("klaberjass-2p", [102, 80], {"score": [90, 80], "points": [60, 30], "roem": [20, 0],
                                  "chooser": 0}, "with totals 80-30 the deal scores 80-30"),
    ("kloepper", [2, 0, 2, 0], {"score": [2, 0, 4, 0]},
     "score 2-0-4-0: the players of the scoring side score alike"),
    ("kloepper", [2, 0, 2, 0], {"score": [5, 0, 5, 0]}, "5 is not a value of the score table"),
    ("kloepper", [2, 0, 2, 0], {"score": [2, 0, 2, 0], "points": [30, 30, 30, 31]},
     "points 30 + 30 + 30 + 31 = 121, not 120"),
])
def test_klaberjass_and_kloepper_sheets_follow_their_tables(ruleset: str, first: list[int],
                                                           bad: dict[str, Any],
                                                           sentence: str) -> None:
    ok = log(ruleset, score(1, first))
    assert fold(ok).state.totals() == first
    err = refused(log(ruleset, score(1, first), {"type": "round_score", "round": 2, **bad}))
    assert err.code == "bad_round_score" and sentence in err.message, err.message


def test_a_score_only_round_is_the_round_due_before_its_deal() -> None:
    err = refused(log("amsterdam", score(2, [102, 60])))
    assert (err.code, err.message) == ("bad_round_score",
                                       "the score names round 2, but round 1 is due")
    err = refused(log("amsterdam", {"type": "dealt"}, score(1, [102, 60])))
    assert err.code == "round_not_over"
    done = log("amsterdam", *(score(n, [162, 0]) for n in range(1, 17)), score(17, [162, 0]))
    assert refused(done).code == "game_over"


# ------------------------------------------------------------------ rulings

def test_every_ruling_is_kept_and_the_last_counts() -> None:
    f = fold(log("amsterdam", score(1, [102, 60]), {"type": "dealt"},
                 {"type": "ruling", "round": 2, "score": [0, 162], "reason": "revoke"},
                 {"type": "ruling", "round": 2, "score": [81, 81], "reason": "on appeal"}))
    r = game_report("g", f)["rounds"][1]
    assert [(x["reason"], x["superseded"]) for x in r["rulings"]] == [("revoke", True),
                                                                     ("on appeal", False)]
    assert r["ruling"]["reason"] == "on appeal" and r["final"] == [81, 81]
    assert game_report("g", f)["totals"] == [183, 141]


def test_a_ruling_no_round_could_have_is_refused() -> None:
    err = refused(log("amsterdam", score(1, [102, 60]),
                      {"type": "ruling", "round": 1, "score": [5000, 0], "reason": "typo"}))
    assert err.code == "bad_ruling"
    assert "a ruling of 5000-0 is more than a klaverjas round can score" in err.message
    err = refused(log("kloepper", score(1, [2, 0, 2, 0]),
                      {"type": "ruling", "round": 1, "score": [31, 0, 0, 0], "reason": "typo"}))
    assert err.code == "bad_ruling"


def test_a_ruling_after_the_game_ended_is_allowed_and_marked() -> None:
    events = [score(n, [162, 0]) for n in range(1, 17)]
    f: GameFold = fold(log("amsterdam", *events,
                           {"type": "ruling", "round": 3, "score": [0, 162], "reason": "late"}))
    rep = game_report("g", f)
    assert rep["rounds"][2]["rulings"][0]["after_end"] is True
    assert rep["finished"] and rep["totals"] == [15 * 162, 162]


# ------------------------------------------------------------------ irregularities

def test_an_irregularity_changes_nothing_and_is_reported() -> None:
    base: list[dict[str, Any]] = [{"type": "dealt"}, {"type": "bid", "seat": 0, "call": "H"}]
    plain = fold(log("amsterdam", *base, {"type": "play", "seat": 0, "card": "7H"}))
    irregular = fold(log("amsterdam", *base,
                         {"type": "irregularity", "kind": "lead_out_of_turn", "seat": 2,
                          "cards": ["AS"], "text": "cor led first"},
                         {"type": "play", "seat": 0, "card": "7H"}))
    assert game_report("g", plain)["rounds"][0]["tricks"] == \
        game_report("g", irregular)["rounds"][0]["tricks"]
    rep = game_report("g", irregular)
    assert rep["irregularities"] == [{"seq": 3, "round": 1, "kind": "lead_out_of_turn", "seat": 2,
                                      "cards": ["AS"], "text": "cor led first"}]
    assert rep["rounds"][0]["irregularities"] == rep["irregularities"]
    assert rep["ok"] is True  # a fact, not a rule broken in play


def test_an_irregularity_names_a_seat_of_the_game() -> None:
    err = refused(log("klaberjass-2p", {"type": "irregularity", "kind": "misdeal", "seat": 3}))
    assert err.code == "bad_seat"
    with pytest.raises(ValueError, match="kind"):
        event_from_dict({"game": "g", "seq": 1, "type": "irregularity", "kind": "cheating",
                         "seat": 0})
