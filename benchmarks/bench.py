"""``python -m benchmarks.bench``: how fast jaslog is, next to baselines measured in the same run.

It builds a fixed workload (by default 2,000 simulated Klaverjas games, about 1.2 million
events, the same bytes for the same ``--games`` and ``--seed``) and runs every stage and
every baseline on it, each in its own process (see :mod:`benchmarks.bench_stages`):

=====================  =================================  ===================================
stage                  jaslog                             baseline(s), same data, same run
=====================  =================================  ===================================
parse                  ``parse_event`` (pydantic models)  ``json.loads``, ``orjson.loads``
check / fold           the fold of parsed events (and     ``eventsourcing`` replay (>= 10x)
                       ``check`` end to end: parse +
                       fold + audit)
import into SQLite     ``Store.import_files``             sqlite3 ``executemany`` of the same
                                                          rows (>= 0.5x); ``eventsourcing``
                                                          saving an aggregate per game
replay from the store  ``Store.fold_games``               ``eventsourcing`` replay
                       (``benchmarks.store_perf``)
export to Parquet      ``export_store``                   pyarrow ``write_table`` of the same
                                                          tables (>= 0.5x); the same from
                                                          Python rows (``from_pylist``); the
                                                          floor: the stored events fetched
                                                          by a bare cursor + ``write_table``
stats query            DuckDB over the Parquet dataset    the same question in SQL over the
                                                          SQLite store; declarer success by
                                                          trump also by folding the store
                                                          (``benchmarks.export_perf``)
=====================  =================================  ===================================

It prints one table (rates, peak memory, ratios, targets) and ``--json FILE`` writes the
figures for comparison between commits (``--compare OLD.json NEW.json`` prints two such files
side by side). ``--scale`` adds the scale check: export and
query time at 10,000 and 100,000 games. A stage whose module is missing prints "not
available". Then the solver (:mod:`benchmarks.solve_perf`, ``--solve-deals``, 0 to skip):
the par of a Klaverjas deal from its first card and a whole round annotated, median and p99
over the workload's deals against the solver's targets, and the time per card beside bridge's
DDS (measured when Debian's ``libdds0`` is installed). This is a tool, not a test: nothing
here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.bench_stages import Work
from jaslog import native

ROOT = Path(__file__).resolve().parent.parent
WORKLOAD_RULESETS = ("amsterdam", "rotterdam")
WORKLOAD_FAULTS: dict[str, float] = {"revoke_rate": 0.001, "false_roem_rate": 0.002,
                                     "no_hands_rate": 0.02}
FORMAT = 1
#: The fold's own target: events per second on one core (beside its ratio to eventsourcing).
FOLD_TARGET = 1_000_000


@dataclass(frozen=True)
class Row:
    """One comparison of the table: our stage next to one baseline, with its target."""

    label: str
    ours: str
    baseline: str | None
    target: float | None = None


ROWS = (
    Row("parse", "parse", "json"),
    Row("parse", "parse", "orjson"),
    Row("check / fold", "fold", "es_replay", 30.0),
    Row("check / fold", "fold", "fold_pure"),
    Row("  fold, pure Python", "fold_pure", "es_replay"),
    Row("  check end to end", "check", "es_replay"),
    Row("  check end to end", "check", "orjson", 0.33),
    Row("import into SQLite", "import", "executemany", 0.6),
    Row("import into SQLite", "import", "es_store"),
    Row("replay from the store", "replay", "es_replay"),
    Row("replay from the store", "replay", "fold", 0.5),
    Row("export to Parquet", "export", "write_table"),
    Row("export to Parquet", "export", "write_rows"),
    Row("export to Parquet", "export", "read_write", 0.8),
    Row("stats query", "query", "sqlite_sql"),
    Row("  stats question", "question", "store_question"),
)

#: The order the stages run in (each needs what the ones before it left in the work folder).
ORDER = ("parse", "json", "orjson", "fold", "fold_pure", "check", "import", "executemany", "es_store",
         "es_replay", "replay", "export", "write_table", "read_write", "write_rows", "query",
         "sqlite_sql", "question", "store_question")

LABELS = {
    "parse": "parse_event (models)", "json": "json.loads (stdlib)", "orjson": "orjson.loads",
    "fold": "fold (parsed events)", "fold_pure": "fold, JASLOG_PURE=1",
    "check": "check: parse+fold+audit",
    "es_replay": "eventsourcing replay", "import": "Store.import_lines",
    "executemany": "sqlite3 executemany", "es_store": "eventsourcing save",
    "replay": "Store.fold_games", "export": "export_store", "write_table": "pyarrow write_table",
    "write_rows": "pyarrow from rows+write",
    "read_write": "floor: fetch + write_table", "query": "DuckDB on Parquet",
    "question": "stats declarer_success", "sqlite_sql": "SQL on the SQLite store",
    "store_question": "fold the stored games",
}


# ------------------------------------------------------------------ the workload


def _generate(args: tuple[int, int, int, str]) -> tuple[str, int]:
    first, n, seed, path = args
    from jaslog.play.sim import DEFAULT_START, Faults, simulate, to_jsonl

    count = 0
    with open(path, "wb") as f:
        for line in to_jsonl(simulate(n, list(WORKLOAD_RULESETS), seed=seed, prefix="bench",
                                      faults=Faults(**WORKLOAD_FAULTS),  # type: ignore[arg-type]
                                      start=DEFAULT_START,
                                      first=first)):
            f.write(line)
            count += 1
    return path, count


def build_workload(work: Work, games: int, seed: int, console: Console) -> dict[str, Any]:
    """Write the workload log (or reuse the one already there for the same settings)."""
    meta_path = work.dir / "workload.json"
    want = {"format": FORMAT, "games": games, "seed": seed, "rulesets": list(WORKLOAD_RULESETS),
            "faults": WORKLOAD_FAULTS}
    if meta_path.exists() and work.log.exists():
        meta = json.loads(meta_path.read_text())
        if {k: meta.get(k) for k in want} == want and work.log.stat().st_size == meta.get("bytes"):
            console.print(f"workload: reusing {work.log}", style="dim")
            return dict(meta)
    work.dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    procs = max(1, min(os.cpu_count() or 1, 8, games // 50 or 1))
    step = -(-games // procs)
    parts = [(i, min(step, games - i), seed, str(work.dir / f"part-{k}.jsonl"))
             for k, i in enumerate(range(0, games, step))]
    with console.status(f"simulating the workload: {games:,} games on {procs} processes"):
        if procs > 1:
            import multiprocessing as mp

            with mp.get_context("spawn").Pool(procs) as pool:
                done = pool.map(_generate, parts)
        else:
            done = [_generate(p) for p in parts]
        with open(work.log, "wb") as out:
            for path, _ in done:
                with open(path, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 20)
                os.unlink(path)
    meta = {**want, "events": sum(n for _, n in done), "bytes": work.log.stat().st_size,
            "seconds": round(time.perf_counter() - t0, 1)}
    meta_path.write_text(json.dumps(meta, indent=1))
    return meta


# ------------------------------------------------------------------ running stages


def run_stage(name: str, work: Work) -> dict[str, Any]:
    """One stage in a fresh Python process; its JSON result."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    if name.endswith("_pure"):  # the same stage on the hot path's pure-Python modules
        env["JASLOG_PURE"] = "1"
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench", "--stage", name,
                           "--work", str(work.dir)], capture_output=True, text=True, env=env,
                          check=False)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"stage": name, "failed": tail}
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _rate(r: dict[str, Any] | None) -> str:
    if r is None:
        return ""
    if "unavailable" in r or "failed" in r:
        return "not available"
    rate = r["rate"]
    text = f"{rate / 1e6:.2f}M" if rate >= 1e6 else f"{rate / 1e3:.1f}k" if rate >= 1e3 \
        else f"{rate:.0f}"
    return f"{text} {r['unit']}/s"


def _mem(r: dict[str, Any] | None) -> str:
    if r is None or r.get("peak_mib") is None:
        return ""
    mark = "" if r.get("peak_kind") == "growth" else " (process)"
    workers = f" + workers <= {r['worker_peak_mib']:,.0f}" if r.get("worker_peak_mib") else ""
    return f"{r['peak_mib']:,.0f} MiB{mark}{workers}"


def ratios(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in ROWS:
        if row.baseline is None:
            continue
        a, b = results.get(row.ours, {}), results.get(row.baseline, {})
        ratio = a["rate"] / b["rate"] if a.get("rate") and b.get("rate") else None
        out.append({"stage": row.label.strip(), "ours": row.ours, "baseline": row.baseline,
                    "ratio": round(ratio, 3) if ratio is not None else None,
                    "target": row.target,
                    "met": (ratio >= row.target) if ratio is not None and row.target else None})
    return out


#: The store's bytes an event, the log and its chain: imported, and recorded live.
STORE_TARGET, STORE_LIVE_TARGET = 100, 110


def store_sizes(results: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """The store's size an event as the import stage measured it (None when it did not run)."""
    extra = results.get("import", {}).get("extra") or {}
    return {k: extra.get(k) for k in ("store_bytes_per_event", "store_bytes_per_event_live",
                                      "store_projection_bytes_per_event",
                                      "store_projection_bytes_per_event_live")}


def export_floor(results: dict[str, dict[str, Any]]) -> float | None:
    """The floor stage's rate over ``write_table``'s: the best ratio any export from the store
    could reach if decoding, folding and building rows cost nothing."""
    floor, direct = results.get("read_write", {}), results.get("write_table", {})
    if not floor.get("rate") or not direct.get("rate"):
        return None
    return round(floor["rate"] / direct["rate"], 3)


def report(results: dict[str, dict[str, Any]], meta: dict[str, Any]) -> Table:
    t = Table(title=f"jaslog benchmark: {meta['games']:,} Klaverjas games "
                    f"({', '.join(meta['rulesets'])}), {meta['events']:,} events, "
                    f"{meta['bytes'] / 2**20:,.1f} MiB of jaslog/1",
              title_justify="left", caption="rates: units per second, higher is better; memory: "
              "growth of the resident set during the stage (+ workers: the largest peak of a "
              "worker process it started)", caption_justify="left")
    for col, just in (("stage", "left"), ("jaslog", "left"), ("rate", "right"),
                      ("peak mem", "right"), ("baseline", "left"), ("rate ", "right"),
                      ("peak mem ", "right"), ("ratio", "right"), ("target", "right")):
        t.add_column(col, justify=just, no_wrap=True)  # type: ignore[arg-type]
    by_pair = {(r["ours"], r["baseline"]): r for r in ratios(results)}
    last = None
    for row in ROWS:
        ours = results.get(row.ours)
        base = results.get(row.baseline) if row.baseline else None
        first = row.ours != last
        last = row.ours
        pr = by_pair.get((row.ours, row.baseline))
        ratio = f"{pr['ratio']:.2f}x" if pr and pr["ratio"] is not None else ""
        target = ""
        if row.target is not None:
            met = pr["met"] if pr else None
            mark = {True: "[green]met[/]", False: "[red]missed[/]", None: ""}[met]
            target = f">= {row.target:g}x {mark}"
        t.add_row(row.label if first else "", LABELS[row.ours] if first else "",
                  _rate(ours) if first else "", _mem(ours) if first else "",
                  LABELS.get(row.baseline or "", "-"), _rate(base) if base else "",
                  _mem(base), ratio, target)
    return t


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, check=False, timeout=10)
        return out.stdout.strip() or None
    except OSError:
        return None


def _answers_agree(results: dict[str, dict[str, Any]], ours: str = "query",
                   theirs: str = "sqlite_sql") -> bool | None:
    a, b = results.get(ours, {}).get("answer"), results.get(theirs, {}).get("answer")
    if a is None or b is None:
        return None

    def norm(rows: list[list[Any]]) -> list[list[str]]:
        return [[f"{v:.9f}" if isinstance(v, float) else str(v) for v in r] for r in rows]
    return norm(a) == norm(b)


# ------------------------------------------------------------------ comparing two runs


def load_figures(path: Path) -> dict[str, Any]:
    """A ``--json`` file of this benchmark (raises ValueError with a sentence otherwise)."""
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
    if not isinstance(doc, dict) or doc.get("jaslog_bench") != FORMAT:
        raise ValueError(f"{path}: not a figures file of python -m benchmarks.bench --json "
                         f"(format {FORMAT})")
    return doc


def _label(doc: dict[str, Any], path: Path) -> str:
    return f"{path.name} ({doc.get('commit') or 'no commit'})"


def compare_table(old: dict[str, Any], new: dict[str, Any], old_name: str,
                  new_name: str) -> Table:
    """Two runs side by side: each stage's rate and its change, each ratio and its target."""
    t = Table(title=f"jaslog benchmark: {old_name} -> {new_name}", title_justify="left",
              caption="change: the new rate over the old; on a shared machine, differences "
                      "under about 25% are noise", caption_justify="left")
    for col, just in (("stage", "left"), ("old", "right"), ("new", "right"),
                      ("change", "right")):
        t.add_column(col, justify=just, no_wrap=True)  # type: ignore[arg-type]
    so, sn = old.get("stages", {}), new.get("stages", {})
    for name in [n for n in ORDER if n in so or n in sn]:
        a, b = so.get(name), sn.get(name)
        change = ""
        if a and b and a.get("rate") and b.get("rate"):
            change = f"{b['rate'] / a['rate']:.2f}x"
        t.add_row(LABELS[name], _rate(a), _rate(b), change)
    t.add_section()
    ro = {(r["ours"], r["baseline"]): r for r in old.get("ratios", [])}
    for r in new.get("ratios", []):
        before = ro.get((r["ours"], r["baseline"]), {}).get("ratio")
        target = f" (target >= {r['target']:g}x: {'met' if r['met'] else 'missed'})" \
            if r.get("target") else ""
        now = r.get("ratio")
        t.add_row(f"{LABELS[r['ours']]} / {LABELS.get(r['baseline'], r['baseline'])}",
                  f"{before:.2f}x" if before is not None else "",
                  (f"{now:.2f}x" if now is not None else "") + target,
                  f"{now / before:.2f}x" if now and before else "")
    return t


def compare(old_path: Path, new_path: Path, console: Console) -> int:
    """Print two ``--json`` files side by side; 2 (and a sentence) when one is unreadable."""
    try:
        old, new = load_figures(old_path), load_figures(new_path)
    except ValueError as e:
        Console(stderr=True).print(f"[bold red]benchmarks.bench:[/] {e}", soft_wrap=True)
        return 2
    wo, wn = old.get("workload", {}), new.get("workload", {})
    if (wo.get("games"), wo.get("events")) != (wn.get("games"), wn.get("events")):
        console.print(f"note: the workloads differ ({wo.get('games')} games, {wo.get('events')} "
                      f"events against {wn.get('games')} games, {wn.get('events')} events): "
                      "compare the ratios, not the rates", style="yellow")
    console.print(compare_table(old, new, _label(old, old_path), _label(new, new_path)))
    return 0


# ------------------------------------------------------------------ scale


def run_scale(work_root: Path, games: int, factor: int, seed: int,
              console: Console) -> dict[str, Any]:
    """Export and query at ``games`` and ``factor`` times as many games (the workload repeated
    under new ids); export runs from the log (parse + fold + write) so no import is needed."""
    work = Work(work_root / "scale")
    meta = build_workload(work, games, seed, console)
    out: dict[str, Any] = {"games": games, "events": meta["events"], "factor": factor, "runs": []}
    for copies in (1, factor):
        with console.status(f"scale: exporting {games * copies:,} games"):
            exp = run_stage(f"scale_export:{copies}", work)
        with console.status(f"scale: querying {games * copies:,} games"):
            q = run_stage(f"scale_query:{copies}", work)
        out["runs"].append({"games": games * copies, "export": exp, "query": q})
        shutil.rmtree(work.dir / f"scale-parquet-x{copies}", ignore_errors=True)
    return out


def scale_table(scale: dict[str, Any]) -> Table:
    t = Table(title="scale: export (parse + fold + write, from jaslog/1) and a stats question "
                    "as the dataset grows", title_justify="left")
    for col in ("games", "export s", "rows/s", "peak mem", "query s", "query peak mem"):
        t.add_column(col, justify="right")
    runs = scale["runs"]
    for r in runs:
        e, q = r["export"], r["query"]
        ok_e, ok_q = "seconds" in e, "seconds" in q
        t.add_row(f"{r['games']:,}", f"{e['seconds']:.1f}" if ok_e else "not available",
                  f"{e['rate']:,.0f}" if ok_e else "", _mem(e) if ok_e else "",
                  f"{q['seconds']:.2f}" if ok_q else "not available", _mem(q) if ok_q else "")
    if len(runs) == 2 and all("seconds" in r["export"] and "seconds" in r["query"] for r in runs):
        f = runs[1]["games"] / runs[0]["games"]
        te = runs[1]["export"]["seconds"] / runs[0]["export"]["seconds"]
        tq = runs[1]["query"]["seconds"] / runs[0]["query"]["seconds"]
        t.caption = (f"{f:.0f}x the games: export took {te:.1f}x the time (linear: {f:.0f}x), "
                     f"the question {tq:.1f}x; export memory {_mem(runs[0]['export'])} -> "
                     f"{_mem(runs[1]['export'])}")
        scale["growth"] = {"games": f, "export_time": round(te, 2), "query_time": round(tq, 2)}
    return t


# ------------------------------------------------------------------ the solver


def _json_run(args: list[str]) -> dict[str, Any]:
    """The JSON line a module of the benchmark prints, run in a process of its own."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, env=env,
                          check=False)
    lines = proc.stdout.strip().splitlines()
    if not lines:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"error": tail}
    return dict(json.loads(lines[-1]))


def run_solver(work: Work, deals: int, dds_deals: int, console: Console,
               par_games: int = 0) -> dict[str, Any]:
    """The solver on the workload's deals, DDS on random bridge deals, and the comparison;
    ``export --par`` against ``export`` on the workload's first ``par_games`` games."""
    from benchmarks.solve_perf import (
        DDS_REFERENCE_MS,
        DEAL_MEDIAN_MS,
        DEAL_P99_MS,
        ROUND_MEDIAN_MS,
    )

    with console.status(f"solving {deals} deals of the workload ..."):
        ours = _json_run(["benchmarks.solve_perf", "--work", str(work.dir), "--deals", str(deals)])
    with console.status(f"DDS on {dds_deals} bridge deals ..."):
        dds: dict[str, Any] = {"installed": False}
        if dds_deals:
            dds = _json_run(["benchmarks.solve_perf", "--dds", str(dds_deals)])
    out: dict[str, Any] = {"ours": ours, "dds": dds}
    if par_games:
        with console.status(f"export --par against export, {par_games} games ..."):
            out["export_par"] = _json_run(["benchmarks.solve_perf", "--work", str(work.dir),
                                           "--export-par", str(par_games)])
    if "error" in ours:
        return out
    par, ann = ours["deal_par_ms"], ours["round_annotated_ms"]
    out["targets"] = {"deal_median_ms": DEAL_MEDIAN_MS, "deal_p99_ms": DEAL_P99_MS,
                      "round_median_ms": ROUND_MEDIAN_MS}
    out["met"] = {"deal_median": par["median"] <= DEAL_MEDIAN_MS,
                  "deal_p99": par["p99"] <= DEAL_P99_MS,
                  "round_median": ann["median"] <= ROUND_MEDIAN_MS}
    measured = bool(dds.get("installed")) and "deal_ms" in dds
    dds_ms = dds["deal_ms"]["median"] if measured else DDS_REFERENCE_MS
    ours_card, dds_card = par["median"] / 32, dds_ms / 52
    out["per_card"] = {"ours_ms": round(ours_card, 4), "dds_ms": round(dds_card, 4),
                       "ratio": round(ours_card / dds_card, 3),
                       "dds": "measured" if measured else "reference"}
    return out


def solver_table(sv: dict[str, Any]) -> Table:
    ours, dds = sv["ours"], sv["dds"]
    t = Table(title=f"solver: {ours['deals']} Klaverjas deals of the workload, {ours['core']} core, "
                    "CPU time on one core, each deal in a fresh solver", title_justify="left")
    for col, just in (("what", "left"), ("median", "right"), ("p90", "right"), ("p99", "right"),
                      ("max", "right"), ("target", "left")):
        t.add_column(col, justify=just, no_wrap=True)  # type: ignore[arg-type]
    met = sv["met"]

    def mark(ok: bool) -> str:
        return "[green]met[/]" if ok else "[red]missed[/]"

    def row(what: str, p: dict[str, float], target: str) -> None:
        t.add_row(what, *(f"{p[k]:,.1f} ms" for k in ("median", "p90", "p99", "max")), target)

    row("par of a deal from its first card", ours["deal_par_ms"],
        f"median <= 50 ms {mark(met['deal_median'])}, p99 <= 1 s {mark(met['deal_p99'])}")
    row("a round annotated (the par at its 32 positions)", ours["round_annotated_ms"],
        f"median <= 250 ms {mark(met['round_median'])}")
    row("a round analysed (+ best cards, results)", ours["round_analysed_ms"], "")
    if dds.get("installed") and "deal_ms" in dds:
        row(f"DDS SolveBoard, a 52-card bridge deal ({dds['deals']} deals)", dds["deal_ms"], "")
    pc = sv["per_card"]
    how = ("DDS measured here" if pc["dds"] == "measured" else
           "DDS's reference figure: libdds0 is not installed here")
    t.caption = (f"per card: {pc['ours_ms'] * 1000:,.0f} µs (a deal's median over its 32 cards) "
                 f"against DDS's {pc['dds_ms'] * 1000:,.0f} µs (its median over 52 cards): "
                 f"{pc['ratio']:.2f}x ({how})")
    ep = sv.get("export_par")
    if ep and "error" not in ep:
        t.caption += (f"\nexport --par against export, {ep['games']} games ({ep['rounds']:,} "
                      f"rounds), one process: {ep['ratio']:.2f}x once the rounds are kept "
                      f"(target <= {ep['target']:g}x {mark(ep['met'])}); the first, which "
                      f"solves and keeps them, {ep['ratio_first']:.1f}x")
    return t


# ------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2000, help="games in the workload (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="seed of the workload")
    p.add_argument("--json", type=Path, help="write the figures to this JSON file")
    p.add_argument("--work", type=Path, help="keep the workload and databases in this folder "
                   "(reused when the settings match); default: a temporary folder")
    p.add_argument("--only", help="comma-separated stages to run (default: all)")
    p.add_argument("--repeat", type=int, default=1, help="run all the stages this many times, "
                   "pass after pass, and keep each stage's fastest run (on a busy machine)")
    p.add_argument("--scale", action="store_true", help="also the scale check: export and query "
                   "time at --scale-games and 10 times as many (takes minutes)")
    p.add_argument("--scale-games", type=int, default=10_000)
    p.add_argument("--scale-factor", type=int, default=10)
    p.add_argument("--par-games", type=int, default=40, help="games of the workload `export "
                   "--par` is timed on against `export` in the solver section (default 40; 0: "
                   "not timed)")
    p.add_argument("--solve-deals", type=int, default=200, help="Klaverjas deals of the workload "
                   "the solver times (default 200; 0: no solver section)")
    p.add_argument("--dds-deals", type=int, default=200, help="bridge deals DDS times, when its "
                   "library (libdds0) is installed (default 200)")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("OLD.json", "NEW.json"),
                   help="print two --json files side by side (no run)")
    p.add_argument("--stage", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.compare:
        return compare(a.compare[0], a.compare[1], Console(width=170) if not
                       Console().is_terminal else Console())
    if a.stage:
        from benchmarks.bench_stages import main_stage

        main_stage(a.stage, str(a.work))
        return 0
    if a.games < 2:
        p.error("--games must be at least 2")
    console = Console()
    if not console.is_terminal or console.width < 160:
        console = Console(width=max(console.width, 170) if console.is_terminal else 170)
    temp = None
    if a.work is None:
        temp = tempfile.mkdtemp(prefix="jaslog-bench-")
        work = Work(Path(temp))
    else:
        work = Work(a.work)
    try:
        meta = build_workload(work, a.games, a.seed, console)
        console.print(f"workload: {meta['games']:,} games, {meta['events']:,} events in "
                      f"{work.log} (simulated in {meta.get('seconds', 0)} s)", style="dim")
        only = set(a.only.split(",")) if a.only else None
        results: dict[str, dict[str, Any]] = {}
        names = [n for n in ORDER if only is None or n in only]
        runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
        passes = max(1, a.repeat)
        # Passes over all the stages, not repeats of one stage in a row: on a shared machine
        # a slow minute then costs every stage a little instead of one stage all its runs.
        for rep in range(passes):
            for name in names:
                label = LABELS[name] + (f" (pass {rep + 1} of {passes})" if passes > 1 else "")
                with console.status(f"running {label} ..."):
                    t0 = time.perf_counter()
                    r = run_stage(name, work)
                runs[name].append(r)
                what = r.get("unavailable") or r.get("failed") or \
                    f"{_rate(r)} ({r['seconds']:.2f} s)"
                console.print(f"  {name:<12} {what}  [{time.perf_counter() - t0:.1f} s]",
                              style="dim")
        for name in names:
            best = max(runs[name], key=lambda r: r.get("rate", -1.0))
            if passes > 1 and "rate" in best:
                best["runs"] = [r.get("rate") for r in runs[name]]
            results[name] = best
        console.print()
        console.print(report(results, meta))
        for name, r in results.items():
            if "failed" in r:
                console.print(f"[red]{name} failed:[/] {r['failed']}")
        console.print(native.describe())
        fold = results.get("fold", {}).get("rate")
        if fold:
            met = "[green]met[/]" if fold >= FOLD_TARGET else "[red]missed[/]"
            console.print(f"fold: {fold / 1e6:.2f}M events/s on one core (target >= "
                          f"{FOLD_TARGET / 1e6:g}M: {met})")
        size = store_sizes(results)
        if size["store_bytes_per_event"] is not None:
            console.print(f"store: {size['store_bytes_per_event']:.1f} bytes an event imported "
                          f"(target <= {STORE_TARGET}), "
                          f"{size['store_bytes_per_event_live']:.1f} recorded live (target <= "
                          f"{STORE_LIVE_TARGET}), the log and its chain; the projections beside: "
                          f"{size['store_projection_bytes_per_event']:.1f} and "
                          f"{size['store_projection_bytes_per_event_live']:.1f}")
        floor = export_floor(results)
        if floor is not None:
            console.print(f"export floor: fetching the stored events and writing the finished "
                          f"tables, with nothing in between, reaches {floor:.2f}x of write_table")
        agree = _answers_agree(results)
        if agree is not None:
            console.print(f"stats query: DuckDB on Parquet and SQL on SQLite give "
                          f"{'the same answer' if agree else '[red]different answers[/]'}")
        agree2 = _answers_agree(results, "question", "store_question")
        if agree2 is not None:
            console.print(f"stats question: the Parquet dataset and the folded store give "
                          f"{'the same answer' if agree2 else '[red]different answers[/]'}")
            agree = bool(agree) and agree2
        solver = None
        if a.solve_deals > 0 and (only is None or "solve" in only):
            solver = run_solver(work, a.solve_deals, a.dds_deals, console, a.par_games)
            if "error" in solver["ours"]:
                console.print(f"[red]solver: {solver['ours']['error']}[/]")
            else:
                console.print(solver_table(solver))
        scale = None
        if a.scale:
            scale = run_scale(work.dir, a.scale_games, a.scale_factor, a.seed, console)
            console.print(scale_table(scale))
        if a.json:
            doc = {"jaslog_bench": FORMAT, "commit": _commit(),
                   "when": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "python": platform.python_version(), "cpus": os.cpu_count(),
                   "native": {k: v for k, v in native.status().items() if k != "loaded_compiled"},
                   "workload": meta, "stages": {k: {kk: vv for kk, vv in v.items() if kk != "answer"}
                                                for k, v in results.items()},
                   "ratios": ratios(results), "export_floor": export_floor(results),
                   **store_sizes(results),
                   "answers_agree": agree, "scale": scale, "solver": solver}
            a.json.write_text(json.dumps(doc, indent=1, default=str) + "\n")
            console.print(f"figures written to {a.json}", style="dim")
    finally:
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
