"""A game is one folder: the toy game (``tests/games/toy/``), registered by this test, is parsed,
written as notation, read back and folded, with no file outside its folder naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[3]


def test_a_toy_game_registered_by_a_test_parses_writes_and_reads_back() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-m", "tests.games.toy.game"], cwd=ROOT, env=env,
                         capture_output=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr.decode()
    out = orjson.loads(run.stdout)
    assert out["unregistered"].startswith("unknown event type 'toy_swap'")
    assert out["canonical"] == out["lines"]  # stored byte for byte as written
    assert out["text"] == ('[Game "t1"]\n[Ruleset "toy"]\n[Seats "ann bob"]\n[Dealer "0"]\n\n'
                           "Swap 0 8H\n"
                           "Swap 1 10H                      @2026-12-06T01:00:00Z\n")
    assert out["read_errors"] == []
    assert out["read_back"] == out["canonical"]  # by its keyword and a player's name too
    assert out["logs"] == out["canonical"]
    assert out["state"] == {"hands": [["7H", "JH"], ["9H", "8H"]], "pot": "10H"}

