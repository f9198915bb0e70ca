"""An append's CPU in process, taken apart: the HTTP floor's app, the service's app with its
writer answering at once, and the whole service, each called through ASGI without HTTP (no
uvicorn, no socket, no client in the process's CPU).

``make load`` measures the server's CPU an append over HTTP, and on a shared machine it
moves by 0.2-0.4 ms from one run to the next; the same appends called in process move far
less, and say which part of an append costs what beside the floor::

    python -m benchmarks.app_cpu [--parts floor,service-app,service] [--appends 6000]
        [--games 200] [--clients 16] [--db URL]

``--clients`` tasks on one event loop each append their games' simulated events one at a
time, as the load script's clients do (each game's first append not timed: the service folds
every game once); the figure is the whole process's CPU (``time.process_time``: the writer's
thread too) over the timed appends. The parts:

* ``floor``: :mod:`benchmarks.http_floor`'s app (its route reads the JSON body, answers a
  small JSON);
* ``service-app``: ``jaslog serve``'s app, its writer answering each append at once without
  writing it (the token, the body, the checks, the answer: the event loop's part);
* ``service``: ``jaslog serve``'s app as it is, its writer writing each append.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from benchmarks.load import prepare, simulated

PARTS = ("floor", "service-app", "service")

_HEADERS = [(b"host", b"127.0.0.1:8000"), (b"accept", b"*/*"),
            (b"accept-encoding", b"gzip, deflate"), (b"connection", b"keep-alive"),
            (b"user-agent", b"python-httpx"), (b"content-type", b"application/json")]


async def _post(app: Any, auth: bytes, game: str, event: dict[str, Any], seq: int) -> int:
    """One append as uvicorn hands it to the app; its status."""
    body = orjson.dumps({"events": [event], "expected_seq": seq})
    path = f"/api/games/{game}/events"
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
             "http_version": "1.1", "server": ("127.0.0.1", 8000),
             "client": ("127.0.0.1", 50000), "scheme": "http", "method": "POST",
             "root_path": "", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [*_HEADERS, (b"authorization", auth),
                         (b"content-length", str(len(body)).encode())],
             "state": {}}
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # no disconnect: the answer comes first
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])

    await app(scope, receive, send)
    return status


async def _drive(app: Any, token: str, logs: dict[str, list[dict[str, Any]]], appends: int,
                 clients: int, timed: Any = None) -> dict[str, Any]:
    auth = f"Bearer {token}".encode()
    ids = list(logs)
    nxt = dict.fromkeys(ids, 1)
    for gid in ids:  # each game's first append, not timed
        if await _post(app, auth, gid, logs[gid][1], 1) == 200:
            nxt[gid] = 2
    if timed is not None:
        timed()
    taken, done, errors = [0], [0], [0]

    async def client(games: list[str]) -> None:
        i = 0
        while taken[0] < appends and errors[0] < appends and games:
            gid = games[i % len(games)]
            i += 1
            seq = nxt[gid]
            if seq >= len(logs[gid]):
                if all(nxt[g] >= len(logs[g]) for g in games):
                    return
                continue
            taken[0] += 1  # (before the await: the clients together make ``appends``)
            if await _post(app, auth, gid, logs[gid][seq], seq) == 200:
                nxt[gid] = seq + 1
                done[0] += 1
            else:
                taken[0] -= 1
                errors[0] += 1

    c0 = time.process_time()
    await asyncio.gather(*(client(ids[k::clients]) for k in range(clients)))
    cpu = time.process_time() - c0
    return {"appends": done[0], "errors": errors[0],
            "cpu_ms_per_append": round(cpu * 1000 / done[0], 4) if done[0] else None}


def measure(part: str, url: str | None = None, *, games: int = 200, appends: int = 6000,
            clients: int = 16) -> dict[str, Any]:
    """The CPU an append of ``part`` (one of :data:`PARTS`), ``appends`` appends to
    ``games`` games from ``clients`` tasks; ``url``: a fresh store (default: a new SQLite
    file)."""
    if part not in PARTS:
        raise ValueError(f"part {part!r}: one of {', '.join(PARTS)}")
    if part == "floor":
        from benchmarks.http_floor import app as floor

        out = asyncio.run(_drive(floor, "floor", simulated(games), appends, clients))
        return {"part": part, **out}
    from jaslog.service.processes import serving_app
    from jaslog.store import AppendResult, Head

    tmp = Path(tempfile.mkdtemp(prefix="jaslog-app-cpu-"))
    url = url or f"sqlite:///{tmp / 'app.sqlite'}"
    logs, token = prepare(url, games)
    app = serving_app(url, dataset=tmp / "parquet", auth_failures=20, solve_nodes=0,
                      solve_seconds=1.0, solves_per_minute=30)
    svc = app.state.service
    timed = None
    if part == "service-app":
        written = svc.append_soon
        at_once = [False]

        async def answered(game: str, events: list[dict[str, Any]], expected_seq: int | None
                           ) -> tuple[AppendResult, list[dict[str, Any]]]:
            if not at_once[0]:
                return await written(game, events, expected_seq)
            seq = expected_seq or 0
            return AppendResult(game, len(events), 0, Head(game, seq + len(events), "0" * 64)), []

        svc.append_soon = answered

        def timed() -> None:
            at_once[0] = True
    try:
        out = asyncio.run(_drive(app, token, logs, appends, clients, timed))
    finally:
        svc.close()
    return {"part": part, **out}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--parts", default=",".join(PARTS), help="comma separated: " + ", ".join(PARTS))
    p.add_argument("--appends", type=int, default=6000)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--db", default=None, help="a fresh store, for one service part (default: "
                   "a new SQLite file for each)")
    args = p.parse_args(argv)
    parts = args.parts.split(",")
    if args.db and sum(part != "floor" for part in parts) > 1:
        p.error("--db is one fresh store: give it with one service part (--parts service)")
    for part in parts:
        print(json.dumps(measure(part, args.db, games=args.games, appends=args.appends,
                                 clients=args.clients)), flush=True)


if __name__ == "__main__":
    main()
