"""Round scoring (rule book 3.5, 3.7, section 9 decision 4): made, nat, tie, pit, revoke.

First the pure :func:`score_round` on numbers worked out by hand, then whole rounds folded
from hand-written logs (Deal M of :mod:`tests.rules.logs`).
"""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.engine.fold import FoldError
from jaslog.games import resolve
from jaslog.games.klaverjas.rules import ScoreRules, score_round

from .logs import (
    DEAL_M,
    POINTS_M,
    REVOKE_SEQ_M,
    ROEM_M,
    TRICKS_M,
    TRICKS_M_REVOKE,
    WINNERS_M,
    Log,
    masks,
    round_m,
)


def rules(**opts: Any) -> ScoreRules:
    return ScoreRules.from_options(resolve("amsterdam", {k.replace("__", "."): v
                                                         for k, v in opts.items()}))


# (id, options, points, roem, tricks, chooser team, revoke team, score, result)
SCORES: list[tuple[str, dict[str, Any], list[int], list[int], list[int], int, int | None,
                   list[int], str]] = [
    ("made", {}, [90, 72], [20, 0], [5, 3], 0, None, [110, 72], "made"),
    ("made-team1", {}, [72, 90], [0, 20], [3, 5], 1, None, [72, 110], "made"),
    ("made-82", {}, [82, 80], [0, 0], [4, 4], 0, None, [82, 80], "made"),
    ("nat", {}, [70, 92], [20, 0], [4, 4], 0, None, [0, 182], "nat"),
    ("nat-81", {}, [80, 82], [0, 0], [4, 4], 0, None, [0, 162], "nat"),
    # the playing team's roem goes to the defenders too: 162 + 20 + 50
    ("nat-both-roem", {}, [100, 62], [20, 70], [5, 3], 0, None, [0, 252], "nat"),
    ("roem-decides", {}, [100, 62], [0, 50], [5, 3], 1, None, [100, 112], "made"),
    ("defenders-roem-sinks", {}, [100, 62], [0, 50], [5, 3], 0, None, [0, 212], "nat"),
    # a tie fails by default (pagat), succeeds with tie_is_failure=false
    ("tie", {}, [81, 81], [0, 0], [4, 4], 0, None, [0, 162], "nat"),
    ("tie-roem", {}, [71, 91], [20, 0], [4, 4], 0, None, [0, 182], "nat"),
    ("tie-ok", {"tie_is_failure": False}, [81, 81], [0, 0], [4, 4], 0, None, [81, 81], "made"),
    ("tie-ok-roem", {"tie_is_failure": False}, [71, 91], [20, 0], [4, 4], 1, None, [91, 91], "made"),
    # pit: +100 to the team that took all eight tricks
    ("pit", {}, [162, 0], [0, 0], [8, 0], 0, None, [262, 0], "pit"),
    ("pit-roem", {}, [162, 0], [40, 0], [8, 0], 0, None, [302, 0], "pit"),
    ("pit-team1", {}, [0, 162], [0, 200], [0, 8], 1, None, [0, 462], "pit"),
    ("pit-bonus-option", {"pit_bonus": 50}, [162, 0], [0, 0], [8, 0], 0, None, [212, 0], "pit"),
    # the defenders take every trick: nat, and their pit counts with pit_for any_team
    ("defenders-pit", {}, [0, 162], [0, 0], [0, 8], 0, None, [0, 262], "nat"),
    ("defenders-pit-roem", {}, [0, 162], [0, 20], [0, 8], 0, None, [0, 282], "nat"),
    ("defenders-pit-playing-team", {"pit_for": "playing_team"}, [0, 162], [0, 20], [0, 8], 0,
     None, [0, 182], "nat"),
    ("pit-playing-team", {"pit_for": "playing_team"}, [162, 0], [20, 0], [8, 0], 0, None,
     [282, 0], "pit"),
    # revoke: the offenders score 0, the others 162 + all roem of both teams
    ("revoke-playing", {}, [100, 62], [20, 50], [5, 3], 0, 0, [0, 232], "revoke"),
    ("revoke-defenders", {}, [100, 62], [20, 50], [5, 3], 0, 1, [232, 0], "revoke"),
    ("revoke-pit", {}, [162, 0], [0, 0], [8, 0], 0, 0, [0, 162], "revoke"),
    ("revoke-no-last-bonus", {"last_trick_bonus": 0}, [100, 52], [20, 0], [5, 3], 1, 1,
     [172, 0], "revoke"),
    ("revoke-ignore", {"revoke": "ignore"}, [100, 62], [20, 50], [5, 3], 0, 0, [120, 112], "made"),
    ("revoke-ignore-nat", {"revoke": "ignore"}, [60, 102], [0, 0], [3, 5], 0, 1, [0, 162], "nat"),
]


@pytest.mark.parametrize("opts, points, roem, tricks, chooser, revoke, score, result",
                         [s[1:] for s in SCORES], ids=[s[0] for s in SCORES])
def test_score_round(opts: dict[str, Any], points: list[int], roem: list[int], tricks: list[int],
                     chooser: int, revoke: int | None, score: list[int], result: str) -> None:
    assert score_round(rules(**opts), points, roem, tricks, chooser, revoke) == (score, result)


# ---------------------------------------------------------------------------- whole rounds


def m_log(ruleset: str = "amsterdam", options: dict[str, Any] | None = None, *,
          bids: tuple[tuple[int, str], ...] = ((0, "H"),), tricks: list[tuple[int, str]] = TRICKS_M,
          hands: bool = True, claims: dict[int, tuple[int, int]] | None = None) -> Log:
    log = Log(ruleset=ruleset, options=options, dealer=3)
    log.deal(DEAL_M if hands else None)
    log.bids(*bids)
    return round_m(log, tricks, claims)


def test_deal_m_trick_by_trick() -> None:
    f = m_log(options={"roem.claim_mode": "auto"}).fold()
    r = f.state.rounds[0]
    assert r.dealt == masks(DEAL_M)
    assert [t.leader for t in r.tricks] == [leader for leader, _ in TRICKS_M]
    assert [t.winner for t in r.tricks] == WINNERS_M
    assert [t.points for t in r.tricks] == POINTS_M
    assert [t.roem for t in r.tricks] == ROEM_M
    o = f.state.outcomes()[0]
    assert o.points == [133, 29]
    assert o.tricks == [7, 1]
    assert o.roem_on_table == [20, 50]
    assert (o.score, o.result) == ([153, 79], "made")
    assert f.state.violations == []


def test_deal_m_rotterdam_is_the_same_round() -> None:
    o = m_log("rotterdam", {"roem.claim_mode": "auto"}).fold().state.outcomes()[0]
    assert (o.points, o.score, o.result) == ([133, 29], [153, 79], "made")


def test_deal_m_claimed_mode_without_claims_scores_no_roem() -> None:
    o = m_log().fold().state.outcomes()[0]
    assert (o.roem, o.roem_on_table) == ([0, 0], [20, 50])
    assert (o.score, o.result) == ([133, 29], "made")


def test_deal_m_nat_when_the_other_team_chose() -> None:
    # seat 0 passes, seat 1 names hearts: team 1 plays with 29 + 50 = 79 against 153
    o = m_log(options={"roem.claim_mode": "auto"}, bids=((0, "pass"), (1, "H"))).fold() \
        .state.outcomes()[0]
    assert (o.score, o.result) == ([232, 0], "nat")
    assert o.score[0] == 162 + 20 + 50


def test_deal_m_revoke_penalty() -> None:
    f = m_log(options={"roem.claim_mode": "auto"}, tricks=TRICKS_M_REVOKE).fold()
    o = f.state.outcomes()[0]
    assert o.points == [133, 29]       # trick 4 = 17, trick 6 = 16 (worked out in logs.py)
    assert [t.points for t in f.state.rounds[0].tricks] == [24, 27, 11, 17, 27, 16, 11, 29]
    assert (o.score, o.result) == ([232, 0], "revoke")   # team 1 revoked: 162 + 20 + 50 to team 0
    [v] = f.state.violations
    assert (v.rule, v.seat, v.trick, v.round, v.seq) == ("must_follow_suit", 1, 4, 1, REVOKE_SEQ_M)
    assert f.started.game == "g1"


def test_deal_m_revoke_ignore_scores_as_played() -> None:
    f = m_log(options={"roem.claim_mode": "auto", "revoke": "ignore"}, tricks=TRICKS_M_REVOKE).fold()
    o = f.state.outcomes()[0]
    assert (o.score, o.result) == ([153, 79], "made")
    assert [v.rule for v in f.state.violations] == ["must_follow_suit"]   # still reported


def test_deal_m_revoke_reject_refuses_the_play() -> None:
    with pytest.raises(FoldError) as err:
        m_log(options={"revoke": "reject"}, tricks=TRICKS_M_REVOKE).fold()
    e = err.value
    assert (e.code, e.game, e.seq, e.seat, e.card) == ("must_follow_suit", "g1", REVOKE_SEQ_M, 1, "9D")
    assert "9D" in str(e) and "revoke: reject" in str(e)


def test_deal_m_pit_bonus_counts_in_nat_comparison() -> None:
    # a made round where nobody took all tricks has no pit bonus
    o = m_log(options={"roem.claim_mode": "auto", "pit_bonus": 1000}).fold().state.outcomes()[0]
    assert o.score == [153, 79]


def test_claimed_roem_and_no_last_trick_bonus() -> None:
    # last_trick_bonus 0: team 0 has 133, team 1 19 card points; team 1 claims its 50 after
    # trick 8, team 0 claims nothing: made, 133 to 69
    o = m_log(options={"last_trick_bonus": 0}, claims={8: (1, 50)}).fold().state.outcomes()[0]
    assert (o.points, o.roem, o.score) == ([133, 19], [0, 50], [133, 69])
