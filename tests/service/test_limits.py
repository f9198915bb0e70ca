"""What a client sends cannot break the service: the token and the route's roles are checked
before a byte of the body is read, a large body is parsed off the event loop, a body over
4 MiB is 413, an event the store could not read back is refused at
the door, a body the parser cannot read is said precisely, and a stored game no reader can
read (from an older jaslog) is reported by id while the others are listed."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from jaslog.events import MAX_LINE
from jaslog.play.sim import simulate_game
from jaslog.service import create_app
from jaslog.service.app import MAX_BODY
from jaslog.store import open_store
from tests.service.conftest import Server, body_of
from tests.service.inprocess import Live, live_service
from tests.store.test_door import store_unreadable_game

SEATS = ["a1", "b1", "c1", "d1"]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_service(tmp_path) as lv:
        yield lv


def _asgi_post(app: Any, path: str, chunks: int, chunk: bytes, headers: list[tuple[bytes, bytes]]
               ) -> tuple[int, dict[str, Any], int]:
    """POST a body of ``chunks`` × ``chunk`` straight to the ASGI app, as a server hands it
    on; the status, the JSON answer and how many chunks the app asked for."""
    pulled = 0
    answer: dict[str, Any] = {"status": None, "body": b""}

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        if pulled >= chunks:
            return {"type": "http.disconnect"}
        pulled += 1
        return {"type": "http.request", "body": chunk, "more_body": pulled < chunks}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
        elif message["type"] == "http.response.body":
            answer["body"] += message.get("body", b"")

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "headers": [(b"content-type", b"application/json"), *headers],
             "client": ("127.0.0.9", 5000), "server": ("testserver", 80)}
    asyncio.run(app(scope, receive, send))
    return answer["status"], orjson.loads(answer["body"]), pulled


def test_the_token_is_checked_before_the_body_is_read(live: Live) -> None:
    """200 MB without a token: 401 before a byte of the body is asked for. It used to be read
    whole and parsed first (six of them took a server to 3.2 GB)."""
    mb = b"x" * (1 << 20)
    for auth in ([], [(b"authorization", b"Bearer jl_0000dead_notatoken")]):
        status, body, pulled = _asgi_post(live.app, "/api/games", 200, mb, auth)
        assert status == 401 and body["code"] in ("no_token", "bad_token") and pulled == 0, body


def test_a_role_that_may_not_call_a_route_makes_it_read_no_body(live: Live) -> None:
    """A public token's 200 MB to routes it may not call (append, create a game, a
    tournament, a token) is 403 before a byte of the body is asked for; so is a route that
    is not there (404) or does not take the method (405). The role used to be checked once
    the body was read and parsed (a public token's 4 MiB of small objects cost seconds of
    the event loop)."""
    mb = b"x" * (1 << 20)
    public = [(b"authorization", f"Bearer {live.tokens['public']}".encode())]
    for path in ("/api/games/g1/events", "/api/games", "/api/tournaments", "/api/tokens",
                 "/api/tournaments/cup/rounds"):
        status, body, pulled = _asgi_post(live.app, path, 200, mb, public)
        assert status == 403 and body["code"] == "forbidden" and pulled == 0, (path, body)
        assert body["message"].startswith("a public token may not"), body
    for path, code in (("/api/nothing-here", 404), ("/api/whoami", 405)):
        status, body, pulled = _asgi_post(live.app, path, 200, mb, public)
        assert status == code and pulled == 0, (path, status, body)


def test_a_route_for_small_bodies_reads_no_more(server: Server) -> None:
    """Eight public tokens send 4 MiB of small JSON objects at once to the oracle, which any
    token may ask and whose queries are a few fields: each is 413 after 64 KiB (declared or
    streamed in), never parsed, and /api/whoami answers within a second all the while
    (parsed, such bodies froze the service for seconds)."""
    import threading
    import time

    from jaslog.service.deps import SMALL_BODY

    objects = (MAX_BODY - 64) // 3
    big = b'{"op": "legal", "x": [' + b",".join([b"{}"] * objects) + b"]}"
    assert len(big) <= MAX_BODY
    headers = {"Authorization": f"Bearer {server.tokens['public']}",
               "content-type": "application/json"}
    answers: list[httpx.Response] = []

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(big), 1 << 16):
            yield big[i:i + (1 << 16)]

    def send(streamed: bool) -> None:
        try:
            r = httpx.post(server.url + "/api/oracle", content=chunks() if streamed else big,
                           headers=headers, timeout=120)
        except httpx.TransportError:  # the server may close before all of it is sent
            return
        answers.append(r)

    senders = [threading.Thread(target=send, args=(i % 2 == 0,)) for i in range(8)]
    for t in senders:
        t.start()
    waits: list[float] = []
    with server.client("public") as c:
        while any(t.is_alive() for t in senders) or len(waits) < 3:
            started = time.monotonic()
            assert c.get("/api/whoami").status_code == 200
            waits.append(time.monotonic() - started)
            time.sleep(0.05)
    for t in senders:
        t.join()
    assert answers and all(r.status_code == 413 for r in answers), [r.text for r in answers]
    assert all(r.json()["limit"] == SMALL_BODY for r in answers)
    assert "at most 65536 bytes at this route" in answers[0].json()["message"]
    assert max(waits) < 1.0, waits
    # a query of the ordinary size is answered as ever
    r = httpx.post(server.url + "/api/oracle", headers=headers, json={
        "op": "winner", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7H"]})
    assert r.status_code == 200 and r.json() == {"winner": 1}


def test_a_large_body_is_parsed_in_a_worker_thread(live: Live) -> None:
    """A batch over 64 KiB (a whole game, pretty-printed) is parsed off the event loop and
    stored as any other."""
    from jaslog.service.deps import LARGE_BODY

    g = simulate_game("thread-1", seed=8)
    live.post("/api/games", {"game": "thread-1", "ruleset": g[0]["ruleset"],
                             "seats": g[0]["seats"], "dealer": g[0]["dealer"]}, status=201)
    body = orjson.dumps({"expected_seq": 1, "events": body_of(g[1:])}, option=orjson.OPT_INDENT_2)
    body += b" " * LARGE_BODY  # white space a client may send
    assert len(body) > LARGE_BODY
    r = live.client.post("/api/games/thread-1/events", content=body, headers={
        **live.as_("admin"),
        "content-type": "application/json"})
    assert r.status_code == 200 and r.json()["next_seq"] == len(g), r.text


def test_a_body_over_4_mib_is_413_read_no_further(live: Live) -> None:
    admin = [(b"authorization", f"Bearer {live.tokens['admin']}".encode())]
    mb = b"x" * (1 << 20)
    status, body, pulled = _asgi_post(live.app, "/api/games", 200, mb, admin)  # streamed in
    assert status == 413 and body["code"] == "body_too_large" and pulled == 5
    assert body["limit"] == MAX_BODY and "at most 4194304 bytes (4 MiB)" in body["message"]
    declared = [*admin, (b"content-length", str(200 << 20).encode())]
    status, body, pulled = _asgi_post(live.app, "/api/games", 200, mb, declared)
    assert status == 413 and pulled == 0 and body["message"].startswith(
        f"the request body is {200 << 20} bytes")


def test_the_largest_real_batch_fits_the_body_limit(live: Live) -> None:
    """A whole game sent as one batch, pretty-printed, is far under the limit (and is
    stored); so is a batch of 5000 events, the most a batch may hold."""
    g = simulate_game("whole-1", seed=7)
    live.post("/api/games", {"game": "whole-1", "ruleset": g[0]["ruleset"], "seats": g[0]["seats"],
                             "dealer": g[0]["dealer"]}, status=201)
    body = orjson.dumps({"expected_seq": 1, "events": body_of(g[1:])}, option=orjson.OPT_INDENT_2)
    assert len(body) * 20 < MAX_BODY
    r = live.client.post("/api/games/whole-1/events", content=body, headers={
        **live.as_("admin"), "content-type": "application/json"})
    assert r.status_code == 200 and r.json()["next_seq"] == len(g), r.text
    deal = next(e for e in body_of(g) if e["type"] == "dealt")
    assert len(orjson.dumps({"events": [deal] * 5000})) * 2 < MAX_BODY


def test_an_event_the_store_could_not_read_back_is_refused(live: Live) -> None:
    """A game_started whose meta makes it longer than a line may be: refused (it was stored,
    and then every listing and export of the store failed)."""
    r = live.post("/api/games", {"game": "huge-1", "ruleset": "amsterdam", "seats": SEATS,
                                 "meta": {"x": "y" * MAX_LINE}})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "bad_event" and "the limit is 1048576 (1 MiB)" in r.json()["message"]
    assert live.client.get("/api/games/huge-1", headers=live.as_("admin")).status_code == 404
    assert live.client.get("/api/games", headers=live.as_("public")).status_code == 200


def test_a_body_the_parser_cannot_read_is_said_precisely(live: Live) -> None:
    head = b'{"ruleset": "amsterdam", "seats": ["a1", "b1", "c1", "d1"], "meta": {"x": '
    for body, says in ((head + b"9" * 5000 + b"}}", f"the number at character {len(head) + 1} "
                        "has 5000 digits: numbers are integers within 64 bits"),
                       (b"[" * 100000, "nested too deeply")):
        r = live.client.post("/api/games", content=body, headers={
            **live.as_("admin"), "content-type": "application/json"})
        assert r.status_code == 400 and r.json()["code"] == "bad_body", r.text
        assert says in r.json()["message"] and "nested too deeply?" not in r.json()["message"]


def test_the_public_list_tells_no_more_than_the_finished_rounds(live: Live) -> None:
    """A live round's events (their count, the time of its last move) are not the public's
    to see in the list, as they are not in the game's own answer."""
    g = simulate_game("pub-1", seed=4)
    live.post("/api/games", {"game": "pub-1", "ruleset": "amsterdam", "seats": g[0]["seats"],
                             "dealer": g[0]["dealer"]}, status=201)
    live.append("pub-1", body_of(g[1:12]))  # the first round is under way
    for role in ("public", "admin"):
        listed = next(x for x in live.get("/api/games", role) if x["game"] == "pub-1")
        alone = live.get("/api/games/pub-1", role)
        assert (listed["events"], listed["last_at"]) == (alone["events"], alone["last_at"])
    assert next(x for x in live.get("/api/games", "public") if x["game"] == "pub-1")["events"] == 1


def test_an_unreadable_stored_game_is_reported_and_the_others_go_on(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    db = tmp_path / "s.sqlite"
    with open_store(str(db)) as s:
        for i in range(2):
            s.append(f"ok-{i}", simulate_game(f"ok-{i}", seed=i))  # type: ignore[arg-type]
    store_unreadable_game(db, "old-1")
    app = create_app(str(db))
    svc = app.state.service
    admin, public = svc.tokens.create("admin")[0], svc.tokens.create("public")[0]
    with TestClient(app) as client:
        for token in (admin, public):
            r = client.get("/api/games", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text
            listed = {g["game"]: g for g in r.json()}
            assert set(listed) == {"ok-0", "ok-1", "old-1"}
            assert "cannot be read" in listed["old-1"]["unreadable"]
            assert listed["ok-0"].get("unreadable") is None
        r = client.get("/api/games/old-1", headers={"Authorization": f"Bearer {admin}"})
        assert r.status_code == 500 and r.json()["code"] == "unreadable_game"
        assert r.json()["game"] == "old-1" and "line is" in r.json()["message"]
        assert client.get("/api/games/ok-1", headers={"Authorization": f"Bearer {admin}"}
                          ).status_code == 200


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/status")
def test_unauthenticated_big_bodies_do_not_grow_the_server(server: Server) -> None:
    """A real server: three 100 MB bodies without a token are answered 401 at once and the
    server's memory stays where it was (each was read and held whole before)."""

    def rss() -> int:
        status = Path(f"/proc/{server.proc.pid}/status").read_text()
        return int(next(x for x in status.splitlines() if x.startswith("VmRSS:")).split()[1])

    def body() -> Iterator[bytes]:
        mb = b"x" * (1 << 20)
        for _ in range(100):
            yield mb

    before = rss()
    for _ in range(3):
        try:
            r = httpx.post(server.url + "/api/games", content=body(), timeout=60, headers={
                "content-type": "application/json", "content-length": str(100 << 20)})
        except httpx.TransportError:  # the server may close before all of it is sent
            continue
        assert r.status_code == 401 and r.json()["code"] == "no_token"
    assert rss() - before < 64 * 1024, (before, rss())


def test_ids_are_whole_matches_and_never_a_path_step(live: Live) -> None:
    """A trailing newline does not pass an id pattern (``re.match`` with ``$`` let one
    through); ``.`` and ``..``, which no URL can name, are not game or tournament ids."""
    from jaslog.service.auth import TokenError, Tokens

    svc = live.app.state.service
    assert not Tokens.well_formed(live.tokens["admin"] + "\n")
    for kw in ({"table": "3\n"}, {"table": "3\n", "role": "player", "player": "ann\n"}):
        with pytest.raises(TokenError):
            svc.tokens.create(kw.pop("role", "scorer"), **kw)
    r = live.post("/api/tokens", {"role": "scorer", "table": "3\n"})
    assert r.status_code == 422, r.text
    for gid in (".", ".."):
        r = live.post("/api/games", {"game": gid, "ruleset": "amsterdam", "seats": SEATS})
        assert r.status_code == 422 and "no URL can name" in r.json()["message"], r.text
        r = live.post("/api/tournaments", {"id": gid, "name": "Cup", "players": SEATS})
        assert r.status_code == 422 and "no URL can name" in r.json()["message"], r.text
