"""The live stream of new events (Server-Sent Events), as each role may see it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from tests.service.conftest import body_of, create, record, sim, timed


def sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Parse server-sent events: {'event', 'id', 'data'} per message (pings skipped)."""
    msg: dict[str, Any] = {}
    for line in lines:
        if not line:
            if "data" in msg:
                yield msg
            msg = {}
        elif line.startswith(":"):
            continue
        else:
            k, _, v = line.partition(":")
            msg[k] = v[1:] if v.startswith(" ") else v


def take(it: Iterator[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    return [next(it) for _ in range(n)]


def test_a_watcher_sees_new_events_as_they_are_appended(server, gid):
    events = timed(sim(gid, seed=31))
    with server.client("scorer") as rec, server.client("referee") as watch:
        create(rec, gid, events[0])
        record(rec, gid, events[1:10])
        with watch.stream("GET", f"/api/games/{gid}/stream", params={"since": 0}) as s:
            assert s.status_code == 200
            it = sse(s.iter_lines())
            first = take(it, 10)
            assert [int(m["id"]) for m in first] == list(range(10))
            assert [json.loads(m["data"])["type"] for m in first] == [e["type"] for e in events[:10]]
            for k in (10, 11, 12):  # one at a time, each pushed to the watcher
                r = rec.post(f"/api/games/{gid}/events",
                             json={"expected_seq": k, "events": body_of(events[k:k + 1])})
                assert r.status_code == 200
                m = next(it)
                assert m["event"] == "event" and int(m["id"]) == k
                assert json.loads(m["data"]) == events[k]
        # reconnecting with Last-Event-ID resumes after it
        with watch.stream("GET", f"/api/games/{gid}/stream",
                          headers={"Last-Event-ID": "11"}) as s:
            assert int(next(sse(s.iter_lines()))["id"]) == 12


def test_a_players_stream_hides_other_hands_and_the_public_waits_for_the_round(server, gid):
    events = timed(sim(gid, seed=32))
    end1 = next(i for i, e in enumerate(events) if i > 1 and e["type"] == "dealt")  # round 2 deal
    with server.client("scorer") as rec:
        create(rec, gid, events[0])
        with server.client("player1") as p, server.client("public") as pub, \
                p.stream("GET", f"/api/games/{gid}/stream") as ps, \
                pub.stream("GET", f"/api/games/{gid}/stream") as qs:
            pit, qit = sse(ps.iter_lines()), sse(qs.iter_lines())
            record(rec, gid, events[1:3])  # the deal and a bid
            dealt = json.loads(next(pit)["data"])
            assert dealt["type"] == "dealt" and dealt["redacted"] is True
            assert dealt["hands"][1] == events[1]["hands"][1]
            assert dealt["hands"][0] is None and dealt["hands"][2] is None and dealt["hands"][3] is None
            assert json.loads(next(pit)["data"])["type"] == "bid"
            # the public sees nothing of round 1 until it is over; then all of it
            record(rec, gid, events[3:end1], start=3)
            seen = [next(pit) for _ in range(3, end1)]
            assert seen[-1]["event"] == "event"
            over = next(pit)
            assert over["event"] == "round_over" and json.loads(over["data"]) == {"round": 1}
            pub_seen = [json.loads(next(qit)["data"]) for _ in range(1, end1)]
            assert pub_seen[0] == events[1]  # the whole deal, now that the round is over
            assert [e["seq"] for e in pub_seen] == list(range(1, end1))


def test_stream_needs_a_token_and_takes_it_in_the_query(server, gid):
    events = sim(gid, seed=33)
    with server.client("admin") as c:
        create(c, gid, events[0])
    with httpx.Client(base_url=server.url, timeout=10) as c:
        r = c.get(f"/api/games/{gid}/stream")
        assert r.status_code == 401
        with c.stream("GET", f"/api/games/{gid}/stream",
                      params={"since": 0, "access_token": server.tokens["public"]}) as s:
            assert s.status_code == 200
            assert json.loads(next(sse(s.iter_lines()))["data"])["type"] == "game_started"
        r = c.get("/api/games/nope/stream", params={"access_token": server.tokens["public"]})
        assert r.status_code == 404
