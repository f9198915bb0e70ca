"""The dataset on disk: incremental exports, replaced games, atomic swap, manifest checksums,
chunking, bounded memory, locking, and exporting from a real SQLite store."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow.parquet as pq
import pytest

from jaslog.events import Event
from jaslog.export import (
    TABLES,
    ExportError,
    dataset,
    export_files,
    export_games,
    export_store,
    load_manifest,
    read_log_games,
    stream_log_games,
    verify_dataset,
)
from jaslog.export.schema import DERIVED_TABLES
from jaslog.export.sources import store_status
from jaslog.play.sim import simulate_game
from jaslog.stats.analytics import Dataset
from jaslog.store import open_store
from tests.conftest import ROOT
from tests.export.conftest import FAULTS, iter_games, to_events

ORDER = {"events": "game, seq", "plays": "game, seq", "tricks": "game, round, trick",
         "rounds": "game, round", "games": "game", "players": "game, seat",
         "violations": "game, seq, rule", "ratings": "kind, player, games"}


def content(out: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the current snapshot, read as one dataset by DuckDB, in a fixed order."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    out_tables: dict[str, list[tuple[Any, ...]]] = {}
    for t in TABLES:
        files = list((out / "current" / t).rglob("*.parquet"))
        if not files:
            out_tables[t] = []
            continue
        out_tables[t] = con.execute(
            f"SELECT * FROM read_parquet('{out}/current/{t}/**/*.parquet', hive_partitioning = true)"
            f" ORDER BY {ORDER[t]}").fetchall()
    return out_tables


def files_of(out: Path) -> dict[str, dict[str, Any]]:
    loaded = load_manifest(out)
    assert loaded is not None
    return {f["path"]: f for f in loaded[1]["files"]}


def row_groups(out: Path) -> int:
    return sum(pq.ParquetFile(out / "current" / p).num_row_groups for p in files_of(out))


def current(out: Path) -> Path:
    return (out / "current").resolve()


@pytest.fixture(scope="module")
def corpus_rows(tmp_path_factory: pytest.TempPathFactory,
          corpus: list[list[Event]]) -> dict[str, list[tuple[Any, ...]]]:
    """The corpus exported at once, every table as :func:`content` reads it: what a dataset
    that ends up holding the whole corpus holds (exported once for the module; read only)."""
    out = tmp_path_factory.mktemp("whole") / "ds"
    export_games(corpus, out)
    return content(out)


def test_small_chunks_give_the_same_data_as_one_big_chunk(tmp_path: Path,
                                                          corpus: list[list[Event]]) -> None:
    small, big = tmp_path / "small", tmp_path / "big"
    export_games(corpus, small, chunk_games=1, row_group_rows=1000, file_rows=2500)
    export_games(corpus, big, chunk_games=100_000)
    assert content(small) == content(big)
    assert len(files_of(small)) > len(files_of(big))
    assert row_groups(small) > row_groups(big) + 20
    assert verify_dataset(small) == [] and verify_dataset(big) == []


def test_incremental_export_adds_files_and_reads_as_one(
        tmp_path: Path, corpus: list[list[Event]], corpus_rows: dict[str, list[tuple[Any, ...]]]) -> None:
    out = tmp_path / "inc"
    r1 = export_games(corpus[:20], out, chunk_games=5)
    assert (r1.version, r1.games_added) == (1, 20)
    v1 = current(out)
    before = files_of(out)
    inodes = {p: (v1 / p).stat().st_ino for p in before}
    with Dataset(out) as reader:  # a reader on the old snapshot while the next export runs
        r2 = export_games(corpus, out, chunk_games=5)
        assert reader.query("SELECT count(*) FROM games").rows == [(20,)]
    assert (r2.version, r2.games_added, r2.games_unchanged, r2.games_replaced) == \
        (2, len(corpus) - 20, 20, 0)
    after = files_of(out)
    v2 = current(out)
    assert v2 != v1 and v1.is_dir()
    games_files = {p: f for p, f in before.items() if f["table"] not in DERIVED_TABLES}
    for p, f in games_files.items():  # every old file carried over untouched: same bytes, same inode
        assert after[p]["sha256"] == f["sha256"]
        assert (v2 / p).stat().st_ino == inodes[p]
    # the ratings are rebuilt whole from every game, never carried over
    assert all(f["table"] not in DERIVED_TABLES for p, f in after.items() if p in before)
    new = set(after) - set(games_files)
    assert new and all(Path(p).name.startswith("part-000002-") for p in new)
    assert r2.files_added == len(new) and r2.files_linked == len(games_files)
    # one dataset: the same rows as a single export of every game
    assert content(out) == corpus_rows
    # nothing new: no new snapshot
    r3 = export_games(corpus, out)
    assert not r3.changed and r3.version == 2 and current(out) == v2
    assert verify_dataset(out) == []


def test_the_ratings_come_from_the_rows_written_not_from_the_files_read_back(
        tmp_path: Path, corpus: list[list[Event]], corpus_rows: dict[str, list[tuple[Any, ...]]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``games`` and ``players`` rows the ratings are rated from are kept as they are
    written: no file of the new snapshot is read back for them; only the files carried over
    from the previous snapshot are, and the ratings are those of one export of every game."""
    read: list[Path] = []
    real = dataset.read_columns

    def reading(path: Path, columns: list[str]) -> Any:
        read.append(path)
        return real(path, columns)

    monkeypatch.setattr(dataset, "read_columns", reading)
    out = tmp_path / "ds"
    export_games(corpus[:20], out, chunk_games=5)
    assert read == []
    carried = {Path(p) for p, f in files_of(out).items() if f["table"] in ("games", "players")}
    export_games(corpus, out, chunk_games=5)
    # (each path read within its snapshot: table/ruleset=.../year=.../part-....parquet)
    assert {p.relative_to(p.parents[3]) for p in read} == carried
    assert content(out) == corpus_rows


def test_a_game_with_new_events_replaces_its_rows(
        tmp_path: Path, corpus: list[list[Event]], corpus_rows: dict[str, list[tuple[Any, ...]]]) -> None:
    out = tmp_path / "rep"
    whole = next(g for g in corpus if g[0].game == "t-ruled")
    cut = whole[:300]
    older = [g if g[0].game != "t-ruled" else cut for g in corpus]
    export_games(older, out, chunk_games=4)
    r = export_games(corpus, out, chunk_games=4)
    assert (r.games_replaced, r.games_added, r.games_unchanged) == (1, 0, len(corpus) - 1)
    assert content(out) == corpus_rows
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    dup = con.execute(f"SELECT game, count(*) FROM read_parquet('{out}/current/games/**/*.parquet')"
                      " GROUP BY game HAVING count(*) > 1").fetchall()
    assert dup == []
    assert verify_dataset(out) == []


def test_a_failed_export_leaves_the_previous_dataset(tmp_path: Path,
                                                     corpus: list[list[Event]]) -> None:
    out = tmp_path / "atomic"
    export_games(corpus[:10], out, chunk_games=3)
    v1, before = current(out), content(out)

    def broken() -> Iterator[list[Event]]:
        yield from corpus[10:20]
        raise RuntimeError("the store went away")

    with pytest.raises(RuntimeError, match="went away"):
        export_games(broken(), out, chunk_games=3)
    assert current(out) == v1
    assert content(out) == before
    assert verify_dataset(out) == []
    assert not list(out.glob(".staging-*"))
    assert [p.name for p in (out / "snapshots").iterdir()] == [v1.name]


def test_old_snapshots_are_pruned_to_keep(tmp_path: Path, corpus: list[list[Event]]) -> None:
    out = tmp_path / "keep"
    for n in (5, 10, 15, 20):
        export_games(corpus[:n], out, keep=2)
    assert sorted(p.name for p in (out / "snapshots").iterdir()) == ["v000003", "v000004"]
    assert verify_dataset(out) == []


def test_manifest_checksums_find_damage(tmp_path: Path, corpus: list[list[Event]]) -> None:
    out = tmp_path / "sums"
    export_games(corpus[:6], out)
    snap, man = load_manifest(out)  # type: ignore[misc]
    for f in man["files"]:
        data = (snap / f["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == f["sha256"] and len(data) == f["bytes"]
    assert verify_dataset(out) == []
    first, second = man["files"][0]["path"], man["files"][1]["path"]
    with open(snap / first, "r+b") as fh:  # flip one byte in the middle
        fh.seek(os.path.getsize(snap / first) // 2)
        b = fh.read(1)
        fh.seek(-1, os.SEEK_CUR)
        fh.write(bytes([b[0] ^ 0xFF]))
    (snap / second).unlink()
    (snap / "games" / "stray.parquet").write_bytes(b"PAR1")
    problems = verify_dataset(out)
    assert any(p.startswith(f"{first}: SHA-256") for p in problems)
    assert f"{second}: missing" in problems
    assert "games/stray.parquet: not in the manifest" in problems


def test_a_damaged_file_is_not_carried_into_the_next_snapshot(
        tmp_path: Path, corpus: list[list[Event]], corpus_rows: dict[str, list[tuple[Any, ...]]]) -> None:
    """An incremental export checks each carried file's size against the manifest: a
    truncated or missing file stops it (nothing is exported), ``full`` starts afresh."""
    out = tmp_path / "dmg"
    export_games(corpus[:6], out)
    snap, man = load_manifest(out)  # type: ignore[misc]
    first = man["files"][0]["path"]
    data = (snap / first).read_bytes()
    (snap / first).write_bytes(data[: len(data) // 2])
    with pytest.raises(ExportError, match=rf"{re.escape(first)}: has {len(data) // 2} bytes, "
                       rf"the manifest says {len(data)}: the previous snapshot is damaged"):
        export_games(corpus, out)
    assert load_manifest(out)[1]["version"] == 1  # type: ignore[index]
    (snap / first).unlink()
    with pytest.raises(ExportError, match="is missing, the manifest says"):
        export_games(corpus, out)
    r = export_games(corpus, out, full=True)
    assert r.version == 2 and verify_dataset(out) == []
    assert content(out) == corpus_rows


def test_a_number_too_large_for_a_column_is_an_error_not_a_traceback(
        tmp_path: Path, corpus: list[list[Event]]) -> None:
    """The event models bound their numbers now; a log written before (a roem claim of three
    billion points) is refused in a sentence that names the table, and nothing is exported."""
    from jaslog.events import Roem

    game = corpus[0]
    last = game[-1]
    huge = Roem.model_construct(game=last.game, seq=last.seq + 1, type="roem", seat=0,
                                points=3_000_000_000, at=None, id=None, recorded_at=None)
    out = tmp_path / "big"
    with pytest.raises(ExportError, match=r"^events \(.*\): a stored value does not fit the "
                                          r"dataset's column \(.*3000000000"):
        export_games([[*game, huge]], out)
    assert load_manifest(out) is None


def test_one_export_at_a_time(tmp_path: Path, corpus: list[list[Event]]) -> None:
    out = tmp_path / "locked"
    out.mkdir()
    fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(ExportError, match="another export is writing"):
            export_games(corpus[:1], out)
    finally:
        os.close(fd)
    assert export_games(corpus[:1], out).games_added == 1


MEMORY_PROBE = """
import os, sys
from jaslog.events import event_from_dict
from jaslog.export import export_games
from jaslog.play.sim import simulate_game

n, out = int(sys.argv[1]), sys.argv[2]
pool = [[event_from_dict(e) for e in simulate_game(f"p{i}", seed=i)] for i in range(4)]
page = os.sysconf("SC_PAGE_SIZE") // 1024

def rss():  # resident KiB now, as the kernel counts it
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page

def clones(n):
    for i in range(n):
        gid = f"m-{i:06d}"
        yield [e.model_copy(update={"game": gid}) for e in pool[i % len(pool)]]

export_games(clones(10), out + "-warm", chunk_games=10)  # imports and first-use caches
before = peak = rss()

def sample(_):
    global peak
    peak = max(peak, rss())

if sys.argv[3] == "files":  # the games written to a log first, then read back from it
    import orjson
    from jaslog.export import stream_log_games

    log = out + ".jsonl"
    with open(log, "wb") as f:
        for g in clones(n):
            f.writelines(orjson.dumps(e.model_dump(exclude_none=True)) + b"\\n" for e in g)
    before = peak = rss()
    games = 0
    for g in stream_log_games([log]):
        games += 1
        sample(games)
    assert games == n
else:
    r = export_games(clones(n), out, chunk_games=10, row_group_rows=8192, progress=sample)
    assert r.rows_total["games"] == n
print(before, max(peak, rss()))
"""


def _peak_kib(n: int, out: Path, source: str = "games") -> tuple[int, int]:
    """(RSS before the export, peak RSS during it) of a fresh process exporting n games
    (``source``: ``games`` in memory one by one, or ``files``: from a log file)."""
    proc = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(n), str(out), source],
                          capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    before, after = map(int, proc.stdout.split())
    return before, after


@pytest.mark.soak
@pytest.mark.parametrize("source", ["games", "files"])
def test_memory_stays_bounded_from_n_to_10n_games(tmp_path: Path, source: str) -> None:
    """Not a timing test: a fresh process exporting 10N games peaks near one exporting N
    (Python objects, Arrow buffers and Parquet writers all counted, as the OS sees them);
    and reading the games of a log file 10 times as long peaks near reading the short one
    (two passes, never the whole file in memory)."""
    base_n, peak_n = _peak_kib(15, tmp_path / "n", source)
    base_10n, peak_10n = _peak_kib(150, tmp_path / "10n", source)
    growth_n, growth_10n = peak_n - base_n, peak_10n - base_10n
    assert growth_n > 0
    assert growth_10n < 1.5 * growth_n + 16 * 1024, (growth_n, growth_10n)  # KiB


def test_export_files_and_their_errors(tmp_path: Path, corpus: list[list[Event]]) -> None:
    log = tmp_path / "games.jsonl"
    with open(log, "wb") as f:
        for g in corpus[:5]:
            for e in g:
                f.write(orjson.dumps(e.model_dump(exclude_none=True)) + b"\n")
    r = export_files([log], tmp_path / "out")
    assert r.games_added == 5
    with open(log, "ab") as f:
        f.write(b'{"game": "x", "seq": 0, "type": "nonsense"}\n')
    with pytest.raises(ExportError, match=r"games\.jsonl:\d+: unknown event type"):
        export_files([log], tmp_path / "out")


def _write(path: Path, events: list[Event], tail: bytes = b"") -> Path:
    with open(path, "wb") as f:
        f.writelines(orjson.dumps(e.model_dump(exclude_none=True)) + b"\n" for e in events)
        f.write(tail)
    return path


def test_log_games_come_whole_as_they_end(
        tmp_path: Path, corpus: list[list[Event]]) -> None:
    """Games mixed line by line, one game's lines out of seq order, a game across two files:
    each comes whole, in seq order, as soon as its last line is read."""
    a, b, c, d = corpus[:4]
    mixed = [e for pair in zip(b, c, strict=False) for e in pair] + b[len(c):] + c[len(b):]
    d_shuffled = d[:1] + d[1:][::-1]
    half = len(mixed) // 2
    first = _write(tmp_path / "1.jsonl", a + mixed[:half], tail=b"\n")  # a blank line too
    second = _write(tmp_path / "2.jsonl", mixed[half:] + d_shuffled)
    got = list(stream_log_games([first, second]))
    ends = (a, b, c) if len(b) <= len(c) else (a, c, b)  # the mixed game that ends first
    assert [g[0].game for g in got] == [g[0].game for g in (*ends, d)]
    for want, have in zip((*ends, d), got, strict=True):
        assert have == want
    assert read_log_games([first, second]) == got


def test_log_games_are_handed_on_before_the_rest_is_read(
        tmp_path: Path, corpus: list[list[Event]]) -> None:
    """Streaming: the games before a bad line come out before its error (a reader that loaded
    the whole file first would fail at once)."""
    a, b = corpus[:2]
    log = _write(tmp_path / "games.jsonl", a + b, tail=b'{"game": "x", "seq": 0}\n')
    games = stream_log_games([log])
    assert next(games) == a
    assert next(games) == b
    with pytest.raises(ExportError, match=rf"games\.jsonl:{len(a) + len(b) + 1}: "):
        next(games)


def test_exports_from_log_files_add_up(tmp_path: Path, corpus: list[list[Event]]) -> None:
    """Each ``--from`` export adds its files' games; games not in them stay; ``full`` starts
    over with just these files (the README says so)."""
    first = _write(tmp_path / "a.jsonl", [e for g in corpus[:3] for e in g])
    second = _write(tmp_path / "b.jsonl", [e for g in corpus[3:5] for e in g])
    out = tmp_path / "out"
    export_files([first], out)
    r = export_files([second], out)
    assert (r.games_added, r.games_replaced) == (2, 0)
    every = tmp_path / "every"
    export_files([first, second], every)
    assert content(out) == content(every)
    export_files([second], out, full=True)
    alone = tmp_path / "alone"
    export_files([second], alone)
    assert content(out) == content(alone) and len(content(out)["games"]) == 2


def test_export_from_standard_input(tmp_path: Path, corpus: list[list[Event]]) -> None:
    log = _write(tmp_path / "games.jsonl", [e for g in corpus[:3] for e in g])
    with open(log, "rb") as stdin:
        proc = subprocess.run([sys.executable, "-m", "jaslog", "export", str(tmp_path / "ds"),
                               "--from", "-", "--json"], stdin=stdin, capture_output=True,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert proc.returncode == 0, proc.stderr
    assert orjson.loads(proc.stdout)["games_added"] == 3


# ------------------------------------------------------------------ from a real SQLite store

def _dicts(events: list[Event]) -> list[dict[str, Any]]:
    return [e.model_dump(exclude_none=True) for e in events]


def archive(store: Any, events: list[dict[str, Any]]) -> None:
    """Put an archive's events into ``store`` as ``jaslog import`` does, as they are (an
    append would stamp each with the store's ``recorded_at`` and check its ``at``)."""
    summary = store.import_lines([orjson.dumps(e) + b"\n" for e in events], source="archive")
    assert summary.ok, summary.rejected[:3]


def test_export_from_the_store_is_incremental(tmp_path: Path, corpus: list[list[Event]]) -> None:
    out = tmp_path / "ds"
    with open_store(str(tmp_path / "s.sqlite")) as store:
        games = corpus[:8]
        for g in games[:-1]:
            archive(store, _dicts(g))
        last = games[-1]
        archive(store, _dicts(last[:200]))
        assert store_status(store, out)["stale"]
        r1 = export_store(store, out)
        assert (r1.games_added, r1.cursor) == (8, store.cursor())
        assert not store_status(store, out)["stale"]
        assert export_store(store, out).changed is False
        # more games, and the rest of a game in progress
        for g in corpus[8:11]:
            archive(store, _dicts(g))
        archive(store, _dicts(last[200:]))
        assert store_status(store, out)["stale"]
        r2 = export_store(store, out)
        assert (r2.games_added, r2.games_replaced) == (3, 1)
        assert r2.games_unchanged == 0  # the store's cursor sends only the games that changed
        # filtering by ruleset is another dataset: exported whole
        r3 = export_store(store, out, ruleset="amsterdam")
        assert r3.games_replaced == 0 and r3.rows_total["games"] == len(
            [g for g in corpus[:11] if g[0].ruleset == "amsterdam"])  # type: ignore[attr-defined]
    full = tmp_path / "full"
    export_games(iter_games([g for g in corpus[:11] if g[0].ruleset == "amsterdam"]),  # type: ignore[attr-defined]
                 full)
    assert content(out) == content(full)


def test_simulated_fault_rates_show_up(tmp_path: Path) -> None:
    """Revokes simulated at a known rate are found as illegal plays in the export."""
    g = to_events(simulate_game("rv", "amsterdam", seed=9, faults=FAULTS))
    export_games([g], tmp_path)
    with Dataset(tmp_path) as d:
        illegal = d.query("SELECT count(*) FROM plays WHERE NOT legal").rows[0][0]
        listed = d.query("SELECT count(*) FROM violations WHERE category = 'play'").rows[0][0]
    assert illegal == listed > 0


def test_only_export_folders_are_written(tmp_path: Path, corpus: list[list[Event]]) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match=r"is not an export folder \(it holds notes\.txt"):
        export_games(corpus[:1], tmp_path)
    out = tmp_path / "ds"
    export_games(corpus[:1], out)
    with pytest.raises(ExportError, match="is a snapshot"):
        export_games(corpus[:2], current(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "notes.txt"]
