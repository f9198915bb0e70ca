"""Audit (session 7) of the event stream: a token revoked while its stream is open gets
nothing more, and a Last-Event-ID that is not a seq is a 422, not a 500."""

from __future__ import annotations

import threading
import time

import httpx

from tests.service.conftest import create, record, sim, timed
from tests.service.test_stream import sse


def test_a_revoked_token_gets_nothing_more_from_its_open_stream(server, gid):
    """ann's phone is lost: the admin revokes its token while its stream is open. The stream
    sends no event appended after the revocation and ends (before, it went on for good)."""
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
    """Last-Event-ID '²' (a digit to str.isdigit, not to int) and one of 5000 digits (more
    than int() converts) were 500 Internal Server Error in plain text."""
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
