"""Kloepper cards and play (rule book 5.1, 5.4) and the literal score table (5.6, 9.5)."""

from __future__ import annotations

import pytest

from jaslog.cards import hand_text, parse_card, parse_hand
from jaslog.engine.base import IntegrityError
from jaslog.games import resolve
from jaslog.games.kloepper.options import KLOEPPER_LITERAL_TABLE
from jaslog.games.kloepper.rules import (
    PACK,
    ScoreTable,
    Trumps,
    explain,
    judge,
    legal,
    score_deal,
    trick_points,
)

T = Trumps.from_options(resolve("kloepper"))


def c(t: str) -> int:
    return parse_card(t)


def test_the_pack_and_its_points() -> None:
    assert PACK.bit_count() == 24
    assert trick_points([x for x in range(32) if PACK >> x & 1]) == 120
    assert [x for x in range(32) if T.mask >> x & 1] == sorted(
        c(x) for x in ["QC", "QS", "JC", "JS", "JH", "JD", "AD", "10D", "KD", "QD", "9D"])
    # effective suits: 4 clubs, 4 spades, 5 hearts (the heart queen is plain), 11 trumps
    assert [hand_text(m) for m in T.suit_mask] == [
        "9C 10C KC AC", "", "9H 10H QH KH AH", "9S 10S KS AS",
        "JC QC 9D 10D JD QD KD AD JH JS QS"]   # no plain diamonds: every diamond is a trump


@pytest.mark.parametrize("trick, winner", [
    ("AH 9D KH QC", 3),       # QC is the highest trump
    ("QS QC JC AD", 1),       # QC beats QS
    ("JH JS JD JC", 3),       # jacks: clubs, spades, hearts, diamonds
    ("AD 10D KD QD", 0),      # the diamond ace is the highest diamond trump
    ("9D AH AS AC", 0),       # the lowest trump beats plain aces
    ("10H QH AH KH", 2),      # plain order A 10 K Q 9
    ("KH JH QH AH", 1),       # JH is a trump, not a heart
    ("9C AS AH 10C", 3),      # off-suit aces never win; 10C beats 9C
])
def test_trick_winner(trick: str, winner: int) -> None:
    assert T.winner([c(x) for x in trick.split()]) == winner


@pytest.mark.parametrize("hand, trick, expected", [
    ("JH QH 9C", "AH", "QH"),              # follow hearts with QH; JH is a trump
    ("JH 9C", "AH", "9C JH"),              # void in hearts: anything, no need to trump
    ("QS AS 9S", "KS", "9S AS"),           # QS is a trump, not a spade
    ("9D AC KH", "JC", "9D"),              # a trump lead: answer with a trump
    ("QH AC KH", "JC", "AC QH KH"),        # no trump to answer with: anything
    ("9C AC QC", "", "9C QC AC"),          # lead: anything
])
def test_legal(hand: str, trick: str, expected: str) -> None:
    mask = legal(parse_hand(hand), [c(x) for x in trick.split()], T)
    assert hand_text(mask) == hand_text(parse_hand(expected))
    assert explain(parse_hand(hand), [c(x) for x in trick.split()], T)[0] == mask


def test_option_must_trump_when_void() -> None:
    assert hand_text(legal(parse_hand("JH 9C"), [c("AH")], T, must_trump=True)) == "JH"
    bad = judge(parse_hand("JH 9C"), [c("AH")], T, c("9C"), must_trump=True)
    assert bad is not None and bad[0] == "must_trump"
    assert judge(parse_hand("JH 9C"), [c("AH")], T, c("9C")) is None


def test_judge_follow() -> None:
    bad = judge(parse_hand("JH QH 9C"), [c("AH")], T, c("JH"))
    assert bad is not None and bad[0] == "must_follow_suit" and "QH" in bad[1]


def test_trumps_option() -> None:
    short = Trumps.from_options({"trumps": ["QC", "QS"]})
    assert short.effective(c("JH")) == 2 and short.winner([c("AH"), c("JH"), c("QS")]) == 2
    for bad in (["QC", "QC"], ["7C"], []):
        with pytest.raises(IntegrityError) as err:
            Trumps.from_options({"trumps": bad})
        assert err.value.code == "bad_options"


# ---------------------------------------------------------------- the score table

TABLE = ScoreTable.from_options(resolve("kloepper"))


@pytest.mark.parametrize("mode, q, qt, knock, back, queens, others, row", [
    # no knock: the literal rows, the most demanding row met
    ("pair", 61, 3, False, False, 2, 0, "no_knock.queens_61"),
    ("pair", 90, 4, False, False, 2, 0, "no_knock.queens_61"),
    ("pair", 91, 4, False, False, 4, 0, "no_knock.queens_91"),
    ("pair", 120, 6, False, False, 6, 0, "no_knock.queens_all_tricks"),
    ("pair", 60, 3, False, False, 0, 2, "no_knock.non_queens_60"),
    ("pair", 59, 3, False, False, 0, 4, "no_knock.non_queens_61"),
    ("pair", 30, 1, False, False, 0, 4, "no_knock.non_queens_61"),
    ("pair", 29, 1, False, False, 0, 6, "no_knock.non_queens_91"),
    ("pair", 0, 0, False, False, 0, 6, "no_knock.non_queens_91"),
    ("alone", 61, 3, False, False, 6, 0, "no_knock.queens_61"),
    ("alone", 91, 5, False, False, 12, 0, "no_knock.queens_91"),
    ("alone", 120, 6, False, False, 18, 0, "no_knock.queens_all_tricks"),
    ("alone", 60, 2, False, False, 0, 4, "no_knock.non_queens_60"),
    ("alone", 59, 2, False, False, 0, 6, "no_knock.non_queens_61"),
    ("alone", 20, 1, False, False, 0, 12, "no_knock.non_queens_91"),
    # a knock
    ("pair", 120, 6, True, False, 12, 0, "knock.knockers_all_tricks"),
    ("alone", 120, 6, True, False, 30, 0, "knock.knockers_all_tricks"),
    ("alone", 110, 5, True, False, 0, 30, "knock.alone_knocker_fails"),
    ("pair", 110, 5, True, False, 0, 12, "failed_pair_knock_no_contra"),
    ("pair", 110, 5, True, True, 0, 24, "knock.knock_back_takes_a_trick"),
    ("pair", 120, 6, True, True, 24, 0, "knock.knock_back_takes_none"),
    ("alone", 120, 6, True, True, 24, 0, "knock.knock_back_takes_none"),
])
def test_score_rows(mode: str, q: int, qt: int, knock: bool, back: bool, queens: int,
                    others: int, row: str) -> None:
    ds = score_deal(TABLE, mode, q, qt, knock=knock, knock_back=back)
    assert (ds.queens_each, ds.others_each, ds.row) == (queens, others, row)


def test_the_table_is_configuration() -> None:
    assert resolve("kloepper")["score_table"] == KLOEPPER_LITERAL_TABLE
    custom = {
        "no_knock": {"queens_61": 1, "queens_all_tricks": {"pair": 3, "alone": 9},
                     "non_queens_60": 1, "non_queens_all_tricks": 5},
        "knock": {"knockers_all_tricks": 10, "alone_knocker_fails": 20,
                  "knock_back_takes_a_trick": {"pair": 15, "alone": 16},
                  "knock_back_takes_none": {"pair": 25, "alone": 35}},
    }
    t = ScoreTable.from_options({"score_table": custom,
                                 "failed_pair_knock_no_contra": {"non_queens_each": 7}})
    assert score_deal(t, "alone", 120, 6).queens_each == 9
    assert score_deal(t, "pair", 80, 4).queens_each == 1
    assert score_deal(t, "pair", 0, 0).others_each == 5
    assert score_deal(t, "pair", 30, 1).others_each == 1
    assert score_deal(t, "alone", 100, 5, knock=True, knock_back=True).others_each == 16
    assert score_deal(t, "alone", 120, 6, knock=True, knock_back=True).queens_each == 35
    assert score_deal(t, "pair", 100, 5, knock=True).others_each == 7


@pytest.mark.parametrize("table, failed, message", [
    ({"no_knock": {}}, None, "two parts"),
    ({"no_knock": {"queens_x": 2}, "knock": {}}, None, "unknown no_knock row"),
    ({"no_knock": {"queens_200": 2}, "knock": {}}, None, "threshold"),
    ({"no_knock": {"queens_61": -1}, "knock": {}}, None, "whole number"),
    ({"no_knock": {"queens_61": 2}, "knock": {"knockers_all_tricks": 1}}, None, "exactly the rows"),
    (KLOEPPER_LITERAL_TABLE, {"each": 3}, "failed_pair_knock_no_contra"),
])
def test_bad_tables_are_bad_options(table: dict, failed: dict | None, message: str) -> None:
    opts = {"score_table": table}
    if failed is not None:
        opts["failed_pair_knock_no_contra"] = failed
    with pytest.raises(IntegrityError) as err:
        ScoreTable.from_options(opts)
    assert err.value.code == "bad_options" and message in err.value.message
