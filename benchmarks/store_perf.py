"""What the benchmark (``benchmarks.bench``) measures of the store, and its raw baseline.

* :func:`import_into_sqlite`: import ``jaslog/1`` lines into a fresh SQLite store, the full
  path (parse, fold through the rules, canonical bytes, hash chain, bulk insert);
* :func:`raw_sqlite_executemany`: the baseline, plain ``sqlite3`` ``executemany`` of the
  rows the store wrote (:func:`event_rows`) into the ``events`` table of a fresh store file;
* :func:`replay_store`: every game folded from the store (events/s of replay).

>>> import tempfile, os, orjson
>>> from jaslog.play.sim import simulate
>>> lines = [orjson.dumps(e) for e in simulate(2, seed=1)]
>>> d = tempfile.mkdtemp()
>>> s = import_into_sqlite(lines, os.path.join(d, "a.sqlite"))
>>> (s.games, s.events == len(lines))
(2, True)
>>> raw_sqlite_executemany(event_rows(os.path.join(d, "a.sqlite")), os.path.join(d, "b.sqlite")) >= 0
True
>>> replay_store(os.path.join(d, "a.sqlite")) == (2, len(lines))
True
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jaslog.engine.fold import FoldError
from jaslog.store.store import Store, open_store
from jaslog.store.types import ImportSummary


def _fresh(path: str | Path) -> str:
    p = str(path)
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(p + suffix):
            os.remove(p + suffix)
    return p


def import_into_sqlite(lines: Sequence[bytes], path: str | Path, batch_games: int = 500,
                       workers: int | None = None) -> ImportSummary:
    """Import ``lines`` into a fresh SQLite store at ``path`` (replaced if it exists).

    ``workers``: validating processes; None decides as ``jaslog import`` does for a file of
    that size (several above 16 MB on a machine with 2 or more CPUs), 0 for none.
    """
    if workers is None:
        from jaslog.store.parallel import auto_workers

        workers = auto_workers(sum(len(x) + 1 for x in lines))
    with open_store(_fresh(path)) as store:
        return store.import_lines(lines, batch_games=batch_games, workers=workers)


def event_rows(store_path: str | Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The columns and rows of the ``events`` table of the store at ``store_path``, as the
    store wrote them, for the raw baseline (which inserts them again)."""
    con = sqlite3.connect(str(store_path))
    try:
        cols = [r[1] for r in con.execute("PRAGMA table_info(events)")]
        return cols, con.execute(f"SELECT {', '.join(cols)} FROM events ORDER BY pos").fetchall()
    finally:
        con.close()


def raw_sqlite_executemany(rows: tuple[list[str], Sequence[tuple[Any, ...]]],
                           path: str | Path) -> float:
    """Seconds for plain ``sqlite3`` to ``executemany`` ``rows`` (the columns and rows
    :func:`event_rows` read) into the ``events`` table of a fresh store at ``path`` (same
    schema, indexes, triggers and pragmas), one transaction."""
    cols, values = rows
    open_store(_fresh(path)).close()  # the schema
    con = sqlite3.connect(str(path), isolation_level=None)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = NORMAL")
    con.execute("PRAGMA foreign_keys = OFF")
    sql = f"INSERT INTO events ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
    t = time.perf_counter()
    con.execute("BEGIN IMMEDIATE")
    con.executemany(sql, values)
    con.execute("COMMIT")
    dt = time.perf_counter() - t
    con.close()
    return dt


#: The tables of the log and its chain; every other table is a projection of it.
LOG_TABLES = ("events", "event_types", "games", "signatures", "signing_keys", "jaslog_meta")


def store_size(path: str | Path) -> dict[str, Any]:
    """An SQLite store's size per event after ``VACUUM`` (SQLite's ``dbstat``): the log and
    its chain (:data:`LOG_TABLES` with their indexes), the projections apart."""
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        copy = Path(d) / "vacuumed.sqlite"
        con = sqlite3.connect(str(path))
        try:
            con.execute("VACUUM INTO ?", (str(copy),))
        finally:
            con.close()
        con = sqlite3.connect(str(copy))
        try:
            owner = {r[0]: r[1] for r in con.execute("SELECT name, tbl_name FROM sqlite_master")}
            log = proj = 0
            for name, size in con.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
                table = owner.get(name, name)
                if table in LOG_TABLES:
                    log += size
                elif table != "sqlite_schema":
                    proj += size
            events = con.execute("SELECT count(*) FROM events").fetchone()[0]
            games = con.execute("SELECT count(*) FROM games").fetchone()[0]
        finally:
            con.close()
    return {"events": events, "games": games, "log_bytes": log, "projection_bytes": proj,
            "bytes_per_event": round(log / max(events, 1), 1),
            "projection_bytes_per_event": round(proj / max(events, 1), 1)}


def record_live(lines: Sequence[bytes], path: str | Path, games: int | None = None) -> int:
    """Record the games of ``lines`` (the first ``games`` of them) into a fresh store at
    ``path`` as a live recorder does: one append per round (a ``dealt`` begins one), the
    store's clock at the round's last ``at``, so every event gets its ``recorded_at`` and
    every round's end a signed head. The events appended."""
    import orjson

    from jaslog.store.clock import ManualClock, parse_stamp

    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    by_game: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        e = orjson.loads(line)
        if e["game"] not in by_game and games is not None and len(by_game) >= games:
            continue
        by_game.setdefault(e["game"], []).append(e)
    clock = ManualClock()
    n = 0
    with open_store(str(path), clock=clock) as store:
        for game, evs in by_game.items():
            rounds: list[list[dict[str, Any]]] = []
            for e in evs:
                if not rounds or e["type"] == "dealt":
                    rounds.append([])
                rounds[-1].append(e)
            for batch in rounds:
                last_at = next((e["at"] for e in reversed(batch) if e.get("at")), None)
                if last_at is not None:
                    clock.now = parse_stamp(last_at)
                n += store.append(game, batch, expected_seq=batch[0]["seq"]).appended
    return n


def replay_store(store: Store | str | Path) -> tuple[int, int]:
    """Fold every game of the store through the rules as ``jaslog check store:`` does
    (:meth:`jaslog.store.Store.fold_games`: on SQLite, plain plays read as columns and
    handed to the fold as ints): (games, events). A game the rules refuse raises its error.
    The events are counted by the fold's next seq, not its log: ``check`` reads no log (but
    of a game with a computer deal), so the log's plays stay as the fold keeps them."""
    own = not isinstance(store, Store)
    s = open_store(str(store)) if not isinstance(store, Store) else store
    games = events = 0
    try:
        for _gid, folded in s.fold_games():
            if isinstance(folded, FoldError):
                raise folded
            games += 1
            events += folded.next_seq
    finally:
        if own:
            s.close()
    return games, events


def measure(lines: Sequence[bytes], workdir: str | Path,
            workers: int | None = None) -> dict[str, float]:
    """Import, raw baseline and replay on ``lines`` in ``workdir``: events/s and the ratio."""
    wd = Path(workdir)
    n = len(lines)
    t = time.perf_counter()
    summary = import_into_sqlite(lines, wd / "import.sqlite", workers=workers)
    t_import = time.perf_counter() - t
    t_raw = raw_sqlite_executemany(event_rows(wd / "import.sqlite"), wd / "raw.sqlite")
    t = time.perf_counter()
    _, replayed = replay_store(wd / "import.sqlite")
    t_replay = time.perf_counter() - t
    return {"events": n, "stored": summary.events, "import_events_per_s": n / t_import,
            "raw_executemany_events_per_s": n / t_raw, "ratio": t_raw / t_import,
            "replay_events_per_s": replayed / t_replay}


if __name__ == "__main__":  # a quick look: python -m benchmarks.store_perf [GAMES [WORKERS]]
    import sys
    import tempfile

    import orjson

    from jaslog.play.sim import simulate

    n_games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    n_workers = int(sys.argv[2]) if len(sys.argv) > 2 else None
    data = [orjson.dumps(e) for e in simulate(n_games, seed=1)]
    with tempfile.TemporaryDirectory() as d:
        for k, v in measure(data, d, n_workers).items():
            print(f"{k:32} {v:,.2f}")
