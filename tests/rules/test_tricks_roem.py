"""Trick winner (2.4), card points (2.3) and roem in a trick (3.4), worked out by hand."""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.cards import CLUBS, DIAMONDS, HEARTS, SPADES, SUIT_LETTERS
from jaslog.engine.jacknine import beats, longest_run, trick_points, trick_winner
from jaslog.games import resolve
from jaslog.games.klaverjas.rules import RoemRules, roem_parts, trick_roem

from .logs import cards


@pytest.mark.parametrize("trick, trump, winner", [
    ("AS 7H 10S KS", HEARTS, 1),      # any trump beats the suit led
    ("AS 7D 10S KS", HEARTS, 0),      # an off-suit plain card never wins
    ("7S AD AC AH", SPADES, 0),       # ... even four aces lose to the 7 led
    ("10S AS", CLUBS, 1),
    ("KS 10S", CLUBS, 1),             # plain order A 10 K Q J 9 8 7
    ("JS QS", CLUBS, 1),
    ("9S JS", CLUBS, 1),
    ("QH JH 9H AH", HEARTS, 1),       # trump order J 9 A 10 K Q 8 7
    ("AH 9H", HEARTS, 1),
    ("AH 9H", SPADES, 0),
    ("10H AH KH", HEARTS, 1),
    ("QH KH", HEARTS, 1),
    ("7S 8H 7H", HEARTS, 1),
    ("JD 7C 8C 9C", CLUBS, 3),        # trumps played to a plain lead: the highest trump
    ("JD 9C 8C 7C", CLUBS, 1),
    ("8S 7S", DIAMONDS, 0),
    ("KD", DIAMONDS, 0),
    ("7C 8C", HEARTS, 1),
])
def test_trick_winner(trick: str, trump: int, winner: int) -> None:
    assert trick_winner(cards(trick), trump) == winner


def test_beats_is_against_the_winning_card() -> None:
    assert beats(cards("7H")[0], cards("AS")[0], HEARTS)
    assert not beats(cards("AD")[0], cards("7S")[0], HEARTS)
    assert not beats(cards("8H")[0], cards("9H")[0], HEARTS)
    assert beats(cards("9H")[0], cards("AH")[0], HEARTS)
    assert not beats(cards("9S")[0], cards("7H")[0], HEARTS)


@pytest.mark.parametrize("trick, trump, points", [
    ("JH 9H AS 7C", HEARTS, 20 + 14 + 11 + 0),
    ("JS 9S AS 10S", HEARTS, 2 + 0 + 11 + 10),
    ("JS 9S AS 10S", SPADES, 20 + 14 + 11 + 10),
    ("KD QD 8D 7D", DIAMONDS, 4 + 3 + 0 + 0),
    ("KD QD 8D 7D", CLUBS, 4 + 3),
    ("AH 10H KH QH", HEARTS, 11 + 10 + 4 + 3),
    ("7C 8C 7D 8D", SPADES, 0),
])
def test_trick_points(trick: str, trump: int, points: int) -> None:
    assert trick_points(cards(trick), trump) == points


def test_all_tricks_add_up_to_152_plus_last_trick() -> None:
    deck = [f"{r}{s}" for s in SUIT_LETTERS for r in ["7", "8", "9", "10", "J", "Q", "K", "A"]]
    for trump in range(4):
        tricks = [deck[i:i + 4] for i in range(0, 32, 4)]
        assert sum(trick_points(cards(" ".join(t)), trump) for t in tricks) == 152


@pytest.mark.parametrize("ranks, n", [
    (0, 0), (0b1, 1), (0b11, 2), (0b111, 3), (0b1111, 4), (0b11111111, 8),
    (0b10000001, 1),            # A and 7: no wrap
    (0b11000001, 2),
    (0b01011100, 3),            # 9 10 J, then K
    (0b10101010, 1),
])
def test_longest_run(ranks: int, n: int) -> None:
    assert longest_run(ranks) == n


def roem(trick: str, trump: int = HEARTS, ruleset: str = "amsterdam", **opts: Any) -> int:
    o = resolve(ruleset, {k.replace("__", "."): v for k, v in opts.items()})
    return trick_roem(cards(trick), trump, RoemRules.from_options(o))


@pytest.mark.parametrize("trick, value", [
    ("9S 10S JS 7C", 20),        # the ten sits between 9 and J in sequence order
    ("10S JS QS 7C", 20),
    ("8S 9S 10S 7C", 20),
    ("QS KS AS 7C", 20),
    ("10S KS AS 7C", 0),         # 10 and K are not adjacent
    ("10S KS QS 7C", 0),         # K-Q only: a run needs three
    ("10S 9S 7S 8S", 50),        # order of play does not matter
    ("JS 9S 7S 8S", 20),         # 7-8-9; the jack is not adjacent to the 9
    ("AS 7S 8S KS", 0),          # no wrap: A-7 not adjacent
    ("AS 7S 8S 9S", 20),         # 7-8-9 only (a wrap would make 50)
    ("10S JS QS KS", 50),        # longest run only: 50, not 50 + 20 + 20
    ("7S 8S 9S 10S", 50),
    ("9S 10S JS 9D", 20),
    ("9S 10S JD QD", 0),         # a run is in one suit
    ("KH QH 7C 8D", 20),         # stuk alone (trumps hearts)
    ("KH QH JH 7C", 40),         # run of three with stuk
    ("AH KH QH 7C", 40),
    ("KH QH 9H 7C", 20),         # K Q 9: stuk, no run
    ("AH KH QH JH", 70),         # run of four with stuk
    ("10H JH QH KH", 70),
    ("9H 10H JH QH", 50),        # run of four in trumps without the king: no stuk
    ("KS QS 7C 8D", 0),          # K and Q of a plain suit: nothing
    ("KS QS JS 8D", 20),
    ("KH 7H QS 8D", 0),
    ("AC AD AH AS", 100),        # four of a kind
    ("KC KD KH KS", 100),        # (the king of trumps alone is no stuk)
    ("QC QD QH QS", 100),
    ("10C 10D 10H 10S", 100),
    ("JC JD JH JS", 200),
    ("9C 9D 9H 9S", 0),          # 9s, 8s, 7s: nothing in amsterdam (section 9, decision 2)
    ("8C 8D 8H 8S", 0),
    ("7C 7D 7H 7S", 0),
    ("7C 8D 9H 10S", 0),
    ("JH 9H AH 10H", 20),        # 9-10-J is a run; the ace is not adjacent to the jack
])
def test_roem_amsterdam(trick: str, value: int) -> None:
    assert roem(trick) == value


@pytest.mark.parametrize("trick, value", [
    ("9C 9D 9H 9S", 100), ("8C 8D 8H 8S", 100), ("7C 7D 7H 7S", 100), ("JC JD JH JS", 200),
    ("AC AD AH AS", 100), ("KH QH JH 7C", 40),
])
def test_roem_kbn(trick: str, value: int) -> None:
    assert roem(trick, ruleset="amsterdam-kbn") == value


def test_roem_in_rotterdam_is_amsterdams() -> None:
    for t in ("9C 9D 9H 9S", "AH KH QH JH", "JC JD JH JS", "KH QH 7C 8D"):
        assert roem(t, ruleset="rotterdam") == roem(t)


@pytest.mark.parametrize("trick, trump, parts", [
    ("AH KH QH JH", HEARTS, [("run4", 50), ("stuk", 20)]),
    ("KD QD JD 7C", DIAMONDS, [("run3", 20), ("stuk", 20)]),
    ("KD QD JD 7C", CLUBS, [("run3", 20)]),
    ("KC QC 7D 7S", CLUBS, [("stuk", 20)]),
    ("JC JD JH JS", SPADES, [("four_jacks", 200)]),
    ("QC QD QH QS", SPADES, [("four_of_a_kind", 100)]),
    ("9C 9D 9H 9S", SPADES, [("four_of_a_kind", 0)]),
    ("7C 8D 9H 10S", SPADES, []),
])
def test_roem_parts(trick: str, trump: int, parts: list[tuple[str, int]]) -> None:
    assert roem_parts(cards(trick), trump, RoemRules.from_options(resolve("amsterdam"))) == parts


def test_roem_options_change_the_values() -> None:
    assert roem("9S 10S JS 7C", roem__run3=30) == 30
    assert roem("9S 10S JS QS", roem__run4=100) == 100
    assert roem("KH QH 7C 8D", roem__stuk=0) == 0
    assert roem("KH QH JH 7C", roem__stuk=25) == 45
    assert roem("AC AD AH AS", roem__four_kind=150) == 150
    assert roem("JC JD JH JS", roem__four_jacks=100) == 100
    assert roem("9C 9D 9H 9S", roem__four_kind_ranks=["9"]) == 100
    assert roem("AC AD AH AS", roem__four_kind_ranks=["9"]) == 0
    # jacks are always roem.four_jacks, whatever the ranks list says
    assert roem("JC JD JH JS", roem__four_kind_ranks=["A"]) == 200


@pytest.mark.parametrize("trick, value", [
    ("KS KC KD 7H", 50),
    ("KS KC KD KH", 100),        # four of a kind is not also three of a kind
    ("KH KS KC QH", 20 + 50),    # stuk and three kings
    ("7S 7C 7D 8S", 50),
    ("9S 10S JS 9D", 20),        # two nines only
])
def test_three_of_a_kind_option(trick: str, value: int) -> None:
    assert roem(trick, roem__three_of_a_kind=50) == value


def test_three_of_a_kind_is_off_by_default() -> None:
    assert roem("KS KC KD 7H") == 0


@pytest.mark.parametrize("options", [
    resolve("amsterdam"),
    {**resolve("rotterdam"), "roem.three_of_a_kind": 30, "roem.run3": 25, "roem.run4": 60,
     "roem.stuk": 15, "roem.four_jacks": 300,
     "roem.four_kind_ranks": ["A", "K", "Q", "10", "9", "8", "7"]},
], ids=["amsterdam", "every-roem-changed"])
def test_trick_value_agrees_with_the_parts_on_every_trick_of_the_pack(
        options: dict[str, Any]) -> None:
    """The fold's table arithmetic (``trick_value``) against the rules as written
    (``trick_points`` and the sum of ``_roem_parts``): all 35,960 four-card tricks, under
    every trump, each in a shuffled play order."""
    from itertools import combinations
    from random import Random

    from jaslog.games.klaverjas.rules.play import _roem_parts, trick_value

    rules = RoemRules.from_options(options)
    rng = Random(7)
    checked = kinds = 0
    seen: set[int] = set()
    for combo in combinations(range(32), 4):
        trick = list(combo)
        rng.shuffle(trick)
        for trump in range(4):
            parts = _roem_parts(trick, trump, rules)
            want = (trick_points(trick, trump), sum(p for _, p in parts))
            a, b, c, d = trick
            assert trick_value(a, b, c, d, trump, rules) == want, (trick, trump, parts)
            seen.add(want[1])
            checked += 1
            kinds += bool(parts)
    assert checked == 143_840
    assert kinds > 4_000 and len(seen) >= 6  # the walk met runs, stuk, four of a kind
