"""The news of appends between processes over one PostgreSQL store: each commit of a
service's writer that stored events sends one ``NOTIFY`` with it (however many appends and
games it holds), and a process's watch reads the store's feed at another process's
``NOTIFY``, never at its own, and only while a stream of its own process is open."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import psycopg
import pytest

from jaslog.play.sim import simulate_game
from jaslog.service import processes
from jaslog.service.core import Notifier, Service
from jaslog.service.processes import CHANNEL, StoreWatch, postgres_dsn
from jaslog.store import ConflictError
from jaslog.store.clock import ManualClock
from tests.store.conftest import STORE_TIME, pg_server, pg_url  # noqa: F401  (a real PostgreSQL)


def _plain(events: list[dict]) -> list[dict]:  # type: ignore[type-arg]
    return [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in events]


@pytest.fixture
def listener(pg_url: str) -> Iterator[psycopg.Connection]:  # noqa: F811
    """A connection listening on the service's channel, as another process's watch does."""
    dsn = postgres_dsn(pg_url)
    assert dsn is not None
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"LISTEN {CHANNEL}")
        yield conn


def test_a_commit_of_the_writer_sends_one_notify(pg_url: str,  # noqa: F811
                                                 listener: psycopg.Connection) -> None:
    svc = Service(pg_url, clock=ManualClock(STORE_TIME))
    logs = {f"g{i}": _plain(simulate_game(f"g{i}", "amsterdam", seed=i)) for i in range(3)}
    for gid, evs in logs.items():
        svc.append(gid, evs[:3], 0)
    assert list(listener.notifies(timeout=0.5)) == []  # no channel set: nothing told
    svc.notify = (CHANNEL, "this-process")
    svc._write_lock.acquire()  # the appends submitted now wait together for one group
    futs = [svc.submit(gid, [evs[3]], 3) for gid, evs in logs.items()]
    deadline = time.monotonic() + 30  # the writer's thread holds one, two are queued
    while svc._queue.qsize() != len(futs) - 1 and time.monotonic() < deadline:
        time.sleep(0.005)
    svc._write_lock.release()
    assert [f.result(timeout=60)[0].appended for f in futs] == [1, 1, 1]
    told = list(listener.notifies(timeout=30, stop_after=1))
    told += listener.notifies(timeout=0.5)  # and no other
    assert [(n.channel, n.payload) for n in told] == [(CHANNEL, "this-process")]
    # a commit that stored nothing (a stale append, refused) tells nothing
    with pytest.raises(ConflictError):
        svc.append("g0", [logs["g0"][3]], 3)
    assert list(listener.notifies(timeout=0.5)) == []
    svc.close()


def test_a_watch_reads_the_feed_at_another_process_s_notify_only(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(processes, "PG_INTERVAL_S", 60.0)  # no read but at a NOTIFY
    svc = Service(pg_url, clock=ManualClock(STORE_TIME))
    g = _plain(simulate_game("g", "amsterdam", seed=1))
    svc.append("g", g[:3], 0)
    loop = asyncio.new_event_loop()
    notifier = Notifier()
    notifier.subscribe("g")  # a stream of the game open in this process
    watch = StoreWatch(pg_url, notifier, loop)
    svc.notify = (CHANNEL, watch.token)
    watch.start()
    try:
        time.sleep(0.5)  # listening, its first read done
        seen = watch.after
        svc.append("g", g[3:5], 3)  # this process's own: told with its own token
        time.sleep(1.0)
        assert watch.after == seen
        dsn = postgres_dsn(pg_url)
        assert dsn is not None
        with psycopg.connect(dsn, autocommit=True) as other:
            other.execute("SELECT pg_notify(%s, 'another-process')", (CHANNEL,))
        deadline = time.monotonic() + 30
        while watch.after == seen and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watch.after == seen + 2  # the two events stored since its last read
    finally:
        started = time.monotonic()
        watch.stop()
        svc.close()
        loop.close()
    assert time.monotonic() - started < 5  # told to stop, it does at once


def _another_process_appends(url: str, game: str, events: list[dict],  # type: ignore[type-arg]
                             expected: int) -> None:
    """``events`` appended to ``game`` by a service of another process (its own token)."""
    other = Service(url, clock=ManualClock(STORE_TIME))
    other.notify = (CHANNEL, "another-process")
    try:
        other.append(game, events, expected)
    finally:
        other.close()


def test_a_watch_with_no_stream_open_reads_nothing_and_wakes_a_stream_opened_later(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(processes, "PG_INTERVAL_S", 0.2)
    g = _plain(simulate_game("g", "amsterdam", seed=1))
    h = _plain(simulate_game("h", "amsterdam", seed=2))
    _another_process_appends(pg_url, "g", g[:3], 0)
    _another_process_appends(pg_url, "h", h[:3], 0)
    loop = asyncio.new_event_loop()
    notifier = Notifier()
    watch = StoreWatch(pg_url, notifier, loop)
    read: list[int] = []  # where each read of the feed began
    reading = watch.read

    def counted(conn: object = None) -> set[str]:
        read.append(watch.after)
        return reading(conn)

    watch.read = counted  # type: ignore[method-assign]
    watch.start()
    try:
        time.sleep(0.5)
        start = watch.after
        _another_process_appends(pg_url, "g", g[3:5], 3)  # nobody here to wake: not read
        deadline = time.monotonic() + 30
        while watch.after != start + 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watch.after == start + 2  # skipped to the store's last position
        assert read == []  # the feed never read, its NOTIFY never looked at
        stream_g = notifier.subscribe("g")  # a stream opens: it has read its game itself
        stream_h = notifier.subscribe("h")
        time.sleep(0.5)
        _another_process_appends(pg_url, "h", h[3:4], 3)

        async def woken() -> tuple[bool, bool]:
            await asyncio.wait_for(stream_h.wait(), timeout=30)
            return stream_g.is_set(), stream_h.is_set()

        assert loop.run_until_complete(woken()) == (False, True)  # the game appended since
        assert watch.after == start + 3 and read and read[0] == start + 2
    finally:
        watch.stop()
        loop.close()


def test_a_watch_with_no_stream_open_is_sent_no_notify(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """With no stream open the watch's connection listens to nothing: the NOTIFY of every
    other process's commit is not sent to it (not even to be dropped unread); a stream
    opened, it listens again and is told."""
    monkeypatch.setattr(processes, "PG_INTERVAL_S", 0.2)
    received: list[str] = []  # every NOTIFY the watch's connection was sent
    dropping = processes._drop_notifies

    def counted(conn: psycopg.Connection) -> list[str]:
        got = dropping(conn)
        received.extend(got)
        return got

    monkeypatch.setattr(processes, "_drop_notifies", counted)
    g = _plain(simulate_game("g", "amsterdam", seed=1))
    _another_process_appends(pg_url, "g", g[:3], 0)
    loop = asyncio.new_event_loop()
    notifier = Notifier()
    watch = StoreWatch(pg_url, notifier, loop)
    others = watch._others

    def told(conn: psycopg.Connection) -> bool:
        said = others(conn)
        received.append("another" if said else "")
        return said

    watch._others = told  # type: ignore[method-assign]
    watch.start()
    try:
        time.sleep(0.5)
        start = watch.after
        for n in range(3):  # three commits of another process, nobody here to wake
            _another_process_appends(pg_url, "g", g[3 + n:4 + n], 3 + n)
        deadline = time.monotonic() + 30
        while watch.after != start + 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # two more of the watch's idle turns
        assert watch.after == start + 3  # it kept up with the store's last position
        assert received == []  # and was sent no NOTIFY
        stream = notifier.subscribe("g")
        time.sleep(0.5)  # listening again
        _another_process_appends(pg_url, "g", g[6:7], 6)

        async def woken() -> bool:
            await asyncio.wait_for(stream.wait(), timeout=30)
            return stream.is_set()

        assert loop.run_until_complete(woken())
        while "another" not in received and time.monotonic() < deadline + 30:
            time.sleep(0.05)
        assert "another" in received  # the other process's NOTIFY was sent to it
    finally:
        watch.stop()
        loop.close()
