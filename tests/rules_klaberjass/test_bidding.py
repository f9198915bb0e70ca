"""The bidding state machine of rule book 4.3, every branch and option, and who deals next."""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.cards import HEARTS, SPADES
from jaslog.engine.base import IntegrityError
from jaslog.engine.fold import FoldError
from jaslog.games.klaberjass.rules import Bidding

from .logs import Log

ND, D = 0, 1   # dealer seat 1: seat 0 is the non-dealer (elder) and speaks first


def run(calls: list[tuple[int, str]], **options: Any) -> tuple[Bidding, list[str]]:
    b = Bidding(dealer=D, turn_up_suit=HEARTS, options=options)
    codes = []
    for seat, call in calls:
        codes += [code for code, _ in b.bid(seat, call)]
    return b, codes


@pytest.mark.parametrize("calls, maker, trump", [
    ([(ND, "take")], ND, HEARTS),                                      # R1-ND take
    ([(ND, "pass"), (D, "take")], D, HEARTS),                          # R1-D take
    ([(ND, "pass"), (D, "pass"), (ND, "S")], ND, SPADES),              # R2-ND names
    ([(ND, "pass"), (D, "pass"), (ND, "pass"), (D, "S")], D, SPADES),  # R2-D names
    ([(ND, "schmeiss"), (D, "play")], ND, HEARTS),                     # R1 schmeiss, played
    ([(ND, "pass"), (D, "schmeiss"), (ND, "play")], D, HEARTS),        # roles swapped
    ([(ND, "pass"), (D, "pass"), (ND, "schmeiss"), (D, "play"), (ND, "S")], ND, SPADES),
])
def test_trumps_fixed(calls: list[tuple[int, str]], maker: int, trump: int) -> None:
    b, codes = run(calls)
    assert codes == []
    assert (b.done, b.maker, b.trump, b.annulled, b.stage) == (True, maker, trump, None, "done")
    assert b.allowed_calls() == []


@pytest.mark.parametrize("calls, why", [
    ([(ND, "pass"), (D, "pass"), (ND, "pass"), (D, "pass")], "all_pass"),
    ([(ND, "schmeiss"), (D, "annul")], "schmeiss"),
    ([(ND, "pass"), (D, "schmeiss"), (ND, "annul")], "schmeiss"),
    ([(ND, "pass"), (D, "pass"), (ND, "schmeiss"), (D, "annul")], "schmeiss"),
])
def test_annulled(calls: list[tuple[int, str]], why: str) -> None:
    b, codes = run(calls)
    assert codes == [] and b.annulled == why and b.over and not b.done
    with pytest.raises(IntegrityError) as err:
        b.bid(ND, "pass")
    assert err.value.code == "bidding_over"


@pytest.mark.parametrize("answer, over", [("play", "S"), ("annul", None)])
def test_the_dealer_does_not_schmeiss_in_round_2(answer: str, over: str | None) -> None:
    """Rule book 4.3, R2-D: the dealer names a suit or passes; a schmeiss is not among the
    dealer's calls in round 2 (in round 1 it is). Recorded, the table went on from it: a
    violation, and the machine carries on as after any schmeiss."""
    calls = [(ND, "pass"), (D, "pass"), (ND, "pass"), (D, "schmeiss"), (ND, answer)]
    if over is not None:
        calls.append((D, over))
    b, codes = run(calls)
    assert codes == ["schmeiss_not_allowed"]
    if over is None:
        assert b.annulled == "schmeiss" and not b.done
    else:
        assert (b.done, b.maker, b.trump) == (True, D, SPADES)
    # the machine offers it to nobody else but the dealer of round 2 ...
    b = Bidding(dealer=D, turn_up_suit=HEARTS)
    for seat, call in [(ND, "pass"), (D, "pass"), (ND, "pass")]:
        b.bid(seat, call)
    assert (b.turn, b.allowed_calls()) == (D, ["C", "D", "S", "pass"])
    msg = b.bid(D, "schmeiss")[0][1]
    assert msg == "seat 1, the dealer, schmeissed in round 2, where the dealer names a suit or passes"
    # ... and the dealer of round 1 may schmeiss
    assert run([(ND, "pass"), (D, "schmeiss"), (ND, "annul")])[1] == []


def test_allowed_calls_each_stage() -> None:
    b = Bidding(dealer=D, turn_up_suit=HEARTS)
    assert (b.turn, b.allowed_calls()) == (ND, ["take", "pass", "schmeiss"])
    b.bid(ND, "pass")
    assert (b.turn, b.allowed_calls()) == (D, ["take", "pass", "schmeiss"])
    b.bid(D, "pass")
    assert (b.turn, b.allowed_calls()) == (ND, ["C", "D", "S", "pass", "schmeiss"])
    b.bid(ND, "schmeiss")
    assert (b.turn, b.allowed_calls()) == (D, ["annul", "play"])
    b.bid(D, "play")
    assert (b.stage, b.turn, b.allowed_calls()) == ("must_name", ND, ["C", "D", "S"])
    no_schmeiss = Bidding(dealer=D, turn_up_suit=HEARTS, options={"schmeiss_enabled": False})
    assert no_schmeiss.allowed_calls() == ["take", "pass"]
    any_suit = Bidding(dealer=D, turn_up_suit=HEARTS, options={"second_round_any_suit": True})
    any_suit.bid(ND, "pass")
    any_suit.bid(D, "pass")
    assert any_suit.allowed_calls() == ["C", "D", "H", "S", "pass", "schmeiss"]


def test_violations_the_table_went_on_from() -> None:
    # the turn-up suit named in round 2 (option second_round_any_suit false): still trumps
    b, codes = run([(ND, "pass"), (D, "pass"), (ND, "H")])
    assert codes == ["suit_not_allowed"] and b.trump == HEARTS and b.maker == ND
    b, codes = run([(ND, "pass"), (D, "pass"), (ND, "H")], second_round_any_suit=True)
    assert codes == []
    # schmeiss with the option off: a violation, and the schmeiss stands
    b, codes = run([(ND, "schmeiss"), (D, "annul")], schmeiss_enabled=False)
    assert codes == ["schmeiss_not_allowed"] and b.annulled == "schmeiss"
    # out of turn: the dealer speaks first and takes
    b, codes = run([(D, "take")])
    assert codes == ["bid_out_of_turn"] and b.maker == D
    # the schmeisser of round 2, answered 'play', must name a suit: a pass does not end it
    b, codes = run([(ND, "pass"), (D, "pass"), (ND, "schmeiss"), (D, "play"), (ND, "pass"),
                    (ND, "C")])
    assert codes == ["must_choose"] and b.trump == 0 and b.maker == ND


@pytest.mark.parametrize("calls, bad", [
    ([], "C"),                                  # a suit in round 1
    ([], "annul"),                              # no schmeiss to answer
    ([], "accept"),                             # a klaverjas call
    ([(ND, "pass"), (D, "pass")], "take"),      # take in round 2
    ([(ND, "schmeiss")], "pass"),               # a schmeiss is answered annul or play
    ([(ND, "pass"), (D, "pass"), (ND, "schmeiss"), (D, "play")], "schmeiss"),
])
def test_calls_without_meaning_are_integrity_errors(calls: list[tuple[int, str]], bad: str) -> None:
    b, _ = run(calls)
    with pytest.raises(IntegrityError) as err:
        b.bid(b.turn, bad)
    assert err.value.code == "bad_call"


# ---------------------------------------------------------------- through the fold

HANDS = ["JH 9H AS KS QS 7C", "AH 10H 8C 9C 10C AD"]


def dealers(log: Log) -> list[int]:
    return [r["dealer"] for r in log.report()["rounds"]]


def test_all_pass_twice_annuls_and_the_deal_passes() -> None:
    log = Log(dealer=1)
    log.deal(HANDS, "QH").bid(0, "pass").bid(1, "pass").bid(0, "pass").bid(1, "pass")
    rep = log.report()
    r = rep["rounds"][0]
    assert (r["result"], r["annulled"], r["score"]) == ("annulled", "all_pass", [0, 0])
    f = log.fold()
    assert f.state.expected() == ("deal", 0)       # the non-dealer deals next
    with pytest.raises(FoldError) as err:
        log.deal(HANDS, "QH", dealer=1).fold()
    assert err.value.code == "wrong_dealer"


@pytest.mark.parametrize("option, next_dealer", [("same", 1), ("elder", 0)])
def test_schmeiss_annulled_next_dealer(option: str, next_dealer: int) -> None:
    log = Log(dealer=1, options={"schmeiss_annul_next_dealer": option})
    log.deal(HANDS, "QH").bid(0, "schmeiss").bid(1, "annul")
    assert log.fold().state.expected() == ("deal", next_dealer)
    log.deal(HANDS, "QH", dealer=next_dealer).bid(1 - next_dealer, "pass")
    assert dealers(log) == [1, next_dealer]


def test_a_bid_after_an_annulled_deal_is_refused() -> None:
    log = Log(dealer=1).deal(HANDS, "QH").bid(0, "schmeiss").bid(1, "annul").bid(0, "take")
    with pytest.raises(FoldError) as err:
        log.fold()
    assert err.value.code == "round_over"
