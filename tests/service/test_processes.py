"""More than one process over one store, as real processes: two ``jaslog serve`` on two ports
over one SQLite file and over one PostgreSQL database (appends through both, one game's
stream watched in the other, a race on one game), and ``jaslog serve --workers 2``."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from jaslog.service.auth import Tokens
from jaslog.service.db import service_engine
from jaslog.store import open_store
from tests.service.conftest import JASLOG, ROOT, body_of, create, free_port, sim, stop_server
from tests.store.conftest import pg_server, pg_url  # noqa: F401  (a real PostgreSQL)

#: Many real processes: in `make soak`.
pytestmark = pytest.mark.soak

#: How long after an append in one process its event may take, at the median, to reach a
#: stream in another (the streams' own fallback looks every second: this is well under it).
PROMPT_S = 0.4


def serve(db: str, log: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """``jaslog serve`` on the store ``db`` on a free port, once it answers."""
    port = free_port()
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [*JASLOG, "serve", "--db", db, "--port", str(port), "--log-level", "warning",
             *extra], stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(url + "/openapi.json", timeout=2).status_code == 200:
                return proc, url
        except httpx.TransportError:
            time.sleep(0.1)
    stop_server(proc)
    raise AssertionError(f"the server did not start:\n{log.read_text()[-3000:]}")


def admin_token(db: str) -> str:
    open_store(db).close()
    tokens = Tokens(service_engine(db))
    try:
        return tokens.create("admin", label="tests")[0]
    finally:
        tokens.engine.dispose()


class Watcher:
    """A stream read on a thread (``path``: a game's, from seq 0, or the feed of every game,
    from pos 0): the seq of each of ``game``'s events and when it came."""

    def __init__(self, url: str, token: str, game: str, path: str,
                 params: dict[str, int]) -> None:
        self.game = game
        self.seen: list[tuple[int, float]] = []
        #: the stream's own port (of the connection it is read on)
        self.port = 0
        self.ready = threading.Event()
        self._stop = False
        self._t = threading.Thread(target=self._read, args=(url, token, path, params),
                                   daemon=True)
        self._t.start()
        assert self.ready.wait(30), "the stream did not open"

    def _read(self, url: str, token: str, path: str, params: dict[str, int]) -> None:
        with httpx.Client(base_url=url, timeout=60) as c, c.stream(
                "GET", path, params=params, headers={"Authorization": f"Bearer {token}"}) as s:
            assert s.status_code == 200
            self.port = client_port(s)
            self.ready.set()
            for line in s.iter_lines():
                if self._stop:
                    return
                if line.startswith("data:"):
                    e = orjson.loads(line[5:])
                    if e.get("game", self.game) == self.game:
                        self.seen.append((e["seq"], time.monotonic()))

    def wait_for(self, seq: int, timeout: float = 20) -> float:
        """When the event ``seq`` came."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for s, at in self.seen:
                if s == seq:
                    return at
            time.sleep(0.005)
        raise AssertionError(f"seq {seq} never came; came: {[s for s, _ in self.seen]}")

    def close(self) -> None:
        self._stop = True


@pytest.fixture
def two_on_sqlite(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    yield from two_servers(str(tmp_path / "one.sqlite"), tmp_path)


@pytest.fixture
def two_on_postgres(pg_url: str, tmp_path: Path) -> Iterator[tuple[str, str, str]]:  # noqa: F811
    yield from two_servers(pg_url, tmp_path)


def two_servers(db: str, tmp: Path) -> Iterator[tuple[str, str, str]]:
    """Two ``jaslog serve`` over the one store ``db``: their URLs and an admin token."""
    token = admin_token(db)
    a, url_a = serve(db, tmp / "a.log")
    try:
        b, url_b = serve(db, tmp / "b.log")
        try:
            yield url_a, url_b, token
        finally:
            stop_server(b)
    finally:
        stop_server(a)


def appends_through_both_seen_in_one_stream(url_a: str, url_b: str, token: str) -> None:
    events = sim("both", 1)[:16]
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url_a, headers=headers, timeout=30) as a, \
            httpx.Client(base_url=url_b, headers=headers, timeout=30) as b:
        assert create(a, "both", events[0]).status_code == 201
        # in B: the game's stream, and the feed of every game
        watchers = [Watcher(url_b, token, "both", "/api/games/both/stream", {"since": 0}),
                    Watcher(url_b, token, "both", "/api/stream", {"after": 0})]
        try:
            for w in watchers:
                w.wait_for(0)
            late: list[list[float]] = [[], []]
            for e in events[1:]:
                through = a if e["seq"] % 2 else b  # odd seqs through A, even through B
                sent = time.monotonic()
                r = through.post("/api/games/both/events",
                                 json={"expected_seq": e["seq"], "events": body_of([e])})
                assert r.status_code == 200, r.text
                for w, lag in zip(watchers, late, strict=True):
                    came = w.wait_for(e["seq"])
                    if through is a:  # made in the other process than the streams'
                        lag.append(came - sent)
            time.sleep(0.3)  # nothing more comes: every event once
            for w, lag in zip(watchers, late, strict=True):
                assert [s for s, _ in w.seen] == list(range(len(events)))
                assert statistics.median(lag) < PROMPT_S, lag
        finally:
            for w in watchers:
                w.close()
        assert a.get("/api/games/both/head").json()["next_seq"] == len(events)


def race(game: str, *sends: tuple[httpx.Client, dict[str, Any]]) -> dict[str, httpx.Response]:
    """Each client's append of its event at ``game``'s seq 1, sent at the same moment; the
    answers by "a", "b", ... ."""
    start = threading.Barrier(len(sends))
    answers: dict[str, httpx.Response] = {}

    def send(name: str, c: httpx.Client, e: dict[str, Any]) -> None:
        start.wait()
        answers[name] = c.post(f"/api/games/{game}/events",
                               json={"expected_seq": 1, "events": body_of([e])})

    threads = [threading.Thread(target=send, args=("ab"[i], c, e))
               for i, (c, e) in enumerate(sends)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def race_gives_one_409(url_a: str, url_b: str, token: str) -> None:
    """Two appends at one game's seq 1 at once, one through each process: one is stored,
    the other is 409 conflict; nothing else is stored, nothing lost."""
    headers = {"Authorization": f"Bearer {token}"}
    for n in range(3):
        game = f"race-{n}"
        one, other = sim(game, 1), sim(game, 2)
        with httpx.Client(base_url=url_a, headers=headers, timeout=30) as a, \
                httpx.Client(base_url=url_b, headers=headers, timeout=30) as b:
            assert create(a, game, one[0]).status_code == 201
            answers = race(game, (a, one[1]), (b, other[1]))
            codes = sorted(r.status_code for r in answers.values())
            assert codes == [200, 409], {k: r.text for k, r in answers.items()}
            lost = next(r for r in answers.values() if r.status_code == 409).json()
            assert (lost["code"], lost["expected"], lost["actual"]) == ("conflict", 1, 2)
            won = "a" if answers["a"].status_code == 200 else "b"
            stored = b.get(f"/api/games/{game}/events").json()["events"]
            assert len(stored) == 2
            assert stored[1]["hands"] == (one if won == "a" else other)[1]["hands"]


def test_two_processes_over_one_sqlite_store(two_on_sqlite: tuple[str, str, str]) -> None:
    appends_through_both_seen_in_one_stream(*two_on_sqlite)
    race_gives_one_409(*two_on_sqlite)


def test_two_processes_over_one_postgresql_store(
        two_on_postgres: tuple[str, str, str]) -> None:
    appends_through_both_seen_in_one_stream(*two_on_postgres)
    race_gives_one_409(*two_on_postgres)


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that run jaslog (not multiprocessing's own helpers)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"spawn_main" in cmd:
                found.append(int(child))
    return found


@pytest.mark.soak  # three processes started: some 10 s on a quiet machine
def test_serve_workers_runs_n_processes_and_stops_them_all(tmp_path: Path) -> None:
    db = str(tmp_path / "w.sqlite")
    token = admin_token(db)
    proc, url = serve(db, tmp_path / "w.log", "--workers", "2")
    try:
        deadline = time.monotonic() + 30
        while len(kids := children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(kids) == 2, kids
        events = sim("w", 1)[:5]
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"},
                          timeout=30) as c:
            assert create(c, "w", events[0]).status_code == 201
            for e in events[1:]:  # each request a new connection: either process answers
                r = httpx.post(f"{url}/api/games/w/events", timeout=30,
                               headers={"Authorization": f"Bearer {token}"},
                               json={"expected_seq": e["seq"], "events": body_of([e])})
                assert r.status_code == 200, r.text
            assert c.get("/api/games/w/head").json()["next_seq"] == 5
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
        for k in kids:
            assert not Path(f"/proc/{k}").exists() or \
                Path(f"/proc/{k}/stat").read_text().split()[2] == "Z", f"worker {k} lives on"
    finally:
        stop_server(proc)


def client_port(r: httpx.Response) -> int:
    """The client's port of the connection ``r`` came on."""
    return int(r.extensions["network_stream"].get_extra_info("client_addr")[1])


def answering(pids: list[int], server_port: int, port: int) -> int:
    """Which of the processes ``pids`` holds the server's end of the connection from the
    client's ``port`` to ``server_port`` (read from /proc: the socket's inode, then whose
    file it is)."""
    local, remote = f"0100007F:{server_port:04X}", f"0100007F:{port:04X}"
    inodes = {line.split()[9] for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
              if line.split()[1:3] == [local, remote]}
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                return pid
    raise AssertionError(f"no process of {pids} holds the connection from port {port}")


@pytest.mark.soak  # three processes started: some 10 s on a quiet machine
def test_serve_workers_over_sqlite_append_through_the_one_writer(tmp_path: Path) -> None:
    """``jaslog serve --workers 2`` over SQLite: appends through both workers (each
    connection's worker found from /proc), one game's stream watched in one of them sees
    every event once, those appended through the other within :data:`PROMPT_S` at the
    median; a race on one game through both is one 200 and one 409."""
    db = str(tmp_path / "w.sqlite")
    token = admin_token(db)
    proc, url = serve(db, tmp_path / "w.log", "--workers", "2")
    headers = {"Authorization": f"Bearer {token}"}
    server_port = int(url.rsplit(":", 1)[1])
    clients: list[httpx.Client] = []
    try:
        deadline = time.monotonic() + 30
        while len(kids := children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(kids) == 2, kids
        events = sim("both", 1)[:16]
        with httpx.Client(base_url=url, headers=headers, timeout=30) as c:
            assert create(c, "both", events[0]).status_code == 201
        watcher = Watcher(url, token, "both", "/api/games/both/stream", {"since": 0})
        watched = answering(kids, server_port, watcher.port)
        by_worker: dict[int, httpx.Client] = {}
        while len(by_worker) < 2 and time.monotonic() < deadline + 30:
            c = httpx.Client(base_url=url, headers=headers, timeout=30)
            clients.append(c)
            r = c.get("/api/games/both/head")
            assert r.status_code == 200, r.text
            by_worker.setdefault(answering(kids, server_port, client_port(r)), c)
        assert sorted(by_worker) == sorted(kids)
        other = next(k for k in kids if k != watched)
        try:
            watcher.wait_for(0)
            lag: list[float] = []
            for e in events[1:]:
                through = other if e["seq"] % 2 else watched
                sent = time.monotonic()
                r = by_worker[through].post("/api/games/both/events",
                                            json={"expected_seq": e["seq"],
                                                  "events": body_of([e])})
                assert r.status_code == 200, r.text
                came = watcher.wait_for(e["seq"])
                if through == other:
                    lag.append(came - sent)
            time.sleep(0.3)  # nothing more comes: every event once
            assert [s for s, _ in watcher.seen] == list(range(len(events)))
            assert statistics.median(lag) < PROMPT_S, lag
        finally:
            watcher.close()
        one, two = sim("race-w", 1), sim("race-w", 2)
        assert create(by_worker[other], "race-w", one[0]).status_code == 201
        answers = race("race-w", (by_worker[other], one[1]), (by_worker[watched], two[1]))
        assert sorted(r.status_code for r in answers.values()) == [200, 409]
        assert by_worker[watched].get("/api/games/both/head").json()["next_seq"] == 16
    finally:
        for c in clients:
            c.close()
        stop_server(proc)


def test_serve_workers_below_one_is_a_sentence(tmp_path: Path) -> None:
    r = subprocess.run([*JASLOG, "serve", "--db", str(tmp_path / "s.sqlite"), "--workers", "0",
                        "--port", str(free_port())], capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    assert r.returncode == 2
    assert "--workers 0: at least 1 process answers" in r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_serve_workers_on_a_busy_port_is_a_sentence(tmp_path: Path) -> None:
    """A port another server holds is refused before any worker starts, as with one."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        r = subprocess.run([*JASLOG, "serve", "--db", str(tmp_path / "s.sqlite"), "--workers",
                            "2", "--port", str(port)], capture_output=True, text=True, cwd=ROOT,
                           timeout=60)
    said = r.stdout + r.stderr
    assert r.returncode == 2, said
    assert f"cannot listen on 127.0.0.1:{port}: another server is listening there" in said
    assert "Traceback" not in said


def test_a_serving_process_keeps_what_it_loaded_out_of_the_collectors_sight(
        tmp_path: Path) -> None:
    """What a serving process loaded at start is frozen out of the cyclic collector (a full
    collection then walks only what the service made since: the games it holds), and its
    young collections are rarer than Python's default."""
    import gc

    from jaslog.service.processes import GC_THRESHOLDS, serving_app

    before = gc.get_threshold()
    try:
        gc.unfreeze()
        app = serving_app(str(tmp_path / "gc.sqlite"), dataset=tmp_path / "parquet",
                          auth_failures=20, solve_nodes=1000, solve_seconds=1.0,
                          solves_per_minute=30)
        assert gc.get_threshold() == GC_THRESHOLDS != before
        assert gc.get_freeze_count() > 10_000  # the modules, the app and its routes
        app.state.service.close()
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
