"""Legal plays and revoke codes: every branch of the rule book's pseudocode (3.3) and the
implementation lessons of section 8, for Amsterdam, Rotterdam and every option.

Each case is written from the player's seat: ``trick`` is what was played before him, in
play order, so his partner played ``trick[-2]``. ``legal`` is the set of legal cards worked
out from the rule book; ``codes`` gives the rule code of every other card in the hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.cards import HEARTS, SUIT_LETTERS, hand_text, parse_hand
from jaslog.games import resolve
from jaslog.games.klaverjas.rules import PlayRules, explain, judge, legal

from .logs import cards

AMS: dict[str, Any] = {}
ROT = {"play": "rotterdam"}
ROT_FREE = {"play": "rotterdam", "rotterdam_must_undertrump": False}
MUST_UNDER = {"amsterdam_cannot_overtrump": "must_undertrump"}
DISCARD = {"amsterdam_partner_trump": "discard_only"}
FREE = {"amsterdam_partner_trump": "free"}

F, T, OV, U, D = "must_follow_suit", "must_trump", "must_overtrump", "no_undertrump", "must_discard"

# (id, options, trick, hand, legal, {card: code}); trumps are hearts throughout.
CASES: list[tuple[str, dict[str, Any], str, str, str, dict[str, str]]] = [
    # 1. leading: any card
    ("lead", AMS, "", "7H AD KC", "7H AD KC", {}),
    ("lead-rot", ROT, "", "JH 7S", "JH 7S", {}),
    # 2. trump led: beat the highest trump if able, even over the partner; else any trump
    ("trump-led-overtrump", AMS, "9H", "JH 10H AS", "JH", {"10H": OV, "AS": F}),
    ("trump-led-over-partner", AMS, "AH 8H", "9H KH 7C", "9H", {"KH": OV, "7C": F}),
    ("trump-led-over-partner-3", AMS, "7H JH 8H", "AH 10H 7S", "AH 10H", {"7S": F}),
    ("trump-led-cannot-beat", AMS, "JH", "7H 8H AS", "7H 8H", {"AS": F}),
    ("trump-led-no-trumps", AMS, "JH", "AS 7C", "AS 7C", {}),
    ("trump-led-top-not-last", AMS, "8H 9H 7H", "AH JH 7S", "JH", {"AH": OV, "7S": F}),
    ("trump-led-offsuit-in-trick", AMS, "7H AS", "8H JS", "8H", {"JS": F}),
    ("trump-led-rot", ROT, "9H", "JH 10H AS", "JH", {"10H": OV, "AS": F}),
    ("trump-led-rot-cannot-beat", ROT_FREE, "JH", "7H 8H AS", "7H 8H", {"AS": F}),
    # 3. plain suit led and able to follow: any card of the suit, no need to head, never trump
    ("follow", AMS, "AS", "7S KS JH 7C", "7S KS", {"JH": F, "7C": F}),
    ("follow-no-heading", AMS, "10S", "7S AS", "7S AS", {}),
    ("follow-rot", ROT, "7S 9H", "8S AS JH", "8S AS", {"JH": F}),
    ("follow-after-a-trump", ROT, "KS 9H", "7S AH", "7S", {"AH": F}),
    # void in the suit led and no trumps: any card
    ("void-no-trump", AMS, "AS", "7C AD", "7C AD", {}),
    ("void-no-trump-rot", ROT, "AS 9H", "7C AD", "7C AD", {}),
    # 4. Amsterdam, an opponent is winning
    ("opp-plain-any-trump", AMS, "AS", "7H JH 7C", "7H JH", {"7C": T}),
    ("opp-trump-overtrump", AMS, "7S 9H", "JH 8H 7C", "JH", {"8H": OV, "7C": OV}),
    ("opp-trump-discard", AMS, "7S JH", "8H 7C AD", "7C AD", {"8H": U}),
    ("opp-trump-only-lower", AMS, "7S JH", "8H 7H", "8H 7H", {}),
    ("opp-overtrumped-partner", AMS, "AS 9H JH", "AH 7C", "7C", {"AH": U}),
    ("opp-must-undertrump-opt", MUST_UNDER, "7S JH", "8H 7C AD", "8H", {"7C": T, "AD": T}),
    ("opp-must-undertrump-opt-higher", MUST_UNDER, "7S 9H", "JH 8H 7C", "JH", {"8H": OV, "7C": T}),
    ("opp-must-undertrump-opt-plain", MUST_UNDER, "AS", "7H 7C", "7H", {"7C": T}),
    # 5. Amsterdam, the partner is winning
    ("partner-plain", AMS, "AS 7S", "7H 7C", "7H 7C", {}),
    ("partner-trump-no-undertrump", AMS, "AS 9H 7S", "JH 8H 7C", "JH 7C", {"8H": U}),
    ("partner-trump-only-lower", AMS, "AS 9H 7S", "8H 7H", "8H 7H", {}),
    ("partner-trump-discard-only", DISCARD, "AS 9H 7S", "JH 8H 7C", "7C", {"JH": D, "8H": U}),
    ("partner-trump-discard-only-trumps", DISCARD, "AS 9H 7S", "JH 8H", "JH 8H", {}),
    ("partner-trump-free", FREE, "AS 9H 7S", "JH 8H 7C", "JH 8H 7C", {}),
    ("partner-plain-discard-only", DISCARD, "AS 7S", "7H 7C", "7H 7C", {}),
    # lesson 3: "higher" is against the highest trump in the trick, not the last one
    ("lesson3-partner-jack", AMS, "AS JH 8H", "9H 7C", "7C", {"9H": U}),
    ("lesson3-opp-nine", AMS, "AS 7H 9H", "8H 10H AH 7C", "7C", {"8H": U, "10H": U, "AH": U}),
    ("lesson3-rot", ROT, "AS JH 8H", "9H 7C", "9H", {"7C": T}),
    # lesson 5: the exemption depends on who wins now, not who led
    ("lesson5-partner-led-opp-wins", AMS, "10S AS", "7H 7C", "7H", {"7C": T}),
    ("lesson5-opp-led-partner-wins", AMS, "KS AS 7S", "7H 7C", "7H 7C", {}),
    ("lesson5-partner-trumped-then-overtrumped", AMS, "7S 9H JH", "AH 8C", "8C", {"AH": U}),
    # lesson 2: the winner is the one before this play (a trump he would play changes nothing)
    ("lesson2-partner-wins-before-my-play", AMS, "KS AS 10S", "7H 8H 7C", "7H 8H 7C", {}),
    # 6. Rotterdam: trump whoever wins, beat the top trump if able, else undertrump
    ("rot-partner-plain", ROT, "AS 7S", "8H 7C", "8H", {"7C": T}),
    ("rot-overtrump", ROT, "AS 9H", "JH 8H 7C", "JH", {"8H": OV, "7C": T}),
    ("rot-overtrump-partner", ROT, "AS 9H 7S", "JH AH 7C", "JH", {"AH": OV, "7C": T}),
    ("rot-undertrump", ROT, "AS JH", "8H 7C", "8H", {"7C": T}),
    ("rot-undertrump-partner", ROT, "AS JH 7S", "8H 7C", "8H", {"7C": T}),
    ("rot-no-undertrump-option", ROT_FREE, "AS JH", "8H 7C", "8H 7C", {}),
    ("rot-no-undertrump-option-higher", ROT_FREE, "AS 9H", "JH 8H 7C", "JH", {"8H": OV, "7C": T}),
    ("rot-no-trump-in-trick", ROT_FREE, "AS", "8H 7C", "8H", {"7C": T}),
]


def _legal_text(mask: int, hand: str) -> set[str]:
    return set(hand_text(mask).split())


@pytest.mark.parametrize("opts, trick, hand, expected, codes",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_legal_and_revoke_codes(opts: dict[str, Any], trick: str, hand: str, expected: str,
                                codes: dict[str, str]) -> None:
    rules = PlayRules.from_options(resolve("amsterdam", opts))
    h = parse_hand(hand, lenient=False)
    t = cards(trick)
    mask = legal(h, t, HEARTS, rules)
    assert _legal_text(mask, hand) == set(expected.split())
    assert set(codes) == set(hand.split()) - set(expected.split()), "every illegal card has a code"
    for card_ in hand.split():
        verdict = judge(h, t, HEARTS, rules, cards(card_)[0])
        if card_ in codes:
            assert verdict is not None and verdict[0] == codes[card_], card_
            assert card_ in verdict[1]
        else:
            assert verdict is None, card_
    m2, why = explain(h, t, HEARTS, rules)
    assert m2 == mask and why.endswith(".")


def test_legal_is_never_empty_and_inside_the_hand() -> None:
    for _, opts, trick, hand, _, _ in CASES:
        rules = PlayRules.from_options(resolve("amsterdam", opts))
        h = parse_hand(hand, lenient=False)
        m = legal(h, cards(trick), HEARTS, rules)
        assert m and m & ~h == 0


def test_rotterdam_preset_is_rotterdam_play() -> None:
    rules = PlayRules.from_options(resolve("rotterdam"))
    assert rules.rotterdam and rules.rotterdam_must_undertrump
    # partner winning with a plain card: Amsterdam lets him discard, Rotterdam makes him trump
    h = parse_hand("8H 7C")
    ams = PlayRules.from_options(resolve("amsterdam"))
    assert hand_text(legal(h, cards("AS 7S"), HEARTS, ams)) == "7C 8H"
    assert hand_text(legal(h, cards("AS 7S"), HEARTS, rules)) == "8H"


@pytest.mark.parametrize("trump", range(4))
def test_same_rules_in_every_trump_suit(trump: int) -> None:
    # rename suits so that hearts becomes ``trump``: the legal set renames the same way
    rename = {HEARTS: trump, trump: HEARTS}

    def mv(text: str) -> str:
        return " ".join(t[:-1] + SUIT_LETTERS[rename.get(SUIT_LETTERS.index(t[-1]),
                                                         SUIT_LETTERS.index(t[-1]))]
                        for t in text.split())

    for _, opts, trick, hand, expected, _ in CASES:
        rules = PlayRules.from_options(resolve("amsterdam", opts))
        m = legal(parse_hand(mv(hand)), cards(mv(trick)), trump, rules)
        assert set(hand_text(m).split()) == set(mv(expected).split())


@pytest.mark.parametrize("opts, trick, hand, words", [
    (AMS, "", "7H", "lead"),
    (AMS, "9H", "JH 10H", "beat the highest trump (9H)"),
    (AMS, "JH", "7H AS", "undertrumping is compulsory"),
    (AMS, "AS", "7S 7H", "must follow suit"),
    (AMS, "7S JH", "8H 7C", "throw a card of another suit"),
    (AMS, "AS 9H 7S", "JH 8H 7C", "except a lower trump"),
    (ROT, "AS 7S", "8H 7C", "Rotterdam"),
    (DISCARD, "AS 9H 7S", "JH 7C", "discard_only"),
])
def test_explanations_name_the_rule(opts: dict[str, Any], trick: str, hand: str, words: str) -> None:
    rules = PlayRules.from_options(resolve("amsterdam", opts))
    _, why = explain(parse_hand(hand), cards(trick), HEARTS, rules)
    assert words in why
