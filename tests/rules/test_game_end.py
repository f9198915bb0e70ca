"""Game end (rule book 3.6): 16 deals, target scores, equal totals, rulings.

Every round here is the suit deal of :mod:`tests.rules.logs`: the forehand holds all the
hearts, names hearts and takes every trick, so with no roem claimed the forehand's team
scores 162 + 100 (pit) = 262 and the other team 0. With the first dealer 3 the forehand
of round k is seat k - 1 mod 4: team 0 takes the odd rounds, team 1 the even ones.
"""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.engine.fold import FoldError

from .logs import Log, suit_round


def game(n: int, ruleset: str = "amsterdam", options: dict[str, Any] | None = None,
         dealer: int = 3) -> Log:
    log = Log(ruleset=ruleset, options=options, dealer=dealer)
    for k in range(n):
        suit_round(log, (dealer + k) % 4)
    return log


def test_each_round_is_262_to_the_forehands_team() -> None:
    st = game(2).fold().state
    assert [o.score for o in st.outcomes()] == [[262, 0], [0, 262]]
    assert [o.result for o in st.outcomes()] == ["pit", "pit"]
    assert [o.roem_on_table for o in st.outcomes()] == [[600, 0], [0, 600]]
    assert [r.dealer for r in st.rounds] == [3, 0]


def test_16_deals_equal_totals_is_a_draw() -> None:
    log = game(15)
    st = log.fold().state
    assert not st.finished and st.winner is None
    assert st.expected() == ("deal", 2)
    st = game(16).fold().state
    assert st.totals() == [8 * 262, 8 * 262]
    assert st.finished and st.winner == "draw"
    assert st.expected() == ("over", None)


def test_16_deals_extra_deal_on_a_tie() -> None:
    st = game(16, options={"game_tie": "extra_deal"}).fold().state
    assert not st.finished and st.winner is None
    st = game(17, options={"game_tie": "extra_deal"}).fold().state
    assert st.totals() == [9 * 262, 8 * 262]
    assert st.finished and st.winner == 0


def test_deal_after_game_over() -> None:
    log = game(16)
    log.deal(None)
    with pytest.raises(FoldError) as err:
        log.fold()
    assert (err.value.code, err.value.seq, err.value.game) == ("game_over", log.seq, "g1")
    assert f"game g1 seq {log.seq}" in str(err.value)


def test_rulings_change_totals_and_the_winner() -> None:
    log = game(16).ruling(1, [0, 262], "round 1 belongs to team 1")
    st = log.fold().state
    assert st.totals() == [7 * 262, 9 * 262]
    assert st.totals(ruled=False) == [8 * 262, 8 * 262]
    assert st.winner == 1
    o = st.outcomes()[0]
    assert (o.score, o.ruled, o.final) == ([262, 0], [0, 262], [0, 262])
    log.ruling(2, [262, 0], "and round 2 to team 0")
    st = log.fold().state
    assert st.totals() == [8 * 262, 8 * 262] and st.winner == "draw"
    # the latest ruling on a round is the one that counts
    log.ruling(2, [300, 0], "corrected")
    assert log.fold().state.totals() == [8 * 262 + 38, 8 * 262]


def test_shorter_game_by_deals() -> None:
    st = game(4, options={"game_end": {"type": "deals", "count": 4}}).fold().state
    assert st.finished and st.winner == "draw"
    st = game(3, options={"game_end": {"type": "deals", "count": 3}}).fold().state
    assert st.finished and st.winner == 0


def test_target_1500() -> None:
    opts = {"game_end": {"type": "target", "points": 1500}}
    st = game(10, options=opts).fold().state
    assert st.totals() == [1310, 1310] and not st.finished
    st = game(11, options=opts).fold().state
    assert st.totals() == [1572, 1310]
    assert st.finished and st.winner == 0
    with pytest.raises(FoldError) as err:
        game(12, options=opts).fold()
    assert err.value.code == "game_over"


def test_online_501() -> None:
    # utrecht (forehand must choose), pit for the playing team only, first to 501
    st = game(2, "klaverjas-online-501").fold().state
    assert st.totals() == [262, 262] and not st.finished
    st = game(3, "klaverjas-online-501").fold().state
    assert st.totals() == [524, 262]
    assert st.finished and st.winner == 0


def test_target_with_equal_totals_plays_another_deal() -> None:
    opts = {"game_end": {"type": "target", "points": 500}}
    log = game(1, options=opts)                  # 262 - 0
    log.deal(None).ruling(2, [238, 500], "abandoned: director's score")
    st = log.fold().state
    assert st.totals() == [500, 500]
    assert not st.finished and st.winner is None
    assert st.expected() == ("deal", 1)
    suit_round(log, 1)                           # round 3: forehand 2, team 0
    st = log.fold().state
    assert st.totals() == [762, 500] and st.winner == 0


def test_target_game_ignores_game_tie_draw() -> None:
    opts = {"game_end": {"type": "target", "points": 262}, "game_tie": "draw"}
    log = Log(options=opts).deal(None).ruling(1, [262, 262], "even")
    st = log.fold().state
    assert not st.finished          # equal totals at the target: another deal (3.6)


def test_ruling_on_a_round_in_play_abandons_it() -> None:
    log = Log().deal(None).bid(0, "H").play(0, "JH").play(1, "KH").play(2, "8H")
    log.ruling(1, [100, 62], "cards exposed; director's score")
    st = log.fold().state
    r = st.rounds[0]
    assert r.closed and not r.over
    o = st.outcomes()[0]
    assert (o.result, o.score, o.final) == ("unfinished", [0, 0], [100, 62])
    assert st.totals() == [100, 62]
    assert st.expected() == ("deal", 0)
    # no more cards in that round
    bad = Log().deal(None).bid(0, "H").play(0, "JH").ruling(1, [0, 0], "struck").play(1, "KH")
    with pytest.raises(FoldError) as err:
        bad.fold()
    assert (err.value.code, err.value.seq) == ("round_over", bad.seq)
    # the next deal is round 2, dealt by seat 0
    log.deal(None, dealer=0)
    assert log.fold().state.rounds[1].dealer == 0


def test_ruling_that_ends_the_game() -> None:
    log = game(15).deal(None).ruling(16, [0, 262], "abandoned")
    st = log.fold().state
    assert st.finished
    assert st.totals() == [8 * 262, 8 * 262] and st.winner == "draw"


@pytest.mark.parametrize("round_, score, code", [
    (2, [0, 0], "no_such_round"),
    (1, [1, 2, 3], "bad_ruling"),
])
def test_bad_rulings(round_: int, score: list[int], code: str) -> None:
    log = Log().deal(None).ruling(round_, score)
    with pytest.raises(FoldError) as err:
        log.fold()
    assert (err.value.code, err.value.seq) == (code, 2)


def test_a_game_of_deals_goes_on_without_adding_up_its_scores(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before its last deal a game of 16 deals is not over, whatever the scores: the winner
    is known without adding them up (asked at every deal, it would cost the fold a sum of
    every round's outcome each time)."""
    st = game(15).fold().state

    def added_up(*_args: Any) -> list[int]:
        raise AssertionError("the scores were added up")

    try:
        monkeypatch.setattr(type(st), "totals", added_up)
    except (TypeError, AttributeError):
        pytest.skip("a compiled class's methods cannot be replaced (the pure run tests this)")
    assert st.winner is None and not st.finished
