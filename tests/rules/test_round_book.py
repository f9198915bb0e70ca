"""The round bookkeeping every game's state shares (``jaslog.engine.base.RoundBook``), in
each game's own words: Klaverjas says 'round' where Klaberjass and Kloepper say 'deal', and a
Klaverjas ruling is two team scores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from jaslog.cards import parse_card
from jaslog.engine.base import IntegrityError, RoundBook
from jaslog.games import resolve
from jaslog.games.klaberjass.rules import KlaberjassGame
from jaslog.games.klaverjas.rules import KlaverjasGame
from jaslog.games.kloepper.rules import KloepperGame

GAMES: dict[str, tuple[Callable[[], Any], Callable[[Any, int | None], None], list[int]]] = {
    "klaverjas": (lambda: KlaverjasGame(resolve("amsterdam", {"game_end": {"type": "target",
                                                                          "points": 500}}), 3),
                  lambda g, dealer: g.deal(None, dealer), [500, 0]),
    "klaberjass": (lambda: KlaberjassGame(resolve("klaberjass-2p"), 1),
                   lambda g, dealer: g.deal(None, parse_card("QH"), None, dealer), [600, 0]),
    "kloepper": (lambda: KloepperGame(resolve("kloepper"), 3),
                 lambda g, dealer: g.deal(None, dealer), [30, 0, 0, 0]),
}

WORDS = {
    "klaverjas": {
        "no_deal": "no round has been dealt yet",
        "no_such_round": "a ruling names round 1, but 0 rounds have been dealt",
        "wrong_dealer": "round 1 is dealt by seat 3, not seat 0",
        "round_not_over": "round 1 is not over (0 of 32 cards played)",
        "bad_ruling": "a ruling's score is two whole numbers >= 0",
        "round_over": "round 1 is over",
        "game_over": "the game is over; no more deals",
    },
    "klaberjass": {
        "no_deal": "no deal has been dealt yet",
        "no_such_round": "a ruling names deal 1, but 0 deals have been dealt",
        "wrong_dealer": "deal 1 is dealt by seat 1, not seat 0",
        "round_not_over": "deal 1 is not over (bidding)",
        "bad_ruling": "a klaberjass ruling's score is two whole numbers >= 0, one per player",
        "round_over": "deal 1 is over (abandoned)",
        "game_over": "the game is over; no more deals",
    },
    "kloepper": {
        "no_deal": "no deal has been dealt yet",
        "no_such_round": "a ruling names deal 1, but 0 deals have been dealt",
        "wrong_dealer": "deal 1 is dealt by seat 3, not seat 0",
        "round_not_over": "deal 1 is not over (0 of 24 cards played)",
        "bad_ruling": "a kloepper ruling's score is four whole numbers >= 0, one per player",
        "round_over": "deal 1 is over",
        "game_over": "the game is over; no more deals",
    },
}


def said(action: Callable[[], object]) -> tuple[str, str]:
    with pytest.raises(IntegrityError) as err:
        action()
    return err.value.code, err.value.message


@pytest.mark.parametrize("game", list(GAMES))
def test_each_game_keeps_its_words(game: str) -> None:
    new, deal, winning = GAMES[game]
    g = new()
    assert isinstance(g, RoundBook)
    out: dict[str, str] = {}
    out.update([said(lambda: g.current_round), said(lambda: g.rule(1, winning, "x")),
                said(lambda: deal(g, 0))])
    deal(g, None)
    out.update([said(lambda: deal(g, None)), said(lambda: g.rule(1, [1] * 3, "x"))])
    g.rule(1, [0] * len(winning), "abandoned")
    out.update([said(lambda: g.play(0, parse_card("AH")))])
    g = new()
    deal(g, None)
    g.rule(1, winning, "conceded")
    assert g.finished and g.winner == 0 and g.totals() == winning
    assert g.totals(ruled=False) == [0] * len(winning)
    out.update([said(lambda: deal(g, None))])
    assert out == WORDS[game]


@pytest.mark.parametrize(("trick", "players"), [
    ("jaslog.games.klaverjas.rules.game", 4), ("jaslog.games.klaberjass.rules.round", 2),
    ("jaslog.games.kloepper.rules.game", 4)])
def test_each_game_trick_is_the_engine_trick(trick: str, players: int) -> None:
    """One trick of the engine, complete when every player has played to it: in each game
    (a native class when compiled, which cannot derive from the engine's plain one) a class
    of its own with the engine trick's fields and methods."""
    import copy
    import importlib

    from jaslog import native
    from jaslog.engine.trick import Trick

    cls = importlib.import_module(trick).Trick
    assert cls.players == players
    t = cls(3, leader=players - 1)
    assert not issubclass(cls, Trick)
    compiled = native.status()["mode"] == "compiled"
    assert hasattr(t, "__dict__") is not compiled  # native: its fields in the object
    assert (t.number, t.leader, t.cards, t.seqs, t.points) == (3, players - 1, [], [], 0)
    assert {n for n in vars(Trick) if not n.startswith("_")} <= set(dir(t))
    for c in range(players):
        assert not t.complete
        t.cards.append(c)
        t.seqs.append(10 + c)
    assert t.complete and [t.seat_of(i) for i in range(players)] == [
        (players - 1 + i) % players for i in range(players)]
    u = copy.deepcopy(t)
    assert u == t and u.cards is not t.cards and u.seqs is not t.seqs
