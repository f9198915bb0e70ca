"""The Klaverjas game state driven directly (no events): what it expects, legal plays,
snapshots."""

from __future__ import annotations

import pytest

from jaslog.cards import FULL_DECK, hand_text
from jaslog.engine.base import IntegrityError
from jaslog.games import resolve
from jaslog.games.klaverjas.rules import KlaverjasGame, check_deal

from .logs import DEAL_M, TRICKS_M, c, masks


def new(**opts: object) -> KlaverjasGame:
    return KlaverjasGame(resolve("amsterdam", opts), dealer=3)


def test_expected_walks_through_a_round() -> None:
    g = new()
    assert g.expected() == ("deal", 3)
    g.deal(masks(DEAL_M))
    assert g.expected() == ("bid", 0)
    assert g.legal_plays() == 0
    g.bid(0, "H")
    assert g.expected() == ("play", 0)
    assert g.legal_plays() == masks(DEAL_M)[0]          # leading: any card
    g.play(0, c("JH"))
    assert g.expected() == ("play", 1)
    assert hand_text(g.legal_plays()) == "10H KH"       # trump led, cannot beat JH: any trump
    plays = [((leader + i) % 4, card) for leader, cards in TRICKS_M
             for i, card in enumerate(cards.split())]
    for seat, card in plays[1:]:
        g.play(seat, c(card))
    assert g.rounds[0].closed
    assert g.expected() == ("deal", 0)


def test_legal_plays_with_hands_not_recorded() -> None:
    g = new()
    g.deal(None)
    g.bid(0, "H")
    g.play(0, c("JH"))
    assert g.legal_plays() == FULL_DECK & ~(1 << c("JH"))


def test_random_trump_expects_a_turn_from_the_dealer() -> None:
    g = new(trump_selection="random")
    g.deal(None)
    assert g.expected() == ("turn", 3)
    g.turn_trump("4S")
    assert g.expected() == ("bid", 0)


def test_actions_leave_the_state_as_it_was_on_error() -> None:
    g = new()
    g.deal(masks(DEAL_M))
    g.bid(0, "H")
    snap = g.copy()
    with pytest.raises(IntegrityError) as err:
        g.play(1, c("KH"))
    assert err.value.code == "not_your_turn"
    with pytest.raises(IntegrityError):
        g.play(0, c("KH"))
    assert g.rounds[0].played == snap.rounds[0].played == 0
    assert g.rounds[0].hands == snap.rounds[0].hands


def test_bad_dealer_and_seat() -> None:
    with pytest.raises(IntegrityError) as err:
        KlaverjasGame(resolve("amsterdam"), dealer=4)
    assert err.value.code == "bad_seat"
    g = new()
    g.deal(None)
    with pytest.raises(IntegrityError) as err:
        g.bid(5, "H")
    assert err.value.code == "bad_seat"
    with pytest.raises(IntegrityError) as err:
        g.claim_roem(0, -20)
    assert err.value.code == "bad_roem"


def test_check_deal() -> None:
    check_deal(masks(DEAL_M))
    with pytest.raises(IntegrityError, match="4 hands, not 3"):
        check_deal(masks(DEAL_M)[:3])
    h = masks(DEAL_M)
    with pytest.raises(IntegrityError, match="seat 1 was dealt 9 cards"):
        check_deal([h[0], h[1] | 1 << c("JH"), h[2], h[3] & ~(1 << c("7H"))])
    with pytest.raises(IntegrityError) as err:
        check_deal([h[0], h[0], h[2], h[3]])
    assert err.value.code == "dealt_twice"
