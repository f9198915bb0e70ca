"""A load test on loopback: many clients appending at once to many games and to one game.

It asserts correctness only: every event stored exactly once, in contiguous seqs, nothing
lost, nothing duplicated, retries idempotent, every conflict answered with the actual seq.
The figures (events/s, p50 and p99 latency) are printed (`pytest -s`) and written to
``load.json`` in the test's temporary folder; they are not asserted (speed is measured by
the benchmark, not by a timed test). Bounded: a fixed number of requests, a time budget.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.conftest import Server, as_sent, body_of, create, sim

GAMES = 12            # games recorded at once, one client each
EVENTS_PER_GAME = 80  # events each of those clients appends, one request per event
WRITERS = 8           # clients appending to the same game at once
NOTES_EACH = 30       # notes each of those appends
BUDGET = 60.0         # seconds: the clients stop (and the test fails) past this


def _p(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


@pytest.mark.soak
def test_many_clients_many_games_and_one_game(server: Server, tmp_path: Path) -> None:
    deadline = time.monotonic() + BUDGET
    latencies: list[float] = []
    lock = threading.Lock()
    errors: list[str] = []
    headers = {"Authorization": f"Bearer {server.tokens['scorer']}"}

    def post(c: httpx.Client, gid: str, body: dict[str, Any]) -> httpx.Response:
        t0 = time.perf_counter()
        r = c.post(f"/api/games/{gid}/events", json=body)
        with lock:
            latencies.append(time.perf_counter() - t0)
        return r

    # ---------------------------------------------------------------- many games
    scripts: dict[str, list[dict[str, Any]]] = {}
    for i in range(GAMES):
        gid = f"load-{i}-{uuid.uuid4().hex[:6]}"
        events = sim(gid, seed=100 + i)[:EVENTS_PER_GAME + 1]
        for e in events[1:]:
            e["id"] = str(uuid.uuid4())
        scripts[gid] = events
        with server.client("scorer") as c:
            assert create(c, gid, events[0]).status_code == 201

    def recorder(gid: str) -> None:
        events = scripts[gid]
        with httpx.Client(base_url=server.url, headers=headers, timeout=30) as c:
            for k in range(1, len(events)):
                if time.monotonic() > deadline:
                    errors.append(f"{gid}: out of time at seq {k}")
                    return
                body = {"expected_seq": k, "events": body_of(events[k:k + 1])}
                r = post(c, gid, body)
                if r.status_code != 200 or r.json()["appended"] != 1:
                    errors.append(f"{gid} seq {k}: {r.status_code} {r.text[:200]}")
                    return
                if k % 10 == 0:  # a retry, as after a timeout: stored once, reported so
                    again = post(c, gid, body)
                    if again.status_code != 200 or again.json()["already_stored"] != 1:
                        errors.append(f"{gid} retry {k}: {again.status_code} {again.text[:200]}")
                        return

    # ---------------------------------------------------------------- one game
    shared = f"load-shared-{uuid.uuid4().hex[:6]}"
    with server.client("scorer") as c:
        assert create(c, shared, sim(shared, seed=7)[0]).status_code == 201
    conflicts = [0]

    def writer(w: int) -> None:
        nxt = 1
        with httpx.Client(base_url=server.url, headers=headers, timeout=30) as c:
            for i in range(NOTES_EACH):
                note = {"type": "note", "text": f"writer {w} note {i}", "id": str(uuid.uuid4())}
                while True:
                    if time.monotonic() > deadline:
                        errors.append(f"writer {w}: out of time at note {i}")
                        return
                    r = post(c, shared, {"expected_seq": nxt, "events": [note]})
                    if r.status_code == 409:
                        body = r.json()
                        if body.get("code") != "conflict" or body["actual"] <= body["expected"]:
                            errors.append(f"writer {w}: bad conflict {r.text[:200]}")
                            return
                        with lock:
                            conflicts[0] += 1
                        nxt = body["actual"]  # the game moved on: try at its head
                        continue
                    if r.status_code != 200 or r.json()["appended"] != 1:
                        errors.append(f"writer {w}: {r.status_code} {r.text[:200]}")
                        return
                    nxt = r.json()["next_seq"]
                    break

    threads = [threading.Thread(target=recorder, args=(g,)) for g in scripts]
    threads += [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(BUDGET + 30)
    wall = time.perf_counter() - t0
    assert not errors, errors[:5]

    # ---------------------------------------------------------------- nothing lost or twice
    with server.client("referee") as c:
        for gid, events in scripts.items():
            got = c.get(f"/api/games/{gid}/events").json()["events"]
            assert [e["seq"] for e in got] == list(range(len(events)))
            assert [e.get("id") for e in got[1:]] == [e["id"] for e in events[1:]]
            assert [as_sent(e, "at") for e in got[1:]] == events[1:]
        got = c.get(f"/api/games/{shared}/events").json()["events"]
        assert [e["seq"] for e in got] == list(range(len(got)))
        notes = [e["text"] for e in got if e["type"] == "note"]
        want = {f"writer {w} note {i}" for w in range(WRITERS) for i in range(NOTES_EACH)}
        assert len(notes) == len(want) and set(notes) == want  # each once, none lost
        for w in range(WRITERS):  # each writer's notes in its own order
            mine = [n for n in notes if n.startswith(f"writer {w} ")]
            assert mine == [f"writer {w} note {i}" for i in range(NOTES_EACH)]
        assert c.get(f"/api/games/{shared}/head").json()["next_seq"] == len(got)

    stored = GAMES * EVENTS_PER_GAME + WRITERS * NOTES_EACH
    figures = {"clients": GAMES + WRITERS, "requests": len(latencies), "events_stored": stored,
               "conflicts": conflicts[0], "seconds": round(wall, 2),
               "events_per_second": round(stored / wall, 1),
               "requests_per_second": round(len(latencies) / wall, 1),
               "p50_ms": round(_p(latencies, 0.50) * 1000, 1),
               "p99_ms": round(_p(latencies, 0.99) * 1000, 1)}
    (tmp_path / "load.json").write_text(json.dumps(figures, indent=2))
    print("\nload:", json.dumps(figures))
