"""What the API says when it refuses: the right status for every role, and sentences in the
API's own words (routes and JSON fields), never a `None`, a CLI command or a regex."""

from __future__ import annotations

from sqlalchemy import text

from jaslog.events import VERSION, event_from_dict
from jaslog.store import open_store
from jaslog.store.codec import canonical, link
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


def test_a_seq_stored_past_where_the_log_stops_folding_is_422(server, gid):
    """A row written behind the service's back (a play out of turn) is stored but does not
    fold: the table after it cannot be shown, and no role is told 'round None'."""
    events = timed(sim(gid, seed=32))
    first_play = next(i for i, e in enumerate(events) if e["type"] == "play")
    with server.client("scorer") as c:
        assert create(c, gid, events[0]).status_code == 201
        record(c, gid, events[1:first_play])
    bad = dict(events[first_play], seat=(events[first_play]["seat"] + 1) % 4)
    with open_store(str(server.db)) as s:
        head = s.head(gid)
        payload = canonical(event_from_dict(bad))
        with s.engine.connect() as conn, conn.begin():
            conn.execute(text(
                "INSERT INTO events (game, seq, pos, type, version, event_id, at, payload, "
                "prev_hash, hash) VALUES (:g, :s, :p, 'play', :v, NULL, :at, :pl, :prev, :h)"),
                {"g": gid, "s": first_play, "p": s.cursor() + 1, "v": VERSION, "at": bad["at"],
                 "pl": payload, "prev": head.hash,
                 "h": link(bytes.fromhex(head.hash), payload).hex()})
    for role in ("admin", "scorer", "player0", "public"):
        with server.client(role) as c:
            r = c.get(f"/api/games/{gid}/state", params={"seq": first_play})
            assert r.status_code == 422, (role, r.text)
            assert r.json()["code"] == "not_folded"
            assert r.json()["message"] == (
                f"game {gid}: the table after seq {first_play} cannot be shown: its events stop "
                f"folding at seq {first_play} (GET /api/games/{gid}/audit says why)")
            assert c.get(f"/api/games/{gid}/state",
                         params={"seq": first_play + 1}).json()["code"] == "no_such_seq"


def test_a_table_scorer_may_not_write_to_a_game_without_a_table(server, gid):
    _new_game(server, gid)  # the admin's game: no meta.table
    note = {"expected_seq": 1, "events": [{"type": "note", "text": "hello"}]}
    with server.client("scorer") as c:
        r = c.post(f"/api/games/{gid}/events", json=note)
        assert r.status_code == 403, r.text
        assert r.json()["code"] == "other_table"
        assert r.json()["message"] == (
            f"game {gid} is not played at any table (it has no meta.table), so no scorer token "
            "may write to it; this one is for table 1")
        assert "None" not in r.text
    _new_game(server, gid + "-t2", table="2")
    with server.client("scorer") as c:
        r = c.post(f"/api/games/{gid}-t2/events", json=note)
        assert r.status_code == 403 and r.json()["message"] == (
            f"game {gid}-t2 is played at table 2; this scorer token is for table 1")
    with server.client("scorer2") as c:
        assert c.post(f"/api/games/{gid}-t2/events", json=note).status_code == 200
