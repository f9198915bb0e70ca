"""Reads never wait for writes, and many live games fold no slower than a few: appends queue
for the one writer on a thread of their own (not on the threads that answer reads), and the
folds the service keeps are bounded by memory, not by a count of games."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from jaslog.play.sim import simulate_game
from jaslog.service.app import create_app
from jaslog.store import open_store

#: More appends than the threads (40) that answer a service's requests.
WAITING = 60


def _games(db: Path, n: int) -> dict[str, list[dict[str, Any]]]:
    """``n`` games begun in a store (their game_started), and the rest of each to append."""
    played = [{k: v for k, v in e.items() if k not in ("game", "seq")}
              for e in simulate_game("w", "amsterdam", seed=1)[:4]]
    logs = {f"w-{i:03d}": played for i in range(n)}
    with open_store(str(db)) as store:
        for gid in logs:
            store.append(gid, [{**played[0], "game": gid, "seq": 0}])
    return logs


def test_a_read_is_answered_while_appends_wait_behind_a_held_write(tmp_path: Path) -> None:
    logs = _games(tmp_path / "s.sqlite", WAITING)
    app = create_app(str(tmp_path / "s.sqlite"))
    svc = app.state.service
    token = svc.tokens.create("admin")[0]
    auth = {"Authorization": f"Bearer {token}"}
    answers: list[int] = []
    with TestClient(app) as client:
        def append(gid: str) -> None:
            r = client.post(f"/api/games/{gid}/events", headers=auth,
                            json={"events": [logs[gid][1]], "expected_seq": 1})
            answers.append(r.status_code)

        svc._write_lock.acquire()  # a write that takes its time (a lock held elsewhere)
        guard = threading.Lock()

        def let_go() -> None:  # once: by the test, or after 15 s whatever happens
            with guard:
                if svc._write_lock.locked():
                    svc._write_lock.release()

        timer = threading.Timer(15, let_go)
        timer.start()
        writers = [threading.Thread(target=append, args=(gid,)) for gid in logs]
        for t in writers:
            t.start()
        # every append has arrived and waits for the writer: one taken by its thread (held
        # at the lock), the others queued behind it
        deadline = time.monotonic() + 30
        while svc._queue.qsize() != WAITING - 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert svc._queue.qsize() == WAITING - 1, svc._queue.qsize()
        read: list[httpx.Response] = []
        reader = threading.Thread(
            target=lambda: read.append(client.get("/api/whoami", headers=auth)))
        reader.start()
        reader.join(timeout=10)
        waited = reader.is_alive()
        appended_meanwhile = list(answers)
        let_go()
        timer.cancel()
        reader.join(timeout=60)
        for t in writers:
            t.join(timeout=60)
        assert not waited, "a read waited behind the appends"
        assert read[0].status_code == 200 and appended_meanwhile == []
    assert answers == [200] * WAITING


def test_every_live_game_keeps_its_fold(tmp_path: Path) -> None:
    """More live games than a count-bounded cache held (256): each append moves the game's
    kept fold on, none is folded again from the database."""
    n = 270
    logs = _games(tmp_path / "s.sqlite", n)
    app = create_app(str(tmp_path / "s.sqlite"))
    svc = app.state.service
    for gid, evs in logs.items():
        svc.append(gid, evs[1:2], 1)
    assert len(svc.writer._folds) == n
    folded_again: list[str] = []
    writer_fold = svc.writer.fold

    def fold_counted(game: str, upto: int | None = None) -> Any:
        folded_again.append(game)
        return writer_fold(game, upto)

    svc.writer.fold = fold_counted  # type: ignore[method-assign]
    for gid, evs in logs.items():
        res, _violations = svc.append(gid, evs[2:3], 2)
        assert res.head.next_seq == 3
    assert folded_again == []
    svc.close()


def test_an_append_folds_its_events_once_and_answers_with_their_violations(
        tmp_path: Path) -> None:
    """The writer's fold checks the new events and its violations are the answer's: each
    event is applied to a fold once, and a card that breaks a rule is reported by the
    append that brought it."""
    from jaslog.engine.fold import GameFold

    evs = [{k: v for k, v in e.items() if k not in ("game", "seq")}
           for e in simulate_game("v", "amsterdam", seed=3)]
    with open_store(str(tmp_path / "s.sqlite")) as store:
        store.append("v", [{**evs[0], "game": "v", "seq": 0}])
    app = create_app(str(tmp_path / "s.sqlite"))
    svc = app.state.service
    svc.append("v", evs[1:3], 1)  # the game folded once from the store, then kept
    kept = svc.writer._folds.get("v")[2]  # the writer's fold of the game, at its head
    applied: list[int] = []
    apply = type(kept).apply

    def counted(self: GameFold, e: Any) -> Any:
        applied.append(e.seq)
        return apply(self, e)

    type(kept).apply = counted  # type: ignore[method-assign]
    try:
        res, violations = svc.append("v", evs[3:6], 3)
    finally:
        type(kept).apply = apply  # type: ignore[method-assign]
    assert res.appended == 3 and sorted(applied) == [3, 4, 5]
    assert violations == []
    svc.close()


def test_a_timeline_behind_the_head_reads_only_the_events_since(tmp_path: Path) -> None:
    """A game read again after appends reads and parses only the new events, and folds to
    the same timeline as a game read whole."""
    logs = _games(tmp_path / "s.sqlite", 1)
    (gid, evs), = logs.items()
    app = create_app(str(tmp_path / "s.sqlite"))
    svc = app.state.service
    svc.append(gid, evs[1:2], 1)
    svc.timeline(gid)
    svc.append(gid, evs[2:4], 2)
    read_whole: list[str] = []
    with svc.pool.get() as store:
        kind = type(store)
    whole = kind.events

    def counted(self: Any, game: str, upto: int | None = None) -> Any:
        read_whole.append(game)
        return whole(self, game, upto)

    kind.events = counted  # type: ignore[method-assign]
    try:
        head, tl = svc.timeline(gid)
    finally:
        kind.events = whole  # type: ignore[method-assign]
    assert read_whole == [] and head.next_seq == 4
    assert [e.seq for e in tl.events] == [0, 1, 2, 3]
    with svc.pool.get() as store:
        assert tl.events == store.events(gid)
    svc.close()


def test_the_services_own_tables_commit_as_the_stores_events_do(tmp_path: Path) -> None:
    """Who appended an online game's move is written beside it in a transaction of its own:
    on SQLite it waits for no disk flush (synchronous NORMAL in WAL mode), as the store's
    own commits do, not for a flush a move."""
    from sqlalchemy import text

    app = create_app(str(tmp_path / "s.sqlite"))
    svc = app.state.service
    with svc.engine.connect() as c:
        service_sync = c.execute(text("PRAGMA synchronous")).scalar()
        journal = c.execute(text("PRAGMA journal_mode")).scalar()
    with svc.pool.get() as store, store.engine.connect() as c:
        store_sync = c.execute(text("PRAGMA synchronous")).scalar()
    assert (journal, service_sync) == ("wal", store_sync) == ("wal", 1)
    svc.close()


def test_every_route_takes_the_service_on_the_event_loop(tmp_path: Path) -> None:
    """The routes' ``service`` dependency is answered on the event loop: a read hops to a
    worker thread once (its own work), not first for the service and back."""
    import inspect

    from jaslog.service.deps import service

    logs = _games(tmp_path / "s.sqlite", 1)
    app = create_app(str(tmp_path / "s.sqlite"))
    taken = app.dependency_overrides.get(service, service)
    assert inspect.iscoroutinefunction(taken)
    token = app.state.service.tokens.create("admin")[0]
    with TestClient(app) as c:
        r = c.get(f"/api/games/{next(iter(logs))}/state",
                  headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.json()["seq"] == 0


def test_the_answers_of_a_group_wake_the_event_loop_once(tmp_path: Path) -> None:
    """The appends the writer commits together are answered to the event loop awaiting them
    in one wake (a call from the writer's thread), not one each."""
    import asyncio

    from jaslog.service.core import Service

    logs = _games(tmp_path / "s.sqlite", 8)
    svc = Service(str(tmp_path / "s.sqlite"))
    wakes: list[int] = []

    class CountedLoop(asyncio.SelectorEventLoop):
        def call_soon_threadsafe(self, *args: Any, **kw: Any) -> Any:  # type: ignore[override]
            wakes.append(threading.get_ident())
            return super().call_soon_threadsafe(*args, **kw)

    async def run() -> list[Any]:
        # the writer busy (its lock held) while the appends queue: one group takes them all
        with svc._write_lock:
            sent = [asyncio.ensure_future(svc.append_soon(gid, evs[1:2], 1))
                    for gid, evs in logs.items()]
            while svc._queue.qsize() < len(logs) - 1:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            wakes.clear()
        return await asyncio.gather(*sent)

    loop = CountedLoop()
    try:
        answers = loop.run_until_complete(run())
    finally:
        loop.close()
        svc.close()
    assert [(res.appended, res.head.next_seq) for res, _ in answers] == [(1, 2)] * len(logs)
    assert len(wakes) == 1
