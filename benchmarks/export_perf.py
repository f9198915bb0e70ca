"""What the benchmark (``benchmarks.bench``) calls to measure the export and the statistics.

Nothing here times anything: the benchmark times these calls, all in one run.

* :func:`export` - export given games into a fresh dataset (the export under test);
* :func:`arrow_tables` and :func:`write_arrow` - the baseline: the same rows as Arrow tables,
  written with ``pyarrow.parquet.write_table`` directly (no folding, no row building);
* :func:`stats_query` - a typical question over the Parquet dataset (DuckDB);
* :func:`stats_query_from_store` - the same question asked of the event store: every game
  read back and folded, the rounds counted in Python (the store keeps events, not rounds).
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from jaslog.events import Event
from jaslog.export.dataset import ExportResult, export_games
from jaslog.export.schema import DICTIONARY_COLUMNS, TABLES
from jaslog.export.snapshots import load_manifest

if TYPE_CHECKING:
    from jaslog.store import Store

#: The typical question: declarer success by trump suit.
QUESTION, BY = "declarer_success", "trump"


def export(games: Iterable[Sequence[Event]], out_dir: str | Path) -> ExportResult:
    """Export ``games`` into ``out_dir`` from scratch; ``sum(result.rows_total.values())``
    is the number of rows written."""
    shutil.rmtree(out_dir, ignore_errors=True)
    return export_games(games, out_dir, full=True)


def arrow_tables(out_dir: str | Path) -> dict[str, pa.Table]:
    """Every table of an export as one in-memory Arrow table (partition columns excluded)."""
    loaded = load_manifest(out_dir)
    if loaded is None:
        raise FileNotFoundError(f"{out_dir}: no export")
    snap, man = loaded
    out = {}
    for t in TABLES:
        parts = [pq.read_table(snap / f["path"]) for f in man["files"] if f["table"] == t]
        if parts:
            out[t] = pa.concat_tables(parts)
    return out


def write_arrow(tables: dict[str, pa.Table], out_dir: str | Path) -> int:
    """The baseline: write the tables with pyarrow directly, same codec and dictionary columns.
    Returns the rows written."""
    out = Path(out_dir)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    rows = 0
    for name, t in tables.items():
        pq.write_table(t, out / f"{name}.parquet", compression="zstd",
                       use_dictionary=DICTIONARY_COLUMNS[name] or False)
        rows += t.num_rows
    return rows


def stats_query(out_dir: str | Path) -> list[tuple[Any, ...]]:
    """Declarer success by trump suit over the Parquet dataset: (trump, rounds, made, nat,
    pit, made_rate) rows."""
    from jaslog.stats.analytics import run_question

    return run_question(out_dir, QUESTION, by=BY).rows


def stats_query_from_store(store: Store) -> list[tuple[Any, ...]]:
    """The same answer from the store: read every game, fold it, count its rounds."""
    from jaslog.play.fold import fold

    names = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
    count: Counter[tuple[str, str]] = Counter()
    for _gid, events in store.iter_games():
        f = fold(events)
        if f.game != "klaverjas":
            continue
        for r, o in zip(f.state.rounds, f.state.outcomes(), strict=True):
            if o.result in ("made", "nat", "pit"):
                count[("CDHS"[r.trump], o.result)] += 1
    rows = []
    for s in sorted({k[0] for k in count}, key=lambda s: names[s]):
        made, nat, pit = count[(s, "made")], count[(s, "nat")], count[(s, "pit")]
        n = made + nat + pit
        rows.append((names[s], n, made + pit, nat, pit, (made + pit) / n))
    return rows
