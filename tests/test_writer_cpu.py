"""The writer's CPU benchmark (``benchmarks.writer_cpu``) on a real SQLite file: the appends
it times are written, in groups of the size asked, and it says so in its figures."""

from __future__ import annotations

from pathlib import Path

from benchmarks.writer_cpu import measure
from jaslog.store import open_store


def test_writer_cpu_writes_its_appends_in_groups_of_the_size_asked(tmp_path: Path) -> None:
    url = str(tmp_path / "w.sqlite")
    got = measure(url, 3, 12)
    assert got["group"] == 3 and got["appends"] == 12
    assert got["cpu_ms_per_append"] > 0
    assert abs(got["cpu_ms_per_group"] - 3 * got["cpu_ms_per_append"]) < 0.01
    with open_store(url) as s:
        heads = [s.head(f"wcpu3-{i:04d}").next_seq for i in range(18)]
    # 18 games begun (one event each), the 12 appends one event each: four groups of three
    assert sum(heads) == 18 + 12 and max(heads) == 2
