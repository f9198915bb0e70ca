"""Klaverjas round scoring against the rule book: a revoke penalty when the team that did not
revoke took all eight tricks.

Rule book 3.7: a revoke is scored "as if the offending team went nat (opponents get 162 + all
roem)"; 3.5.5: "if D took all eight tricks, D scores 162 + roem[D] + 100"; 3.5 counts the pit
bonus as roem ("roem[t] = roem of tricks won (+ pit bonus, below)"), which decision 9.4 gives
to the other team ("162 plus all roem of both teams"). So a revoke by the opponents never
costs the team that took every trick its pit bonus.
"""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.games import resolve
from jaslog.games.klaverjas.rules import ScoreRules, score_round

from .logs import Log

# Dealer 3, seat 0 (forehand) names hearts and wins every trick. In trick 1 seat 1 throws
# 8S on the jack of trumps while holding 7H (must_follow_suit, team 1), then follows with 7H
# in trick 2. No trick holds roem (no run of three, the K and Q of hearts fall apart, no
# four of a kind). Team 0: 152 card points + 10 for the last trick = 162, and all 8 tricks.
PIT_REVOKE_HANDS = [
    "JH 9H AH 10H KH QH 8H AC",
    "7H 8S AS 10S KS QS JS 9S",
    "7S 7C 8C 9C 10C JC QC KC",
    "7D 8D 9D 10D JD QD KD AD",
]
PIT_REVOKE_TRICKS = [
    "JH 8S 7S 7D",
    "9H 7H 7C 8D",
    "AH AS 8C 9D",
    "10H 10S 9C JD",
    "KH KS 10C QD",
    "QH QS JC KD",
    "8H JS QC 10D",
    "AC 9S KC AD",
]


def pit_revoke_log(options: dict[str, Any] | None = None) -> Log:
    log = Log(options={"roem.claim_mode": "auto", **(options or {})}, dealer=3)
    log.deal(PIT_REVOKE_HANDS).bid(0, "H")
    for cards in PIT_REVOKE_TRICKS:
        log.trick(0, cards)
    return log


def test_revoke_by_the_opponents_keeps_the_pit_bonus() -> None:
    f = pit_revoke_log().fold()
    o = f.state.outcomes()[0]
    assert [(v.rule, v.seat, v.trick) for v in f.state.violations] == [("must_follow_suit", 1, 1)]
    assert (o.points, o.tricks, o.roem_on_table) == ([162, 0], [8, 0], [0, 0])
    assert (o.score, o.result) == ([162 + 100, 0], "revoke")


def test_revoke_ignore_scores_the_same_pit() -> None:
    o = pit_revoke_log({"revoke": "ignore"}).fold().state.outcomes()[0]
    assert (o.score, o.result) == ([262, 0], "pit")


def rules(**opts: Any) -> ScoreRules:
    return ScoreRules.from_options(resolve("amsterdam", opts))


@pytest.mark.parametrize("opts, roem, chooser, revoke, score", [
    ({}, [20, 0], 0, 1, [162 + 20 + 100, 0]),            # playing team took all, defenders revoked
    ({}, [0, 50], 0, 0, [0, 162 + 50 + 100]),            # defenders took all, makers revoked
    ({"pit_for": "playing_team"}, [0, 50], 0, 0, [0, 162 + 50]),   # defenders get no pit bonus
    ({"pit_for": "playing_team"}, [20, 0], 0, 1, [162 + 20 + 100, 0]),
])
def test_revoke_penalty_with_the_victims_pit(opts: dict[str, Any], roem: list[int], chooser: int,
                                             revoke: int, score: list[int]) -> None:
    tricks = [8, 0] if revoke == 1 else [0, 8]
    points = [162, 0] if revoke == 1 else [0, 162]
    assert score_round(rules(**opts), points, roem, tricks, chooser, revoke) == (score, "revoke")


def test_revoke_by_the_team_that_took_every_trick_is_unchanged() -> None:
    # the offenders' own pit bonus is not handed over (tests/rules/test_scoring.py "revoke-pit")
    assert score_round(rules(), [162, 0], [0, 0], [8, 0], 0, 0) == ([0, 162], "revoke")
