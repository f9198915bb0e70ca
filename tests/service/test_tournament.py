"""Tournaments (seed 003 style): tables, rounds, winners re-paired, the time per move."""

from __future__ import annotations

from typing import Any

import httpx

from jaslog.play.sim import simulate_game
from jaslog.service.tournament_draw import draw_tables
from jaslog.store.clock import stamp
from tests.service.conftest import Server, record, timed
from tests.service.inprocess import live_service

OPTIONS = {"game_end": {"type": "target", "points": 1001}}


def _simulated(gid: str, info: dict[str, Any]) -> list[dict[str, Any]]:
    """A simulated game at a tournament table: its seats, the dealer the draw gave it."""
    for seed in range(200):
        events = simulate_game(gid, info["ruleset"], OPTIONS, seed=seed, seats=info["seats"])
        if events[0]["dealer"] == info["dealer"]:
            return events
    raise AssertionError(f"no simulated game of {gid} with dealer {info['dealer']}")


def _play(server: Server, game: dict[str, Any]) -> None:
    """Record a whole simulated game at a tournament table with that table's scorer."""
    gid = game["game"]
    with server.client("admin") as c:
        info = c.get(f"/api/games/{gid}").json()
    events = timed(_simulated(gid, info), step=4)
    # the table's token of the tournament (a club table's token may not write to it)
    token = server.token("scorer", table=str(game["table"]), tournament=info["tournament"])
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"},
                      timeout=30) as c:
        record(c, gid, events[1:], batch=200)


def test_an_eight_player_tournament_from_draw_to_final(server):
    players = [f"tp{i}" for i in range(8)]
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"id": "cup8", "name": "Torneo veloce",
                                             "players": players, "seed": 7})
        assert r.status_code == 201, r.text
        t = r.json()
    assert t["ruleset"] == "klaverjas-online-501" and t["move_limit_s"] == 30
    assert t["options"] == {"game_end": {"type": "target", "points": 1001}}
    assert t["rounds_planned"] == 2 and t["status"] == "playing"
    r1 = t["rounds"][0]["tables"]
    assert [g["table"] for g in r1] == [1, 2]
    assert sorted(p for g in r1 for p in g["seats"]) == sorted(players)
    with server.client("admin") as c:
        g1 = c.get(f"/api/games/{r1[0]['game']}").json()
        assert g1["table"] == "1" and g1["tournament"] == "cup8"
        assert g1["meta"]["move_limit_s"] == 30 and g1["meta"]["round"] == 1
        r = c.post("/api/tournaments/cup8/rounds")
        assert r.status_code == 409 and r.json()["code"] == "round_not_over"

    # the scorer of table 2 may not record table 1's game
    t2 = server.token("scorer", table="2", tournament="cup8")
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {t2}"}) as c:
        r = c.post(f"/api/games/{r1[0]['game']}/events",
                   json={"expected_seq": 1, "events": [{"type": "note", "text": "hi"}]})
        assert r.status_code == 403 and r.json()["code"] == "other_table"

    # round 1: every move in 4 s
    _play(server, r1[0])
    _play(server, r1[1])
    with server.client("public") as c:
        st = c.get("/api/tournaments/cup8").json()
    assert st["status"] == "round_over"
    assert all(g["finished"] and isinstance(g["winner"], int) for g in st["rounds"][0]["tables"])
    assert max(st["rounds"][0]["tables"][0]["totals"]) >= 1001
    assert st["time_limit"]["exceeded"] == []  # 4 s per move everywhere

    # round 2: the four winners, in new teams
    with server.client("admin") as c:
        r = c.post("/api/tournaments/cup8/rounds")
        assert r.status_code == 201, r.text
        st = r.json()
    winners = [p for g in st["rounds"][0]["tables"] for p in g["winners"]]
    old_teams = {frozenset(g["winners"]) for g in st["rounds"][0]["tables"]}
    final = st["rounds"][1]["tables"]
    assert len(final) == 1 and sorted(final[0]["seats"]) == sorted(winners)
    assert not {frozenset(tm) for tm in final[0]["teams"]} & old_teams
    with server.client("admin") as c:  # a second start of the same round is refused
        r = c.post("/api/tournaments/cup8/rounds")
        assert r.status_code == 409 and r.json()["code"] == "round_not_over"

    # a round-1 game, over and drawn from, is not reopened by its scorer's correction
    done = r1[0]["game"]
    with server.client("admin") as c:
        seq = c.get(f"/api/games/{done}").json()["events"]
    t1 = server.token("scorer", table="1", tournament="cup8")
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {t1}"}) as c:
        r = c.post(f"/api/games/{done}/events", json={"expected_seq": seq, "events": [
            {"type": "correction", "retracts": [seq - 1], "reason": "the last card keyed wrong"}]})
        assert r.status_code == 422 and r.json()["code"] == "retract_game_over", r.text
        assert "only a referee's ruling changes it" in r.json()["message"]
    with server.client("admin") as c:
        assert c.get(f"/api/games/{done}").json()["events"] == seq  # nothing stored
        st = c.get("/api/tournaments/cup8").json()
    assert sorted(p for g in st["rounds"][0]["tables"] for p in g["winners"]) == sorted(winners)

    # the final
    _play(server, final[0])
    with server.client("public") as c:
        st = c.get("/api/tournaments/cup8").json()
    assert st["status"] == "finished"
    fin = st["rounds"][1]["tables"][0]
    assert st["champions"] == fin["winners"] and len(st["champions"]) == 2
    assert sorted(st["runner_up"] + st["champions"]) == sorted(fin["seats"])
    assert st["time_limit"]["exceeded"] == [] and st["time_limit"]["timeouts"] == []
    with server.client("admin") as c:
        r = c.post("/api/tournaments/cup8/rounds")
        assert r.status_code == 409 and r.json()["code"] == "tournament_over"
        listed = c.get("/api/tournaments").json()
        assert any(x["id"] == "cup8" and x["status"] == "finished" for x in listed)


def test_moves_over_the_limit_are_reported_on_the_services_clock(tmp_path):
    """A final recorded as it is played, the service's clock moving 4 s per event; one play
    takes 31.5 s and a bid 45 s (after a 50 s deal, which is not a move)."""
    with live_service(tmp_path) as live:
        r = live.post("/api/tournaments", {"id": "fin", "name": "final", "seed": 2,
                                           "players": ["ann", "bob", "cor", "dirk"]}, status=201)
        gid = r.json()["rounds"][0]["tables"][0]["game"]
        events = _simulated(gid, live.get(f"/api/games/{gid}"))
        slow_play = next(e["seq"] for e in events if e["type"] == "play" and e["seq"] > 20)
        slow_deal = next(e["seq"] for e in events if e["type"] == "dealt" and e["seq"] > 40)
        slow = {slow_play: 31.5, slow_deal: 50, slow_deal + 1: 45}
        for e in events[1:]:
            live.clock.advance(slow.get(e["seq"], 4))
            body = {k: v for k, v in e.items() if k not in ("game", "seq")}
            live.post(f"/api/games/{gid}/events", {"expected_seq": e["seq"], "events": [
                {**body, "at": stamp(live.clock())}]}, status=200)
        st = live.get("/api/tournaments/fin", role="public")
        assert st["status"] == "finished" and st["champions"] == st["rounds"][0]["tables"][0]["winners"]
        over = st["time_limit"]["exceeded"]
        assert sorted((x["seq"], x["type"], x["seconds"]) for x in over) == sorted(
            [(slow_deal + 1, "bid", 45.0), (slow_play, "play", 31.5)])
        for x in over:
            assert x["game"] == gid and x["limit"] == 30 and x["player"] in st["players"]
            assert x["clock"] == "recorded_at"  # the service's own stamps (decision 14)
        assert st["time_limit"]["timeouts"] == []  # nobody ran the clock while they waited
        timing = live.get(f"/api/games/{gid}/timing")
        assert timing["limit"] == 30 and len(timing["exceeded"]) == 2


def test_bad_tournaments_are_refused(server):
    with server.client("admin") as c:
        r = c.post("/api/tournaments", json={"name": "six", "players": [f"s{i}" for i in range(6)]})
        assert r.status_code == 422 and "4, 8, 16" in r.json()["message"]
        r = c.post("/api/tournaments", json={"name": "dup", "players": ["a", "a", "b", "c"]})
        assert r.status_code == 422 and r.json()["code"] == "bad_players"
        r = c.post("/api/tournaments", json={"name": "x", "players": ["a", "b", "c", "d"],
                                             "ruleset": "kloepper"})
        assert r.status_code == 422
        r = c.post("/api/tournaments", json={"name": "x", "players": ["a", "b", "c", "d"],
                                             "options": {"no_such_option": 1}})
        assert r.status_code == 422 and r.json()["code"] == "bad_options"
        r = c.get("/api/tournaments/none-such")
        assert r.status_code == 404 and r.json()["code"] == "no_such_tournament"


def test_draws_make_new_teams_for_sixteen_players():
    players = [f"p{i}" for i in range(16)]
    r1 = draw_tables(players, 3, 1, set())
    assert len(r1) == 4 and sorted(p for t in r1 for p in t) == sorted(players)
    winners = [p for t in r1 for p in t[0::2]]  # team 0 of every table won
    old = {frozenset(t[0::2]) for t in r1}
    r2 = draw_tables(winners, 3, 2, old)
    assert len(r2) == 2 and not {frozenset(t[k::2]) for t in r2 for k in (0, 1)} & old
    assert draw_tables(winners, 3, 2, old) == r2  # deterministic for the seed
