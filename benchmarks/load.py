"""The service under load: many clients appending to many live games, and a reader beside
them (``make load``; ``python -m benchmarks.load --help``). It prints figures; it is not a
test and asserts nothing.

A fresh store (SQLite by default, ``--db URL`` for PostgreSQL) gets ``--games`` live games
(each begun with its ``game_started``), then ``jaslog serve`` runs on it in its own process
and ``--clients`` threads append the games' simulated events one at a time over HTTP, each
client to its own games in turn: one append to each game first (not timed: the service folds
every game once), then for ``--seconds``. Beside them one reader asks
``GET /api/whoami`` and a game's state over and over: its latency says whether reads wait
behind writes. Printed: appends/s, the append latency (p50, p99, max), the reads' latency,
errors by status, and the machine's load average while it ran (the clients share the
machine with the server: on two cores they take about half of it).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from jaslog.service.core import Service
from jaslog.sim import simulate_game
from jaslog.store import open_store


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def prepare(url: str, games: int) -> tuple[dict[str, list[dict[str, Any]]], str]:
    """``games`` simulated games, each begun in the store; and an admin token."""
    logs = {}
    with open_store(url) as store:
        for i in range(games):
            gid = f"load-{i:05d}"
            evs = simulate_game(gid, "amsterdam", seed=i)
            store.append(gid, evs[:1])
            logs[gid] = [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in evs]
    svc = Service(url)
    try:
        token = svc.tokens.create("admin")[0]
    finally:
        svc.close()
    return logs, token


def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="jaslog-load-"))
    url = args.db or f"sqlite:///{tmp / 'load.sqlite'}"
    logs, token = prepare(url, args.games)
    port = _free_port()
    env = {**os.environ, "JASLOG_DB": url}
    server = subprocess.Popen([sys.executable, "-m", "jaslog", "serve", "--db", url, "--port",
                               str(port), "--log-level", "warning"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {token}"}
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/api/whoami", headers=headers, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start: {server.stderr.read().decode()[-800:]}"
                                 if server.stderr else "the server did not start")
            time.sleep(0.2)
        ids = list(logs)
        next_seq = dict.fromkeys(ids, 1)
        lat: list[float] = []
        reads: list[float] = []
        errors: Counter[str] = Counter()
        lock = threading.Lock()
        warm = threading.Barrier(args.clients + 2)  # the clients, the reader and this thread
        stop = float("inf")
        load_before = os.getloadavg()

        def client(k: int) -> None:
            mine = ids[k::args.clients]
            with httpx.Client(base_url=base, headers=headers, timeout=60) as c:
                for gid in mine:  # warming up, not timed: each game's first append
                    r = c.post(f"/api/games/{gid}/events",
                               json={"events": [logs[gid][1]], "expected_seq": 1})
                    if r.status_code == 200:
                        next_seq[gid] = 2
                warm.wait()
                i = 0
                while time.monotonic() < stop and mine:
                    gid = mine[i % len(mine)]
                    i += 1
                    seq = next_seq[gid]
                    if seq >= len(logs[gid]):
                        continue
                    t = time.perf_counter()
                    r = c.post(f"/api/games/{gid}/events",
                               json={"events": [logs[gid][seq]], "expected_seq": seq})
                    dt = time.perf_counter() - t
                    with lock:
                        if r.status_code == 200:
                            lat.append(dt)
                            next_seq[gid] = seq + 1
                        else:
                            errors[str(r.status_code)] += 1

        def reader() -> None:
            warm.wait()
            with httpx.Client(base_url=base, headers=headers, timeout=60) as c:
                n = 0
                while time.monotonic() < stop:
                    path = "/api/whoami" if n % 2 == 0 else f"/api/games/{ids[n % len(ids)]}/state"
                    n += 1
                    t = time.perf_counter()
                    c.get(path)
                    reads.append(time.perf_counter() - t)
                    time.sleep(0.05)

        clients = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
        for t in clients:
            t.start()
        reading = threading.Thread(target=reader)
        reading.start()
        warm.wait()  # every game has had an append: the service has folded each once
        t0 = time.monotonic()
        stop = t0 + args.seconds
        threads = [*clients, reading]
        for t in threads:
            t.join()
        took = time.monotonic() - t0
        load_after = os.getloadavg()
    finally:
        server.terminate()
        server.wait(20)
    return {
        "store": url.split(":", 1)[0], "games": args.games, "clients": args.clients,
        "seconds": round(took, 1), "appends": len(lat),
        "appends_per_s": round(len(lat) / took, 1),
        "append_ms": {"p50": round(_pct(lat, 50) * 1000, 1), "p99": round(_pct(lat, 99) * 1000, 1),
                      "max": round(max(lat, default=0) * 1000, 1),
                      "mean": round(statistics.fmean(lat) * 1000, 1) if lat else None},
        "read_ms": {"p50": round(_pct(reads, 50) * 1000, 1), "p99": round(_pct(reads, 99) * 1000, 1),
                    "max": round(max(reads, default=0) * 1000, 1), "reads": len(reads)},
        "errors": dict(errors),
        "load_average": {"before": [round(x, 2) for x in load_before],
                         "after": [round(x, 2) for x in load_after]},
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1000, help="live games (default 1000)")
    p.add_argument("--clients", type=int, default=64, help="appending clients (default 64)")
    p.add_argument("--seconds", type=float, default=20, help="how long to append (default 20)")
    p.add_argument("--db", help="a store URL (default: a fresh SQLite file)")
    p.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = p.parse_args(argv)
    out = run(args)
    if args.json:
        print(json.dumps(out))
        return
    a, r = out["append_ms"], out["read_ms"]
    print(f"{out['store']}: {out['clients']} clients over {out['games']} live games for "
          f"{out['seconds']} s")
    print(f"  appends  {out['appends_per_s']:>8}/s  p50 {a['p50']} ms  p99 {a['p99']} ms  "
          f"max {a['max']} ms  ({out['appends']} appends)")
    print(f"  reads    p50 {r['p50']} ms  p99 {r['p99']} ms  max {r['max']} ms  "
          f"({r['reads']} reads beside the appends)")
    print(f"  errors   {out['errors'] or 'none'}")
    print(f"  load average before {out['load_average']['before']}, after "
          f"{out['load_average']['after']} ({out['cpus']} CPUs)")


if __name__ == "__main__":
    main()
