"""Audit (session 7) of when the dix is exchanged, rule book 4.4: "Timing: after the second
deal, before the first lead"."""

from __future__ import annotations

import pytest

from .logs import Log

# dealer seat 1: seat 0 is elder and holds 7H (the dix) from the first deal; turn-up QH.
DEALT = ["JH 9H AS KS QS 7H", "AH 10H 8C 9C 10C AD"]
SECOND = ["JS KH 7C", "8H 7D 8D"]
TRICKS = [(0, "JH 8H"), (0, "9H 10H"), (0, "KH AH"), (1, "AD QH"), (0, "AS 7D"), (0, "KS 8D"),
          (0, "QS 8C"), (0, "JS 9C"), (0, "7C 10C")]


def played(log: Log) -> dict:
    for leader, cards in TRICKS:
        log.trick(leader, cards)
    rep = log.report()
    assert rep["error"] is None, rep["error"]
    return rep


@pytest.mark.parametrize("seen", [True, False])
def test_dix_before_the_second_deal_is_early(seen: bool) -> None:
    log = Log().deal(DEALT if seen else None, "QH").bid(0, "take").dix(0)
    log.second(SECOND if seen else None, "KD")
    rep = played(log)
    assert [(v["rule"], v["seat"], v["card"], v["seq"]) for v in rep["violations"]] == [
        ("dix_early", 0, "7H", 3)]
    assert "before the second deal" in rep["violations"][0]["message"]
    # the exchange is a fact: seat 0 played with the turn-up QH, 7H went under the stock
    assert rep["rounds"][0]["dix"] == 0 and "QH" in rep["rounds"][0]["hands"][0]


@pytest.mark.parametrize("seen", [True, False])
def test_dix_between_the_second_deal_and_the_lead_is_in_time(seen: bool) -> None:
    log = Log().deal(DEALT if seen else None, "QH").bid(0, "take")
    log.second(SECOND if seen else None, "KD").dix(0)
    assert played(log)["violations"] == []
