"""``python -m benchmarks.export_fetch --store S``: the ways the export can fetch the stored
events, timed side by side on one SQLite store (the bench's, after its import stage).

Each way reads the columns an export needs (the game's id, seq, the event's type code,
format version, id, times, seat, card and the rest) in the store's order, through one
cursor, and ends with them as Arrow columns (the floor keeps nothing: it is the cost of the
cursor alone, as the bench's ``read_write`` stage fetches):

* ``floor``: a bare ``sqlite3`` cursor, ``fetchmany`` and drop (the bench floor's fetch);
* ``sqlite3``: the same cursor, every row kept as a Python tuple, then a ``pyarrow`` array per
  column;
* ``adbc``: the ADBC SQLite driver (``adbc-driver-sqlite``), its Arrow record batches
  straight from SQLite's C API, no Python value per field;
* ``duckdb``: DuckDB's ``sqlite_scanner`` extension to Arrow.

A way whose package is not installed (ADBC) or whose extension cannot be loaded (DuckDB
downloads its scanner from its own site, which this machine cannot reach, and no wheel on
PyPI ships one for DuckDB 2) is reported as unavailable, with the reason. CPU seconds are the
figures to read on a shared machine; wall seconds are given beside them.
"""

from __future__ import annotations

import argparse
import gc
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

SQL = ("SELECT g.id, e.seq, e.kind, e.version, e.event_id, e.at, e.recorded_at, e.seat, "
       "e.card, e.rest FROM events e JOIN games g ON g.pos = e.game ORDER BY e.game, e.seq")
NAMES = ("game", "seq", "kind", "version", "event_id", "at", "recorded_at", "seat", "card",
         "rest")
TYPES = (pa.string(), pa.int32(), pa.int32(), pa.int32(), pa.binary(), pa.int64(), pa.int64(),
         pa.int32(), pa.int32(), pa.binary())


def fetch_floor(path: Path) -> int:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        cur = con.execute(SQL)
        n = 0
        while rows := cur.fetchmany(20_000):
            n += len(rows)
        return n
    finally:
        con.close()


def fetch_sqlite3(path: Path) -> pa.Table:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = con.execute(SQL).fetchall()
    finally:
        con.close()
    cols = list(zip(*rows, strict=True)) if rows else [() for _ in NAMES]
    del rows
    return pa.Table.from_arrays([pa.array(c, t) for c, t in zip(cols, TYPES, strict=True)],
                                names=list(NAMES))


def fetch_adbc(path: Path) -> pa.Table:
    import adbc_driver_sqlite.dbapi as adbc  # type: ignore[import-not-found,unused-ignore]

    with adbc.connect(str(path)) as con, con.cursor() as cur:
        cur.execute(SQL)
        return cur.fetch_arrow_table().rename_columns(list(NAMES))  # type: ignore[no-any-return]


def fetch_duckdb(path: Path) -> pa.Table:
    import duckdb

    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{path}' AS s (TYPE sqlite, READ_ONLY)")
        t = con.execute(SQL.replace("events", "s.events").replace("games", "s.games")
                        ).to_arrow_table()
        assert t is not None
        return t.rename_columns(list(NAMES))
    finally:
        con.close()


WAYS: dict[str, Callable[[Path], Any]] = {
    "floor": fetch_floor, "sqlite3": fetch_sqlite3, "adbc": fetch_adbc, "duckdb": fetch_duckdb}


def _rows(out: Any) -> int:
    return out if isinstance(out, int) else out.num_rows


def measure(path: Path, repeat: int = 3) -> dict[str, dict[str, Any]]:
    """Each way ``repeat`` times, interleaved: its best wall and CPU seconds and rows, or
    ``unavailable`` with the reason."""
    out: dict[str, dict[str, Any]] = {}
    for _ in range(repeat):
        for name, fn in WAYS.items():
            r = out.setdefault(name, {})
            if "unavailable" in r:
                continue
            gc.collect()
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                got = fn(path)
            except Exception as e:  # an unusable way is a figure too: said, not raised
                r["unavailable"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
                continue
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            r["rows"] = _rows(got)
            r["wall"] = min(r.get("wall", wall), wall)
            r["cpu"] = min(r.get("cpu", cpu), cpu)
            del got
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.export_fetch",
                                description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--store", type=Path, required=True, help="a SQLite store file")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    figures = measure(a.store, max(1, a.repeat))
    for name, r in figures.items():
        if "unavailable" in r:
            print(f"{name:8} unavailable: {r['unavailable']}")
        else:
            print(f"{name:8} {r['rows']:>10,} rows  CPU {r['cpu']:6.3f} s  wall {r['wall']:6.3f} s"
                  f"  {r['rows'] / r['cpu']:>12,.0f} rows/CPU-s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
