"""Cards as ints 0-31, hands as bitmasks, and their text (rule book 2.1-2.3)."""

from __future__ import annotations

import pytest

from jaslog.cards import (
    ACE,
    ALL_CARDS,
    CARD_TEXT,
    CLUBS,
    DIAMONDS,
    FULL_DECK,
    HEARTS,
    HIGHER_TRUMPS,
    JACK,
    KING,
    NINE,
    QUEEN,
    RANK_MASK,
    SEVEN,
    SPADES,
    SUIT_MASK,
    TEN,
    CardError,
    bit,
    card,
    card_points,
    card_text,
    cards_of,
    hand_mask,
    hand_text,
    parse_card,
    parse_hand,
    parse_suit,
    popcount,
    rank_of,
    suit_of,
)


def test_32_distinct_cards_with_canonical_text() -> None:
    assert len(ALL_CARDS) == 32
    assert len(set(CARD_TEXT)) == 32
    assert {t[-1] for t in CARD_TEXT} == set("CDHS")
    assert sorted({t[:-1] for t in CARD_TEXT}) == sorted(["7", "8", "9", "10", "J", "Q", "K", "A"])
    assert FULL_DECK == hand_mask(ALL_CARDS) == (1 << 32) - 1


@pytest.mark.parametrize("text, rank, suit", [
    ("7C", SEVEN, CLUBS), ("10H", TEN, HEARTS), ("JD", JACK, DIAMONDS), ("AS", ACE, SPADES),
    ("QH", QUEEN, HEARTS), ("KC", KING, CLUBS), ("9S", NINE, SPADES),
])
def test_canonical_round_trip(text: str, rank: int, suit: int) -> None:
    c = parse_card(text)
    assert (rank_of(c), suit_of(c)) == (rank, suit)
    assert c == card(rank, suit)
    assert card_text(c) == text


def test_every_card_round_trips() -> None:
    for c in ALL_CARDS:
        assert parse_card(card_text(c)) == c
        assert parse_card(card_text(c), lenient=True) == c


@pytest.mark.parametrize("text", ["TH", "th", "t♥", "T♥", "10♥", "10h", " 10H ", "♥10", "H10", "♡T",
                                  "t h"])
def test_lenient_ten_of_hearts(text: str) -> None:
    assert parse_card(text, lenient=True) == card(TEN, HEARTS)


@pytest.mark.parametrize("text, expected", [
    ("jc", "JC"), ("a♠", "AS"), ("Q♦", "QD"), ("k♣", "KC"), ("7♤", "7S"), ("♠J", "JS"), ("9d", "9D"),
])
def test_lenient_forms(text: str, expected: str) -> None:
    assert card_text(parse_card(text, lenient=True)) == expected


@pytest.mark.parametrize("text", ["TH", "th", "jh", "J♥", "10h", " 10H", "H10", "1H", "", "10", "H"])
def test_strict_parsing_refuses_everything_but_canonical_text(text: str) -> None:
    with pytest.raises(CardError, match="canonical"):
        parse_card(text)


@pytest.mark.parametrize("text", ["1H", "6H", "2C", "XH", "J", "JX", "", "AAS", "10X", "♥", "11H"])
def test_lenient_parsing_still_refuses_non_cards(text: str) -> None:
    with pytest.raises(CardError) as err:
        parse_card(text, lenient=True)
    assert repr(text) in str(err.value)


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, ValueError)


@pytest.mark.parametrize("text, suit", [
    ("C", CLUBS), ("D", DIAMONDS), ("H", HEARTS), ("S", SPADES),
])
def test_parse_suit_strict(text: str, suit: int) -> None:
    assert parse_suit(text) == suit


@pytest.mark.parametrize("text, suit", [
    ("h", HEARTS), ("♥", HEARTS), ("♣", CLUBS), ("♦", DIAMONDS), ("♠", SPADES), ("spades", SPADES),
    ("Hearts", HEARTS), (" d ", DIAMONDS),
])
def test_parse_suit_lenient(text: str, suit: int) -> None:
    assert parse_suit(text, lenient=True) == suit


@pytest.mark.parametrize("text", ["h", "♥", "hearts", "X", "", "HH"])
def test_parse_suit_strict_refuses(text: str) -> None:
    with pytest.raises(CardError):
        parse_suit(text)


def test_parse_suit_lenient_refuses_non_suits() -> None:
    with pytest.raises(CardError, match="not a suit"):
        parse_suit("trumps", lenient=True)


def test_hands_are_bitmasks() -> None:
    h = parse_hand("JC, 7C AS")
    assert h == bit(card(JACK, CLUBS)) | bit(card(SEVEN, CLUBS)) | bit(card(ACE, SPADES))
    assert popcount(h) == 3
    assert hand_text(h) == "7C JC AS"          # lowest index first: clubs 7..A, then D, H, S
    assert hand_text(h, ",") == "7C,JC,AS"
    assert [card_text(x) for x in cards_of(h)] == ["7C", "JC", "AS"]
    assert hand_mask(cards_of(h)) == h
    assert list(cards_of(0)) == []
    assert hand_text(0) == ""


def test_parse_hand_lenient_by_default_and_strict_on_request() -> None:
    assert parse_hand("th ♠a") == parse_hand("10H AS", lenient=False)
    with pytest.raises(CardError):
        parse_hand("TH AS", lenient=False)


def test_parse_hand_refuses_a_card_named_twice() -> None:
    with pytest.raises(CardError, match="10H is named twice"):
        parse_hand("10H AS TH")


def test_suit_and_rank_masks() -> None:
    assert [popcount(m) for m in SUIT_MASK] == [8, 8, 8, 8]
    assert [popcount(m) for m in RANK_MASK] == [4] * 8
    assert hand_text(SUIT_MASK[HEARTS]) == "7H 8H 9H 10H JH QH KH AH"
    assert hand_text(RANK_MASK[JACK]) == "JC JD JH JS"
    for s in range(4):
        for t in range(4):
            assert (SUIT_MASK[s] & SUIT_MASK[t] == 0) == (s != t)
    assert sum(SUIT_MASK) == FULL_DECK


def test_ranks_are_numbered_in_sequence_order() -> None:
    # 7 8 9 10 J Q K A: adjacent in a run exactly when the numbers differ by one (rule book 2.2)
    order = [parse_card(t + "S") for t in ["7", "8", "9", "10", "J", "Q", "K", "A"]]
    assert [rank_of(x) for x in order] == list(range(8))


# Trump order J 9 A 10 K Q 8 7, high to low (rule book 2.2).
TRUMP_ORDER = ["J", "9", "A", "10", "K", "Q", "8", "7"]


@pytest.mark.parametrize("i", range(8))
def test_higher_trumps(i: int) -> None:
    c = parse_card(TRUMP_ORDER[i] + "D")
    expected = {r + "D" for r in TRUMP_ORDER[:i]}
    assert set(hand_text(HIGHER_TRUMPS[c]).split()) - {""} == expected


@pytest.mark.parametrize("rank, trump_pts, plain_pts", [
    ("J", 20, 2), ("9", 14, 0), ("A", 11, 11), ("10", 10, 10), ("K", 4, 4), ("Q", 3, 3),
    ("8", 0, 0), ("7", 0, 0),
])
def test_card_points(rank: str, trump_pts: int, plain_pts: int) -> None:
    assert card_points(parse_card(rank + "H"), HEARTS) == trump_pts
    assert card_points(parse_card(rank + "H"), SPADES) == plain_pts


def test_point_totals() -> None:
    # plain suit 30, trump suit 62, all cards 152 (rule book 2.3)
    for trump in range(4):
        per_suit = [sum(card_points(x, trump) for x in cards_of(SUIT_MASK[s])) for s in range(4)]
        assert per_suit[trump] == 62
        assert sorted(per_suit) == [30, 30, 30, 62]
        assert sum(per_suit) == 152
