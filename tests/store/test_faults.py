"""The store when its machine fails it: a database that is read-only, locked by another
process past the lock timeout, full, or a PostgreSQL server restarting; an import worker that
stops. Each is said in a sentence (``DatabaseError`` with a code; the CLI exits 2), nothing
of the refused transaction is stored, and afterwards every acknowledged event is there once
and every chain verifies.

How each fault is made: :mod:`tests.store.faults`.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from jaslog.play.sim import simulate_game
from jaslog.store import open_store
from jaslog.store.engine import DatabaseError
from tests.cli import jaslog, process_env
from tests.store.conftest import _Server, game_events, jsonl
from tests.store.faults import read_only, restartable_pg, small_disk

#: Long enough for a real multi-process import of a few games, short enough that an import
#: that hangs fails the test instead of the test run.
IMPORT_TIMEOUT = 90


def _games_file(path: Path, n: int, seed: int = 1) -> dict[str, list[dict[str, object]]]:
    games = {f"f-{seed}-{i}": game_events(f"f-{seed}-{i}", seed=seed * 1000 + i) for i in range(n)}
    path.write_bytes(b"".join(jsonl(g) for g in games.values()))
    return games


def _all_there_once(db: str, acknowledged: dict[str, int]) -> None:
    """Every game stored has whole chains (verify) and every acknowledged event once."""
    with open_store(db, create=False) as s:
        assert s.verify().ok
        for gid, n in acknowledged.items():
            events = s.events(gid)
            assert [e.seq for e in events] == list(range(len(events))) and len(events) >= n


def _python_jaslog(*args: str, timeout: float = IMPORT_TIMEOUT,
                   **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m jaslog ARGS`` as a real process (its workers are real processes too)."""
    return subprocess.run([sys.executable, "-m", "jaslog", *args], capture_output=True,
                          text=True, timeout=timeout, env=process_env(**env))


# ---------------------------------------------------------------------- an import worker stops


def test_a_worker_that_stops_ends_the_parallel_import_with_a_sentence(tmp_path: Path) -> None:
    """The database refuses one game's rows in a worker (a trigger of the test's own, as
    any error of a worker would): the import stops at once with one sentence naming the file,
    the line and the games of the batch, exit 2; nothing of that batch is stored. It used to
    print the worker's traceback and never exit."""
    db = tmp_path / "s.sqlite"
    open_store(str(db)).close()
    with sqlite3.connect(db) as c:
        c.execute("CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.game = "
                  "(SELECT pos FROM games WHERE id = 'f-1-7') "
                  "BEGIN SELECT RAISE(ABORT, 'the test refuses this game'); END")
    log = tmp_path / "games.jsonl"
    games = _games_file(log, 12)
    r = _python_jaslog("import", "--workers", "2", "--batch", "3", "--db", str(db), str(log))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    said = " ".join(r.stderr.split())
    assert said.startswith("jaslog: the import stopped: ") and "the test refuses this game" in said
    assert f"{log}:" in said and "f-1-7" in said, said
    with open_store(str(db), create=False) as s:
        stored = {g.game for g in s.games()}
    assert "f-1-7" not in stored
    batch = said.split("writing game", 1)[1].removeprefix("s").split(" (", 1)[0].split(", ")
    assert "f-1-7" in [b.strip() for b in batch] and not {b.strip() for b in batch} & stored
    _all_there_once(str(db), {g: len(games[g]) for g in stored})


@pytest.mark.soak
def test_a_full_disk_stops_the_parallel_import_with_a_sentence(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    _games_file(log, 60)
    with small_disk(tmp_path / "disk", "1m") as disk:
        db = disk / "s.sqlite"
        r = _python_jaslog("import", "--workers", "2", "--db", str(db), str(log))
        assert r.returncode == 2, r.stderr
        said = " ".join(r.stderr.split())
        assert "Traceback" not in r.stderr and "the store's disk is full" in said, said
        assert said.startswith("jaslog: the import stopped: ")
        with open_store(str(db), create=False) as s:
            stored = {g.game: g.events for g in s.games()}
        _all_there_once(str(db), stored)
        r = _python_jaslog("import", "--workers", "0", "--db", str(db), str(log))
        assert r.returncode == 2 and "the store's disk is full" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_a_full_disk_refuses_an_append_and_keeps_what_was_stored(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "600k") as disk:
        db = str(disk / "s.sqlite")
        acknowledged: dict[str, int] = {}
        with open_store(db) as s, pytest.raises(DatabaseError) as err:
            for i in range(200):
                g = simulate_game(f"full-{i}", seed=i)
                for k in range(0, len(g), 40):
                    s.append(g[0]["game"], g[k:k + 40])  # type: ignore[arg-type]
                    acknowledged[str(g[0]["game"])] = k + len(g[k:k + 40])
        assert err.value.code == "store_full" and err.value.retry_after is not None
        assert "the store's disk is full" in str(err.value)
        _all_there_once(db, acknowledged)


# ---------------------------------------------------------------------- a read-only store


def test_a_read_only_store_is_read_and_refuses_writes_in_a_sentence(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    log = tmp_path / "games.jsonl"
    games = _games_file(log, 3)
    with open_store(str(db)) as s:
        s.import_files([log])
    more = tmp_path / "more.jsonl"
    _games_file(more, 3, seed=2)
    with read_only(db):
        with open_store(str(db)) as s:
            assert len(s.games()) == 3 and s.verify().ok  # reading goes on
            with pytest.raises(DatabaseError) as err:
                s.new_game("amsterdam", ["a", "b", "c", "d"], game="new-1")
            assert err.value.code == "store_read_only" and err.value.retry_after is None
        for args in (("new", "--seats", "a,b,c,d"), ("import", str(more)),
                     ("append", "f-1-0", "--json", '{"type": "note", "text": "x"}')):
            r = jaslog(*args, "--db", str(db), text=True)
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            assert r.stderr.startswith("jaslog: the store cannot be written"), r.stderr
        r = _python_jaslog("import", "--workers", "2", "--db", str(db), str(more))
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert "the store cannot be written" in r.stderr
        r = jaslog("append", "f-1-0", "--json", '{"type": "note", "text": "x"}', "--json-out",
                   "--db", str(db), text=True)
        assert r.returncode == 2
        assert orjson.loads(r.stdout)["error"]["code"] == "store_read_only"
    _all_there_once(str(db), {g: len(e) for g, e in games.items()})


# ---------------------------------------------------------------------- a lock held too long


def test_a_lock_held_past_the_timeout_is_busy_and_reads_go_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holds the write lock (``BEGIN EXCLUSIVE``) past the lock timeout
    (``$JASLOG_LOCK_TIMEOUT``, 60 s unless set): a write is refused, ``store_busy``, to try
    again (``retry_after``); reading goes on meanwhile, and the write goes through once the
    lock is let go."""
    monkeypatch.setenv("JASLOG_LOCK_TIMEOUT", "0.3")
    db = str(tmp_path / "s.sqlite")
    g = game_events("busy-1", seed=3)
    with open_store(db) as s:
        s.append("busy-1", g[:10])  # type: ignore[arg-type]
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with open_store(db) as s:
            assert s.head("busy-1").next_seq == 10
            with pytest.raises(DatabaseError) as err:
                s.append("busy-1", g[10:20])  # type: ignore[arg-type]
            assert err.value.code == "store_busy" and err.value.retry_after == 5
            assert "another process held its lock for more than 0.3 s" in str(err.value)
        r = jaslog("append", "busy-1", "--json", orjson.dumps(g[10]).decode(), "--db", db,
                   text=True, env={"JASLOG_LOCK_TIMEOUT": "0.3"})
        assert r.returncode == 2 and r.stderr.startswith("jaslog: the store is busy"), r.stderr
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with open_store(db) as s:
        s.append("busy-1", g[10:20])  # type: ignore[arg-type]
    _all_there_once(db, {"busy-1": 20})


# ---------------------------------------------------------------------- PostgreSQL restarts


@pytest.fixture
def own_pg_server() -> Iterator[_Server]:
    with restartable_pg() as server:
        yield server


def test_a_group_after_a_postgresql_restart_is_written(own_pg_server: _Server, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A group of appends is written on the connection the store keeps from the group
    before; the server restarted in between (which dropped it): the group is written all
    the same, on a fresh connection, as when every group took one from the pool."""
    monkeypatch.setenv("JASLOG_KEYS", str(tmp_path / "keys"))
    url = own_pg_server.url
    g = game_events("pg-2", seed=6)
    with open_store(url) as s:
        with s.group() as grp:
            grp.append("pg-2", g[:20])  # type: ignore[arg-type]
        own_pg_server.stop(remove=False)
        own_pg_server.start()
        with s.group() as grp:
            assert grp.append("pg-2", g[20:30]).appended == 10  # type: ignore[arg-type]
        assert s.head("pg-2").next_seq == 30
    _all_there_once(url, {"pg-2": 30})


def test_a_postgresql_restart_is_unreachable_then_goes_on(own_pg_server: _Server,
                                                          tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JASLOG_KEYS", str(tmp_path / "keys"))
    url = own_pg_server.url
    g = game_events("pg-1", seed=5)
    with open_store(url) as s:
        s.append("pg-1", g[:20])  # type: ignore[arg-type]
        own_pg_server.stop(remove=False)
        for act in (lambda: s.games(), lambda: s.append("pg-1", g[20:30])):  # type: ignore[arg-type]
            with pytest.raises(DatabaseError) as err:
                act()
            assert err.value.code == "store_unreachable" and err.value.retry_after == 5
            assert str(err.value).startswith("the database cannot be reached")
        r = jaslog("games", "--db", url, text=True)
        assert r.returncode == 2 and r.stderr.startswith("jaslog: ") and "Traceback" not in r.stderr
        own_pg_server.start()
        s.append("pg-1", g[20:30])  # type: ignore[arg-type]  # the pool connects again
        assert s.head("pg-1").next_seq == 30
    _all_there_once(url, {"pg-1": 30})
