"""The in-process benchmark of an append's parts (``benchmarks.app_cpu``) on a real SQLite
file: the service writes the appends it times, the service's app with its writer answering
at once writes none of them, and the floor answers them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.app_cpu import measure
from jaslog.store import open_store


@pytest.mark.parametrize("part, written", [("service", 12), ("service-app", 0)])
def test_app_cpu_writes_the_timed_appends_only_through_the_writer(
        tmp_path: Path, part: str, written: int) -> None:
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    got = measure(part, url, games=4, appends=12, clients=2)
    assert got["part"] == part and got["appends"] == 12 and got["errors"] == 0
    assert got["cpu_ms_per_append"] > 0
    with open_store(url) as s:
        heads = [s.head(f"load-{i:05d}").next_seq for i in range(4)]
    # each game begun (game_started) and its first append not timed: 2 events each
    assert sum(heads) == 4 * 2 + written


def test_app_cpu_drives_the_floor() -> None:
    got = measure("floor", games=2, appends=6, clients=2)
    assert got == {"part": "floor", "appends": 6, "errors": 0,
                   "cpu_ms_per_append": got["cpu_ms_per_append"]}
    assert got["cpu_ms_per_append"] > 0


def test_app_cpu_refuses_a_part_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="one of floor, service-app, service"):
        measure("writer")
