"""Trump selection state machines (rule book 3.2): free, utrecht, dealer_must_choose, random
with every ``random.all_pass`` mode, violations and integrity errors.

Dealer 3 throughout unless said, so seat 0 is forehand.
"""

from __future__ import annotations

from typing import Any

import pytest

from jaslog.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from jaslog.engine.fold import FoldError, GameFold
from jaslog.games import resolve
from jaslog.games.klaverjas.rules.trump import FreeChoice, RandomTrump, Utrecht, make_selection

from .logs import DEAL_M, Log

PASS4 = ((0, "pass"), (1, "pass"), (2, "pass"), (3, "pass"))


def bidding(options: dict[str, Any] | None = None, *steps: tuple[Any, ...], dealer: int = 3,
            hands: list[str] | None = DEAL_M, ruleset: str = "amsterdam") -> GameFold:
    """Fold a deal and the bidding ``steps``: (seat, call) for a bid, (card,) for a turn."""
    log = Log(ruleset=ruleset, options=options, dealer=dealer)
    log.deal(hands)
    for s in steps:
        if len(s) == 1:
            log.turn(s[0])
        else:
            log.bid(*s)
    return log.fold()


def rnd(f: GameFold) -> Any:
    return f.state.rounds[-1]


def outcome(f: GameFold) -> tuple[int | None, int | None, list[str]]:
    r = rnd(f)
    return r.trump, r.chooser, [v.rule for v in r.violations]


def fails(code: str, options: dict[str, Any] | None, *steps: tuple[Any, ...], seq: int,
          **kw: Any) -> FoldError:
    with pytest.raises(FoldError) as err:
        bidding(options, *steps, **kw)
    assert (err.value.code, err.value.seq, err.value.game) == (code, seq, "g1")
    assert f"game g1 seq {seq}" in str(err.value)
    return err.value


# ---------------------------------------------------------------- free choice


def test_free_forehand_names_trumps() -> None:
    f = bidding(None, (0, "S"))
    assert outcome(f) == (SPADES, 0, [])
    assert f.state.expected() == ("play", 0)    # forehand leads


def test_free_third_player_names_trumps() -> None:
    f = bidding(None, (0, "pass"), (1, "pass"), (2, "D"))
    assert outcome(f) == (DIAMONDS, 2, [])
    assert f.state.expected() == ("play", 0)    # forehand leads, whoever chose (first_lead)


def test_free_first_lead_trump_chooser() -> None:
    f = bidding({"first_lead": "trump_chooser"}, (0, "pass"), (1, "pass"), (2, "D"))
    assert f.state.expected() == ("play", 2)


def test_free_all_pass_starter_forced() -> None:
    f = bidding(None, *PASS4)
    assert f.state.expected() == ("bid", 0)
    assert rnd(f).selection.forced
    f2 = bidding(None, *PASS4, (0, "C"))
    assert outcome(f2) == (CLUBS, 0, [])


def test_free_forced_seat_passes_again_must_choose() -> None:
    f = bidding(None, *PASS4, (0, "pass"), (0, "H"))
    assert outcome(f) == (HEARTS, 0, ["must_choose"])
    v = rnd(f).violations[0]
    assert (v.seat, v.seq, v.round) == (0, 6, 1)


@pytest.mark.parametrize("start, forced, dealer, order, forced_seat", [
    ("forehand", "starter", 3, [0, 1, 2, 3], 0),
    ("dealer", "starter", 3, [3, 0, 1, 2], 3),     # NKU: dealer speaks first and is forced
    ("forehand", "dealer", 3, [0, 1, 2, 3], 3),    # Parlett: dealer forced
    ("dealer", "forehand", 3, [3, 0, 1, 2], 0),
    ("forehand", "starter", 1, [2, 3, 0, 1], 2),
    ("dealer", "dealer", 0, [0, 1, 2, 3], 0),
])
def test_free_start_and_forced(start: str, forced: str, dealer: int, order: list[int],
                               forced_seat: int) -> None:
    opts = {"free.start": start, "free.forced": forced}
    passes = [(s, "pass") for s in order]
    f = bidding(opts, *passes, dealer=dealer)
    assert f.state.expected() == ("bid", forced_seat)
    f = bidding(opts, *passes, (forced_seat, "H"), dealer=dealer)
    assert outcome(f) == (HEARTS, forced_seat, [])
    # first lead is the forehand, not the chooser
    assert f.state.expected() == ("play", (dealer + 1) % 4)


def test_free_bid_out_of_turn_is_a_violation_and_the_fact_stands() -> None:
    f = bidding(None, (2, "S"))
    assert outcome(f) == (SPADES, 2, ["bid_out_of_turn"])
    v = rnd(f).violations[0]
    assert (v.seat, v.seq) == (2, 2)
    assert "seat 0's turn" in v.message


def test_free_out_of_turn_pass_moves_the_turn_on() -> None:
    f = bidding(None, (1, "pass"))
    assert [v.rule for v in rnd(f).violations] == ["bid_out_of_turn"]
    assert f.state.expected() == ("bid", 2)


def test_free_forced_seat_passed_over_by_another() -> None:
    f = bidding(None, *PASS4, (1, "C"))
    assert outcome(f) == (CLUBS, 1, ["bid_out_of_turn"])


# ---------------------------------------------------------------- utrecht, dealer_must_choose


def test_utrecht_forehand_must_choose() -> None:
    assert outcome(bidding({"trump_selection": "utrecht"}, (0, "C"))) == (CLUBS, 0, [])
    f = bidding({"trump_selection": "utrecht"}, (0, "pass"), (0, "D"))
    assert outcome(f) == (DIAMONDS, 0, ["must_choose"])
    f = bidding({"trump_selection": "utrecht"}, (1, "D"))
    assert outcome(f) == (DIAMONDS, 1, ["bid_out_of_turn"])


def test_kbn_and_online_presets_are_utrecht() -> None:
    for preset in ("amsterdam-kbn", "klaverjas-online-501"):
        f = bidding(None, (0, "pass"), (0, "S"), ruleset=preset)
        assert outcome(f) == (SPADES, 0, ["must_choose"])


def test_dealer_must_choose() -> None:
    opts = {"trump_selection": "dealer_must_choose", "first_lead": "trump_chooser"}
    f = bidding(opts)
    assert f.state.expected() == ("bid", 3)
    f = bidding(opts, (3, "H"))
    assert outcome(f) == (HEARTS, 3, [])
    assert f.state.expected() == ("play", 3)
    assert outcome(bidding(opts, (0, "H"))) == (HEARTS, 0, ["bid_out_of_turn"])
    assert outcome(bidding(opts, (3, "pass"), (3, "C"))) == (CLUBS, 3, ["must_choose"])


# ---------------------------------------------------------------- random (turned card)

RANDOM = {"trump_selection": "random"}


def rand(mode: str, **more: Any) -> dict[str, Any]:
    return {**RANDOM, "random.all_pass": mode, **more}


def test_random_accept() -> None:
    f = bidding(RANDOM, ("4H",))
    assert f.state.expected() == ("bid", 0)
    assert rnd(f).selection.proposed == HEARTS
    assert outcome(bidding(RANDOM, ("4H",), (0, "accept"))) == (HEARTS, 0, [])
    assert outcome(bidding(RANDOM, ("4H",), (0, "pass"), (1, "accept"))) == (HEARTS, 1, [])
    # naming the proposed suit is accepting it
    assert outcome(bidding(RANDOM, ("2S",), (0, "pass"), (1, "pass"), (2, "S"))) == (SPADES, 2, [])


def test_random_naming_another_suit_in_the_accept_round() -> None:
    assert outcome(bidding(RANDOM, ("4H",), (0, "C"))) == (CLUBS, 0, ["suit_not_allowed"])


def test_random_second_card_forced() -> None:
    f = bidding(RANDOM, ("4H",), *PASS4)
    assert f.state.expected() == ("turn", 3)
    # the same suit again: keep turning (en.wikipedia); then the new suit is trumps,
    # forehand forced to play it
    f = bidding(RANDOM, ("4H",), *PASS4, ("3H",))
    assert f.state.expected() == ("turn", 3)
    assert rnd(f).trump is None
    f = bidding(RANDOM, ("4H",), *PASS4, ("3H",), ("6H",), ("2D",))
    assert outcome(f) == (DIAMONDS, 0, [])
    assert rnd(f).selection.turned == ["4H", "3H", "6H", "2D"]
    assert f.state.expected() == ("play", 0)


def test_random_forehand_names_other() -> None:
    opts = rand("forehand_names_other")
    f = bidding(opts, ("4H",), *PASS4)
    assert f.state.expected() == ("bid", 0)
    assert outcome(bidding(opts, ("4H",), *PASS4, (0, "S"))) == (SPADES, 0, [])
    assert outcome(bidding(opts, ("4H",), *PASS4, (0, "H"))) == (HEARTS, 0, ["suit_not_allowed"])
    assert outcome(bidding(opts, ("4H",), *PASS4, (0, "pass"), (0, "C"))) == (CLUBS, 0, ["must_choose"])


def test_random_second_round_other_suits() -> None:
    opts = rand("second_round_other_suits")
    f = bidding(opts, ("4H",), *PASS4)
    assert f.state.expected() == ("bid", 0)
    assert not rnd(f).selection.forced
    assert outcome(bidding(opts, ("4H",), *PASS4, (0, "pass"), (1, "C"))) == (CLUBS, 1, [])
    assert outcome(bidding(opts, ("4H",), *PASS4, (0, "H"))) == (HEARTS, 0, ["suit_not_allowed"])
    # all pass twice: forehand must choose, any suit (the turned one too)
    f = bidding(opts, ("4H",), *PASS4, *PASS4)
    assert f.state.expected() == ("bid", 0)
    assert rnd(f).selection.forced
    assert outcome(bidding(opts, ("4H",), *PASS4, *PASS4, (0, "H"))) == (HEARTS, 0, [])
    assert outcome(bidding(opts, ("4H",), *PASS4, *PASS4, (0, "pass"), (0, "S"))) == \
        (SPADES, 0, ["must_choose"])


def test_random_twents() -> None:
    opts = rand("twents")
    f = bidding(opts, ("4H",), *PASS4)
    assert f.state.expected() == ("turn", 3)
    # the second card fixes trumps, whatever its suit, for forehand
    assert outcome(bidding(opts, ("4H",), *PASS4, ("5C",))) == (CLUBS, 0, [])
    assert outcome(bidding(opts, ("4H",), *PASS4, ("5H",))) == (HEARTS, 0, [])


def test_random_second_card_auction() -> None:
    opts = rand("second_card_auction")
    f = bidding(opts, ("4H",), *PASS4, ("3H",))        # same suit: turn again
    assert f.state.expected() == ("turn", 3)
    f = bidding(opts, ("4H",), *PASS4, ("3H",), ("2S",))
    assert f.state.expected() == ("bid", 0)
    assert rnd(f).selection.proposed == SPADES
    f = bidding(opts, ("4H",), *PASS4, ("2S",), (0, "pass"), (1, "pass"), (2, "accept"))
    assert outcome(f) == (SPADES, 2, [])
    # a refused suit may not be named in the new round
    f = bidding(opts, ("4H",), *PASS4, ("2S",), (0, "H"))
    assert outcome(f) == (HEARTS, 0, ["suit_not_allowed"])
    # every suit refused: forehand must choose
    f = bidding(opts, ("4H",), *PASS4, ("2S",), *PASS4, ("2C",), *PASS4, ("5S",), ("5D",), *PASS4)
    assert f.state.expected() == ("bid", 0)
    assert outcome(bidding(opts, ("4H",), *PASS4, ("2S",), *PASS4, ("2C",), *PASS4, ("5D",),
                           *PASS4, (0, "C"))) == (CLUBS, 0, [])


def test_random_first_deal_clubs() -> None:
    opts = {**RANDOM, "random.first_deal_clubs": True}
    f = bidding(opts)
    assert f.state.expected() == ("bid", 0)     # no card is turned in deal 1: clubs
    assert rnd(f).selection.proposed == CLUBS
    assert outcome(bidding(opts, (0, "accept"))) == (CLUBS, 0, [])
    # all pass: the second card is turned as usual; a club is turned again
    f = bidding(opts, *PASS4, ("3C",), ("4S",))
    assert outcome(f) == (SPADES, 0, [])
    # turning a card in deal 1 is an integrity error
    fails("turn_unexpected", opts, ("4H",), seq=2)


def test_random_first_deal_clubs_only_in_deal_1() -> None:
    from .logs import TRICKS_M, round_m

    log = Log(options={**RANDOM, "random.first_deal_clubs": True}, dealer=3)
    log.deal(DEAL_M).bid(0, "pass").bid(1, "pass").bid(2, "pass").bid(3, "pass").turn("4H")
    round_m(log, TRICKS_M)
    log.deal(None)
    f = log.fold()
    assert f.state.expected() == ("turn", 0)        # deal 2 (dealer 0) turns a card


def test_random_source_dealers_last_card() -> None:
    opts = {**RANDOM, "random.source": "dealers_last_card"}
    # dealer 3 holds 7H 7C QC 8S 7S KD QD JD
    f = bidding(opts, ("JD",))
    assert rnd(f).selection.proposed == DIAMONDS
    e = fails("bad_turned_card", opts, ("AS",), seq=2)
    assert "dealer's hand" in e.message
    fails("bad_turned_card", opts, ("4D",), seq=2)
    # hands not recorded: any card of the 32 will do
    f = bidding(opts, ("AS",), hands=None)
    assert rnd(f).selection.proposed == SPADES
    # after four passes the second card comes from beside the deal
    f = bidding(opts, ("JD",), *PASS4, ("4S",))
    assert outcome(f) == (SPADES, 0, [])


def test_random_turned_card_must_come_from_the_separate_pack() -> None:
    e = fails("bad_turned_card", RANDOM, ("7H",), seq=2)
    assert "separate pack" in e.message
    fails("bad_turned_card", RANDOM, ("10H",), seq=2)


# ---------------------------------------------------------------- integrity errors


def test_bid_before_the_card_is_turned() -> None:
    fails("turn_expected", RANDOM, (0, "pass"), seq=2)


def test_turn_in_free_choice() -> None:
    fails("turn_unexpected", None, ("4H",), seq=2)


def test_turn_after_accept() -> None:
    fails("turn_unexpected", RANDOM, ("4H",), (0, "accept"), ("5H",), seq=4)


def test_bid_after_trumps_are_chosen() -> None:
    e = fails("trump_already_chosen", None, (0, "H"), (1, "S"), seq=3)
    assert e.seat == 1


def test_accept_without_a_turned_card() -> None:
    fails("bad_call", None, (0, "accept"), seq=2)
    fails("bad_call", {"trump_selection": "utrecht"}, (0, "accept"), seq=2)


def test_play_before_trumps() -> None:
    log = Log().deal(DEAL_M).bid(0, "pass").play(0, "JH")
    with pytest.raises(FoldError) as err:
        log.fold()
    assert (err.value.code, err.value.seq, err.value.card) == ("trump_not_chosen", 3, "JH")


def test_bid_before_a_deal() -> None:
    log = Log().bid(0, "H")
    with pytest.raises(FoldError) as err:
        log.fold()
    assert (err.value.code, err.value.seq) == ("no_deal", 1)


# ---------------------------------------------------------------- the machines directly


def test_make_selection_picks_the_method() -> None:
    assert isinstance(make_selection(resolve("amsterdam"), 0, 1), FreeChoice)
    assert isinstance(make_selection(resolve("amsterdam-kbn"), 0, 1), Utrecht)
    m = make_selection(resolve("amsterdam", {"trump_selection": "dealer_must_choose"}), 2, 1)
    assert (m.method, m.turn, m.forced) == ("dealer_must_choose", 2, True)
    r = make_selection(resolve("amsterdam", RANDOM), 0, 1)
    assert isinstance(r, RandomTrump) and r.expects == "turn"


def test_a_bidding_violation_names_seat_and_sentence() -> None:
    m = FreeChoice(dealer=0)
    assert m.turn == 1
    [(code, msg)] = m.bid(3, "pass")
    assert code == "bid_out_of_turn" and "seat 3" in msg and "seat 1's turn" in msg
    assert m.turn == 0 and not m.done
