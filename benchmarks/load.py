"""The service under load: many clients appending to many live games, and a reader beside
them (``make load``; ``python -m benchmarks.load --help``). It prints figures; it is not a
test and asserts nothing.

A fresh store (SQLite by default, ``--db URL`` for PostgreSQL) gets ``--games`` live games
(each begun with its ``game_started``), then ``jaslog serve`` runs on it in its own process
and ``--clients`` threads append the games' simulated events one at a time over HTTP, each
client to its own games in turn: one append to each game first (not timed: the service folds
every game once), then for ``--seconds``. Beside them one reader, a process of its own (the
clients' threads do not hold its Python lock), asks ``GET /api/whoami`` and a game's state
over and over: its latency says whether reads wait behind writes. Printed: appends/s, the
append latency (p50, p99, max), the reads' latency, errors by status, and the machine's load
average while it ran (the clients share the machine with the server: on two cores they take
about half of it).

Two baselines, run in the same run after the service (``--baselines``, or each alone with
``--runs``), say where the time goes:

* the HTTP floor (``http-floor``): the same clients, requests and bodies against a bare ASGI
  app (:mod:`benchmarks.http_floor`: the append route, nothing behind it) served by uvicorn
  as ``jaslog serve`` serves the service, with as many processes (``--workers``): the most a
  Python HTTP front end gives on this machine;
* the writer alone (``writer-alone``): the same events to the same fresh games, ``--clients``
  threads calling the service's append path in process (:meth:`Service.submit`, the future
  :meth:`Service.append_soon` awaits, waited for), no HTTP: what the group-commit writer
  itself takes, and the mean size of its groups.

An online room (``online-room``): ``--tables`` online games (rule book 9.3) of two deals,
each played by four bot clients from their seat tokens, the move clock on (``--clock``
seconds a move, default 30), the service dealing and timing every round. A bot plays as the
seat's page does: it waits for its turn on ``GET /turn?wait=`` (a long poll), thinks about
``--think`` seconds, then sends its nonce, the first call ``turn.calls`` offers or its
first legal card. The bots are threads, spread over ``--client-processes`` processes.
Printed: the moves a second, their latency (p50, p99), the timeouts the move clock recorded
and of them those the server caused (:func:`server_timeouts`: the seat's client had sent its
move for that wait, or its move was refused ``too_late``), the server's CPU per move.

Each is printed with its ratio to the service, and the CPU time it used per append (the
server's process, and the load script's own: the clients). The clients are threads of one
process, which one Python lock caps; ``--client-processes N`` spreads the HTTP clients over
N forked processes. ``--workers N`` serves with ``jaslog serve --workers N``: N processes
over the one store (over SQLite, the serving process their one writer); the server's CPU is
then theirs and their supervisor's, summed. The HTTP floor is served by as many processes.
With the service and the floor in one run, the service's figures over the floor's are
``ratio_to_floor`` (appends/s, p50, p99, server CPU per append; in ``--json`` beside the
service's own keys). The floor answers no reads; the service answers the reader's beside its
appends, so once the appends stop the same reads are asked again, one after another, and the
server's CPU for them is reported apart (``cpu_ms_per_append.reads_beside``) and taken out
of its CPU per append (``server_without_reads``, and its ratio to the floor's).
``--db postgresql://...`` runs on that server (the writer alone in a fresh database of its
own there); ``--profile OUT`` serves under cProfile.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx

from jaslog.play.sim import simulate_game
from jaslog.service.core import Service
from jaslog.store import open_store

#: What the load script can run: the service, and the baselines beside it.
RUNS = ("service", "http-floor", "writer-alone", "online-room")

#: A client's append: (game, event, expected seq) -> "200" when stored, else what went wrong.
Append = Callable[[str, dict[str, Any], int], str]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def _cpu_of(pid: int) -> float | None:
    """CPU seconds (user + system) process ``pid`` and the processes it started (``jaslog
    serve --workers N``'s workers) have used, or None where /proc is not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids = (task / "children").read_text().split()
        except OSError:
            continue
        for kid in kids:
            total += _cpu_of(int(kid)) or 0.0
    return total


def _postmaster_cpu(url: str | None) -> Callable[[], float | None] | None:
    """For a PostgreSQL store on this machine: a reading of the CPU seconds its server has
    used (the postmaster, its backends and background processes, the backends gone since
    too), else None (SQLite, or a server whose processes are not to be seen here)."""
    if not url or not url.startswith("postgres"):
        return None
    import psycopg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        with psycopg.connect(dsn) as c:  # (its backend's parent: read while it runs)
            row = c.execute("SELECT pg_backend_pid()").fetchone()
            status = Path(f"/proc/{int(row[0]) if row else 0}/status").read_text()
    except (psycopg.Error, OSError):
        return None
    postmaster = int(next(line.split()[1] for line in status.splitlines()
                          if line.startswith("PPid:")))

    def read() -> float | None:
        own = _cpu_of(postmaster)
        try:  # the backends that ended, waited for by the postmaster
            fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        ended = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
        return None if own is None else own + ended

    return read if read() is not None else None


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def prepare(url: str, games: int) -> tuple[dict[str, list[dict[str, Any]]], str]:
    """``games`` simulated games, each begun in the store; and an admin token."""
    logs = {}
    with open_store(url) as store:
        for i in range(games):
            gid = f"load-{i:05d}"
            evs = simulate_game(gid, "amsterdam", seed=i)
            store.append(gid, evs[:1])
            logs[gid] = [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in evs]
    svc = Service(url)
    try:
        token = svc.tokens.create("admin")[0]
    finally:
        svc.close()
    return logs, token


def simulated(games: int) -> dict[str, list[dict[str, Any]]]:
    """The same games' events as :func:`prepare`'s, without a store (for the HTTP floor)."""
    return {f"load-{i:05d}": [{k: v for k, v in e.items() if k not in ("game", "seq")}
                              for e in simulate_game(f"load-{i:05d}", "amsterdam", seed=i)]
            for i in range(games)}


class _Window:
    """The timed window the clients share: they warm up, wait for each other at ``warm``,
    append until ``stop``. ``shared``: across processes (forked) too."""

    def __init__(self, parties: int, shared: bool = False) -> None:
        self.warm: Any
        self._stop: Any
        if shared:
            ctx = multiprocessing.get_context("fork")
            self.warm, self._stop = ctx.Barrier(parties), ctx.Value("d", float("inf"), lock=False)
        else:
            self.warm, self._stop = threading.Barrier(parties), SimpleNamespace(value=float("inf"))

    def close_at(self, t: float) -> None:
        self._stop.value = t

    def open(self) -> bool:  # time.monotonic is the system's: the same in every process
        return time.monotonic() < float(self._stop.value)


def _clients(logs: dict[str, list[dict[str, Any]]], mine: list[list[str]],
             connect: Callable[[int], AbstractContextManager[Append]], window: _Window
             ) -> tuple[list[float], Counter[str], list[threading.Thread]]:
    """One thread per list of games in ``mine``, started: each appends its games' events one
    at a time, in turn, through its own ``connect``: the first append to each game not timed,
    then until the window closes. The latencies and errors are filled in as they go."""
    next_seq = {gid: 1 for games in mine for gid in games}
    lat: list[float] = []
    errors: Counter[str] = Counter()
    lock = threading.Lock()

    def client(k: int, games: list[str]) -> None:
        with connect(k) as append:
            for gid in games:  # warming up, not timed: each game's first append
                if append(gid, logs[gid][1], 1) == "200":
                    next_seq[gid] = 2
            window.warm.wait()
            i = 0
            while window.open() and games:
                gid = games[i % len(games)]
                i += 1
                seq = next_seq[gid]
                if seq >= len(logs[gid]):
                    continue
                t = time.perf_counter()
                status = append(gid, logs[gid][seq], seq)
                dt = time.perf_counter() - t
                with lock:
                    if status == "200":
                        lat.append(dt)
                        next_seq[gid] = seq + 1
                    else:
                        errors[status] += 1

    threads = [threading.Thread(target=client, args=(k, games)) for k, games in enumerate(mine)]
    for t in threads:
        t.start()
    return lat, errors, threads


def _client_process(logs: dict[str, list[dict[str, Any]]], mine: list[list[str]],
                    connect: Callable[[int], AbstractContextManager[Append]], window: _Window,
                    out: Any) -> None:
    """A forked process of client threads: its latencies, errors and CPU seconds in the
    window, put to ``out``."""
    lat, errors, threads = _clients(logs, mine, connect, window)
    window.warm.wait()
    cpu = _own_cpu()
    for t in threads:
        t.join()
    out.put((lat, dict(errors), _own_cpu() - cpu))


def _drive(logs: dict[str, list[dict[str, Any]]], clients: int, seconds: float,
           connect: Callable[[int], AbstractContextManager[Append]],
           beside: Sequence[Callable[[_Window], None]] = (),
           server_pid: int | None = None,
           at_start: Callable[[], None] | None = None, processes: int = 1,
           database_cpu: Callable[[], float | None] | None = None) -> dict[str, Any]:
    """``clients`` threads appending ``logs``' events one at a time, each to its own games in
    turn, through the append ``connect(k)`` gives client ``k``: the first append to each
    game not timed, then ``seconds`` of them. ``beside``: more threads in the same window;
    ``at_start``: called as the timed window opens. ``processes`` > 1: the client threads
    are spread over that many forked processes (each with a Python lock of its own).
    ``database_cpu``: a reading of the database server's CPU seconds
    (:func:`_postmaster_cpu`), reported per append beside the server's."""
    ids = list(logs)
    mine = [ids[k::clients] for k in range(clients)]
    if processes <= 1:
        window = _Window(clients + len(beside) + 1)  # the clients, the threads beside, this one
        lat, errors, threads = _clients(logs, mine, connect, window)
        children: list[Any] = []
    else:
        window = _Window(clients + len(beside) + processes + 1, shared=True)
        ctx = multiprocessing.get_context("fork")
        results = ctx.Queue()
        children = [ctx.Process(target=_client_process,
                                args=(logs, mine[j::processes], connect, window, results))
                    for j in range(processes)]
        for c in children:
            c.start()
        lat, errors, threads = [], Counter(), []
    threads += [threading.Thread(target=f, args=(window,)) for f in beside]
    for t in threads[len(threads) - len(beside):]:
        t.start()
    window.warm.wait()  # every game has had an append: the service has folded each once
    load_before = os.getloadavg()
    cpu_server = _cpu_of(server_pid) if server_pid is not None else None
    cpu_own = _own_cpu()
    cpu_db = database_cpu() if database_cpu is not None else None
    if at_start is not None:
        at_start()
    t0 = time.monotonic()
    window.close_at(t0 + seconds)
    cpu_children = 0.0
    for _ in children:
        their_lat, their_errors, their_cpu = results.get()
        lat += their_lat
        errors.update(their_errors)
        cpu_children += their_cpu
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    for c in children:
        c.join()
    cpu_own = _own_cpu() - cpu_own + cpu_children  # the load script's: its clients' too
    if server_pid is not None and cpu_server is not None:
        after = _cpu_of(server_pid)
        cpu_server = None if after is None else after - cpu_server
    if database_cpu is not None and cpu_db is not None:
        db_after = database_cpu()
        cpu_db = None if db_after is None else db_after - cpu_db
    n = len(lat)
    return {
        "clients": clients, "client_processes": max(1, processes), "seconds": round(took, 1), "appends": n,
        "appends_per_s": round(n / took, 1),
        "append_ms": {"p50": round(_pct(lat, 50) * 1000, 1), "p99": round(_pct(lat, 99) * 1000, 1),
                      "max": round(max(lat, default=0) * 1000, 1),
                      "mean": round(statistics.fmean(lat) * 1000, 1) if lat else None},
        "errors": dict(errors),
        "load_average": {"before": [round(x, 2) for x in load_before],
                         "after": [round(x, 2) for x in os.getloadavg()]},
        "cpu_ms_per_append": {
            "server": round(cpu_server * 1000 / n, 3) if cpu_server is not None and n else None,
            "load_script": round(cpu_own * 1000 / n, 3) if n else None,
            "database": round(cpu_db * 1000 / n, 3) if cpu_db is not None and n else None},
        "cpus": os.cpu_count(),
    }


def _http_appends(base: str, headers: dict[str, str]
                  ) -> Callable[[int], AbstractContextManager[Append]]:
    """Each client's append over HTTP: its own ``httpx.Client`` (one kept-alive connection)."""

    @contextmanager
    def connect(k: int) -> Iterator[Append]:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as c:
            def append(gid: str, event: dict[str, Any], seq: int) -> str:
                r = c.post(f"/api/games/{gid}/events", json={"events": [event], "expected_seq": seq})
                return str(r.status_code)
            yield append

    return connect


@contextmanager
def _serving(cmd: list[str], url: str | None, headers: dict[str, str]
             ) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``cmd`` (a server taking ``--port``) run in its own process until it answers
    ``GET /api/whoami``; its base URL and process."""
    port = _free_port()
    env = {**os.environ, **({"JASLOG_DB": url} if url else {})}
    server = subprocess.Popen([*cmd, "--port", str(port), "--log-level", "warning"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/api/whoami", headers=headers, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start: {server.stderr.read().decode()[-800:]}"
                                 if server.stderr else "the server did not start")
            time.sleep(0.2)
        yield base, server
    finally:
        server.terminate()
        server.wait(20)


def _reader(base: str, headers: dict[str, str], ids: list[str], stop: Any, out: Any) -> None:
    """The reader beside the appends, in a process of its own (forked: the clients' threads
    do not hold its Python lock): ``GET /api/whoami`` and a game's state in turn, 20 a
    second, until ``stop``; each read's start (monotonic, the same clock in every process)
    and latency put to ``out``."""
    reads: list[tuple[float, float]] = []
    with httpx.Client(base_url=base, headers=headers, timeout=60) as c:
        n = 0
        while not stop.is_set():
            path = "/api/whoami" if n % 2 == 0 else f"/api/games/{ids[n % len(ids)]}/state"
            n += 1
            at, t = time.monotonic(), time.perf_counter()
            c.get(path)
            reads.append((at, time.perf_counter() - t))
            time.sleep(0.05)
    out.put(reads)


def _reads_cpu(base: str, headers: dict[str, str], ids: list[str], reads: int,
               server_pid: int) -> float | None:
    """The server's CPU seconds for ``reads`` reads as :func:`_reader` asks them (``GET
    /api/whoami`` and a game's state in turn, the same games in the same order), asked one
    after another once the appends have stopped: what the reads beside the appends cost
    the server, measured apart (each game read has moved since the service last folded it
    for a read, as in the window). None where /proc is not."""
    if reads <= 0:
        return 0.0
    before = _cpu_of(server_pid)
    with httpx.Client(base_url=base, headers=headers, timeout=60) as c:
        for n in range(reads):
            c.get("/api/whoami" if n % 2 == 0 else f"/api/games/{ids[n % len(ids)]}/state")
    after = _cpu_of(server_pid)
    return None if before is None or after is None else after - before


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The service under load (``jaslog serve`` in its own process) and a reader beside."""
    tmp = Path(tempfile.mkdtemp(prefix="jaslog-load-"))
    url = args.db or f"sqlite:///{tmp / 'load.sqlite'}"
    logs, token = prepare(url, args.games)
    headers = {"Authorization": f"Bearer {token}"}
    ids = list(logs)
    serve = [sys.executable, "-m", "benchmarks.profiled_serve", args.profile] \
        if args.profile else [sys.executable, "-m", "jaslog"]
    with _serving([*serve, "serve", "--db", url, "--workers", str(args.workers)], url,
                  headers) as (base, server):
        ctx = multiprocessing.get_context("fork")
        stop, got = ctx.Event(), ctx.Queue()
        reader = ctx.Process(target=_reader, args=(base, headers, ids, stop, got))
        reader.start()
        began: list[float] = []
        try:
            out = _drive(logs, args.clients, args.seconds, _http_appends(base, headers),
                         server_pid=server.pid, processes=args.client_processes,
                         at_start=lambda: began.append(time.monotonic()),
                         database_cpu=_postmaster_cpu(url))
        finally:
            stop.set()
            timed = got.get(timeout=120)
            reader.join(30)
        # the reads of the timed window only (the reader began before it)
        reads = [took for at, took in timed
                 if began and began[0] <= at <= began[0] + out["seconds"]]
        # the floor answers no reads: the server's CPU for them, measured apart, is also
        # taken out of its CPU per append (the figure the floor's is compared with)
        read_cpu = _reads_cpu(base, headers, ids, len(reads), server.pid)
    cpu = out["cpu_ms_per_append"]
    cpu["reads_beside"] = round(read_cpu * 1000 / out["appends"], 3) \
        if read_cpu is not None and out["appends"] else None
    cpu["server_without_reads"] = round(cpu["server"] - cpu["reads_beside"], 3) \
        if cpu["server"] is not None and cpu["reads_beside"] is not None else None
    return {
        "store": url.split(":", 1)[0], "games": args.games, "workers": args.workers, **out,
        "read_ms": {"p50": round(_pct(reads, 50) * 1000, 1), "p99": round(_pct(reads, 99) * 1000, 1),
                    "max": round(max(reads, default=0) * 1000, 1), "reads": len(reads)},
    }


def run_http_floor(args: argparse.Namespace) -> dict[str, Any]:
    """The same clients and bodies against :mod:`benchmarks.http_floor` (no store), served by
    as many processes as the service (``--workers``)."""
    logs = simulated(args.games)
    headers = {"Authorization": "Bearer load-floor"}
    with _serving([sys.executable, "-m", "benchmarks.http_floor", "--workers", str(args.workers)],
                  None, headers) as (base, server):
        return _drive(logs, args.clients, args.seconds, _http_appends(base, headers),
                      server_pid=server.pid, processes=args.client_processes)


class _CountedService(Service):
    """The service, counting the appends of each group its writer commits."""

    groups: list[int]
    counting = False

    def _group_results(self, group: list[Any], more: bool = False) -> list[Any]:
        results = super()._group_results(group, more)
        if self.counting:  # (the group as written: with those that joined it as it began)
            self.groups.append(len(group))
        return results


@contextmanager
def _fresh_store(db: str | None, tag: str) -> Iterator[str]:
    """A fresh store's URL: a new SQLite file, or (``db`` a PostgreSQL URL) a new database on
    the same server, dropped afterwards."""
    if not db or not db.startswith("postgresql"):
        yield f"sqlite:///{Path(tempfile.mkdtemp(prefix='jaslog-load-')) / f'{tag}.sqlite'}"
        return
    import psycopg
    from sqlalchemy.engine import make_url

    server = make_url(db)
    admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"jaslog_load_{tag.replace('-', '_')}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def run_writer_alone(args: argparse.Namespace) -> dict[str, Any]:
    """The same appends to a fresh store of the same kind, through the service's append path
    in process (no HTTP): ``--clients`` threads each waiting for its append's answer."""
    with _fresh_store(args.db, "writer") as url:
        logs, _ = prepare(url, args.games)
        svc = _CountedService(url)
        svc.groups = []

        @contextmanager
        def connect(k: int) -> Iterator[Append]:
            def append(gid: str, event: dict[str, Any], seq: int) -> str:
                try:
                    svc.submit(gid, [event], seq).result()
                except Exception as e:
                    return type(e).__name__
                return "200"
            yield append

        def count() -> None:
            svc.counting = True

        try:
            out = _drive(logs, args.clients, args.seconds, connect, at_start=count)
            timed = svc.groups
        finally:
            svc.close()
    out["mean_group"] = round(statistics.fmean(timed), 1) if timed else None
    out["groups"] = len(timed)
    return out


def _seat_bot(base: str, game: str, token: str, seat: int, deadline: float, think: float,
              out: dict[str, Any]) -> None:
    """One seat of an online game played as its page plays it, until the game ends (or the
    deadline): it waits for its turn on ``GET /turn?wait=`` (a long poll: the service
    answers when the seat has something to do), thinks about ``think`` seconds, then sends
    its nonce (a round committed), the first call ``turn.calls`` offers or its first legal
    card. Into ``out``: each move's latency, what each move was sent at (``sent``: game,
    seat, expected seq, answer code) and the errors by status."""
    headers = {"Authorization": f"Bearer {token}"}
    rng = random.Random(f"{game}:{seat}")
    with httpx.Client(base_url=base, headers=headers, timeout=60) as c:
        while time.monotonic() < deadline:
            wait = max(1.0, min(25.0, deadline - time.monotonic()))
            polled = time.perf_counter()
            try:
                t = c.get(f"/api/games/{game}/turn", params={"wait": wait}).json()
            except httpx.HTTPError:
                with out["lock"]:
                    out["errors"]["turn"] = out["errors"].get("turn", 0) + 1
                time.sleep(1)
                continue
            with out["lock"]:  # how long the long poll took, and how long it was asked to
                out["polls"].append((time.perf_counter() - polled, wait))
            if t.get("finished"):
                return
            events: list[dict[str, Any]] = []
            expected: int | None = t["next_seq"]
            if t["expects"] == "deal":  # the long poll answered: the next round's nonce is due
                n = int(t.get("round") or 0) + 1
                events, expected = [{"type": "nonce", "round": n, "seat": seat,
                                     "nonce": f"b{seat}r{n}"}], None
            elif t["turn"] == seat and t.get("calls"):
                events = [t["calls"][0]]
            elif t["turn"] == seat and t["expects"] == "play" and t.get("legal"):
                events = [{"type": "play", "seat": seat, "card": t["legal"][0]}]
            if not events:
                continue  # the long poll ran out: nothing to do yet
            time.sleep(think * rng.uniform(0.5, 1.5))
            start = time.perf_counter()
            try:
                r = c.post(f"/api/games/{game}/events",
                           json={"events": events, **({"expected_seq": expected}
                                                      if expected is not None else {})})
            except httpx.HTTPError as e:  # no answer within a minute: counted, played on
                with out["lock"]:
                    out["sent"].append((game, seat, t["next_seq"], type(e).__name__))
                    out["errors"][type(e).__name__] = out["errors"].get(type(e).__name__, 0) + 1
                continue
            took = time.perf_counter() - start
            code = "" if r.status_code == 200 else str(r.json().get("code", r.status_code))
            with out["lock"]:
                out["sent"].append((game, seat, t["next_seq"], code))
                if r.status_code == 200:
                    out["lat"].append(took)
                else:
                    out["errors"][code] = out["errors"].get(code, 0) + 1


def _seat_bots(base: str, headers: dict[str, str], new_game: dict[str, Any], tables: int,
               deadline: float, think: float, results: Any = None) -> dict[str, Any]:
    """Make ``tables`` online games (``new_game``, with the admin's ``headers``), one by
    one, each table's four seats a thread (:func:`_seat_bot`) started as soon as it is made
    (its first deal waits for their nonces); joined; their games and moves (and, forked,
    put to ``results``)."""
    out: dict[str, Any] = {"lat": [], "sent": [], "polls": [], "errors": {}, "games": [],
                           "lock": threading.Lock()}
    threads = []
    with httpx.Client(base_url=base, headers=headers, timeout=60) as c:
        for _ in range(tables):
            made = c.post("/api/games", json=new_game).json()
            out["games"].append(made["game"])
            for s in made["seat_tokens"]:
                th = threading.Thread(target=_seat_bot, args=(base, made["game"], s["token"],
                                                              s["seat"], deadline, think, out))
                th.start()
                threads.append(th)
    for th in threads:
        th.join()
    del out["lock"]
    if results is not None:
        results.put(out)
    return out


def server_timeouts(events: dict[str, list[dict[str, Any]]],
                    sent: list[tuple[str, int, int, str]]) -> tuple[int, int]:
    """The timeouts the move clock recorded, and of them those the server caused: a timeout
    recorded for a seat whose client had sent its move for that very wait (at the seq the
    timeout took), or a move refused ``too_late``.

    >>> evs = {"g": [{"type": "timeout", "seat": 1, "seq": 9}, {"type": "timeout", "seat": 2,
    ...        "seq": 14}]}
    >>> server_timeouts(evs, [("g", 1, 9, "conflict"), ("g", 3, 20, "too_late")])
    (2, 2)
    """
    timeouts = {(g, int(e["seat"]), int(e["seq"])) for g, evs in events.items() for e in evs
                if e.get("type") == "timeout"}
    caused = {(g, seat, seq) for g, seat, seq, code in sent
              if (g, seat, seq) in timeouts or code == "too_late"}
    return len(timeouts), len(caused)


def run_online_room(args: argparse.Namespace) -> dict[str, Any]:
    """``--tables`` online games, four bot clients each (in ``--client-processes``
    processes), against ``jaslog serve``, the move clock on (``--clock`` seconds a move)."""
    tmp = Path(tempfile.mkdtemp(prefix="jaslog-online-"))
    url = args.db or f"sqlite:///{tmp / 'online.sqlite'}"
    _, token = prepare(url, 0)
    headers = {"Authorization": f"Bearer {token}"}
    # the service's own wait for the nonces (5 s): each table's bots start as soon as it
    # is made, so its first deal waits for them as every later one does
    os.environ.setdefault("JASLOG_NONCE_WAIT", "5")
    serve = [sys.executable, "-m", "benchmarks.profiled_serve", args.profile] \
        if args.profile else [sys.executable, "-m", "jaslog"]
    new_game = {"online": True, "ruleset": "klaverjas-online-501", "clock": args.clock,
                "seats": ["ann", "bob", "cor", "dirk"],
                "options": {"game_end": {"type": "deals", "count": 2}}}
    with _serving([*serve, "serve", "--db", url, "--workers", str(args.workers)], url,
                  headers) as (base, server):
        load_before = os.getloadavg()
        cpu_server = _cpu_of(server.pid)
        began = time.monotonic()
        deadline = began + args.seconds
        processes = max(1, args.client_processes)
        shares = [args.tables // processes + (j < args.tables % processes)
                  for j in range(processes)]
        if processes == 1:
            parts = [_seat_bots(base, headers, new_game, args.tables, deadline, args.think)]
        else:
            ctx = multiprocessing.get_context("fork")
            results = ctx.Queue()
            children = [ctx.Process(target=_seat_bots, args=(base, headers, new_game, shares[j],
                                                             deadline, args.think, results))
                        for j in range(processes)]
            for ch in children:
                ch.start()
            parts = [results.get() for _ in children]
            for ch in children:
                ch.join()
        took = time.monotonic() - began
        after = _cpu_of(server.pid)
        games = [g for p in parts for g in p["games"]]
        with httpx.Client(base_url=base, headers=headers, timeout=60) as c:
            logs = {g: c.get(f"/api/games/{g}/events").json()["events"] for g in games}
    lat = [x for p in parts for x in p["lat"]]
    polls = [x for p in parts for x, _ in p["polls"]]
    over = sum(1 for p in parts for took_s, asked in p["polls"] if took_s > asked + 1.0)
    errors: Counter[str] = Counter()
    for p in parts:
        errors.update(p["errors"])
    timeouts, caused = server_timeouts(logs, [tuple(x) for p in parts for x in p["sent"]])
    finished = sum(1 for evs in logs.values() if any(e["type"] == "deal_revealed" and
                                                      e.get("round") == 2 for e in evs))
    return {"store": url.split(":", 1)[0], "tables": args.tables, "moves": len(lat),
            "clock": args.clock, "think_s": args.think, "client_processes": processes,
            "moves_per_s": round(len(lat) / took, 1) if took else 0.0,
            "move_ms": {"p50": round(_pct(lat, 50) * 1000, 1),
                        "p99": round(_pct(lat, 99) * 1000, 1)},
            "timeouts": timeouts, "server_caused_timeouts": caused,
            "long_poll_s": {"polls": len(polls), "p50": round(_pct(polls, 50), 2),
                            "p99": round(_pct(polls, 99), 2),
                            "max": round(max(polls), 2) if polls else 0.0,
                            "over_asked": over},
            "games_finished": finished,
            "cpu_ms_per_move": round((after - cpu_server) * 1000 / len(lat), 3)
            if after is not None and cpu_server is not None and lat else None,
            "load_average": {"before": [round(x, 2) for x in load_before],
                             "after": [round(x, 2) for x in os.getloadavg()]},
            "seconds": round(took, 1), "errors": dict(errors)}


def ratio_to_floor(service: dict[str, Any], floor: dict[str, Any]) -> dict[str, float | None]:
    """The service's figures over the HTTP floor's (same clients, same workers): appends/s
    (the target: at least 0.7), the appends' p50 and p99 (at most 2), the server's CPU per
    append, and that CPU without the reads beside the appends (the floor answers none).

    >>> ratio_to_floor({"appends_per_s": 70.0, "append_ms": {"p50": 3.0, "p99": 30.0},
    ...                 "cpu_ms_per_append": {"server": 0.6, "server_without_reads": 0.54}},
    ...                {"appends_per_s": 100.0, "append_ms": {"p50": 2.0, "p99": 20.0},
    ...                 "cpu_ms_per_append": {"server": 0.3}})  # doctest: +NORMALIZE_WHITESPACE
    {'appends_per_s': 0.7, 'p50': 1.5, 'p99': 1.5, 'cpu_ms_per_append': 2.0,
     'cpu_ms_per_append_without_reads': 1.8}
    """
    def over(a: float | None, b: float | None) -> float | None:
        return round(a / b, 2) if a is not None and b else None

    return {"appends_per_s": over(service["appends_per_s"], floor["appends_per_s"]),
            "p50": over(service["append_ms"]["p50"], floor["append_ms"]["p50"]),
            "p99": over(service["append_ms"]["p99"], floor["append_ms"]["p99"]),
            "cpu_ms_per_append": over(service["cpu_ms_per_append"]["server"],
                                      floor["cpu_ms_per_append"]["server"]),
            "cpu_ms_per_append_without_reads": over(
                service["cpu_ms_per_append"].get("server_without_reads"),
                floor["cpu_ms_per_append"]["server"])}


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def _print(name: str, out: dict[str, Any], service: dict[str, Any] | None) -> None:
    a, cpu = out["append_ms"], out["cpu_ms_per_append"]
    ratio = f", {_ratio(out['appends_per_s'], service['appends_per_s'])} of the service's" \
        if service is not None and name != "service" else ""
    spread = f" in {out['client_processes']} processes" if out["client_processes"] > 1 else ""
    print(f"{name}: {out['clients']} clients{spread} for {out['seconds']} s{ratio}")
    print(f"  appends  {out['appends_per_s']:>8}/s  p50 {a['p50']} ms  p99 {a['p99']} ms  "
          f"max {a['max']} ms  ({out['appends']} appends)")
    if "mean_group" in out:
        print(f"  groups   {out['groups']} committed, {out['mean_group']} appends each on average")
    used = [f"{who} {ms} ms" for who, ms in (("server", cpu["server"]),
                                             ("load script", cpu["load_script"]))
            if ms is not None]
    print(f"  CPU      per append: {', '.join(used)}")
    print(f"  errors   {out['errors'] or 'none'}")
    print(f"  load average before {out['load_average']['before']}, after "
          f"{out['load_average']['after']} ({out['cpus']} CPUs)")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1000, help="live games (default 1000)")
    p.add_argument("--clients", type=int, default=64, help="appending clients (default 64)")
    p.add_argument("--seconds", type=float, default=20, help="how long to append (default 20)")
    p.add_argument("--db", help="a store URL (default: a fresh SQLite file); the writer alone "
                                "gets a fresh database of its own on the same PostgreSQL server")
    p.add_argument("--client-processes", type=int, default=1, metavar="N",
                   help="spread the HTTP clients over N processes, each with a Python lock of "
                        "its own (default 1: threads of the load script's process)")
    p.add_argument("--runs", default="service",
                   help=f"what to run, comma-separated, in turn: {', '.join(RUNS)} "
                        "(default: service)")
    p.add_argument("--baselines", action="store_true",
                   help="run the service, then the HTTP floor and the writer alone "
                        "(--runs " + ",".join(RUNS) + ")")
    p.add_argument("--tables", type=int, default=8,
                   help="online-room: online games, four bot clients each (default 8)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="the served process's --workers: N processes answer (default 1)")
    p.add_argument("--clock", type=int, default=30,
                   help="online-room: the move clock, seconds a move (default 30)")
    p.add_argument("--think", type=float, default=0.2,
                   help="online-room: a bot's think time before each move, seconds, "
                        "+-50%% (default 0.2)")
    p.add_argument("--profile", metavar="OUT",
                   help="service, online-room: serve under cProfile (every thread) and "
                        "write the merged stats to OUT when the server stops")
    p.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = p.parse_args(argv)
    runs = list(RUNS) if args.baselines else [r.strip() for r in args.runs.split(",") if r.strip()]
    unknown = [r for r in runs if r not in RUNS]
    if unknown or not runs:
        p.error(f"--runs: {', '.join(unknown) or 'nothing'} is not one of {', '.join(RUNS)}")
    results: dict[str, dict[str, Any]] = {}
    for name in runs:
        results[name] = {"service": run, "http-floor": run_http_floor,
                         "writer-alone": run_writer_alone,
                         "online-room": run_online_room}[name](args)
    service = results.get("service")
    if service is not None and "http-floor" in results:
        service["ratio_to_floor"] = ratio_to_floor(service, results["http-floor"])
    if args.json:
        if service is None:
            print(json.dumps({k.replace("-", "_"): v for k, v in results.items()}))
        else:
            print(json.dumps({**service, **{k.replace("-", "_"): v for k, v in results.items()
                                            if k != "service"}}))
        return
    if service is not None:
        out = service
        a, r = out["append_ms"], out["read_ms"]
        spread = f" in {out['client_processes']} processes" if out["client_processes"] > 1 \
            else ""
        workers = f", {out['workers']} serving processes" if out["workers"] > 1 else ""
        print(f"{out['store']}: {out['clients']} clients{spread} over {out['games']} live games "
              f"for {out['seconds']} s{workers}")
        print(f"  appends  {out['appends_per_s']:>8}/s  p50 {a['p50']} ms  p99 {a['p99']} ms  "
              f"max {a['max']} ms  ({out['appends']} appends)")
        print(f"  reads    p50 {r['p50']} ms  p99 {r['p99']} ms  max {r['max']} ms  "
              f"({r['reads']} reads beside the appends)")
        print(f"  errors   {out['errors'] or 'none'}")
        print(f"  load average before {out['load_average']['before']}, after "
              f"{out['load_average']['after']} ({out['cpus']} CPUs)")
        cpu = out["cpu_ms_per_append"]
        if cpu["server"] is not None:
            db = f", PostgreSQL {cpu['database']} ms" if cpu.get("database") is not None else ""
            reads = f" ({cpu['server_without_reads']} ms without the reads beside, which " \
                f"took {cpu['reads_beside']} ms)" if cpu.get("reads_beside") is not None else ""
            print(f"  CPU      per append: server {cpu['server']} ms{reads}, "
                  f"load script {cpu['load_script']} ms{db}")
        if "ratio_to_floor" in out:
            r = out["ratio_to_floor"]
            print(f"  to the HTTP floor: appends/s {r['appends_per_s']}x, p50 {r['p50']}x, "
                  f"p99 {r['p99']}x, server CPU per append {r['cpu_ms_per_append']}x "
                  f"({r['cpu_ms_per_append_without_reads']}x without the reads beside)")
    for name in runs:
        if name == "online-room":
            o = results[name]
            print(f"online room: {o['tables']} tables of four bots (in "
                  f"{o['client_processes']} processes, think {o['think_s']} s, clock "
                  f"{o['clock']} s) for {o['seconds']} s: {o['moves_per_s']} moves/s, p50 "
                  f"{o['move_ms']['p50']} ms, p99 {o['move_ms']['p99']} ms ({o['moves']} "
                  f"moves, {o['games_finished']} games finished)")
            print(f"  timeouts {o['timeouts']}, caused by the server "
                  f"{o['server_caused_timeouts']}; CPU per move: server "
                  f"{o['cpu_ms_per_move']} ms; errors {o['errors'] or 'none'}")
            lp = o["long_poll_s"]
            print(f"  long polls {lp['polls']}: p50 {lp['p50']} s, p99 {lp['p99']} s, max "
                  f"{lp['max']} s, {lp['over_asked']} answered over a second past their wait")
            print(f"  load average before {o['load_average']['before']}, after "
                  f"{o['load_average']['after']}")
        elif name != "service":
            _print(name, results[name], service)


if __name__ == "__main__":
    main()
