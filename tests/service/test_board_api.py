"""The analysis board's route (``POST /api/analysis/line``): a recorded round at a position,
cards tried from there, the par of each and the line that follows; the par it answers is
the solver's par of the position reached, an illegal card is refused, and it is shown as the
round's analysis is (a round being played: the referee's alone)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from jaslog.analysis import Solver
from jaslog.cards import CARD_INDEX
from jaslog.events import event_from_dict
from jaslog.games import get_game
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from tests.service.conftest import SEATS
from tests.service.inprocess import Live, live_service

#: where the board starts in the tests: four tricks played (the pure-Python solver, which
#: these tests may run on, answers the last four in well under a second)
LATE = 16


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with live_service(tmp_path_factory.mktemp("board"), players=SEATS) as lv:
        yield lv


@pytest.fixture(scope="module")
def game(live: Live) -> tuple[str, list[dict[str, Any]]]:
    """A game whose round 1 is over and round 2 is being played (24 of its cards played)."""
    events = simulate_game("board-live", "amsterdam", seed=4, seats=SEATS)
    assert [e["type"] for e in events[35:37]] == ["play", "dealt"]  # round 2 from seq 36
    upto = next(i for i, e in enumerate(events) if i > 36 and e["type"] == "play"
                and sum(x["type"] == "play" for x in events[36:i + 1]) == 24) + 1
    events = events[:upto]
    first = {k: v for k, v in events[0].items() if k not in ("type", "seq")}
    live.post("/api/games", first, status=201)
    body = [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in events[1:]]
    live.post(f"/api/games/{first['game']}/events", {"expected_seq": 1, "events": body},
              status=200)
    return first["game"], events


def line(live: Live, body: dict[str, Any], role: str = "referee", status: int = 200,
         query: str = "") -> Any:
    r = live.client.post(f"/api/analysis/line{query}", json=body, headers=live.as_(role))
    assert r.status_code == status, r.text
    return r.json()


def solver_par(events: list[dict[str, Any]], rnd: int, cards: list[str]) -> int:
    """The par the solver gives the position of round ``rnd`` after ``cards``, from its deal."""
    f = fold(event_from_dict(e) for e in events)
    deal = next(d for d in get_game(f.game).adapter("solver").deals(f) if d.round == rnd)
    s = Solver(deal.rules, deal.side, deal.pending)
    pos = deal.start
    for c in cards:
        pos = s.step(pos, CARD_INDEX[c])
    return s.par(pos)


def test_the_par_after_each_card_is_the_solver_s_par_of_that_position(live, game):
    gid, events = game
    plays = [e["card"] for e in events[1:36] if e["type"] == "play"]
    start = line(live, {"game": gid, "round": 1, "position": LATE})
    assert start["par"] == solver_par(events, 1, plays[:LATE])
    assert start["recorded"] == plays[LATE] and start["follows_record"]
    assert len(start["legal"]) >= 1 and start["best"]
    assert sum(len(h) for h in start["hands"]) == 32 - LATE
    for x in start["legal"]:
        after = line(live, {"game": gid, "round": 1, "position": LATE, "moves": [x["card"]]})
        assert after["par"] == x["par"] == solver_par(events, 1, [*plays[:LATE], x["card"]])
        assert x["best"] == (x["par"] == start["par"]) and x["loss"] >= 0
        assert after["moves"] == [{"seat": start["to_move"], "card": x["card"]}]
        assert after["follows_record"] == (x["card"] == plays[LATE])
    # the best line keeps the par to the end, where it is the par
    moves = [m["card"] for m in start["line"]]
    assert len(moves) == 32 - LATE
    end = line(live, {"game": gid, "round": 1, "position": LATE, "moves": moves})
    assert end["over"] and end["par"] == start["par"] and end["legal"] == [] and end["line"] == []
    assert end["par_result"] == start["par_result"]
    # a start by seq: the round's plays up to that event
    seq = [e["seq"] for e in events[1:36] if e["type"] == "play"][LATE - 1]
    assert line(live, {"game": gid, "round": 1, "seq": seq})["par"] == start["par"]


def test_an_illegal_card_and_a_bad_request_are_refused(live, game):
    gid, _ = game
    start = line(live, {"game": gid, "round": 1, "position": LATE})
    mover = start["hands"][start["to_move"]]
    legal = {x["card"] for x in start["legal"]}
    other = next(c for h in start["hands"] for c in h if c not in mover)  # another seat's
    no = line(live, {"game": gid, "round": 1, "position": LATE, "moves": [other]}, status=422)
    assert no["code"] == "illegal_card" and "does not hold it" in no["message"]
    held = [c for c in mover if c not in legal]
    if held:  # a card of the hand that the rules forbid here
        no = line(live, {"game": gid, "round": 1, "position": LATE, "moves": held[:1]},
                  status=422)
        assert no["code"] == "illegal_card" and "its legal cards" in no["message"]
    assert line(live, {"game": gid, "round": 1, "position": LATE, "moves": ["ZZ"]},
                status=422)["code"] == "bad_card"
    assert line(live, {"game": gid, "round": 1, "position": 33},
                status=422)["code"] == "no_such_position"
    assert line(live, {"game": gid, "round": 1, "position": 1, "seq": 5},
                status=422)["code"] == "bad_start"
    assert line(live, {"game": gid, "round": 9, "position": LATE},
                status=404)["code"] == "no_such_round"
    assert line(live, {"game": gid, "round": 1, "position": LATE, "depth": 3},
                status=422)["code"] == "bad_request"
    assert line(live, {"game": gid, "round": 1}, query="?round=1",
                status=422)["code"] == "unknown_parameter"
    assert line(live, {"game": "no-such-game", "round": 1},
                status=404)["code"] == "no_such_game"


def test_a_round_being_played_is_the_referee_s_alone(live, game):
    gid, _ = game
    two = line(live, {"game": gid, "round": 2, "position": 24})
    assert two["view"] == "full" and sum(len(h) for h in two["hands"]) == 8
    for role in ("ann", "bob", "public"):
        no = line(live, {"game": gid, "round": 2, "position": 24}, role, status=403)
        assert no["code"] == "not_visible" and "round 2 is still being played" in no["message"]
    # the finished round: a seat and the public see it as the referee does
    ref = line(live, {"game": gid, "round": 1, "position": LATE + 4})
    for role in ("ann", "public"):
        seen = line(live, {"game": gid, "round": 1, "position": LATE + 4}, role)
        assert seen["par"] == ref["par"] and seen["legal"] == ref["legal"]
    assert line(live, {"game": gid, "round": 1, "position": LATE + 4}, "ann")["seat"] == 0
