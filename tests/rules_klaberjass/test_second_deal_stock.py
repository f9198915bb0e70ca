"""The second deal against a recorded stock, rule book 4.4: "the dealer deals 3 more cards to
each (ND first)". With the stock recorded top first, the non-dealer
gets its top three cards and the dealer the next three."""

from __future__ import annotations

import pytest

from jaslog.engine.fold import FoldError

from .logs import BOTTOM_K, DEALT_K, SECOND_K, TURN_UP_K, Log, deal_k, stock_k


def test_the_packets_of_the_recorded_stock_are_accepted() -> None:
    # dealer seat 1: seat 0 (non-dealer) gets JS KH 7H, the stock's top three
    assert stock_k()[:6] == ["JS", "KH", "7H", "8H", "7D", "8D"]
    assert deal_k(Log(), stock=True).report()["error"] is None
    assert SECOND_K == ["JS KH 7H", "8H 7D 8D"]


@pytest.mark.parametrize("second", [
    ["8H 7D 8D", "JS KH 7H"],     # the packets swapped: the dealer served first
    ["JS KH 8H", "7H 7D 8D"],     # the top six, but not three and three in order
])
def test_packets_that_do_not_follow_the_stock_are_refused(second: list[str]) -> None:
    log = Log().deal(DEALT_K, TURN_UP_K, stock=stock_k()).bid(0, "take").second(second, BOTTOM_K)
    with pytest.raises(FoldError) as err:
        log.fold()
    assert err.value.code == "bad_deal"
    assert "non-dealer (seat 0)" in str(err.value) and "deals it 7H KH JS" in str(err.value)


def test_the_dealer_is_seat_0() -> None:
    # dealer seat 0: seat 1 is the non-dealer and gets the top three
    hands = list(reversed(DEALT_K))
    ok = Log(dealer=0).deal(hands, TURN_UP_K, stock=stock_k()).bid(1, "take")
    assert ok.second(list(reversed(SECOND_K)), BOTTOM_K).report()["error"] is None
    bad = Log(dealer=0).deal(hands, TURN_UP_K, stock=stock_k()).bid(1, "take")
    with pytest.raises(FoldError) as err:
        bad.second(SECOND_K, BOTTOM_K).fold()
    assert err.value.code == "bad_deal" and "non-dealer (seat 1)" in str(err.value)
