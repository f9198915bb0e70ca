"""The export with worker processes: the same files, byte for byte, as in one process."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from jaslog.events import Event
from jaslog.export import ExportError, export_files, export_store, parallel
from jaslog.export.dataset import Chunk, build_chunks
from jaslog.export.parallel import MIN_CHUNKS, auto_workers
from jaslog.store import open_store
from tests.export.test_dataset import archive, content


def _dicts(events: list[Event]) -> list[dict[str, Any]]:
    return [e.model_dump(exclude_none=True) for e in events]


def files(out: Path) -> dict[str, str]:
    """The current snapshot's files (their export version left out) and their SHA-256."""
    m = json.loads((out / "current" / "manifest.json").read_text())
    v = f"part-{m['version']:06d}"
    return {f["path"].replace(v, "part-V"): f["sha256"] for f in m["files"]}


@pytest.mark.soak
def test_workers_write_the_same_bytes_full_and_incremental(tmp_path: Path, store_url: str,
                                                           corpus: list[list[Event]]) -> None:
    """On SQLite and PostgreSQL (each worker opens the store by its URL)."""
    games = corpus[:-1]
    cut = corpus[-1]
    with open_store(store_url) as store:
        for g in games[:-4]:
            archive(store, _dicts(g))
        archive(store, _dicts(cut[:150]))
        progress: list[int] = []
        by_game: list[int] = []
        one = export_store(store, tmp_path / "one", chunk_games=3, workers=0,
                           progress=by_game.append)
        many = export_store(store, tmp_path / "many", chunk_games=3, workers=2,
                            progress=progress.append)
        assert one.files_added > 1 and files(tmp_path / "one") == files(tmp_path / "many")
        assert (many.games_added, many.rows_total) == (one.games_added, one.rows_total)
        n = len(games) - 4 + 1
        assert by_game == list(range(1, n + 1))  # one process: game by game
        assert progress[-1] == n and progress == sorted(progress) and len(progress) >= n // 3
        # more games, and the rest of the game in progress: the changed games only
        for g in games[-4:]:
            archive(store, _dicts(g))
        archive(store, _dicts(cut[150:]))
        one = export_store(store, tmp_path / "one", chunk_games=1, workers=0)
        many = export_store(store, tmp_path / "many", chunk_games=1, workers=2)
        assert (many.games_added, many.games_replaced) == (one.games_added, one.games_replaced) \
            == (4, 1)
        assert files(tmp_path / "one") == files(tmp_path / "many")
        assert export_store(store, tmp_path / "many", workers=2).changed is False
    assert content(tmp_path / "one") == content(tmp_path / "many")


def _log(path: Path, events: list[Event], tail: bytes = b"") -> Path:
    import orjson

    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in _dicts(events)) + tail)
    return path


@pytest.mark.soak
def test_workers_export_log_files_to_the_same_bytes(tmp_path: Path,
                                                    corpus: list[list[Event]]) -> None:
    """From log files: workers parse, fold and build the games the main process reads; the
    files are the same as in one process, full and incremental, and a bad line is named."""
    games, cut = corpus[:-1], corpus[-1]
    a, b = games[0], games[1]
    mixed = [e for pair in zip(a, b, strict=False) for e in pair] + a[len(b):] + b[len(a):]
    first = _log(tmp_path / "1.jsonl", mixed + [e for g in games[2:-4] for e in g] + cut[:150])
    one = export_files([first], tmp_path / "one", chunk_games=3, workers=0)
    many = export_files([first], tmp_path / "many", chunk_games=3, workers=2)
    assert one.files_added > 1 and files(tmp_path / "one") == files(tmp_path / "many")
    assert (many.games_added, many.rows_total) == (one.games_added, one.rows_total) \
        == (len(games) - 4 + 1, one.rows_total)
    # a second file: four more games and the rest of the game in progress
    second = _log(tmp_path / "2.jsonl", [e for g in games[-4:] for e in g] + cut[150:])
    one = export_files([first, second], tmp_path / "one", chunk_games=1, workers=0)
    many = export_files([first, second], tmp_path / "many", chunk_games=1, workers=2)
    assert (many.games_added, many.games_replaced) == (one.games_added, one.games_replaced) \
        == (4, 1)
    assert files(tmp_path / "one") == files(tmp_path / "many")
    assert content(tmp_path / "one") == content(tmp_path / "many")
    # a card that is no card, in the third game: the worker's error names the file and line
    bad = _log(tmp_path / "bad.jsonl", [e for g in games[:3] for e in g])
    lines = bad.read_bytes().splitlines(keepends=True)
    at = len(a) + len(b) + 20
    assert b'"card":"' in lines[at - 1]
    lines[at - 1] = lines[at - 1].replace(b'"card":"', b'"card":"Z', 1)
    bad.write_bytes(b"".join(lines))
    with pytest.raises(ExportError, match=rf"bad\.jsonl:{at}: "):
        export_files([bad], tmp_path / "bad", chunk_games=1, workers=2)
    assert not (tmp_path / "bad" / "current").exists()


def test_a_chunk_comes_back_through_a_file_not_the_pipe(
        tmp_path: Path, corpus: list[list[Event]], monkeypatch: pytest.MonkeyPatch) -> None:
    """What a worker sends back through the pool's pipe is a few hundred bytes whatever the
    chunk; its tables wait in a file, which taking the chunk back reads and deletes, and
    they are the tables one process builds."""
    from jaslog.export.stored import batch_games

    games = corpus[:6]
    with open_store(str(tmp_path / "s.sqlite")) as store:
        for g in games:
            archive(store, _dicts(g))
        ids = [g[0].game for g in games]
        until = store.cursor()
        monkeypatch.setattr(parallel, "_store", store)
        monkeypatch.setattr(parallel, "_until", until)
        folder = tmp_path / "chunks"
        folder.mkdir()
        sent = parallel._build((ids, {}, False), str(folder))
        unreadable: list[object] = []
        [here] = build_chunks(batch_games(store, ids, until, unreadable.append), {},
                              len(ids) + 1)
    assert len(pickle.dumps(sent)) < 2_000
    assert sum(t.nbytes for _, _, t in here.tables) > 100_000
    assert [p.name for p in folder.iterdir()] == [Path(sent.path).name]
    back = parallel.taken_back(sent)
    assert not any(folder.iterdir())
    assert (back.added, back.seen) == (here.added, here.seen) == (6, 6)
    assert [(t, p) for t, p, _ in back.tables] == [(t, p) for t, p, _ in here.tables]
    for (_, _, a), (_, _, b) in zip(back.tables, here.tables, strict=True):
        assert a.equals(b) and a.schema.equals(b.schema, check_metadata=True)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads the process's maps")
def test_a_chunk_s_large_tables_are_read_in_place_and_its_small_ones_copied(
        tmp_path: Path) -> None:
    """Taking a chunk back maps its file: the large tables are the file's pages (the file
    deleted at once, its pages kept while they are used), the small ones, which wait for
    many chunks to make a row group, are copies that do not keep the file."""
    big = pa.table({"seq": pa.array(range(100_000), pa.int64())})
    small = pa.table({"seq": pa.array(range(100), pa.int64())})
    sent = parallel.passed_on(Chunk(tables=[("events", "p", big), ("games", "p", small)]),
                              str(tmp_path))

    def mapped() -> bool:
        return sent.path in Path("/proc/self/maps").read_text()

    back = parallel.taken_back(sent)
    assert not any(tmp_path.iterdir())
    [(_, _, b), (_, _, s)] = back.tables
    assert mapped() and b.equals(big) and s.equals(small)
    back.tables.clear()
    del b
    assert not mapped()  # the small table holds no page of the file
    assert s.equals(small)


@pytest.mark.soak
def test_a_failed_export_leaves_no_chunk_behind(tmp_path: Path,
                                                corpus: list[list[Event]]) -> None:
    """An export with workers that stops midway (here, its progress callback fails) stops
    its workers and deletes the files they handed chunks back through at once, before its
    error is even handled; the next export publishes the dataset."""
    def fail(n: int) -> None:
        raise RuntimeError(f"stopped after {n} games")

    out = tmp_path / "ds"
    with open_store(str(tmp_path / "s.sqlite")) as store:
        for g in corpus[:8]:
            archive(store, _dicts(g))
        try:
            export_store(store, out, chunk_games=1, workers=2, progress=fail)
        except RuntimeError as e:
            assert str(e) == "stopped after 1 games"
            assert [p.name for p in out.iterdir()] == [".lock"]  # while the error is held
        else:
            raise AssertionError("the export did not stop")
        assert export_store(store, out, chunk_games=1, workers=2).games_added == 8
    assert sorted(p.name for p in out.iterdir()) == [".lock", "current", "snapshots"]


def test_the_workers_end_once_the_last_chunk_is_handed_out(tmp_path: Path,
                                                           corpus: list[list[Event]]) -> None:
    """The pool is closed when its last chunk is handed out: its workers end while the
    export still writes (here, as the last chunk is told), not after it."""
    import multiprocessing
    import time

    left: list[int] = []

    def told(n: int) -> None:
        if n < 6:
            return
        deadline = time.monotonic() + 20
        while multiprocessing.active_children() and time.monotonic() < deadline:
            time.sleep(0.02)
        left.append(len(multiprocessing.active_children()))

    with open_store(str(tmp_path / "s.sqlite")) as store:
        for g in corpus[:6]:
            archive(store, _dicts(g))
        assert export_store(store, tmp_path / "ds", chunk_games=1, workers=2,
                            progress=told).games_added == 6
    assert left == [0]


def _arrow_allocator() -> str:
    return pa.default_memory_pool().backend_name


def test_a_store_worker_allocates_arrow_memory_with_the_c_library(tmp_path: Path) -> None:
    """A worker reading the store takes its Arrow memory from the C library's allocator,
    whose freed memory a worker takes again batch after batch, not from Arrow's default;
    the exporting process keeps its own."""
    import multiprocessing

    from jaslog.store.parallel import start_method

    url = str(tmp_path / "s.sqlite")
    open_store(url).close()
    before = _arrow_allocator()
    ctx: Any = multiprocessing.get_context(start_method())
    with ctx.Pool(1, initializer=parallel._init, initargs=(url, None, os.getpid())) as pool:
        assert pool.apply(_arrow_allocator) == "system"
    assert _arrow_allocator() == before


def test_how_many_workers() -> None:
    assert auto_workers(MIN_CHUNKS - 1) == 0
    cpus = os.cpu_count() or 1
    assert auto_workers(100) == (0 if cpus < 2 else min(cpus, 8))
    assert auto_workers(2 * MIN_CHUNKS) <= 2 * MIN_CHUNKS


@pytest.mark.soak
def test_a_killed_export_leaves_no_worker(tmp_path: Path, corpus: list[list[Event]]) -> None:
    """Workers are killed with the export (Linux): none is left folding for nobody."""
    import signal
    import subprocess
    import sys
    import time

    from tests.store.test_crash import ROOT, alive, descendants

    if not Path("/proc/self/cmdline").exists():
        pytest.skip("needs /proc (Linux)")
    db = tmp_path / "s.sqlite"
    with open_store(str(db)) as store:
        for g in corpus * 3:
            gid = g[0].game + f"-{store.cursor()}"  # the corpus three times, under new ids
            archive(store, [{**d, "game": gid} for d in _dicts(g)])
    out = tmp_path / "ds"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "jaslog", "export", str(out), "--db", str(db),
                             "--chunk", "1", "--workers", "2"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(workers := descendants(proc.pid)) < 2:  # (spawned: the CLI runs a progress thread)
        assert proc.poll() is None, "the export ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while survivors := alive(workers):
        assert time.monotonic() < deadline, f"workers outlived the export: {survivors}"
        time.sleep(0.05)
    assert not (out / "current").exists()  # nothing was published
    # what it left (its staging folder, the chunks its workers handed back) the next export
    # sweeps away
    left = [p for p in out.iterdir() if p.name.startswith(".staging-")]
    assert left
    with open_store(str(db)) as store:
        export_store(store, out, chunk_games=1, workers=2)
    assert sorted(p.name for p in out.iterdir()) == [".lock", "current", "snapshots"]


@pytest.mark.parametrize("workers", [0, pytest.param(2, marks=pytest.mark.soak)])  # worker processes: soak
def test_the_number_of_games_is_told_before_the_export(tmp_path: Path, workers: int,
                                                      corpus: list[list[Event]]) -> None:
    """``on_total`` (the progress bar's total) is the number of games to read, once, before
    the first game is read; then ``progress`` counts up to it."""
    games = corpus[:9]
    calls: list[tuple[str, int]] = []
    log = _log(tmp_path / "g.jsonl", [e for g in games for e in g])
    export_files([log], tmp_path / "a", chunk_games=2, workers=workers,
                 on_total=lambda n: calls.append(("total", n)),
                 progress=lambda n: calls.append(("read", n)))
    assert calls[0] == ("total", 9) and calls[-1] == ("read", 9)
    assert [k for k, _ in calls].count("total") == 1
    calls.clear()
    with open_store(str(tmp_path / "s.sqlite")) as store:
        for g in games[:7]:
            store.append(g[0].game, _dicts(g))
        export_store(store, tmp_path / "b", chunk_games=2, workers=workers,
                     on_total=lambda n: calls.append(("total", n)),
                     progress=lambda n: calls.append(("read", n)))
        assert calls[0] == ("total", 7) and calls[-1] == ("read", 7)
        calls.clear()
        for g in games[7:]:
            store.append(g[0].game, _dicts(g))
        export_store(store, tmp_path / "b", chunk_games=2, workers=workers,
                     on_total=lambda n: calls.append(("total", n)))
        assert calls == [("total", 2)]  # incremental: only the new games
