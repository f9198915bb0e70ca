"""``python -m benchmarks.export_fetch``: each way of fetching the stored events reads every
event of a real SQLite store in the store's order, or says why it cannot run. Timings are
never asserted (speed is the benchmark's business, not a test's)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pyarrow as pa
import pytest

from benchmarks.export_fetch import NAMES, fetch_floor, fetch_sqlite3, main, measure
from jaslog.play.sim import simulate_game
from jaslog.store import open_store

#: A benchmark's smoke test (it tries DuckDB's SQLite scanner, which DuckDB would download):
#: in `make soak`.
pytestmark = pytest.mark.soak


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    path = tmp_path_factory.mktemp("fetch") / "store.sqlite"
    lines = [orjson.dumps(e) + b"\n" for g in range(3)
             for e in simulate_game(f"fetch-{g}", "amsterdam", seed=g)]
    with open_store(str(path)) as s:
        s.import_lines(lines, source="fetch")
    return path, len(lines)


def test_every_way_reads_every_event_in_the_stores_order(store: tuple[Path, int]) -> None:
    path, events = store
    assert fetch_floor(path) == events
    t = fetch_sqlite3(path)
    assert t.column_names == list(NAMES) and t.num_rows == events
    games = t.column("game").to_pylist()
    seqs = t.column("seq").to_pylist()
    assert sorted(set(games)) == [f"fetch-{g}" for g in range(3)]
    for g in set(games):  # each game's events together, seq 0, 1, 2...
        mine = [s for x, s in zip(games, seqs, strict=True) if x == g]
        assert mine == list(range(len(mine)))
    figures = measure(path, repeat=1)
    assert set(figures) == {"floor", "sqlite3", "adbc", "duckdb"}
    for name, r in figures.items():
        if "unavailable" in r:
            assert name in ("adbc", "duckdb") and r["unavailable"]
        else:
            assert r["rows"] == events and r["cpu"] >= 0 and r["wall"] > 0


def test_the_ways_agree_value_for_value(store: tuple[Path, int]) -> None:
    path, _ = store
    rows = fetch_sqlite3(path)
    try:
        import adbc_driver_sqlite  # noqa: F401
    except ImportError:
        pytest.skip("adbc-driver-sqlite is not installed")
    from benchmarks.export_fetch import fetch_adbc

    other = fetch_adbc(path)
    for name in NAMES:  # (ADBC types a column by its first values: all NULL, int64)
        assert other.column(name).to_pylist() == rows.column(name).to_pylist(), name
    assert isinstance(other, pa.Table)


def test_the_command_prints_each_way(store: tuple[Path, int],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path, events = store
    assert main(["--store", str(path), "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert f"floor    {events:>10,} rows" in out
    assert all(f"\n{name}" in "\n" + out for name in ("floor", "sqlite3", "adbc", "duckdb"))
