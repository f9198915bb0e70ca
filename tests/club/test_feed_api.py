"""GET /api/events and GET /api/stream: every event of every game in store order, each with
its pos, as each token may see it in its game; ``jaslog tail``."""

from __future__ import annotations

import json
from typing import Any

from jaslog.play.sim import simulate_game
from jaslog.store import open_store
from tests.cli import jaslog
from tests.club.conftest import Season
from tests.service.inprocess import Live
from tests.service.test_stream import sse


def read_all(lv: Live, role: str, limit: int = 300) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        page = lv.get(f"/api/events?after={after}&limit={limit}", role)
        if not page["events"]:
            assert page["next_after"] == after
            return out
        out.extend(page["events"])
        after = page["next_after"]
        assert after == out[-1]["pos"]


def cursor(season: Season) -> int:
    with open_store(str(season.db), create=False) as s:
        return s.cursor()


def test_the_admin_pages_through_every_event_in_store_order(season: Season, live: Live) -> None:
    evs = read_all(live, "admin")
    assert [e["pos"] for e in evs] == list(range(1, cursor(season) + 1))
    for g in ("comp-00-0", "comp-live", "kj-1"):
        mine = [{k: v for k, v in e.items() if k != "pos"} for e in evs if e["game"] == g]
        assert mine == live.get(f"/api/games/{g}/events", "admin")["events"]


def test_each_token_sees_what_its_game_view_shows(season: Season, live: Live) -> None:
    for role in ("public", "ann"):
        evs = read_all(live, role, limit=1000)
        assert [e["pos"] for e in evs] == list(range(1, cursor(season) + 1))  # no gaps
        for g in ("comp-00-0", "comp-live", "kj-0"):
            shown = [{k: v for k, v in e.items() if k != "pos"} for e in evs
                     if e["game"] == g and not e.get("hidden")]
            assert shown == live.get(f"/api/games/{g}/events", role)["events"], (role, g)
        hidden = [e for e in evs if e.get("hidden")]
        if role == "public":  # the round being played: nothing of it but that it is there
            assert hidden and {e["game"] for e in hidden} == {"comp-live"}
            assert all(set(e) == {"pos", "game", "seq", "hidden"} for e in hidden)
        else:  # ann sits in the live game: she sees its live round as her seat does
            assert not hidden


def test_the_stream_goes_on_live_and_resumes(season: Season, live: Live) -> None:
    last = cursor(season)
    game = next(g for g in season.games if g.game == "comp-live")
    nxt = len(game.events)
    more = simulate_game("comp-live", "amsterdam", seed=999,
                         seats=["dud", "ann", "star", "bob"],
                         at="2026-04-14T19:30:00Z")[nxt:nxt + 2]
    with live.client.stream("GET", f"/api/stream?after={last - 2}",
                            headers=live.as_("admin")) as s:
        assert s.status_code == 200
        it = sse(s.iter_lines())
        first = [next(it), next(it)]
        assert [int(m["id"]) for m in first] == [last - 1, last]
        live.append("comp-live", more[:1])
        m = next(it)
        assert m["event"] == "event" and int(m["id"]) == last + 1
        assert json.loads(m["data"])["seq"] == nxt
    live.append("comp-live", more[1:])
    with live.client.stream("GET", "/api/stream", headers={**live.as_("admin"),
                                                           "Last-Event-ID": str(last + 1)}) as s:
        m = next(sse(s.iter_lines()))
        assert int(m["id"]) == last + 2 and json.loads(m["data"])["seq"] == nxt + 1
    r = live.client.get("/api/stream", headers={**live.as_("admin"), "Last-Event-ID": "x1"})
    assert r.status_code == 422


def test_tail_prints_the_feed(season: Season) -> None:
    r = jaslog("tail", "--db", str(season.db), "--after", "0", "--json", text=True)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["pos"] for x in lines] == list(range(1, cursor(season) + 1))
    assert lines[0]["type"] == "game_started"
    last = jaslog("tail", "--db", str(season.db), "-n", "2", text=True, env={"COLUMNS": "200"})
    assert last.returncode == 0 and len(last.stdout.splitlines()) == 2
    assert last.stdout.splitlines()[-1].split()[0] == str(cursor(season))
