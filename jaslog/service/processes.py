"""More than one process over one store: ``jaslog serve --workers N``, and the watch that
lets a live stream in any process see the appends of every other.

Over SQLite the serving process is the one writer of its workers
(:mod:`jaslog.service.writer`): each worker checks an append as one process alone would (who
may append it, the online room's checks), sends it to the writer and answers what the
writer answers; the writer tells each worker of the moves of the games it holds (its own
appends' games, those its streams watch), which wakes that
game's streams there. Over PostgreSQL, and for two ``jaslog serve`` over one store, every
process appends itself, through the same :class:`~jaslog.service.core.Service` as one
process alone, so every answer (codes, bodies) is the same whichever process gives it. The
database serializes the writers: SQLite's one writer at a time (``BEGIN IMMEDIATE``, the
others wait for the file's lock), PostgreSQL's writers' advisory lock; the store's chain
checks and its unique ``(game, seq)`` make two appends racing on one game one success and
one 409 ``conflict``.

A stream waits on its process's :class:`~jaslog.service.core.Notifier`. Where processes
append themselves, the appends of the others reach it through a :class:`StoreWatch`, one
thread a process, which reads
the store's feed by ``pos`` (one query for all games, no payload: the ``(pos, game)`` of each
new event, :func:`jaslog.store.feed.games_after`) and wakes the streams of the games it
finds. What makes it read: on SQLite a short interval (:data:`SQLITE_INTERVAL_S`; SQLite
has no notifications); on PostgreSQL a ``NOTIFY`` on :data:`CHANNEL` from another process,
which each process's writer sends with every commit that stored events (one a commit,
however many appends and games it holds: :attr:`Service.notify
<jaslog.service.core.Service.notify>`; its payload the process's own token, so that a
watch lets its own process's pass), and at the latest every :data:`PG_INTERVAL_S` (an
append from outside the service, ``jaslog append``, sends none); the NOTIFYs that come
within :data:`PG_GATHER_S` of each other make one read. A process with no stream open has
nothing to wake: its watch listens to nothing (``UNLISTEN``: no NOTIFY is sent to it, so
none is read and dropped) and reads only the store's last position every
:data:`PG_INTERVAL_S`; once a stream opens (:attr:`Notifier.opened
<jaslog.service.core.Notifier.opened>`) it listens again, then reads the feed from there.
Reading by ``pos`` misses nothing and sees nothing twice (:mod:`jaslog.store.feed`); a
stream sends each event once in any case (it goes on from the seq it sent last).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from jaslog.service.core import Notifier, Service
from jaslog.store import open_store, resolve_url
from jaslog.store.feed import MOST_PER_PAGE, games_after, games_after_on, last_pos_on

#: How often (seconds) the watch of an SQLite store reads its feed.
SQLITE_INTERVAL_S = 0.05
#: The longest (seconds) the watch of a PostgreSQL store waits for a NOTIFY before it reads
#: the feed anyway.
PG_INTERVAL_S = 1.0
#: How long (seconds) the watch of a PostgreSQL store, woken by a NOTIFY, lets the next ones
#: come before it reads the feed once for them all: at most some 50 reads a second, however
#: many appends the other processes make.
PG_GATHER_S = 0.02
#: The PostgreSQL channel the processes tell each other of appends on.
CHANNEL = "jaslog_events"
#: The environment variable a worker process reads its settings from (JSON).
WORKER_SETTINGS = "JASLOG_SERVE_WORKER"


def postgres_dsn(url: str) -> str | None:
    """The psycopg connection string of a PostgreSQL store (None: an SQLite store)."""
    from sqlalchemy.engine import make_url

    resolved = resolve_url(url)
    if not resolved.startswith("postgresql"):
        return None
    return make_url(resolved).set(drivername="postgresql").render_as_string(hide_password=False)


class StoreWatch:
    """A thread that reads the store's feed after the last ``pos`` it saw and wakes, on the
    event loop ``loop``, the streams of each game it finds (:meth:`Notifier.wake`). On
    PostgreSQL it reads at each ``NOTIFY`` of another process (:attr:`token`: this
    process's own payload, which the service's writer sends: :attr:`Service.notify
    <jaslog.service.core.Service.notify>`)."""

    def __init__(self, url: str | None, notifier: Notifier,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.url = url or str(resolve_url(None))
        self.notifier, self.loop = notifier, loop
        self.dsn = postgres_dsn(self.url)
        #: This process's payload on :data:`CHANNEL`.
        self.token = f"{os.getpid()}-{secrets.token_hex(6)}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.store = open_store(self.url)
        self.after = int(self.store.cursor())

    def start(self) -> None:
        self._thread = threading.Thread(target=self._watch, name="jaslog-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.notifier.opened.set()  # wake the watch waiting for a stream, to see it stop
        if self.dsn is not None:  # wake the watch waiting for a NOTIFY, to see it stop at once
            import psycopg

            with contextlib.suppress(psycopg.Error), \
                    psycopg.connect(self.dsn, autocommit=True, connect_timeout=2) as conn:
                conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.token))
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.store.close()

    def read(self, conn: Any = None) -> set[str]:
        """The games with events stored after :attr:`after` (which moves on past them);
        ``conn``: read on that psycopg connection (the watch's own on PostgreSQL) rather
        than through the store."""
        games: set[str] = set()
        while True:
            rows = games_after(self.store, self.after, MOST_PER_PAGE) if conn is None \
                else games_after_on(conn, self.after, MOST_PER_PAGE)
            for pos, game in rows:
                games.add(game)
                self.after = pos
            if len(rows) < MOST_PER_PAGE:
                return games

    def _wake(self, games: set[str]) -> None:
        if games and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(_wake_all, self.notifier, games)

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                if self.dsn is None:
                    while not self._stop.is_set():
                        self._wake(self.read())
                        self._stop.wait(SQLITE_INTERVAL_S)
                else:
                    self._listen()
            except Exception:  # the store away for a while: the streams' own second holds
                self._stop.wait(PG_INTERVAL_S)

    def _listen(self) -> None:
        """On PostgreSQL: while a stream of this process is open (:meth:`Notifier.listening
        <jaslog.service.core.Notifier.listening>`), listen on :data:`CHANNEL` and read the
        feed at each NOTIFY of another process (at the latest every
        :data:`PG_INTERVAL_S`); while none is, nothing is to be woken: listen to nothing
        (the NOTIFYs of every commit of every process are not sent to this connection at
        all) and read nothing but, every :data:`PG_INTERVAL_S`, the store's last position
        (:meth:`_catch_up`). A stream opened: listening first, then the feed read from the
        last position seen, so nothing is missed."""
        import psycopg

        assert self.dsn is not None
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            listening = False
            while not self._stop.is_set():
                wanted = self.notifier.listening()
                if wanted != listening:
                    conn.execute(f"{'' if wanted else 'UN'}LISTEN {CHANNEL}")
                    listening = wanted
                    _drop_notifies(conn)
                self._catch_up(conn)
                if listening and self.notifier.listening():
                    self._others(conn)
                else:
                    self._idle(conn)

    def _catch_up(self, conn: Any) -> None:
        """With a stream open: wake the streams of the games stored since :attr:`after`.
        With none: move :attr:`after` to the store's last position, read before looking for
        a stream, so that a stream opened since (which reads its game after it subscribes)
        has seen every event up to it, and the watch goes on after it."""
        if not self.notifier.listening():
            last = last_pos_on(conn)
            if not self.notifier.listening():
                self.after = max(self.after, last)
                return
        self._wake(self.read(conn))

    def _idle(self, conn: Any) -> None:
        """No stream open: wait until one opens (:attr:`Notifier.opened
        <jaslog.service.core.Notifier.opened>`), at most :data:`PG_INTERVAL_S` (the
        connection listens to nothing meanwhile: :meth:`_listen`)."""
        opened = self.notifier.opened
        opened.clear()
        if not self.notifier.listening() and not self._stop.is_set():
            opened.wait(PG_INTERVAL_S)

    def _others(self, conn: Any) -> bool:
        """Wait for a NOTIFY, at most :data:`PG_INTERVAL_S`, and those that come within
        :data:`PG_GATHER_S` of it; whether one of them was another process's (this
        process's own pass: its streams were woken as it appended)."""
        deadline = time.monotonic() + PG_INTERVAL_S
        while not self._stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            told = [n.payload for n in conn.notifies(timeout=left, stop_after=1)]
            if not told:
                continue
            self._stop.wait(PG_GATHER_S)  # the NOTIFYs close behind it, read together
            told += _drop_notifies(conn)
            if any(payload != self.token for payload in told):
                return True
        return False


def _drop_notifies(conn: Any) -> list[str]:
    """The payloads of the NOTIFYs ``conn`` has received and not yet given, read without
    waiting."""
    payloads: list[str] = []
    while True:
        got = [n.payload for n in conn.notifies(timeout=0)]
        if not got:
            return payloads
        payloads += got


def _wake_all(notifier: Notifier, games: set[str]) -> None:
    for g in games:
        notifier.wake(g)


def watch_store(app: FastAPI) -> FastAPI:
    """``app`` (of :func:`jaslog.service.create_app`) with a :class:`StoreWatch` of its
    service's store running while it serves."""
    svc: Service = app.state.service
    inner: Callable[[Any], AbstractAsyncContextManager[Any]] = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        watch = StoreWatch(svc.url, svc.notifier, asyncio.get_running_loop())
        if watch.dsn is not None:  # the writer's commits tell the other processes
            svc.notify = (CHANNEL, watch.token)
        watch.start()
        try:
            async with inner(a) as state:
                yield state
        finally:
            svc.notify = None
            watch.stop()

    app.router.lifespan_context = lifespan
    return app


def linked_to_writer(app: FastAPI, path: str) -> FastAPI:
    """``app`` (of :func:`jaslog.service.create_app`) with its service's appends sent to
    the one writer on the socket ``path`` (:class:`~jaslog.service.writer.WriterLink`)
    while it serves; the games the writer tells of wake this process's streams, and a
    stream opened asks the writer to tell of its game."""
    from jaslog.service.writer import WriterLink

    svc: Service = app.state.service
    inner: Callable[[Any], AbstractAsyncContextManager[Any]] = app.router.lifespan_context

    def moved(game: str, next_seq: int) -> None:
        svc.moved(game, next_seq)
        svc.notifier.wake(game)

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        link = WriterLink(path, moved, svc.notifier.wake)
        await link.connect()
        svc.link, svc.notifier.watching = link, link.watch
        try:
            async with inner(a) as state:
                yield state
        finally:
            svc.link, svc.notifier.watching = None, None
            link.close()

    app.router.lifespan_context = lifespan
    return app


#: The collector's thresholds in a serving process (Python's are 700, 10, 10): a young
#: collection every 10,000 new objects rather than every 700 (an append makes a few hundred).
GC_THRESHOLDS = (10_000, 10, 10)


def tune_collector() -> None:
    """Set the cyclic garbage collector for serving: what is loaded at start (the modules,
    the app: most of the process's objects) moved out of its sight for good
    (:func:`gc.freeze`), so a full collection does not walk it again, and the young
    collections rarer (:data:`GC_THRESHOLDS`). A full collection of a service holding a few
    hundred games took some 200 ms on this project's machine, every object of the process
    walked; every request waiting meanwhile waited that long."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serving_app(db: str | None, *, dataset: Path, auth_failures: int, solve_nodes: int,
                solve_seconds: float, solves_per_minute: int,
                service: Service | None = None, writer: str | None = None) -> FastAPI:
    """The app ``jaslog serve`` runs, in each of its processes, its store watched; with
    ``writer`` (a worker over SQLite), its appends sent to the one writer on that socket,
    whose word of each game moved wakes the streams."""
    from jaslog.analysis import Budget
    from jaslog.service.app import create_app
    from jaslog.service.deps import FailedLogins
    from jaslog.service.solves import SolveLimits, SolveRate

    app = create_app(db, service=service)
    app.state.dataset = dataset
    app.state.failed_logins = FailedLogins(limit=auth_failures)
    app.state.solve_limits = SolveLimits(Budget(nodes=solve_nodes, seconds=solve_seconds),
                                         SolveRate(limit=solves_per_minute))
    tune_collector()
    if writer is not None:
        return linked_to_writer(app, writer)
    return watch_store(app)


def worker_settings(**settings: Any) -> str:
    """The settings of :func:`worker_app`, as :data:`WORKER_SETTINGS` holds them."""
    return json.dumps({**settings, "dataset": str(settings["dataset"])})


def worker_app() -> FastAPI:
    """The app of one worker process of ``jaslog serve --workers N`` (uvicorn's factory),
    from the settings the serving process left in :data:`WORKER_SETTINGS`."""
    settings = json.loads(os.environ[WORKER_SETTINGS])
    settings["dataset"] = Path(settings["dataset"])
    return serving_app(settings.pop("db"), **settings)
