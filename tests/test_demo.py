"""``jaslog demo`` end to end, as a newcomer runs it in an 80-column terminal: a real process, a
real SQLite file, a real Parquet dataset read back by DuckDB, and the commands it suggests
actually run (in the test process, from the folder the newcomer is in)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from jaslog.logs import read_file
from jaslog.play.audit import game_report
from jaslog.play.fold import FileGame, fold_lines
from tests.cli import jaslog as jaslog_here
from tests.cli import process_env

ROOT = Path(__file__).resolve().parent.parent
GAMES = 12
WIDTH = 80


def jaslog_process(*args: str, cwd: Path, columns: int) -> subprocess.CompletedProcess[str]:
    """``python -m jaslog ARGS`` in ``cwd``, in a terminal ``columns`` wide."""
    env = process_env(COLUMNS=str(columns))
    env.pop("JASLOG_DB", None)
    return subprocess.run([sys.executable, "-m", "jaslog", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, check=False, env=env)


def jaslog(*args: str, cwd: Path, columns: int = 200) -> subprocess.CompletedProcess[str]:
    """``jaslog ARGS`` in this process, from ``cwd``, in a terminal ``columns`` wide."""
    return jaslog_here(*args, cwd=cwd, env={"COLUMNS": str(columns), "JASLOG_DB": None},
                       text=True)


def commands(text: str, prefix: str = "jaslog ") -> list[str]:
    """The commands in ``text``, a command that goes on over lines ending in `` \\`` joined
    (as a shell joins them)."""
    out: list[str] = []
    going_on = False
    for line in text.splitlines():
        part = line.strip()
        if going_on:
            out[-1] += " " + part.removesuffix("\\").strip()
        elif part.startswith(prefix):
            out.append(part.removesuffix("\\").strip())
        else:
            continue
        going_on = part.endswith(" \\")
    return out


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    cwd = tmp_path_factory.mktemp("newcomer")
    run = jaslog_process("demo", "--games", str(GAMES), cwd=cwd, columns=WIDTH)
    return cwd / "jaslog-demo", run


def test_demo_keeps_to_the_terminal_width(demo: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    _, run = demo
    assert run.returncode == 0, run.stderr
    wide = [line for line in run.stdout.splitlines() if len(line) > WIDTH]
    assert not wide, wide
    # a long command goes on over lines ending in " \\", every line of it within the width
    assert any(line.endswith(" \\") for line in run.stdout.splitlines())


def test_demo_runs_every_step(demo: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, run = demo
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    out = run.stdout
    for step in ("1. Bots play the games", "2. Import into a fresh SQLite store",
                 "3. A disputed round, replayed from the store", "4. Export to Parquet",
                 "5. Statistics", "6. What to try next"):
        assert step in out
    assert f"{GAMES} games" in out
    assert "hash chains verified" in out and "intact" in out
    for name in ("games.jsonl", "jaslog.sqlite", "parquet/current/manifest.json"):
        assert (folder / name).exists(), name
    chart = folder / "success-by-trump.png"
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.stat().st_size > 5000


def test_three_statistics_tables(demo: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, run = demo
    stats = run.stdout.split("5. Statistics", 1)[1].split("6. What to try next", 1)[0]
    questions = commands(stats, "jaslog stats ")
    assert len(questions) == 3
    # each table is what `jaslog stats` answers for the same question, over the same dataset
    for q in questions:
        argv = shlex.split(q)[1:]
        r = jaslog(*argv, "--json", cwd=folder.parent)
        assert r.returncode == 0, r.stderr
        answer = json.loads(r.stdout)
        assert answer["rows"], q
        first = answer["rows"][0]
        cells = [str(v) for v in (first.values() if isinstance(first, dict) else first)
                 if isinstance(v, str)]
        assert all(c in stats for c in cells), (q, cells)
    # the made rate per Klaverjas ruleset agrees with folding the log in Python
    from collections import Counter

    made: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    for g in fold_lines(read_file(folder / "games.jsonl")):
        assert isinstance(g, FileGame) and g.fold is not None
        if g.fold.game != "klaverjas":
            continue
        for r in game_report(g.game, g.fold)["rounds"]:
            if r["result"] in ("made", "nat", "pit"):
                judged[g.fold.ruleset] += 1
                made[g.fold.ruleset] += r["result"] != "nat"
    for rs in judged:
        assert re.search(rf"{re.escape(rs)}[\s│]+{judged[rs]}[\s│]+{made[rs]}\s", stats), rs


def test_the_store_holds_the_simulated_games(demo: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    from jaslog.store import open_store

    folder, _ = demo
    games = [g for g in fold_lines(read_file(folder / "games.jsonl"))]
    assert len(games) == GAMES and all(isinstance(g, FileGame) and g.error is None for g in games)
    rulesets = {g.fold.ruleset for g in games if isinstance(g, FileGame) and g.fold}
    assert {"amsterdam", "rotterdam"} <= rulesets
    with open_store(str(folder / "jaslog.sqlite")) as store:
        stored = store.games()
        assert len(stored) == GAMES
        assert store.verify().ok
        n_lines = sum(1 for line in (folder / "games.jsonl").read_bytes().splitlines() if line)
        assert sum(g.events for g in stored) == n_lines


def test_the_disputed_round_is_explained(demo: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, run = demo
    out = " ".join(run.stdout.split())  # the sentences wrap to the terminal
    m = re.search(r"Game (\S+) \((\S+)\), round (\d+), trick (\d+): \S+ \(seat (\d)\) is to play", out)
    assert m, out
    gid, _, rnd, trick, seat = m.groups()
    rule = re.search(r"✗ (must_follow_suit|must_trump|must_overtrump|no_undertrump|must_discard): "
                     r"seat (\d) (.+)", out)
    assert rule and rule.group(2) == seat
    assert "The rule:" in out and "Legal were:" in out
    # the audit of that game says the same: a revoke in that round, scored as lost
    (g,) = [g for g in fold_lines(read_file(folder / "games.jsonl"))
            if isinstance(g, FileGame) and g.game == gid]
    rep = game_report(g.game, g.fold, g.error)
    v = [v for v in rep["violations"] if v["round"] == int(rnd) and v["rule"] == rule.group(1)]
    assert v and v[0]["trick"] == int(trick) and v[0]["seat"] == int(seat)
    scored = rep["rounds"][int(rnd) - 1]
    assert scored["result"] == "revoke"
    assert f"{scored['score'][0]}–{scored['score'][1]}" in out


def test_the_disputed_round_replays_from_the_store_as_said(
        demo: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    """Step 3 says the round is replayed from the store: the command it gives reads the store."""
    folder, run = demo
    step = run.stdout.split("3. A disputed round, replayed from the store", 1)[1]
    step = step.split("4. Export to Parquet", 1)[0]
    m = re.search(r"Game (\S+) \(\S+\), round (\d+),", " ".join(step.split()))
    rule = re.search(r"✗ (\w+): ", step)
    assert m and rule
    (replay,) = commands(step)
    argv = shlex.split(replay)[1:]
    assert argv == ["replay", f"store:{m.group(1)}", "--round", m.group(2), "--db",
                    "jaslog-demo/jaslog.sqlite"]
    # from the store alone: the log file is not needed
    (folder / "games.jsonl").rename(folder / "games.moved")
    try:
        r = jaslog(*argv, cwd=folder.parent)
    finally:
        (folder / "games.moved").rename(folder / "games.jsonl")
    assert r.returncode == 0, r.stderr
    assert f"✗ {rule.group(1)}: " in r.stdout


def test_the_parquet_export_reads_back_in_duckdb(
        demo: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, _ = demo
    current = folder / "parquet" / "current"
    con = duckdb.connect()
    games = con.execute(f"SELECT count(*) FROM read_parquet('{current}/games/**/*.parquet', "
                        "hive_partitioning=true)").fetchone()
    assert games == (GAMES,)
    rounds = con.execute(f"SELECT count(*), count(DISTINCT game) FROM read_parquet("
                         f"'{current}/rounds/**/*.parquet', hive_partitioning=true) "
                         "WHERE kind = 'klaverjas'").fetchone()
    folded = [g for g in fold_lines(read_file(folder / "games.jsonl"))
              if isinstance(g, FileGame) and g.fold is not None and g.fold.game == "klaverjas"]
    assert rounds == (sum(len(g.fold.state.rounds) for g in folded if g.fold), len(folded))


def test_the_suggested_commands_work(demo: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    folder, run = demo
    block = run.stdout.split("6. What to try next", 1)[1]
    suggested = commands(block)
    assert len(suggested) >= 3
    assert any(c.startswith("jaslog check ") for c in suggested)
    assert any(c.startswith("jaslog replay store:") for c in suggested)
    assert any(" --db jaslog-demo/jaslog.sqlite" in c for c in suggested)  # the path as given
    for c in suggested:
        argv = shlex.split(c)[1:]
        if argv[0] in ("simulate",):  # writes 50 games to stdout: covered in test_sim
            continue
        r = jaslog(*[a if a != "chart.png" else str(folder.parent / "chart.png") for a in argv],
                   cwd=folder.parent)
        # check exits 1 (the demo's games have violations on purpose); nothing may fail
        assert r.returncode in (0, 1), (c, r.stderr)
        assert "Traceback" not in r.stderr
        assert r.stdout.strip(), c


@pytest.mark.soak
def test_demo_again_starts_fresh_and_refuses_a_foreign_folder(tmp_path: Path) -> None:
    first = jaslog("demo", "--dir", "d", "--games", "4", "--seed", "5", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = jaslog("demo", "--dir", "d", "--games", "4", "--seed", "5", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    from jaslog.store import open_store

    with open_store(str(tmp_path / "d" / "jaslog.sqlite")) as store:
        assert len(store.games()) == 4  # a fresh store, not 8 games
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious")
    refused = jaslog("demo", "--dir", "mine", "--games", "4", cwd=tmp_path)
    assert refused.returncode == 2
    assert "not a jaslog demo folder" in refused.stderr
    assert (mine / "thesis.tex").read_text() == "precious"
    (tmp_path / "d" / "notes.txt").write_text("mine now")
    refused = jaslog("demo", "--dir", "d", "--games", "4", cwd=tmp_path)
    assert refused.returncode == 2 and "notes.txt" in refused.stderr
