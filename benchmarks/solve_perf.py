"""How fast the solver is (``jaslog.analysis``), on the benchmark's own Klaverjas deals, and
bridge's double-dummy solver DDS beside it when its library is installed.

``python -m benchmarks.solve_perf --work DIR --deals N`` reads the workload's log
(``DIR/events.jsonl``), takes its first ``N`` rounds played out with their hands known, and
times, one deal at a time on one core, each in a fresh solver (no table carried over; the
process's CPU time, which a busy machine disturbs less than the wall clock):

* the par of the complete deal from its first card (``Solver.par`` of the dealt hands);
* the whole round annotated: the par at each of its 32 positions (``analyze_deal`` without
  best cards and par results), and the full analysis ``jaslog analyze`` does (best cards of
  the costly plays, par results, blunders).

``python -m benchmarks.solve_perf --work DIR --export-par G`` imports the log's first ``G``
games into a fresh SQLite store and times, on one process (CPU time), a plain ``export``, then
``export --par`` twice: the first solves every round and keeps it in the store
(``round_par``), the second reads them back, as every export after the first does. The ratios
``export --par`` / ``export`` of both are the figures (target: the second <= 3x).

``python -m benchmarks.solve_perf --dds N`` times DDS's ``SolveBoard`` (the most tricks the
side to play takes, one strain, one thread) on ``N`` random 52-card bridge deals through
Debian's ``libdds0`` (``apt-get install libdds0``). Each prints one JSON line. The benchmark
(:mod:`benchmarks.bench`) runs both in processes of their own and reports median and p99
against the targets, and the time per card beside DDS's.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

#: Targets (milliseconds, one core): a deal's par, median and slowest 1%; a round annotated.
DEAL_MEDIAN_MS, DEAL_P99_MS, ROUND_MEDIAN_MS = 50.0, 1000.0, 250.0
#: DDS's median CPU time on the machine this was built on (2 cores, Debian's libdds0 2.9.0,
#: ``SolveBoard`` of 200 random deals): the reference when the library is not installed.
DDS_REFERENCE_MS = 12.6


def percentiles(ms: list[float]) -> dict[str, float]:
    """Median, p90, p99 and max of a list of times (milliseconds).

    >>> percentiles([1.0, 2.0, 3.0, 4.0])
    {'median': 2.5, 'p90': 4.0, 'p99': 4.0, 'max': 4.0, 'count': 4}
    """
    s = sorted(ms)
    n = len(s)

    def at(q: float) -> float:
        return round(s[min(n - 1, int(q * n))], 3)

    return {"median": round(statistics.median(s), 3), "p90": at(0.9), "p99": at(0.99),
            "max": round(s[-1], 3), "count": n}


def workload_deals(log: Path, count: int) -> list[Any]:
    """The first ``count`` Klaverjas rounds of the log played out with their hands known."""

    from jaslog.analysis import Deal
    from jaslog.games import get_game
    from jaslog.logs import LogFiles
    from jaslog.play.fold import fold_lines

    adapter = get_game("klaverjas").adapter("solver")
    deals: list[Any] = []
    with contextlib.ExitStack() as stack:
        files = LogFiles([log], stack)
        for g in fold_lines(files.lines(), files.is_last):
            if isinstance(g, Exception) or g.fold is None or g.error is not None \
                    or g.fold.game != "klaverjas":
                continue
            for d in adapter.deals(g.fold):
                if isinstance(d, Deal) and len(d.plays) == 32:
                    deals.append(d)
                    if len(deals) >= count:
                        return deals
    return deals


#: The clock: the process's CPU time (one thread).
clock = time.process_time


def measure_solver(log: Path, count: int) -> dict[str, Any]:
    """The solver's times on the workload's deals (see the module)."""
    from jaslog.analysis import Solver, core_name
    from jaslog.analysis.rounds import analyze_deal

    deals = workload_deals(log, count)
    if not deals:
        raise SystemExit(f"no Klaverjas round with known hands in {log}")
    par_ms, annotate_ms, full_ms, nodes = [], [], [], []
    for d in deals:
        s = Solver(d.rules, d.side, d.pending)
        t = clock()
        s.par(d.start)
        par_ms.append((clock() - t) * 1000)
        nodes.append(s.nodes)
        t = clock()
        analyze_deal(d, best_cards=False, results=False)
        annotate_ms.append((clock() - t) * 1000)
        t = clock()
        analyze_deal(d)
        full_ms.append((clock() - t) * 1000)
    return {"core": core_name(), "deals": len(deals), "deal_par_ms": percentiles(par_ms),
            "round_annotated_ms": percentiles(annotate_ms), "round_analysed_ms": percentiles(full_ms),
            "nodes_median": int(statistics.median(nodes))}


#: ``export --par`` against a plain ``export`` on the same store, once its rounds are kept.
EXPORT_PAR_RATIO = 3.0


def measure_export_par(log: Path, games: int) -> dict[str, Any]:
    """A plain export, and ``export --par`` twice, of the log's first ``games`` games in a
    fresh store (see the module): CPU seconds of each, and the ratios."""
    import tempfile
    from itertools import islice

    from jaslog.export import export_store
    from jaslog.store import open_store

    with open(log, "rb") as fh:
        wanted: dict[bytes, None] = {}
        lines = []
        for line in fh:  # the lines of the first ``games`` games (they may interleave)
            gid = json.loads(line)["game"].encode()
            if gid not in wanted and len(wanted) >= games:
                continue
            wanted.setdefault(gid, None)
            lines.append(line)
    with tempfile.TemporaryDirectory(prefix="jaslog-par-") as tmp:
        store = open_store(f"sqlite:///{tmp}/store.sqlite")
        store.import_lines(lines)
        rounds = sum(1 for _ in islice(store.round_facts(), 10_000_000))

        def timed(out: str, par: bool) -> float:
            t = clock()
            export_store(store, f"{tmp}/{out}", par=par, workers=0, full=True)
            return clock() - t

        plain = timed("plain", False)  # and once more at the end: the first pays the imports
        first = timed("first", True)
        again = timed("again", True)
        plain = min(plain, timed("plain-2", False))
        store.close()
    return {"games": len(wanted), "rounds": rounds, "export_s": round(plain, 3),
            "export_par_first_s": round(first, 3), "export_par_s": round(again, 3),
            "ratio_first": round(first / plain, 2), "ratio": round(again / plain, 2),
            "target": EXPORT_PAR_RATIO, "met": again / plain <= EXPORT_PAR_RATIO}


class _Deal(ctypes.Structure):
    _fields_ = [("trump", ctypes.c_int), ("first", ctypes.c_int),
                ("currentTrickSuit", ctypes.c_int * 3), ("currentTrickRank", ctypes.c_int * 3),
                ("remainCards", (ctypes.c_uint * 4) * 4)]


class _Future(ctypes.Structure):
    _fields_ = [("nodes", ctypes.c_int), ("cards", ctypes.c_int), ("suit", ctypes.c_int * 13),
                ("rank", ctypes.c_int * 13), ("equals", ctypes.c_int * 13),
                ("score", ctypes.c_int * 13)]


def dds_library() -> str | None:
    """The DDS shared library's name, when installed (Debian: ``libdds0``)."""
    return ctypes.util.find_library("dds")


def measure_dds(count: int, seed: int = 1) -> dict[str, Any]:
    """DDS's ``SolveBoard`` (target -1, one solution, one thread) on random bridge deals."""
    name = dds_library()
    if name is None:
        return {"installed": False}
    lib = ctypes.CDLL(name)
    lib.SetMaxThreads(1)
    rng = random.Random(seed)
    ms = []
    for _ in range(count):
        cards = list(range(52))
        rng.shuffle(cards)
        deal = _Deal()
        deal.trump, deal.first = rng.randrange(5), rng.randrange(4)
        for hand in range(4):
            for c in cards[13 * hand:13 * hand + 13]:
                deal.remainCards[hand][c // 13] |= 1 << (c % 13 + 2)
        future = _Future()
        t = clock()
        rc = lib.SolveBoard(deal, -1, 1, 0, ctypes.byref(future), 0)
        ms.append((clock() - t) * 1000)
        if rc != 1:
            raise SystemExit(f"DDS SolveBoard answered {rc}")
    return {"installed": True, "library": name, "deals": count, "deal_ms": percentiles(ms)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.solve_perf", description=__doc__.split("\n\n")[0])
    p.add_argument("--work", type=Path, help="the benchmark's work folder (its events.jsonl)")
    p.add_argument("--deals", type=int, default=200, help="rounds of the workload to solve")
    p.add_argument("--dds", type=int, metavar="N", help="time DDS on N random bridge deals instead")
    p.add_argument("--export-par", type=int, metavar="G",
                   help="time export --par against export on the log's first G games instead")
    a = p.parse_args(argv)
    if a.dds is not None:
        out = measure_dds(a.dds)
    elif a.export_par is not None:
        if a.work is None:
            p.error("--work is needed with --export-par")
        out = measure_export_par(a.work / "events.jsonl", a.export_par)
    else:
        if a.work is None:
            p.error("--work is needed (or --dds N)")
        out = measure_solver(a.work / "events.jsonl", a.deals)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    if a.dds is not None:
        os._exit(0)  # DDS's library can crash while the process tears down; the answer is out
    return 0


if __name__ == "__main__":
    sys.exit(main())
