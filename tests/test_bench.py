"""A smoke test of ``python -m benchmarks.bench`` on a tiny workload: every stage and every baseline
runs and is reported, and ``--json`` holds the figures. Timings are never asserted (speed is
the benchmark's business, not a test's)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bench import LABELS, ORDER, ROWS, main

ROOT = Path(__file__).resolve().parent.parent

#: The benchmark's own run, with its stages in processes of their own, takes a while.
pytestmark = pytest.mark.soak


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    tmp = tmp_path_factory.mktemp("bench")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-m", "benchmarks.bench", "--games", "6", "--work",
                          str(tmp / "work"), "--json", str(tmp / "bench.json"), "--scale",
                          "--scale-games", "4", "--scale-factor", "2"],
                         cwd=tmp, capture_output=True, text=True, timeout=900, env=env, check=False)
    return tmp, run


def test_every_stage_and_baseline_is_reported(bench: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    _, run = bench
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "jaslog benchmark: 6 Klaverjas games" in out
    for row in ROWS:
        assert row.label.strip() in out
        assert LABELS[row.ours] in out
        if row.baseline:
            assert LABELS[row.baseline] in out
    for row in ROWS:
        if row.target is not None:
            assert f">= {row.target:g}x" in out, row
    assert "M events/s on one core (target >= 1M:" in out
    assert "jaslog: the fold's hot path runs " in out
    assert "not available" not in out, out
    assert "failed" not in out
    assert "give the same answer" in out  # DuckDB on Parquet and SQL on SQLite agree
    assert "export floor: fetching the stored events and writing the finished tables" in out
    assert "bytes an event imported (target <= 100)" in out and "recorded live (target <= 110)" \
        in out


def test_json_holds_every_figure(bench: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    tmp, run = bench
    assert run.returncode == 0, run.stderr
    doc = json.loads((tmp / "bench.json").read_text())
    assert doc["workload"]["games"] == 6 and doc["workload"]["events"] > 6 * 16 * 30
    assert set(doc["stages"]) == set(ORDER)
    for name, r in doc["stages"].items():
        assert r["count"] > 0 and r["seconds"] > 0 and r["rate"] > 0, name
        assert r["peak_mib"] is not None and r["peak_mib"] >= 0, name
        assert r["unit"] in ("events", "rows")
    # every stage counted the same workload
    events = doc["workload"]["events"]
    assert doc["native"]["mode"] in ("compiled", "pure")
    for name in ("parse", "json", "orjson", "fold", "fold_pure", "check", "import", "executemany",
                 "es_store", "es_replay", "replay"):
        assert doc["stages"][name]["count"] == events, name
    assert doc["stages"]["export"]["count"] == doc["stages"]["write_table"]["count"] \
        == doc["stages"]["write_rows"]["count"] == doc["stages"]["read_write"]["count"]
    # the floor fetches every stored event, then writes what write_table writes
    assert f"fetch of the {events:,} stored events" in doc["stages"]["read_write"]["note"]
    floor = doc["stages"]["read_write"]["rate"] / doc["stages"]["write_table"]["rate"]
    assert doc["export_floor"] == round(floor, 3) and floor > 0
    ratios = {(r["ours"], r["baseline"]): r for r in doc["ratios"]}
    assert ratios[("fold", "es_replay")]["target"] == 30.0
    assert ratios[("check", "orjson")]["target"] == 0.33
    assert ratios[("import", "executemany")]["target"] == 0.6
    assert ratios[("export", "write_table")]["target"] is None
    assert ratios[("export", "read_write")]["target"] == 0.8
    assert ratios[("fold", "fold_pure")]["target"] is None
    assert ratios[("replay", "fold")]["target"] == 0.5
    # the store's size an event, the log and its chain, imported and recorded live
    assert 40 < doc["store_bytes_per_event"] < doc["store_bytes_per_event_live"] < 400
    assert doc["store_projection_bytes_per_event"] > 0
    for r in doc["ratios"]:
        assert r["ratio"] is not None and r["ratio"] > 0
        assert r["met"] in (True, False, None)
        if r["target"] is not None:
            assert r["met"] == (r["ratio"] >= r["target"])
    assert doc["answers_agree"] is True


def test_scale_check_runs_both_sizes(bench: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    tmp, run = bench
    assert run.returncode == 0, run.stderr
    assert "scale:" in run.stdout
    scale = json.loads((tmp / "bench.json").read_text())["scale"]
    assert [r["games"] for r in scale["runs"]] == [4, 8]
    for r in scale["runs"]:
        assert r["export"]["extra"]["games"] == r["games"]
        assert r["query"]["count"] > 0
    assert scale["growth"]["games"] == 2


def test_the_workload_is_deterministic_and_reused(
        bench: tuple[Path, subprocess.CompletedProcess[str]], tmp_path: Path) -> None:
    from rich.console import Console

    from benchmarks.bench import build_workload
    from benchmarks.bench_stages import Work

    tmp, _ = bench
    again = Work(tmp_path)
    meta = build_workload(again, 6, 1, Console(quiet=True))
    assert again.log.read_bytes() == Work(tmp / "work").log.read_bytes()
    mtime = again.log.stat().st_mtime_ns
    assert build_workload(again, 6, 1, Console(quiet=True)) == meta
    assert again.log.stat().st_mtime_ns == mtime  # reused, not simulated again


def test_repeat_runs_passes_over_the_stages(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-m", "benchmarks.bench", "--games", "2", "--work",
                          str(tmp_path / "work"), "--only", "parse,json,fold", "--repeat", "2",
                          "--json", str(tmp_path / "b.json")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env,
                         check=False)
    assert run.returncode == 0, run.stderr
    # pass after pass: parse, json, fold, then the three again
    lines = [ln.split()[0] for ln in run.stdout.splitlines() if ln.startswith("  ") and "/s" in ln]
    assert lines == ["parse", "json", "fold"] * 2
    stages = json.loads((tmp_path / "b.json").read_text())["stages"]
    for name in ("parse", "json", "fold"):
        assert len(stages[name]["runs"]) == 2 and stages[name]["rate"] == max(stages[name]["runs"])


def test_compare_two_runs(bench: tuple[Path, subprocess.CompletedProcess[str]],
                          tmp_path: Path) -> None:
    """``--compare OLD NEW``: rates and ratios side by side with their change; a different
    workload is pointed out; a file that is not a figures file is refused in a sentence."""
    tmp, run = bench
    assert run.returncode == 0, run.stderr
    new = json.loads((tmp / "bench.json").read_text())
    old = json.loads(json.dumps(new))
    old["stages"]["fold"]["rate"] = new["stages"]["fold"]["rate"] / 2
    for r in old["ratios"]:
        if r["ours"] == "fold" and r["baseline"] == "es_replay":
            r["ratio"] = old_fold = r["ratio"] / 2
    (tmp_path / "old.json").write_text(json.dumps(old))

    def bench_cmd(*args: str) -> subprocess.CompletedProcess[str]:
        """``python -m benchmarks.bench ARGS`` in this process (its ``main``), stdout and
        stderr apart."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
        return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())

    res = bench_cmd("--compare", str(tmp_path / "old.json"), str(tmp / "bench.json"))
    assert res.returncode == 0, res.stderr
    out = res.stdout
    fold_row = next(line for line in out.splitlines() if line.startswith("│ fold (parsed"))
    assert "2.00x" in fold_row
    ratio_row = next(line for line in out.splitlines() if "fold (parsed events) / eventsourcing" in line)
    assert f"{old_fold:.2f}x" in ratio_row and "2.00x" in ratio_row and "target >= 30x" in ratio_row
    assert "the workloads differ" not in out
    old["workload"]["games"] = 7
    (tmp_path / "old.json").write_text(json.dumps(old))
    out = bench_cmd("--compare", str(tmp_path / "old.json"), str(tmp / "bench.json")).stdout
    assert "the workloads differ" in " ".join(out.split())
    (tmp_path / "other.json").write_text('{"a": 1}')
    res = bench_cmd("--compare", str(tmp_path / "other.json"), str(tmp / "bench.json"))
    assert res.returncode == 2
    assert "other.json: not a figures file of python -m benchmarks.bench --json" in \
        " ".join(res.stderr.split())


def test_store_perf_examples() -> None:
    """The examples in ``benchmarks.store_perf`` run (pytest collects doctests under jaslog/
    only)."""
    import doctest

    from benchmarks import store_perf

    res = doctest.testmod(store_perf)
    assert res.attempted > 0 and res.failed == 0


def test_store_perf_command(tmp_path: Path) -> None:
    """``python -m benchmarks.store_perf GAMES WORKERS``, the README's quick look at import speed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "benchmarks.store_perf", "2", "0"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, env=env, check=False)
    assert run.returncode == 0, run.stderr
    figures = dict(line.split(None, 1) for line in run.stdout.splitlines())
    assert set(figures) == {"events", "stored", "import_events_per_s",
                            "raw_executemany_events_per_s", "ratio", "replay_events_per_s"}
    assert figures["events"] == figures["stored"]


def test_solver_is_reported(bench: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    """The solver's section: the par of the workload's deals and their rounds annotated,
    against the targets, and the time per card beside DDS's (measured or its reference)."""
    tmp, run = bench
    assert run.returncode == 0, run.stderr
    out = " ".join(run.stdout.split())
    assert "par of a deal from its first card" in out and "a round annotated" in out
    assert "per card:" in out and "DDS" in out
    sv = json.loads((tmp / "bench.json").read_text())["solver"]
    ours = sv["ours"]
    assert ours["deals"] > 0 and ours["core"] in ("compiled", "python")
    for key in ("deal_par_ms", "round_annotated_ms", "round_analysed_ms"):
        p = ours[key]
        assert 0 < p["median"] <= p["p90"] <= p["p99"] <= p["max"], key
    assert set(sv["met"]) == {"deal_median", "deal_p99", "round_median"}
    assert sv["per_card"]["ours_ms"] > 0 and sv["per_card"]["dds"] in ("measured", "reference")


def test_solve_perf_examples() -> None:
    import doctest

    from benchmarks import solve_perf

    res = doctest.testmod(solve_perf)
    assert res.attempted > 0 and res.failed == 0
