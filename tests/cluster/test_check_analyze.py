"""``check`` and ``analyze`` on a real Dask cluster (a LocalCluster of two worker processes):
what a run in one process prints, byte for byte (text and JSON, the exit code, the sentence
a bad input stops with), from log files and from a store (SQLite and PostgreSQL, each worker
opening it by its URL)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import jaslog.cli.analyze as analyze_command
import jaslog.cli.check as check_command
from tests.cli import jaslog
from tests.export.conftest import make_corpus
from tests.export.test_dataset import archive

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def games() -> list[list[dict[str, Any]]]:
    """Games of every ruleset mix, with revokes, rulings, one unfinished: as event dicts."""
    return [[e.model_dump(exclude_none=True) for e in g] for g in make_corpus()]


@pytest.fixture(autouse=True)
def small_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A few games to a task, so that the games are spread over both workers and many tasks
    come back out of order."""
    monkeypatch.setattr(check_command, "CLUSTER_CHUNK", 3)
    monkeypatch.setattr(analyze_command, "CLUSTER_CHUNK", 1)


def same(cluster: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``jaslog ARGS`` in this process and on the cluster: the same exit code, stdout and
    stderr (the local run's answer)."""
    here = jaslog(*args, text=True)
    there = jaslog(*args, "--cluster", cluster, text=True)
    assert (there.returncode, there.stdout, there.stderr) == \
        (here.returncode, here.stdout, here.stderr)
    return here


def _line(d: dict[str, Any]) -> bytes:
    return orjson.dumps(d) + b"\n"


@pytest.mark.soak
def test_log_files_are_checked_and_analysed_on_the_cluster_as_here(
        tmp_path: Path, games: list[list[dict[str, Any]]], cluster: str) -> None:
    a, b = games[0], games[1]
    mixed = [_line(d) for pair in zip(a, b, strict=False) for d in pair]  # two games interleaved
    mixed += [_line(d) for d in (a[len(b):] if len(a) > len(b) else b[len(a):])]
    broken = _line(games[2][5])[:30] + b"\n"  # a line cut short: its game is invalid
    rest = [_line(d) for g in games[3:] for d in g]
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_bytes(b"".join([*mixed[:40], b"not an event\n", *mixed[40:]]))
    two.write_bytes(b"".join([_line(d) for d in games[2][:5]] + [broken]
                             + [_line(d) for d in games[2][6:]] + rest))
    r = same(cluster, "check", str(one), str(two))
    assert r.returncode == 2 and r.stdout.count("\n") > len(games)
    r = same(cluster, "check", str(one), str(two), "--json")
    assert len(r.stdout.splitlines()) == len(games) + 1  # each game, and the line of none
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(b"".join(_line(d) for g in games[3:] for d in g))
    assert same(cluster, "check", str(clean)).returncode == 1  # revokes in the corpus
    few = tmp_path / "few.jsonl"
    few.write_bytes(b"".join(_line(d) for g in games[3:6] for d in g))
    r = same(cluster, "analyze", str(few), "--round", "1")
    assert r.returncode == 0 and r.stdout.count("with par") == 3
    r = same(cluster, "analyze", str(few), "--round", "2", "--json", "-o", "pit_bonus=50")
    assert [orjson.loads(x)["what_if"] for x in r.stdout.splitlines()]
    r = same(cluster, "analyze", str(one), "--round", "1")  # stops at the line of no game
    assert r.returncode == 2 and "jaslog:" in r.stderr


@pytest.mark.soak
def test_a_store_is_checked_and_analysed_on_the_cluster_as_here(
        store_url: str, games: list[list[dict[str, Any]]], cluster: str) -> None:
    from jaslog.store import open_store

    with open_store(store_url) as store:
        for g in games:
            archive(store, g)
    db = ("--db", store_url)
    r = same(cluster, "check", "store:", *db)
    assert r.returncode == 1 and r.stdout.count("\n") > len(games)
    r = same(cluster, "check", "store:", "store:t-ruled", *db, "--json")
    assert len(r.stdout.splitlines()) == len(games) + 1
    r = same(cluster, "check", "store:t-ruled", "store:no-such-game", *db)
    assert r.returncode == 2 and "no-such-game" in r.stderr and "Traceback" not in r.stderr
    r = same(cluster, "analyze", "t-ruled", "--round", "2", *db)
    assert r.returncode == 0 and r.stdout.startswith("t-ruled (amsterdam): 1 round")
    r = same(cluster, "analyze", "store:", "--game", "t-ruled", "--round", "3", "--json", *db)
    assert orjson.loads(r.stdout)["game"] == "t-ruled"
    r = same(cluster, "analyze", "no-such-game", *db)
    assert r.returncode == 2 and "no-such-game" in r.stderr


def _closed_port() -> int:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_no_scheduler_at_the_address_is_said_in_a_sentence(
        tmp_path: Path, games: list[list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
        ) -> None:
    from jaslog.batch import cluster as on_cluster

    monkeypatch.setattr(on_cluster, "CONNECT_SECONDS", 1)
    log = tmp_path / "games.jsonl"
    log.write_bytes(b"".join(_line(d) for d in games[0]))
    address = f"tcp://127.0.0.1:{_closed_port()}"
    for command in ("check", "analyze"):
        r = jaslog(command, str(log), "--cluster", address, text=True)
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr.startswith(f"jaslog: no Dask scheduler answers at {address} within 1 s")
        assert r.stderr.count("\n") == 1


@contextlib.contextmanager
def _not_a_scheduler(answer: bytes | None, hold: float = 20.0) -> Iterator[str]:
    """A TCP server on a free port that is not a Dask scheduler: it answers each connection
    with ``answer`` (None: it says nothing) and closes it after ``hold`` seconds (so that a
    client that waits for ever waits that long, not for ever). Yields its address."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    done = threading.Event()

    def serve() -> None:
        held: list[tuple[float, socket.socket]] = []
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                conn, _ = server.accept()
                if answer is not None:
                    with contextlib.suppress(OSError):
                        conn.sendall(answer)
                held.append((time.monotonic() + hold, conn))
            for c in [c for t, c in held if t < time.monotonic()]:
                c.close()
            held = [(t, c) for t, c in held if t >= time.monotonic()]
        for _, c in held:
            c.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        done.set()
        thread.join()
        server.close()


@pytest.mark.parametrize(("answer", "said"), [
    (None, "no Dask scheduler answers at {address} within 1 s (it took the connection and "
           "said nothing)"),
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" * 2,
     "what answers at {address} is not a Dask scheduler: its answer is not Dask's handshake"),
], ids=["silent", "http"])
def test_a_port_that_is_not_a_scheduler_is_said_in_a_sentence_in_time(
        tmp_path: Path, games: list[list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
        answer: bytes | None, said: str) -> None:
    """A server that takes the connection and says nothing, or answers in another protocol:
    within the connect timeout, one sentence, exit 2 (for export as for check)."""
    from jaslog.batch import cluster as on_cluster

    monkeypatch.setattr(on_cluster, "CONNECT_SECONDS", 1)
    log = tmp_path / "games.jsonl"
    log.write_bytes(b"".join(_line(d) for d in games[0]))
    with _not_a_scheduler(answer) as address:
        for args in (["check", str(log)],
                     ["export", str(tmp_path / "ds"), "--from", str(log)]):
            start = time.monotonic()
            r = jaslog(*args, "--cluster", address, text=True)
            assert time.monotonic() - start < 10, args
            assert r.returncode == 2 and r.stdout == "", (args, r.stdout)
            assert r.stderr.startswith("jaslog: " + said.format(address=address)), r.stderr
            assert r.stderr.count("\n") == 1, r.stderr


def test_a_what_if_check_is_not_sent_to_a_cluster(tmp_path: Path) -> None:
    r = jaslog("check", str(tmp_path / "none.jsonl"), "--as", "rotterdam", "--cluster",
               "tcp://127.0.0.1:1", text=True)
    assert r.returncode == 2
    assert "--cluster checks games as recorded: run a what-if (--as, -o) without it" in r.stderr
