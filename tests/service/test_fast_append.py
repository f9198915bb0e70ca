"""The append's short way through the HTTP layer (:mod:`jaslog.service.fast_append`) answers
as the route does: the same appends sent the short way (a JSON body with its length) and
through FastAPI's route (the same body sent in chunks, without a length: the short way
leaves it to the route) get the same status, headers and body, for a success, a conflict,
a rule's refusal, a role that may not and a body of another shape (a real server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from jaslog.service.fast_append import append_body
from tests.service.conftest import body_of, create, sim


def chunked(data: bytes) -> Iterator[bytes]:
    """``data`` sent in chunks (no ``Content-Length``): the short way leaves it alone."""
    yield data[:7]
    yield data[7:]


def answer(r: Any) -> tuple[int, str | None, Any]:
    body = r.json()
    if isinstance(body, dict):
        body.pop("recorded_at", None)
    return r.status_code, r.headers.get("content-type"), body


def test_the_short_way_answers_as_the_route(server: Any, gid: str) -> None:
    events = sim(gid, 1)[:8]
    headers = {"content-type": "application/json"}
    with server.client("admin") as c, server.client("public") as public:
        assert create(c, gid, events[0]).status_code == 201
        twin = f"{gid}-route"
        assert create(c, twin, {**events[0], "game": twin}).status_code == 201
        for e in events[1:6]:  # the same appends to two games: the short way, the route's
            sent = {"expected_seq": e["seq"], "events": body_of([e])}
            data = orjson.dumps(sent)
            short = c.post(f"/api/games/{gid}/events", content=data, headers=headers)
            routed = c.post(f"/api/games/{twin}/events", content=chunked(data), headers=headers)
            assert short.status_code == 200, short.text
            s, r = answer(short), answer(routed)
            for a in (s[2], r[2]):
                a.pop("game"), a.pop("head_hash"), a.pop("certificate")
            assert s == r
        refused: list[tuple[str, Any, bytes]] = [
            ("a conflict", c, orjson.dumps({"expected_seq": 2, "events": body_of(events[6:7])})),
            ("a rule", c, orjson.dumps({"expected_seq": 6, "events": [
                {**body_of(events[6:7])[0], "seat": (events[6].get("seat", 0) + 1) % 4}]})),
            ("a role", public, orjson.dumps({"expected_seq": 6,
                                             "events": body_of(events[6:7])})),
            ("another shape", c, b'{"expected_seq": "6", "events": [], "x": 1}'),
            ("a big number", c, b'{"expected_seq": 6, "events": [{"type": "note", '
                                b'"text": "x", "round": 100000000000000000000000}]}'),
            ("not JSON", c, b'{"expected_seq": 6, "events": [{"type": "note", NaN}]}'),
        ]
        for what, client, data in refused:
            short = client.post(f"/api/games/{gid}/events", content=data, headers=headers)
            routed = client.post(f"/api/games/{gid}/events", content=chunked(data),
                                 headers=headers)
            assert short.status_code >= 400, (what, short.text)
            assert answer(short) == answer(routed), what
        assert c.get(f"/api/games/{gid}/head").json()["next_seq"] == 6


def test_the_short_way_takes_the_plain_bodies_only() -> None:
    plain = append_body(b'{"expected_seq": 3, "events": [{"type": "play", "seat": 1, '
                        b'"card": "9H"}]}')
    assert plain is not None
    assert (plain.expected_seq, plain.events) == (3, [{"type": "play", "seat": 1, "card": "9H"}])
    assert append_body(b'{"events": [{"type": "note", "text": "x"}]}') is not None
    for other in (b"[]", b'{"events": []}', b'{"expected_seq": 1}', b'{"events": [1]}',
                  b'{"events": [{}], "expected_seq": -1}', b'{"events": [{}], "expected_seq": true}',
                  b'{"events": [{}], "expected_seq": 1.0}', b'{"events": [{}], "extra": 1}',
                  b'{"events": [{"x": 1e3}]}', b'{"events": [{"x": 18446744073709551615}]}',
                  b'{"events": [{}]' + b"}" * 2, b'{"events": [{"a": ' + b"[" * 40 + b"]" * 40
                  + b"}]}", b"\xff"):
        assert append_body(other) is None, other


def test_a_request_does_not_ask_opentelemetry_for_its_providers(tmp_path: Path,
                                                                 monkeypatch: Any) -> None:
    """FastAPI's own telemetry is off: a request (an append, a read) does not ask
    OpenTelemetry's global providers whether one was set, a cost of every request."""
    from tests.service.inprocess import live_service

    trace = pytest.importorskip("opentelemetry.trace")
    metrics = pytest.importorskip("opentelemetry.metrics")
    logs = pytest.importorskip("opentelemetry._logs")
    asked: list[str] = []
    for module, name in ((trace, "get_tracer_provider"), (metrics, "get_meter_provider"),
                         (logs, "get_logger_provider")):
        real = getattr(module, name)

        def spy(real: Any = real, name: str = name) -> Any:
            asked.append(name)
            return real()

        monkeypatch.setattr(module, name, spy)
    gid = "telemetry-1"
    events = sim(gid, 1)[:3]
    with live_service(tmp_path) as live:
        asked.clear()
        started = events[0]
        live.post("/api/games", {"game": gid, "ruleset": started["ruleset"],
                                 "seats": started["seats"], "dealer": started["dealer"]},
                  status=201)
        out = live.append(gid, body_of(events[1:3]))
        assert out["appended"] == 2 and out["next_seq"] == 3
    assert asked == []
