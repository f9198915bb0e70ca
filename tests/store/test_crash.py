"""kill -9 in the middle of a large import: whole games or nothing, and a re-run completes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest

from jaslog.play.sim import simulate
from jaslog.store import open_store

ROOT = Path(__file__).resolve().parents[2]
GAMES = 50

#: Each test imports 50 games in a real process, kills it and imports again.
pytestmark = pytest.mark.soak


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Counter[str]]:
    path = tmp_path_factory.mktemp("crash") / "big.jsonl"
    sizes: Counter[str] = Counter()
    with open(path, "wb") as f:
        for e in simulate(GAMES, seed=11):
            sizes[e["game"]] += 1
            f.write(orjson.dumps(e) + b"\n")
    return path, sizes


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def descendants(pid: int) -> set[int]:
    """The live processes below ``pid`` (workers, and whatever they started)."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and (st := _stat(int(d.name))) is not None and st[0] != "Z":
            parents[int(d.name)] = int(st[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p and c not in found]
        found.update(kids)
        todo += kids
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (not gone, not zombies)."""
    return {p for p in pids if (st := _stat(p)) is not None and st[0] != "Z"}


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("workers", ["0", "2"])
def test_kill_9_midway_then_reimport(store_url: str, big_file: tuple[Path, Counter[str]],
                                     workers: str) -> None:
    """With workers, the workers write: killing the import kills them too (nothing is written
    after the kill, so the re-run meets no writer still at work)."""
    path, sizes = big_file
    with open_store(store_url):
        pass  # the schema exists before the importer starts
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "jaslog", "import", str(path), "--db", store_url,
                             "--batch", "3", "--workers", workers], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open_store(store_url) as s:
        deadline = time.monotonic() + 120
        while s.cursor() < 2000:  # some batches are in
            assert proc.poll() is None, "the import ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.02)
    workers_seen = descendants(proc.pid)
    assert len(workers_seen) >= int(workers), workers_seen
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while survivors := alive(workers_seen):
        assert time.monotonic() < deadline, f"workers outlived the import: {survivors}"
        time.sleep(0.05)
    with open_store(store_url) as s:
        at_kill = s.cursor()
        time.sleep(0.5)
        assert s.cursor() == at_kill, "something went on writing after the import was killed"
        rep = s.verify()
        assert rep.ok, rep.problems
        stored = {g.game: g.events for g in s.games()}
        assert 0 < len(stored) < GAMES, "killed midway"
        assert all(n == sizes[g] for g, n in stored.items()), "only whole games"
        summary = s.import_files([path])
        assert sorted(summary.already_present) == sorted(stored)
        assert summary.games == GAMES - len(stored) and not summary.rejected
        assert summary.events == sum(sizes.values()) - sum(stored.values())
        final = {g.game: g.events for g in s.games()}
        assert final == dict(sizes) and s.cursor() == sum(sizes.values())
        assert s.verify().ok
