"""The service's writer alone: its CPU per append in groups of a given size, in-process.

The appends go as the service's writer thread writes them (:meth:`Service.write_now`: a
group in one transaction, each append checked, answered), one event an append, each group's
appends of different games (as many clients' turns); the CPU is the calling thread's own
(``time.thread_time``), so the database server's work and other processes' are not in it::

    python -m benchmarks.writer_cpu --db postgresql://postgres@127.0.0.1:PORT/w1 \\
        --groups 1,6,16 --appends 1200 [--profile 6]

The database is to be fresh (the games ``wcpu-*`` are begun in it). ``--profile N``: a
cProfile of the groups of N (the top of it by own time, on stderr).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from typing import Any

from jaslog.play.sim import simulate_game
from jaslog.service.core import Service


def _logs(prefix: str, games: int) -> dict[str, list[dict[str, Any]]]:
    return {f"{prefix}-{i:04d}": [{k: v for k, v in e.items() if k not in ("game", "seq")}
                                  for e in simulate_game(f"{prefix}-{i:04d}", "amsterdam",
                                                         seed=i)]
            for i in range(games)}


def measure(url: str, size: int, appends: int, profile: bool = False) -> dict[str, float]:
    """The writer's CPU (ms) per append and per group, ``appends`` appends in groups of
    ``size`` (each group's appends of ``size`` different games)."""
    svc = Service(url)
    try:
        ngames = size * -(-max(16, appends // 100) // size)  # a game has ~140 events
        logs = _logs(f"wcpu{size}", ngames)
        for gid, evs in logs.items():  # begun (a new game's first append is not the case here)
            svc.write_now([(gid, evs[:1], 0)])
        order = list(logs)
        nxt = dict.fromkeys(logs, 1)
        groups = max(1, appends // size)
        prof = cProfile.Profile(time.thread_time) if profile else None
        cpu = wall = 0.0
        for i in range(groups):
            batch: list[tuple[str, list[dict[str, Any]], int | None]] = []
            at = (i * size) % ngames
            for gid in order[at:at + size]:
                batch.append((gid, logs[gid][nxt[gid]:nxt[gid] + 1], nxt[gid]))
                nxt[gid] += 1
            c0, w0 = time.thread_time(), time.perf_counter()
            if prof is not None:
                prof.enable()
            futs = svc.write_now(batch)
            if prof is not None:
                prof.disable()
            cpu += time.thread_time() - c0
            wall += time.perf_counter() - w0
            for f in futs:
                f.result()  # every append written (an error shows here)
        if prof is not None:
            st = pstats.Stats(prof, stream=sys.stderr)
            st.sort_stats("tottime").print_stats(45)
        n = groups * size
        return {"group": size, "appends": n, "cpu_ms_per_append": round(cpu * 1000 / n, 4),
                "cpu_ms_per_group": round(cpu * 1000 / groups, 4),
                "wall_ms_per_group": round(wall * 1000 / groups, 4)}
    finally:
        svc.close()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db", required=True, help="a fresh store (a PostgreSQL URL, mostly)")
    p.add_argument("--groups", default="1,6,16", help="group sizes, comma separated")
    p.add_argument("--appends", type=int, default=1200, help="appends per group size")
    p.add_argument("--profile", type=int, default=0, help="profile the groups of this size")
    args = p.parse_args(argv)
    for size in (int(x) for x in args.groups.split(",")):
        print(json.dumps(measure(args.db, size, args.appends, profile=size == args.profile)),
              flush=True)


if __name__ == "__main__":
    main()
