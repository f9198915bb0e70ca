"""The Parquet export: game logs as a columnar dataset that DuckDB, Spark or Polars can query.

* :func:`export_games` is the core: games (each a list of its events) in, a Hive-partitioned
  Parquet snapshot out, written beside the previous one and swapped in atomically.
* :func:`export_store` feeds it from an event store, incrementally (the store's cursor).
* :func:`export_files` feeds it from ``jaslog/1`` log files.
* :func:`verify_dataset` rechecks a snapshot against its manifest (sizes, SHA-256, rows).

The tables and their columns are in :mod:`jaslog.export.schema`; the rows are built from
folded states in :mod:`jaslog.export.rows` (each game's rows by its ``export`` adapter).
"""

from __future__ import annotations

from jaslog.export.dataset import (
    DEFAULT_CHUNK,
    ExportResult,
    export_games,
    usable_previous,
)
from jaslog.export.rows import build_game
from jaslog.export.schema import SCHEMAS, TABLES, arrow_schema_docs
from jaslog.export.snapshots import ExportError, load_manifest, snapshot_dir, verify_dataset
from jaslog.export.sources import (
    export_files,
    export_store,
    read_log_games,
    store_source,
    store_status,
    stream_log_games,
)

__all__ = [
    "DEFAULT_CHUNK",
    "SCHEMAS",
    "TABLES",
    "ExportError",
    "ExportResult",
    "arrow_schema_docs",
    "build_game",
    "export_files",
    "export_games",
    "export_store",
    "load_manifest",
    "read_log_games",
    "snapshot_dir",
    "store_source",
    "store_status",
    "stream_log_games",
    "usable_previous",
    "verify_dataset",
]
