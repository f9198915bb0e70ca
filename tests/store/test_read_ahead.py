"""The replay's reader thread (:mod:`jaslog.store.read_ahead`): the next batch's statement
read on a connection of its own to the same file while the caller folds this batch; the
same folds in the same order; a caller that stops early leaves no thread, no connection,
and a file that can be deleted; the reader's error raised in the caller."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import orjson
import pytest

from jaslog.store import fold_read, open_store
from jaslog.store.fold_read import fold_one
from jaslog.store.read_ahead import ReadAhead
from tests.store.conftest import game_events
from tests.store.test_fold_games import RULESETS, _seen


def _readers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "jaslog-read-ahead"]


def _open_fds(path: Path) -> list[str]:
    """The files this process holds open that are ``path`` or its WAL or shared memory."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(path)):
            out.append(target)
    return out


@pytest.fixture
def store_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A SQLite store of the four games of :data:`RULESETS`, read one game a batch (so the
    reader runs a batch ahead of every game but the last)."""
    path = tmp_path / "club.sqlite"
    with open_store(str(path)) as store:
        for i, (gid, ruleset) in enumerate(RULESETS.items()):
            events = game_events(gid, ruleset, seed=i + 3)
            assert store.import_lines([orjson.dumps(e) for e in events]).events == len(events)
    monkeypatch.setattr(fold_read, "BATCH_GAMES", 1)
    return path


def test_batches_read_ahead_fold_as_the_events_do(store_path: Path) -> None:
    with open_store(str(store_path)) as store:
        got = [(gid, _seen(f)) for gid, f in store.fold_games()]
        want = [(gid, _seen(fold_one(gid, evs))) for gid, evs in store.iter_games()]
    assert [gid for gid, _ in got] == list(RULESETS)
    assert got == want
    assert not _readers()


@pytest.mark.parametrize("stop", ["closed", "error", "interrupt"])
def test_a_reader_stopped_early_leaves_nothing_open(store_path: Path, stop: str) -> None:
    """The caller takes one game (the reader has the next batch's statement to run) and
    stops: by closing the generator, by an error, by Ctrl-C. The reader is joined, its
    connection closed: once the store is closed, the file is held by nothing and goes."""
    with open_store(str(store_path)) as store:
        if stop == "closed":
            games = store.fold_games()
            gid, _fold = next(games)
            assert gid == "a-0" and _readers()
            games.close()
        else:
            raised: type[BaseException] = ValueError if stop == "error" else KeyboardInterrupt
            with pytest.raises(raised):
                for gid, _f in store.fold_games():
                    assert gid == "a-0" and _readers()
                    raise raised("stop")
        assert not _readers()
    assert _open_fds(store_path) == []
    store_path.unlink()
    assert not store_path.exists()


def test_the_readers_error_is_raised_where_its_batch_is_taken(tmp_path: Path) -> None:
    """A file the reader cannot read as a database: the ``sqlite3`` error, as the store's
    own connection would raise it, where the caller takes the batch; nothing left open."""
    bad = tmp_path / "not-a-store.sqlite"
    bad.write_bytes(b"this is not a SQLite database, not even close " * 100)
    with ReadAhead(str(bad)) as ahead:
        fut = ahead.codes(["g"], 10)
        with pytest.raises(sqlite3.DatabaseError, match="file is not a database"):
            fut.result()
    assert not _readers() and _open_fds(bad) == []
    missing = tmp_path / "gone.sqlite"
    with ReadAhead(str(missing)) as ahead, pytest.raises(sqlite3.OperationalError):
        ahead.codes(["g"], 10).result()
    assert not missing.exists()  # the reader makes no file


def test_the_exports_reader_stopped_early_leaves_nothing_open(
        store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The export's read of a store (one game a batch here) stopped after its first game:
    no reader thread is left, and once the store is closed nothing holds its file."""
    from jaslog.export import stored

    monkeypatch.setattr(stored, "READ_GAMES", 1)
    with open_store(str(store_path)) as store:
        games = stored.store_games(store, since=None, ruleset=None, after=None,
                                   until=store.cursor(), batch=2,
                                   unreadable=lambda e: pytest.fail(str(e)))
        first = next(games)
        assert isinstance(first, stored.StoredExport) and first.game == "a-0" and _readers()
        games.close()
        assert not _readers()
        every = list(stored.store_games(store, since=None, ruleset=None, after=None,
                                        until=store.cursor(), batch=2,
                                        unreadable=lambda e: pytest.fail(str(e))))
        assert [g.game for g in every if isinstance(g, stored.StoredExport)] == list(RULESETS)
        assert not _readers()
    assert _open_fds(store_path) == []
    store_path.unlink()


def test_quick_handoffs_restore_the_switch_interval_when_the_last_block_ends() -> None:
    """Two readers' blocks that overlap (in two threads) leave the process's switch interval
    as it was before the first, whichever ends first."""
    import sys
    import threading

    from jaslog.store.read_ahead import HANDOFF_S, quick_handoffs

    before = sys.getswitchinterval()
    entered, leave = threading.Event(), threading.Event()

    def other() -> None:
        with quick_handoffs():
            entered.set()
            leave.wait(5)

    t = threading.Thread(target=other)
    with quick_handoffs():
        t.start()
        assert entered.wait(5)
        assert sys.getswitchinterval() == HANDOFF_S
    assert sys.getswitchinterval() == HANDOFF_S  # the other block still runs
    leave.set()
    t.join()
    assert sys.getswitchinterval() == before
