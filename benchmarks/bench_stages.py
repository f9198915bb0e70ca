"""The stages :mod:`benchmarks.bench` measures, and their baselines, on one workload folder.

Each stage runs in a fresh process (``python -m benchmarks.bench --stage NAME --work DIR``), so
its peak memory is its own and one stage's garbage cannot slow the next. Inputs a stage needs
(rows to insert, tables to write) are prepared before the clock starts; the clock covers
only the work being compared.

Objects that exist when the clock starts (the inputs) are frozen out of the garbage
collector's sight (``gc.freeze``), so a stage pays for collecting its own garbage, not for
scanning a million prepared input objects again and again.

Peak memory is the growth of the process's resident set during the timed work: the kernel's
high-water mark (``VmHWM``) is reset just before it (``/proc/self/clear_refs``) and read
after. Where that is not possible, the process's lifetime peak (``ru_maxrss``) is reported.
"""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

#: Tables of the store that an import writes (append-only; the raw baseline copies them).
STORE_TABLES = ("games", "game_players", "events")
#: Games the import stage also records live, round by round, to measure that store's size.
LIVE_GAMES = 100


class Unavailable(Exception):
    """The module a stage measures is not there (yet): the stage is reported, not failed."""


@dataclass(frozen=True)
class Work:
    """The files of a benchmark run."""

    dir: Path

    @property
    def log(self) -> Path:
        return self.dir / "events.jsonl"

    @property
    def store(self) -> Path:
        return self.dir / "store.sqlite"

    @property
    def raw(self) -> Path:
        return self.dir / "raw.sqlite"

    @property
    def es(self) -> Path:
        return self.dir / "eventsourcing.sqlite"

    @property
    def parquet(self) -> Path:
        return self.dir / "parquet"

    @property
    def raw_parquet(self) -> Path:
        return self.dir / "raw-parquet"


@dataclass
class Measure:
    """One timed run: how many units in how many seconds, and the memory it took."""

    count: int
    seconds: float
    unit: str = "events"
    peak_mib: float | None = None
    peak_kind: str = "growth"
    #: the largest peak resident set of a worker process the stage started (None: none)
    worker_peak_mib: float | None = None
    note: str = ""
    answer: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.count / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["rate"] = round(self.rate, 1)
        d["seconds"] = round(self.seconds, 4)
        return d


# ------------------------------------------------------------------ measuring


def _status(key: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class Meter:
    """Times a block and measures how far the resident set grew during it."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.peak_mib: float | None = None
        self.worker_peak_mib: float | None = None
        self.kind = "growth"

    def __enter__(self) -> Meter:
        import gc

        gc.collect()
        gc.freeze()  # the inputs prepared before the clock are not the collector's work
        self._exact = _reset_peak()
        self._base = _status("VmRSS:") or 0
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        import gc

        self.seconds = time.perf_counter() - self._t0
        gc.unfreeze()
        hwm = _status("VmHWM:") if self._exact else None
        if hwm is not None:
            self.peak_mib = max(0, hwm - self._base) / 2**20
        else:
            self.kind = "process"
            self.peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if children:  # worker processes (the stage runs in a fresh process: they are its own)
            self.worker_peak_mib = children / 1024

    def measure(self, count: int, unit: str = "events", **kw: Any) -> Measure:
        return Measure(count, self.seconds, unit, self.peak_mib, self.kind,
                       self.worker_peak_mib, **kw)


STAGES: dict[str, Callable[[Work], Measure]] = {}


def stage(name: str) -> Callable[[Callable[[Work], Measure]], Callable[[Work], Measure]]:
    def deco(fn: Callable[[Work], Measure]) -> Callable[[Work], Measure]:
        STAGES[name] = fn
        return fn
    return deco


def need(module: str) -> Any:
    """Import ``module`` or mark the stage unavailable."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise Unavailable(f"{module} is not available ({e})") from None


# ------------------------------------------------------------------ parse


@stage("parse")
def parse(w: Work) -> Measure:
    from jaslog.events import parse_event

    n = 0
    with open(w.log, "rb") as f, Meter() as m:
        for line in f:
            parse_event(line)
            n += 1
    return m.measure(n, note="jaslog/1 models (pydantic) from the file")


@stage("json")
def json_baseline(w: Work) -> Measure:
    loads = json.loads
    n = 0
    with open(w.log, "rb") as f, Meter() as m:
        for line in f:
            loads(line)
            n += 1
    return m.measure(n, note="stdlib json.loads per line")


@stage("orjson")
def orjson_baseline(w: Work) -> Measure:
    loads = orjson.loads
    n = 0
    with open(w.log, "rb") as f, Meter() as m:
        for line in f:
            loads(line)
            n += 1
    return m.measure(n, note="orjson.loads per line")


# ------------------------------------------------------------------ check / fold


@stage("check")
def check(w: Work) -> Measure:
    """What ``jaslog check --json`` does, without printing: parse, fold, audit every game."""
    import contextlib

    from jaslog.logs import LogFiles
    from jaslog.play.audit import game_report
    from jaslog.play.fold import FileGame
    from jaslog.play.logfold import fold_log

    n = games = 0
    with Meter() as m, contextlib.ExitStack() as stack:
        log = LogFiles([w.log], stack)  # two passes, each game at its last line
        # each line straight into its game's fold, as `jaslog check` reads them
        for g in fold_log(log):
            if isinstance(g, FileGame):
                rep = game_report(g.game, g.fold, g.error)
                if rep["error"]:
                    raise RuntimeError(f"the workload does not fold: {rep['error']}")
                games += 1
                n += len(g.lines)
    return m.measure(n, note=f"parse + fold + audit of {games} games")


@stage("fold_pure")
@stage("fold")
def fold_only(w: Work) -> Measure:
    """The fold alone: each game's events are parsed (off the clock), then folded (on it), game
    by game, as a streaming reader meets them (``fold_pure``: in a process with
    ``JASLOG_PURE=1``, on the hot path's pure-Python modules)."""
    from jaslog.events import parse_event
    from jaslog.play.fold import start_fold

    n = 0
    seconds = 0.0
    clock = time.perf_counter

    def fold_game(events: list[Any]) -> float:
        t0 = clock()
        f = start_fold(events[0])
        for e in events[1:]:
            f.apply(e)
        return clock() - t0

    with open(w.log, "rb") as src, Meter() as m:
        game: list[Any] = []
        for line in src:
            e = parse_event(line)
            if e.seq == 0 and game:
                seconds += fold_game(game)
                n += len(game)
                game = []
            game.append(e)
        if game:
            seconds += fold_game(game)
            n += len(game)
    m.seconds = seconds
    return m.measure(n, note="rules fold of parsed events, game by game (parsing off the clock)")


# ------------------------------------------------------------------ the store


def _fresh(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        p = Path(str(path) + suffix)
        if p.exists():
            p.unlink()


def _lines(w: Work) -> list[bytes]:
    with open(w.log, "rb") as f:
        return f.read().splitlines()


@stage("import")
def import_(w: Work) -> Measure:
    """``benchmarks.store_perf.import_into_sqlite``: ``Store.import_lines`` into a fresh SQLite file
    (parse, fold through the rules, canonical bytes, hash chain, bulk insert)."""
    perf = need("benchmarks.store_perf")
    lines = _lines(w)
    with Meter() as m:
        summary = perf.import_into_sqlite(lines, w.store)
    if summary.rejected:
        raise RuntimeError(f"the store rejected {len(summary.rejected)} games: "
                           f"{summary.rejected[0]}")
    # the store's size (not timed): the log and its chain, the projections beside; and the
    # same for a part of the games recorded live (recorded_at, a signed head every round)
    size = perf.store_size(w.store)
    live_path = w.dir / "live.sqlite"
    perf.record_live(lines, live_path, games=LIVE_GAMES)
    live = perf.store_size(live_path)
    _fresh(live_path)
    return m.measure(summary.events, note=f"Store.import_lines: {summary.games} games, "
                                          "validated, hash-chained",
                     extra={"store_bytes_per_event": size["bytes_per_event"],
                            "store_projection_bytes_per_event": size["projection_bytes_per_event"],
                            "store_bytes_per_event_live": live["bytes_per_event"],
                            "store_projection_bytes_per_event_live":
                                live["projection_bytes_per_event"],
                            "store_live_games": live["games"]})


@stage("executemany")
def executemany(w: Work) -> Measure:
    """The rows the store wrote, inserted again with plain sqlite3 into the same schema."""
    store_mod = need("jaslog.store")
    if not w.store.exists():
        raise Unavailable("needs the import stage's store")
    src = sqlite3.connect(w.store)
    tables: dict[str, tuple[list[str], list[tuple[Any, ...]]]] = {}
    for t in STORE_TABLES:
        cols = [r[1] for r in src.execute(f"PRAGMA table_info({t})")]
        rows = src.execute(f"SELECT {', '.join(cols)} FROM {t}").fetchall()
        tables[t] = (cols, rows)
    src.close()
    _fresh(w.raw)
    store_mod.open_store(str(w.raw)).close()  # the same tables, indexes and triggers
    con = sqlite3.connect(w.raw, isolation_level=None)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = NORMAL")
    with Meter() as m:
        con.execute("BEGIN IMMEDIATE")
        for t, (cols, rows) in tables.items():
            marks = ", ".join("?" * len(cols))
            con.executemany(f"INSERT INTO {t} ({', '.join(cols)}) VALUES ({marks})", rows)
        con.execute("COMMIT")
    con.close()
    return m.measure(len(tables["events"][1]), note="sqlite3 executemany of the store's rows, "
                                                    "one transaction")


@stage("replay")
def replay(w: Work) -> Measure:
    """``benchmarks.store_perf.replay_store``: every game read back and folded through the rules."""
    perf = need("benchmarks.store_perf")
    if not w.store.exists():
        raise Unavailable("needs the import stage's store")
    with Meter() as m:
        games, n = perf.replay_store(w.store)
    return m.measure(n, note=f"Store.fold_games of {games} games")


# ------------------------------------------------------------------ the eventsourcing library


@stage("es_store")
def es_store(w: Work) -> Measure:
    es = need("benchmarks.bench_es")
    _fresh(w.es)
    app = es.open_app(w.es)
    n = games = 0
    with Meter() as m:
        for events in es.games_of(w.log):
            app.record(events)
            n += len(events)
            games += 1
    app.close()
    return m.measure(n, note=f"Application.save of one aggregate per game ({games} games)")


@stage("es_replay")
def es_replay(w: Work) -> Measure:
    es = need("benchmarks.bench_es")
    if not w.es.exists():
        raise Unavailable("needs the es_store stage's database")
    ids = es.aggregate_ids(w.log)
    app = es.open_app(w.es)
    n = 0
    with Meter() as m:
        for i in ids:
            n += app.replay(i)
    app.close()
    return m.measure(n, note=f"repository.get of {len(ids)} aggregates")


# ------------------------------------------------------------------ export


@stage("export")
def export(w: Work) -> Measure:
    exp = need("jaslog.export")
    store_mod = need("jaslog.store")
    if not w.store.exists():
        raise Unavailable("needs the import stage's store")
    import shutil

    shutil.rmtree(w.parquet, ignore_errors=True)
    with store_mod.open_store(str(w.store)) as store, Meter() as m:
        result = exp.export_store(store, w.parquet)
    rows = sum(result.rows_total.values())
    return m.measure(rows, "rows", note="export_store: " + ", ".join(
        f"{t} {n:,}" for t, n in result.rows_total.items()), extra={"tables": result.rows_total})


def _snapshot_tables(w: Work) -> dict[str, Any]:
    eperf = need("benchmarks.export_perf")
    if not (w.parquet / "current").exists():
        raise Unavailable("needs the export stage's dataset")
    return dict(eperf.arrow_tables(w.parquet))


@stage("write_table")
def write_table(w: Work) -> Measure:
    """``benchmarks.export_perf.write_arrow``: the export's own tables, already in memory, written
    with ``pyarrow.parquet.write_table`` (same codec and dictionary columns)."""
    eperf = need("benchmarks.export_perf")
    tables = _snapshot_tables(w)
    with Meter() as m:
        rows = eperf.write_arrow(tables, w.raw_parquet)
    return m.measure(rows, "rows", note=f"pyarrow write_table of the same {len(tables)} tables, "
                                        "in memory")


@stage("read_write")
def read_write(w: Work) -> Measure:
    """The floor under any export from the store: what it must do whatever it does in between.
    The stored events fetched by a bare ``sqlite3`` cursor in key order (game, seq: the order
    the export reads them in, and the table's own, the quickest; not decoded, not folded),
    then the finished tables written as the ``write_table`` stage writes them. Its rate is the
    dataset's rows over both times together."""
    import sqlite3

    eperf = need("benchmarks.export_perf")
    if not w.store.exists():
        raise Unavailable("needs the import stage's store")
    tables = _snapshot_tables(w)
    events = 0
    with Meter() as m:
        con = sqlite3.connect(w.store)
        try:
            cur = con.execute("SELECT game, seq, kind, version, event_id, at, recorded_at, seat, "
                              "card, rest FROM events ORDER BY game, seq")
            while batch := cur.fetchmany(20_000):
                events += len(batch)
        finally:
            con.close()
        rows = eperf.write_arrow(tables, w.raw_parquet)
    return m.measure(rows, "rows", note=f"sqlite3 fetch of the {events:,} stored events (no "
                                        f"decoding) + write_table of the same {len(tables)} tables")


@stage("write_rows")
def write_rows(w: Work) -> Measure:
    """The same tables from Python rows (what a program holding its rows would do):
    ``Table.from_pylist`` with the export's schema, then ``write_table``."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = [(name, t.schema, t.to_pylist()) for name, t in _snapshot_tables(w).items()]
    shutil.rmtree(w.raw_parquet, ignore_errors=True)
    w.raw_parquet.mkdir(parents=True)
    rows = sum(len(r) for _, _, r in tables)
    with Meter() as m:
        for name, schema, pyrows in tables:
            pq.write_table(pa.Table.from_pylist(pyrows, schema=schema),
                           w.raw_parquet / f"{name}.parquet", compression="zstd")
    return m.measure(rows, "rows", note="pyarrow Table.from_pylist + write_table of the same rows")


# ------------------------------------------------------------------ a stats question

#: The question both sides answer: how often is each suit chosen as trumps, per ruleset?
TRUMP_SQL_PARQUET = ("SELECT ruleset, trump, count(*) AS rounds FROM rounds "
                     "WHERE trump IS NOT NULL GROUP BY ALL ORDER BY 1, 2")
#: (A bid's row keeps its ``call``, its one field without a column, first in ``rest``.)
TRUMP_SQL_SQLITE = """
SELECT g.ruleset, json_extract(CAST(e.rest AS TEXT), '$[0]') AS trump, count(*) AS rounds
FROM events e JOIN games g ON g.pos = e.game JOIN event_types t ON t.code = e.kind
WHERE t.name = 'bid' AND json_extract(CAST(e.rest AS TEXT), '$[0]') IN ('C', 'D', 'H', 'S')
GROUP BY 1, 2 ORDER BY 1, 2
"""


def _events_in(w: Work) -> int:
    with open(w.log, "rb") as f:
        return sum(1 for _ in f)


@stage("query")
def query(w: Work) -> Measure:
    an = need("jaslog.stats.analytics")
    if not (w.parquet / "current").exists():
        raise Unavailable("needs the export stage's dataset")
    n = _events_in(w)
    with Meter() as m, an.Dataset(w.parquet) as ds:
        res = ds.query(TRUMP_SQL_PARQUET)
    rows = [list(r) for r in res.rows]
    return m.measure(n, note="trump suits per ruleset: DuckDB over the Parquet dataset "
                             "(jaslog.stats.analytics, views opened in the timing)", answer=rows)


@stage("question")
def question(w: Work) -> Measure:
    """``benchmarks.export_perf.stats_query``: `jaslog stats declarer_success --by trump` over
    the Parquet dataset."""
    eperf = need("benchmarks.export_perf")
    if not (w.parquet / "current").exists():
        raise Unavailable("needs the export stage's dataset")
    n = _events_in(w)
    with Meter() as m:
        rows = eperf.stats_query(w.parquet)
    return m.measure(n, note="declarer success by trump, DuckDB over Parquet",
                     answer=[list(r) for r in rows])


@stage("store_question")
def store_question(w: Work) -> Measure:
    """``benchmarks.export_perf.stats_query_from_store``: the same answer from the store, every
    game read and folded (the store keeps events, not rounds: SQL alone cannot score them)."""
    eperf = need("benchmarks.export_perf")
    store_mod = need("jaslog.store")
    if not w.store.exists():
        raise Unavailable("needs the import stage's store")
    n = _events_in(w)
    with store_mod.open_store(str(w.store)) as store, Meter() as m:
        rows = eperf.stats_query_from_store(store)
    return m.measure(n, note="declarer success by trump, folding the stored games",
                     answer=[list(r) for r in rows])


@stage("sqlite_sql")
def sqlite_sql(w: Work) -> Measure:
    if not w.store.exists():
        raise Unavailable("needs the import stage's store")
    n = _events_in(w)
    with Meter() as m:
        con = sqlite3.connect(f"file:{w.store}?mode=ro", uri=True)
        rows = [list(r) for r in con.execute(TRUMP_SQL_SQLITE)]
        con.close()
    return m.measure(n, note="the same question in SQL over the store's events (json_extract)",
                     answer=rows)


# ------------------------------------------------------------------ scale


def games_of_log(path: Path, copies: int = 1) -> Iterator[list[Any]]:
    """The games of a log (each game's lines together, as the workload writes them), parsed;
    ``copies`` > 1 repeats the log under new game ids (``...-cN``) to make a larger dataset."""
    from jaslog.events import parse_event

    for k in range(copies):
        tag = b"" if k == 0 else b"-c%d" % k
        current: list[Any] = []
        with open(path, "rb") as f:
            for line in f:
                if tag:
                    end = line.index(b'"', 9)  # {"game":"<id>" is the canonical start
                    line = line[:end] + tag + line[end:]
                e = parse_event(line)
                if e.seq == 0 and current:
                    yield current
                    current = []
                current.append(e)
        if current:
            yield current


def scale_export(w: Work, copies: int) -> Measure:
    """Export ``copies`` times the workload (from the log: parse + fold + write)."""
    import shutil

    exp = need("jaslog.export")
    out = w.dir / f"scale-parquet-x{copies}"
    shutil.rmtree(out, ignore_errors=True)
    with Meter() as m:
        result = exp.export_games(games_of_log(w.log, copies), out, source="bench")
    rows = sum(result.rows_total.values())
    return m.measure(rows, "rows", note=f"{result.games_added:,} games",
                     extra={"games": result.games_added, "tables": result.rows_total,
                            "dir": str(out)})


def scale_query(w: Work, copies: int) -> Measure:
    an = need("jaslog.stats.analytics")
    out = w.dir / f"scale-parquet-x{copies}"
    with Meter() as m:
        res = an.run_question(out, "declarer_success", by="trump")
    return m.measure(len(res.rows), "rows", note="declarer_success --by trump")


def run_stage(name: str, work: Path) -> dict[str, Any]:
    """Run one stage in this process; a JSON-able result (or why it is not available)."""
    w = Work(Path(work))
    try:
        if name.startswith("scale_export:"):
            m = scale_export(w, int(name.split(":")[1]))
        elif name.startswith("scale_query:"):
            m = scale_query(w, int(name.split(":")[1]))
        else:
            m = STAGES[name](w)
    except Unavailable as e:
        return {"stage": name, "unavailable": str(e)}
    return {"stage": name, **m.to_json()}


def main_stage(name: str, work: str) -> None:
    os.environ.setdefault("PYTHONHASHSEED", "0")
    print(json.dumps(run_stage(name, Path(work)), default=str), flush=True)
