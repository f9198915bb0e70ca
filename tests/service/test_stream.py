"""The live stream of new events (Server-Sent Events), as each role may see it; a token revoked
while its stream is open, and a Last-Event-ID that is not a seq."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx

from tests.service.conftest import as_sent, body_of, create, record, sim, timed


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
                assert as_sent(json.loads(m["data"])) == events[k]
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
            assert as_sent(pub_seen[0]) == events[1]  # the whole deal, now that the round is over
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


def test_a_revoked_token_gets_nothing_more_from_its_open_stream(server, gid):
    """ann's phone is lost: the admin revokes its token while its stream is open. The stream
    sends no event appended after the revocation, says the token was revoked and ends; the
    token cannot open it again."""
    events = timed(sim(gid, seed=41))
    with server.client("scorer") as c:
        assert create(c, gid, events[0]).status_code == 201
        record(c, gid, events[1:10])
    token = server.token("player", player="ann")
    got: list[dict[str, str]] = []
    opened = threading.Event()
    ended = threading.Event()

    def watch() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as c, \
                c.stream("GET", f"/api/games/{gid}/stream",
                         headers={"Authorization": f"Bearer {token}"}) as r:
            assert r.status_code == 200
            opened.set()
            try:
                for m in sse(r.iter_lines()):
                    got.append(m)
            except httpx.HTTPError:
                pass
        ended.set()

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    assert opened.wait(20)
    with server.client("scorer") as c:  # the stream works: it sends what is appended
        record(c, gid, events[10:11], start=10)
    deadline = time.monotonic() + 10
    while not any(m.get("id") == "10" for m in got) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [m["id"] for m in got if m["event"] == "event"] == ["10"]
    with server.client("admin") as c:
        assert c.delete(f"/api/tokens/{token.split('_')[1]}").status_code == 200
    with server.client("scorer") as c:
        record(c, gid, events[11:15], start=11)
    assert ended.wait(15), "the revoked token's stream is still open"
    assert [m["id"] for m in got if m["event"] == "event"] == ["10"], got
    assert got[-1]["event"] == "revoked" and "revoked" in got[-1]["data"]
    with httpx.Client(base_url=server.url, timeout=10) as c:  # and it cannot reopen it
        r = c.get(f"/api/games/{gid}/stream", params={"access_token": token})
        assert r.status_code == 401


def test_a_last_event_id_that_is_not_a_seq_is_422_not_a_500(server, gid):
    """A Last-Event-ID that is not a seq the stream sent ('²', a digit to str.isdigit but not
    to int; 5000 digits, more than int() converts; a sign; a letter) is refused with a 422 in
    JSON, never a 500; a seq resumes the stream after it."""
    events = timed(sim(gid, seed=42))
    with server.client("scorer") as c:
        assert create(c, gid, events[0]).status_code == 201
        record(c, gid, events[1:6])
    with server.client("player0") as c:
        for bad in ("²".encode("latin-1"), b"1" * 5000, b"12345678901", b"-3", b"4x"):
            r = c.get(f"/api/games/{gid}/stream", headers={"Last-Event-ID": bad})
            assert r.status_code == 422, (bad[:12], r.status_code, r.text[:200])
            body = r.json()
            assert body["code"] == "bad_request" and "Last-Event-ID" in body["message"]
            assert "Traceback" not in r.text and "int()" not in r.text
        with c.stream("GET", f"/api/games/{gid}/stream", headers={"Last-Event-ID": "3"}) as s:
            assert s.status_code == 200
            first = next(m for m in sse(s.iter_lines()) if m["event"] == "event")
        assert first["id"] == "4"  # resumes after the seq it names
