"""What the API says when it refuses: the right status for every role, and sentences in the
API's own words (routes and JSON fields), never a `None`, a CLI command or a regex."""

from __future__ import annotations

from tests.service.conftest import SEATS, create, record, sim, timed

#: every token the test server has (see conftest.make_server)
ROLES = ["admin", "referee", "scorer", "scorer2", "player0", "player1", "player2", "player3",
         "public"]


def _new_game(server, gid: str, **meta: str) -> None:
    """A game with only its ``game_started`` event, created by the admin (no table unless
    ``meta`` names one)."""
    body: dict = {"game": gid, "ruleset": "amsterdam", "seats": SEATS}
    if meta:
        body["meta"] = meta
    with server.client("admin") as c:
        r = c.post("/api/games", json=body)
        assert r.status_code == 201, r.text


def test_a_seq_that_does_not_exist_is_404_for_every_role(server, gid):
    _new_game(server, gid)
    for role in ROLES:
        with server.client(role) as c:
            r = c.get(f"/api/games/{gid}/state", params={"seq": 5})
            assert r.status_code == 404, (role, r.text)
            body = r.json()
            assert body["code"] == "no_such_seq", (role, body)
            assert body["message"] == f"game {gid} has no seq 5 (its last is 0)", (role, body)
            assert "None" not in r.text
            ok = c.get(f"/api/games/{gid}/state", params={"seq": 0})
            assert ok.status_code == 200, (role, ok.text)
            assert ok.json()["seq"] == 0


def test_a_seq_in_the_live_round_is_403_naming_the_round(server, gid):
    events = timed(sim(gid, seed=31))
    with server.client("scorer") as c:
        assert create(c, gid, events[0]).status_code == 201
        record(c, gid, events[1:20])  # round 1 is being played
    deal = next(e["seq"] for e in events if e["type"] == "dealt")
    for role in ("public", "scorer2"):  # scorer2: another table's scorer sees as the public
        with server.client(role) as c:
            r = c.get(f"/api/games/{gid}/state", params={"seq": deal})
            assert r.status_code == 403, (role, r.text)
            assert r.json()["code"] == "not_visible"
            assert r.json()["message"] == (
                f"seq {deal} of game {gid} is in round 1, which is still being played; this "
                f"token sees finished rounds only (up to seq {deal - 1})")
            assert c.get(f"/api/games/{gid}/state", params={"seq": 19}).status_code == 403
            assert c.get(f"/api/games/{gid}/state", params={"seq": 20}).json()["code"] == \
                "no_such_seq"
    with server.client("player0") as c:  # a seat sees its own view of the live round
        r = c.get(f"/api/games/{gid}/state", params={"seq": deal})
        assert r.status_code == 200 and r.json()["view"] == "seat"
