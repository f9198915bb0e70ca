"""An online tournament through the API, on a real SQLite file: a director creates it, its
round's games are online games the service deals (commit, nonces, reveal), the director gets
every seat's link (and nobody else does), a seat token plays only its own seat, a scorer
token of another table is refused, bots play the round through the seat tokens' path, the
standing shows the round and every deal of it verifies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import segno

from jaslog.service import create_app
from jaslog.service.move_clock import autoplay_event
from jaslog.service.online import online_of
from jaslog.service.tournaments import Tournaments
from jaslog.store.clock import ManualClock, stamp, system_clock

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

PLAYERS = [f"o{i}" for i in range(8)]
ONE_DEAL = {"game_end": {"type": "deals", "count": 1}}


class Desk:
    def __init__(self, client: TestClient, svc: Any, db: Path, tokens: dict[str, str],
                 clock: ManualClock) -> None:
        self.client, self.svc, self.db, self.tokens = client, svc, db, tokens
        self.clock = clock

    def h(self, role_or_token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens.get(role_or_token, role_or_token)}"}

    def post(self, url: str, body: Any, who: str = "admin") -> Any:
        return self.client.post(url, json=body, headers=self.h(who))

    def get(self, url: str, who: str = "admin") -> Any:
        r = self.client.get(url, headers=self.h(who))
        assert r.status_code == 200, r.text
        return r.json()


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[Desk]:
    path = tmp_path / "online-cup.sqlite"
    clock = ManualClock(stamp(system_clock()))
    app = create_app(str(path), clock=clock)
    app.state.move_clock_every = 0
    app.state.online_every = 0
    svc = app.state.service
    tokens = {"admin": svc.tokens.create("admin")[0]}
    with TestClient(app) as client:
        d = Desk(client, svc, path, tokens, clock)
        r = d.post("/api/tournaments", {"id": "web", "name": "Webbeker", "players": PLAYERS,
                                        "seed": 7, "options": ONE_DEAL, "online": True,
                                        "clock": 20})
        assert r.status_code == 201, r.text
        tokens["director"] = d.post("/api/tournaments/web/tokens", {"role": "referee"}
                                    ).json()["token"]
        tokens["scorer2"] = d.post("/api/tournaments/web/tokens",
                                   {"role": "scorer", "table": "2"}).json()["token"]
        yield d


def test_a_director_creates_an_online_tournament_whose_games_the_server_deals(desk: Desk):
    st = desk.get("/api/tournaments/web", "director")
    assert st["online"] is True and st["move_limit_s"] == 20 and st["on_timeout"] == "autoplay"
    games = [t["game"] for t in st["rounds"][0]["tables"]]
    assert games == ["web-r1-t1", "web-r1-t2"]
    tables = online_of(desk.svc)
    for g in games:
        assert tables.clock_of(g) == 20  # an online game, as POST /api/games makes one
        evs = desk.get(f"/api/games/{g}/events")["events"]
        assert [e["type"] for e in evs] == ["game_started", "deal_committed"]
        assert evs[0]["meta"]["tournament"] == "web"


def test_only_the_director_gets_the_seat_links(desk: Desk):
    r = desk.post("/api/tournaments/web/seat-links", {}, "director")
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["round"] == 1 and [t["table"] for t in out["tables"]] == [1, 2]
    for t in out["tables"]:
        assert [(s["seat"], s["player"]) for s in t["seat_links"]] == list(enumerate(t["seats"]))
        for s in t["seat_links"]:
            assert s["link"] == f"http://testserver/play/{t['game']}#token={s['token']}"
            assert desk.get("/api/whoami", s["token"])["role"] == "seat"
            o = desk.get(f"/api/games/{t['game']}/online", s["token"])
            assert (o["seat"], o["clock"]) == (s["seat"], 20)
            assert s["qr_svg"].startswith("<svg ")
    # a scorer's token, a seat's token and the public are not the director
    seat = out["tables"][0]["seat_links"][0]["token"]
    for who in ("scorer2", seat):
        r = desk.post("/api/tournaments/web/seat-links", {}, who)
        assert r.status_code == 403, r.text
    # a round not drawn, and a tournament scorers record, are said
    r = desk.post("/api/tournaments/web/seat-links", {"round": 2}, "director")
    assert r.status_code == 404 and r.json()["code"] == "no_such_round"
    r = desk.post("/api/tournaments", {"id": "paper", "name": "Papier", "players": PLAYERS[:4]})
    assert r.status_code == 201, r.text
    r = desk.post("/api/tournaments/paper/seat-links", {})
    assert r.status_code == 409 and r.json()["code"] == "not_online"


def test_table_cards_of_an_online_tournament_carry_a_qr_code_per_seat(desk: Desk):
    r = desk.post("/api/tournaments/web/table-cards", {"tables": [2]}, "director")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["online"] is True
    (card,) = body["cards"]
    assert card["token"] is None and card["link"] is None and card["qr_svg"] is None
    assert len(card["seat_links"]) == 4
    s = card["seat_links"][3]
    code = segno.make(s["link"], error="m", micro=False)
    assert s["qr_svg"] == code.svg_inline(scale=4, omitsize=True, svgclass="qr",
                                          title=f"table 2, seat 3: {s['player']}'s link")


def _send(desk: Desk, token: str, game: str, events: list[dict[str, Any]]) -> Any:
    return desk.client.post(f"/api/games/{game}/events", json={"events": events},
                            headers=desk.h(token))


def test_a_seat_token_plays_only_its_seat_and_another_tables_scorer_is_refused(desk: Desk):
    out = desk.post("/api/tournaments/web/seat-links", {"tables": [1]}, "director").json()
    links = out["tables"][0]["seat_links"]
    game = out["tables"][0]["game"]
    for s in links:  # every seat sends its nonce: the server deals round 1
        r = _send(desk, s["token"], game, [{"type": "nonce", "round": 1, "seat": s["seat"],
                                            "nonce": f"seat {s['seat']}"}])
        assert r.status_code == 200, r.text
    _, tl = desk.svc.timeline(game)
    kind, due = tl.fold.state.expected()
    assert kind == "bid" and due is not None
    move = autoplay_event(tl.fold, kind, due)
    assert move is not None
    other = links[(due + 1) % 4]["token"]
    r = _send(desk, other, game, [move])  # another seat's move
    assert r.status_code == 403 and r.json()["code"] == "not_your_seat"
    r = _send(desk, other, game, [{**move, "seat": (due + 1) % 4}])  # not its turn
    assert r.status_code == 409 and r.json()["code"] == "not_your_turn"
    r = _send(desk, desk.tokens["scorer2"], game, [move])  # table 2's scorer, table 1's game
    assert r.status_code == 403 and r.json()["code"] == "other_table"
    r = _send(desk, links[due]["token"], game, [move])
    assert r.status_code == 200, r.text
    # a seat token of table 1 does not play table 2's game
    r = _send(desk, links[0]["token"], "web-r1-t2", [{"type": "nonce", "round": 1, "seat": 0,
                                                      "nonce": "x"}])
    assert r.status_code == 403 and r.json()["code"] == "other_game"


def test_bots_play_the_round_from_the_seats_the_standing_shows_it_and_it_verifies(desk: Desk):
    done = Tournaments(desk.svc).play_bots("web")
    assert [t["played"] for t in done["tables"]] == [True, True]
    st = desk.get("/api/tournaments/web", "director")
    assert st["status"] == "round_over"
    dealt = 0
    for t in st["rounds"][0]["tables"]:
        assert t["finished"] and isinstance(t["winner"], int) and sum(t["totals"]) > 0
        evs = desk.get(f"/api/games/{t['game']}/events")["events"]
        types = [e["type"] for e in evs]
        assert types.count("deal_committed") == types.count("deal_revealed") == \
            types.count("dealt") >= 1
        dealt += types.count("dealt")
        # every nonce was sent by its seat's token, through the seat's append
        with desk.svc.engine.connect() as c:
            from sqlalchemy import select

            from jaslog.service import db
            by = dict(c.execute(select(db.event_authors.c.seq, db.event_authors.c.role).where(
                db.event_authors.c.game == t["game"])).all())
        assert {by[e["seq"]] for e in evs if e["type"] in ("nonce", "play", "bid")} == {"seat"}
    # the next round is drawn online too, and its seats' links are the director's
    nxt = desk.post("/api/tournaments/web/rounds", None, "director")
    assert nxt.status_code == 201, nxt.text
    assert online_of(desk.svc).clock_of("web-r2-t1") == 20
    env = {**os.environ, "JASLOG_DB": str(desk.db)}
    out = subprocess.run([sys.executable, "-m", "jaslog", "verify", "--deals", "--json", "--db",
                          str(desk.db)], capture_output=True, text=True, env=env, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    chains, deals = (json.loads(line) for line in out.stdout.splitlines())
    assert chains["ok"] is True
    # both games of round 1 dealt by the server, checked; round 2's first deal still to come
    assert deals["deals"] == {"checked": dealt, "pending": 1, "problems": []}


def test_an_online_tournament_refuses_what_an_online_game_cannot_do(desk: Desk):
    base = {"name": "x", "players": PLAYERS[:4]}
    r = desk.post("/api/tournaments", {**base, "online": True, "on_timeout": "record"})
    assert r.status_code == 422 and r.json()["code"] == "bad_on_timeout"
    r = desk.post("/api/tournaments", {**base, "clock": 20})
    assert r.status_code == 422 and r.json()["code"] == "bad_clock"
    r = desk.post("/api/tournaments", {**base, "online": True, "move_limit_s": 900})
    assert r.status_code == 422 and r.json()["code"] == "bad_move_limit"
    # a director does not create tournaments (the role rules as for any tournament)
    r = desk.post("/api/tournaments", {**base, "online": True}, "director")
    assert r.status_code == 403


def test_the_online_tables_time_an_online_tournament_s_games_once(desk: Desk):
    out = desk.post("/api/tournaments/web/seat-links", {"tables": [1]}, "director").json()
    game = out["tables"][0]["game"]
    for s in out["tables"][0]["seat_links"]:
        r = _send(desk, s["token"], game, [{"type": "nonce", "round": 1, "seat": s["seat"],
                                            "nonce": f"n{s['seat']}"}])
        assert r.status_code == 200, r.text
    desk.clock.advance(21)  # over the 20 seconds a move
    # the tournament's move clock leaves an online game to the online tables' own
    r = desk.post("/api/tournaments/web/clock", None, "director")
    assert r.status_code == 200 and r.json()["appended"] == []
    assert online_of(desk.svc).step(game)
    evs = desk.get(f"/api/games/{game}/events")["events"]
    timeouts = [e for e in evs if e["type"] == "timeout"]
    assert len(timeouts) == 1 and timeouts[0]["seconds"] >= 20
    st = desk.get("/api/tournaments/web", "director")
    assert [t["seat"] for t in st["time_limit"]["timeouts"]] == [timeouts[0]["seat"]]
    assert st["time_limit"]["timeouts"][0]["autoplayed"] is True


def test_a_game_decided_by_a_withdrawal_is_no_longer_dealt_nor_timed(desk: Desk):
    r = desk.post("/api/tournaments/web/withdrawals", {"player": "o3", "reason": "went home"},
                  "director")
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    before = desk.get(f"/api/games/{game}/events")["events"]
    desk.clock.advance(600)
    tables = online_of(desk.svc)
    assert game not in tables.sweep() and not tables.step(game)
    assert desk.get(f"/api/games/{game}/events")["events"] == before
    # and so after a restart: the stop is stored
    from jaslog.service.online import OnlineTables

    fresh = OnlineTables(desk.svc, nonce_wait=0)
    assert not fresh.step(game) and game not in fresh.games()
    st = desk.get("/api/tournaments/web", "director")
    decided = next(t for t in st["rounds"][0]["tables"] if t["game"] == game)
    assert decided["finished"] and decided["forfeit"] == "o3"
    # the other table is still dealt
    other = next(t["game"] for t in st["rounds"][0]["tables"] if t["game"] != game)
    assert other in tables.games()
