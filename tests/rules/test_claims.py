"""Roem claims (rule book 3.4 and section 9 decision 3), on Deal M: trick 7 holds a run of
three (20) won by team 0 (seat 2), trick 8 a run of four (50) won by team 1 (seat 1).
Without roem team 0 has 133 card points, team 1 29.
"""

from __future__ import annotations

from typing import Any

from jaslog.engine.fold import GameFold

from .logs import DEAL_M, TRICKS_M, Log, round_m


def play(options: dict[str, Any] | None = None, claims: dict[int, tuple[int, int]] | None = None,
         bids: tuple[tuple[int, str], ...] = ((0, "H"),)) -> GameFold:
    log = Log(options=options).deal(DEAL_M).bids(*bids)
    return round_m(log, TRICKS_M, claims).fold()


def summary(f: GameFold) -> tuple[list[int], list[int], list[int], str, list[str]]:
    o = f.state.outcomes()[0]
    return o.roem, o.roem_on_table, o.score, o.result, [v.rule for v in f.state.violations]


def test_valid_claims_score() -> None:
    f = play(claims={7: (2, 20), 8: (1, 50)})
    assert summary(f) == ([20, 50], [20, 50], [153, 79], "made", [])


def test_trick_8_claim_is_after_the_round_closes() -> None:
    f = play(claims={8: (3, 50)})
    assert f.state.rounds[0].closed
    assert summary(f) == ([0, 50], [20, 50], [133, 79], "made", [])


def test_unclaimed_roem_scores_nothing() -> None:
    assert summary(play()) == ([0, 0], [20, 50], [133, 29], "made", [])


def test_partial_claim_is_allowed() -> None:
    f = play(claims={8: (1, 20)})
    assert summary(f) == ([0, 20], [20, 50], [133, 49], "made", [])


def test_false_claim_scores_nothing() -> None:
    f = play(claims={7: (0, 20), 8: (1, 70)})
    assert summary(f) == ([20, 0], [20, 50], [153, 29], "made", ["roem_false"])
    [v] = f.state.violations
    assert (v.seat, v.trick, v.round) == (1, 8, 1)
    assert "70" in v.message and "50" in v.message


def test_false_claim_on_a_trick_without_roem() -> None:
    f = play(claims={1: (0, 20)})
    [v] = f.state.violations
    assert (v.rule, v.trick, v.seq) == ("roem_false", 1, 7)   # plays 3-6, the claim is seq 7
    assert summary(f)[:3] == ([0, 0], [20, 50], [133, 29])


def test_late_claim() -> None:
    log = Log().deal(DEAL_M).bid(0, "H")
    for leader, cs in TRICKS_M[:7]:
        log.trick(leader, cs)
    log.play(2, "KC").roem(2, 20)      # trick 8 has begun: trick 7 is covered
    late = log.seq
    for i, c in enumerate(["QC", "JC", "10C"], 1):
        log.play((2 + i) % 4, c)
    f = log.fold()
    [v] = f.state.violations
    assert (v.rule, v.seq, v.trick) == ("roem_late", late, 8)
    assert summary(f)[:3] == ([0, 0], [20, 50], [133, 29])


def test_claim_before_any_trick() -> None:
    log = Log().deal(DEAL_M).bid(0, "H").roem(0, 20)
    f = log.fold()
    assert [v.rule for v in f.state.violations] == ["roem_no_trick"]


def test_claim_of_trick_8_after_the_next_deal_is_late() -> None:
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M)
    log.deal(None).roem(1, 50)
    f = log.fold()
    [v] = f.state.violations
    assert (v.rule, v.round, v.seq) == ("roem_late", 1, log.seq)
    assert f.state.outcomes()[0].roem == [0, 0]


def test_opponents_may_claim_for_the_winners() -> None:
    # claim_by any_player (default, KBN): seat 1 claims trick 7's roem, won by team 0
    f = play(claims={7: (1, 20)})
    assert summary(f) == ([20, 0], [20, 50], [153, 29], "made", [])


def test_claim_by_winning_team() -> None:
    f = play({"roem.claim_by": "winning_team"}, claims={7: (1, 20), 8: (1, 50)})
    assert summary(f) == ([0, 50], [20, 50], [133, 79], "made", ["roem_claim_not_allowed"])
    f = play({"roem.claim_by": "winning_team"}, claims={7: (0, 20)})
    assert summary(f)[0] == [20, 0]


def test_auto_mode_ignores_claims_for_scoring() -> None:
    for claims in (None, {8: (1, 20)}, {7: (2, 20), 8: (1, 50)}):
        f = play({"roem.claim_mode": "auto"}, claims=claims)
        assert summary(f) == ([20, 50], [20, 50], [153, 79], "made", [])


def test_auto_mode_still_reports_a_false_claim() -> None:
    f = play({"roem.claim_mode": "auto"}, claims={8: (1, 100)})
    assert summary(f) == ([20, 50], [20, 50], [153, 79], "made", ["roem_false"])


def test_claimed_roem_moves_with_nat() -> None:
    # team 1 plays (seat 1 named hearts): 29 + 50 < 133 + 20, nat: 162 + 70 to team 0
    f = play(claims={7: (2, 20), 8: (1, 50)}, bids=((0, "pass"), (1, "H")))
    assert summary(f) == ([20, 50], [20, 50], [232, 0], "nat", [])


def test_two_claims_for_one_trick_count_once() -> None:
    log = round_m(Log().deal(DEAL_M).bid(0, "H"), TRICKS_M, {8: (1, 50)})
    log.roem(3, 50)
    f = log.fold()
    assert summary(f) == ([0, 50], [20, 50], [133, 79], "made", [])


def test_stuk_in_hand() -> None:
    # seat 1 holds KH with 10H and seat 2 QH: no stuk in one hand in Deal M
    f = play({"roem.stuk_in_hand": True, "roem.claim_mode": "auto"})
    assert summary(f)[0] == [20, 50]
    # a deal where seat 0 holds K and Q of hearts: stuk in hand scores 20 for team 0,
    # with no claim needed
    hands = ["KH QH 7H 8H 9H 10H JH AH", "7S 8S 9S 10S JS QS KS AS",
             "7C 8C 9C 10C JC QC KC AC", "7D 8D 9D 10D JD QD KD AD"]
    log = Log(options={"roem.stuk_in_hand": True}).deal(hands).bid(0, "H")
    for r in ["J", "9", "A", "10", "K", "Q", "8", "7"]:
        log.trick(0, f"{r}H {r}S {r}C {r}D")
    o = log.fold().state.outcomes()[0]
    assert o.roem == [20, 0]
    assert o.roem_on_table == [620, 0]           # 200 + 4 x 100 four of a kind + 20
    assert (o.score, o.result) == ([162 + 20 + 100, 0], "pit")
