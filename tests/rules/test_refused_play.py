"""A refused play changes nothing in the Klaverjas game state.

``KlaverjasGame`` promises that an action "either moves the state on ... or raises an
IntegrityError and leaves the state as it was", and ``game_report`` shows "everything folded
before" an integrity error. So a refused lead to a new trick leaves no empty trick behind (a
roem claim for the trick just won, made before the next trick's first card as decision 9.3
asks, is still that trick's, not ``roem_no_trick``), and with unseen hands and ``revoke:
reject`` a refused 32nd card is taken back: the round is neither closed nor scored.
"""

from __future__ import annotations

import pytest

from jaslog.engine.base import IntegrityError
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import event_from_dict
from jaslog.games import resolve
from jaslog.games.klaverjas.rules import KlaverjasGame
from jaslog.play.audit import game_report
from jaslog.play.fold import start_fold

from .logs import DEAL_M, TRICKS_M_REVOKE, Log, c, cards, masks, round_m


def test_refused_lead_leaves_no_empty_trick() -> None:
    g = KlaverjasGame(resolve("amsterdam"), dealer=3)
    g.deal(masks(DEAL_M))
    g.bid(0, "H")
    for seat, first in enumerate(cards("JH KH 8H 7H")):
        g.play(seat, first)
    for seat, card, code in ((1, "KS", "not_your_turn"), (0, "JH", "card_played_twice"),
                             (0, "KS", "card_not_held")):
        with pytest.raises(IntegrityError) as e:
            g.play(seat, c(card))
        assert e.value.code == code
    r = g.current_round
    assert [len(t.cards) for t in r.tricks] == [4]
    g.claim_roem(2, 0)   # after trick 1's fourth card, before trick 2's first: in time
    assert g.violations == []
    g.play(0, c("9H"))   # the lead still stands
    assert [len(t.cards) for t in r.tricks] == [4, 1] and r.tricks[1].leader == 0


def fold_until_error(log: Log) -> tuple[GameFold, FoldError]:
    evs = [event_from_dict(e) for e in log.events]
    f = start_fold(evs[0])
    for e in evs[1:]:
        try:
            f.apply(e)
        except FoldError as err:
            return f, err
    raise AssertionError("the log folded without an error")


def test_unseen_hands_reject_takes_the_last_card_back() -> None:
    log = round_m(Log(options={"revoke": "reject"}).deal(None).bid(0, "H"), TRICKS_M_REVOKE)
    f, err = fold_until_error(log)
    assert (err.code, err.seq) == ("must_follow_suit", log.seq)
    r = f.state.rounds[0]
    assert not r.closed and not r.hands_known
    assert [len(t.cards) for t in r.tricks] == [4] * 7 + [3]
    assert f.state.expected() == ("play", 1)      # trick 8 led by seat 2: seat 1 is due
    rep = game_report("g1", f, err)
    assert rep["rounds"][0]["result"] == "unfinished"
    assert rep["rounds"][0]["score"] == [0, 0] and rep["totals"] == [0, 0]
    assert sum(len(t["cards"]) for t in rep["rounds"][0]["tricks"]) == 31


def test_unseen_hands_penalty_still_closes_and_scores() -> None:
    log = round_m(Log(options={"roem.claim_mode": "auto"}).deal(None).bid(0, "H"), TRICKS_M_REVOKE)
    f = log.fold()
    r = f.state.rounds[0]
    assert r.closed and r.hands_known
    assert [v.rule for v in f.state.violations] == ["must_follow_suit"]
    assert f.state.outcomes()[0].result == "revoke"
