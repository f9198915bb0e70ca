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

from jaslog.sim import simulate
from jaslog.store import open_store

ROOT = Path(__file__).resolve().parents[2]
GAMES = 50


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Counter[str]]:
    path = tmp_path_factory.mktemp("crash") / "big.jsonl"
    sizes: Counter[str] = Counter()
    with open(path, "wb") as f:
        for e in simulate(GAMES, seed=11):
            sizes[e["game"]] += 1
            f.write(orjson.dumps(e) + b"\n")
    return path, sizes


def test_kill_9_midway_then_reimport(store_url: str, big_file: tuple[Path, Counter[str]]) -> None:
    path, sizes = big_file
    with open_store(store_url):
        pass  # the schema exists before the importer starts
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "jaslog", "import", str(path), "--db", store_url,
                             "--batch", "3"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    with open_store(store_url) as s:
        deadline = time.monotonic() + 120
        while s.cursor() < 2000:  # some batches are in
            assert proc.poll() is None, "the import ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    with open_store(store_url) as s:
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
