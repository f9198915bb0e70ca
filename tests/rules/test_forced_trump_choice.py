"""The Klaverjas trump selection against rule book 3.2: a seat forced to choose keeps the
obligation.

Dealer 3 throughout, so seat 0 is forehand. Once a seat is forced to choose (utrecht from
the start; free after four passes; random after the turned suits were refused), "only
CHOOSE(suit) by" that seat moves the machine on: another seat's pass out of turn is a
violation, but it neither shifts the obligation nor makes the forced seat's choice late.
"""

from __future__ import annotations

from typing import Any

from jaslog.cards import CLUBS, HEARTS, SPADES

from .logs import DEAL_M, Log


def bidding(options: dict[str, Any] | None, *steps: tuple[Any, ...]) -> Log:
    log = Log(options=options, dealer=3).deal(DEAL_M)
    for s in steps:
        if len(s) == 1:
            log.turn(s[0])
        else:
            log.bid(s[0], s[1])
    return log


def rules_of(log: Log) -> list[tuple[str, int | None]]:
    return [(v.rule, v.seat) for v in log.fold().state.violations]


def test_utrecht_pass_out_of_turn_leaves_forehand_to_choose() -> None:
    log = bidding({"trump_selection": "utrecht"}, (2, "pass"))
    f = log.fold()
    assert f.state.expected() == ("bid", 0)       # forehand still has to choose
    log.bid(0, "H")
    f = log.fold()
    r = f.state.rounds[0]
    assert (r.trump, r.chooser) == (HEARTS, 0)
    # only the stray pass is wrong: seat 2 was not forced, forehand's choice was in turn
    assert rules_of(log) == [("bid_out_of_turn", 2)]


def test_free_forced_starter_keeps_the_obligation() -> None:
    log = bidding(None, (0, "pass"), (1, "pass"), (2, "pass"), (3, "pass"), (1, "pass"))
    assert log.fold().state.expected() == ("bid", 0)
    log.bid(0, "S")
    r = log.fold().state.rounds[0]
    assert (r.trump, r.chooser) == (SPADES, 0)
    assert rules_of(log) == [("bid_out_of_turn", 1)]


def test_random_forced_forehand_keeps_the_obligation() -> None:
    opts = {"trump_selection": "random", "random.all_pass": "forehand_names_other"}
    log = bidding(opts, ("4H",), (0, "pass"), (1, "pass"), (2, "pass"), (3, "pass"),
                  (3, "pass"), (0, "C"))
    r = log.fold().state.rounds[0]
    assert (r.trump, r.chooser) == (CLUBS, 0)
    assert rules_of(log) == [("bid_out_of_turn", 3)]


def test_forced_seat_passing_is_still_must_choose() -> None:
    log = bidding({"trump_selection": "utrecht"}, (0, "pass"), (0, "H"))
    assert rules_of(log) == [("must_choose", 0)]
