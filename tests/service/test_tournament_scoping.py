"""Tournament scoping: a table's scorer cannot take the id of a round still to be drawn, nor tag
a game as a tournament's, and so stop the tournament; a tournament whose game ids are taken
is refused before it is stored."""

from __future__ import annotations

import httpx

from jaslog.events import event_from_dict
from jaslog.play.fold import fold
from jaslog.play.sim import simulate_game
from tests.service.conftest import Server, record, timed

ONE_DEAL = {"game_end": {"type": "deals", "count": 1}}


def _play(server: Server, game: dict[str, object]) -> None:
    """Record a one-deal game at its tournament table with that table's scorer."""
    gid = str(game["game"])
    with server.client("admin") as c:
        info = c.get(f"/api/games/{gid}").json()
    for seed in range(400):  # a simulated game with this table's dealer and a winner
        events = simulate_game(gid, info["ruleset"], ONE_DEAL, seed=seed, seats=info["seats"])
        g = fold(event_from_dict(e) for e in events)
        if events[0]["dealer"] == info["dealer"] and isinstance(g.state.winner, int):
            break
    # the table's token of the tournament (a club table's token may not write to it)
    token = server.token("scorer", table=str(game["table"]), tournament=info["tournament"])
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"},
                      timeout=30) as c:
        record(c, gid, timed(events)[1:], batch=200)


def test_a_scorer_cannot_take_a_tournament_round_to_come(server):
    players = [f"scp{i}" for i in range(8)]
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"id": "scopecup", "name": "scoping cup", "players": players,
                                             "seed": 3, "options": ONE_DEAL})
        assert r.status_code == 201, r.text
        tables = r.json()["rounds"][0]["tables"]
    # the final will be scopecup-r2-t1: table 2's scorer takes that id first, and tags another
    # game as the tournament's
    with server.client("scorer2") as c:
        squat = c.post("/api/games", json={"game": "scopecup-r2-t1", "ruleset": "klaverjas-online-501",
                                           "seats": ["a", "b", "c", "d"], "dealer": 0})
        tagged = c.post("/api/games", json={"game": "scope-fake", "ruleset": "klaverjas-online-501",
                                            "seats": ["a", "b", "c", "d"], "dealer": 0,
                                            "meta": {"tournament": "scopecup", "round": 2}})
    assert squat.status_code == 403, squat.text
    assert squat.json()["code"] == "tournament_game" and "scopecup" in squat.json()["message"]
    assert tagged.status_code == 403 and tagged.json()["code"] == "tournament_game", tagged.text
    with server.client("admin") as c:  # the admin neither: the tournament makes its games
        r = c.post("/api/games", json={"game": "scopecup-r9-t4", "ruleset": "amsterdam",
                                       "seats": ["a", "b", "c", "d"], "dealer": 0})
        assert r.status_code == 403, r.text
        r = c.post("/api/games", json={"game": "scopecup-extra", "ruleset": "amsterdam",
                                       "seats": ["a", "b", "c", "d"], "dealer": 0})
        assert r.status_code == 201, r.text  # any other id is free
        assert [g["game"] for g in c.get("/api/games", params={"tournament": "scopecup"}).json()] \
            == [t["game"] for t in tables]
    for t in tables:
        _play(server, t)
    with server.client("admin") as c:  # and so the final can be drawn
        r = c.post("/api/tournaments/scopecup/rounds")
        assert r.status_code == 201, r.text
        assert r.json()["rounds"][1]["tables"][0]["game"] == "scopecup-r2-t1"


def test_a_tournament_whose_game_ids_are_taken_is_refused_before_it_is_stored(server):
    """A game already named like the tournament's games: the tournament is refused whole, its
    row not stored (so round 1 cannot fail later and the id is not lost for good)."""
    with server.client("scorer") as c:
        r = c.post("/api/games", json={"game": "takencup-r1-t2", "ruleset": "amsterdam",
                                       "seats": ["a", "b", "c", "d"], "dealer": 0})
        assert r.status_code == 201, r.text
    players = [f"tkp{i}" for i in range(8)]
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"id": "takencup", "name": "x", "players": players})
        assert r.status_code == 409 and "takencup-r1-t2" in r.json()["message"], r.text
        assert c.get("/api/tournaments/takencup").status_code == 404
        assert "takencup" not in [t["id"] for t in c.get("/api/tournaments").json()]
