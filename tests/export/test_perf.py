"""The functions the benchmark calls give the same answers both ways (nothing is timed here)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from benchmarks import export_perf as perf
from jaslog.events import Event
from jaslog.store import open_store


def test_bench_functions_agree(tmp_path: Path, corpus: list[list[Event]]) -> None:
    games = corpus[:6]
    res = perf.export(games, tmp_path / "ds")
    tables = perf.arrow_tables(tmp_path / "ds")
    rows = perf.write_arrow(tables, tmp_path / "raw")
    assert rows == sum(res.rows_total.values()) > 6 * 1000
    assert pq.read_table(tmp_path / "raw" / "plays.parquet").num_rows == res.rows_total["plays"]
    with open_store(str(tmp_path / "s.sqlite")) as store:
        for g in games:
            store.append(g[0].game, [e.model_dump(exclude_none=True) for e in g])
        from_store = perf.stats_query_from_store(store)
    from_parquet = perf.stats_query(tmp_path / "ds")
    assert len(from_parquet) == 4
    assert [r[:5] for r in from_parquet] == [r[:5] for r in from_store]
