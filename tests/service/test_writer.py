"""The one writer of ``jaslog serve --workers N`` over SQLite, in process: two workers'
services linked to one :class:`WriterServer` over its real socket, appending to one real
SQLite store (the processes themselves: tests/service/test_processes.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jaslog.service.app import create_app
from jaslog.service.core import Service
from jaslog.service.processes import linked_to_writer
from jaslog.service.writer import WriterLink, WriterServer, error_fields, error_of, writer_socket
from jaslog.store import ConflictError, open_store
from jaslog.store.engine import DatabaseError
from jaslog.store.types import NoSuchGame, RejectedError
from tests.service.conftest import body_of, sim


def _fields(e: BaseException) -> dict[str, Any]:
    """What an append's refusal says: its class, its sentence, its fields (and its fold
    error's)."""
    fe = getattr(e, "fold_error", None)
    return {"type": type(e), "text": str(e), "code": getattr(e, "code", None),
            **{k: getattr(e, k, None) for k in ("game", "expected", "actual", "seq")},
            "fold": None if fe is None else (fe.message, fe.code, fe.seat, fe.card, str(fe))}


def told_to(into: list[tuple[str, int]]) -> Callable[[str, int], None]:
    return lambda game, next_seq: into.append((game, next_seq))


class TwoWorkers:
    """A store with game ``g`` begun (its first event of ``events``), the one writer's service
    behind a real socket, and two workers' services (``a``, ``b``) to link to it; ``told``:
    what each worker was told of the games others moved."""

    def __init__(self, path: Path, events: list[dict[str, Any]]) -> None:
        url = f"sqlite:///{path}"
        with open_store(url) as s:
            s.append("g", events[:1])
        self.url = url
        self.writer = Service(url)
        self.server = WriterServer(self.writer, writer_socket()).start()
        self.a, self.b = Service(url), Service(url)
        self.told: dict[str, list[tuple[str, int]]] = {"a": [], "b": []}

    async def link(self) -> None:
        """Link both workers to the writer (on the running event loop)."""
        for name, svc in (("a", self.a), ("b", self.b)):
            link = WriterLink(self.server.path, told_to(self.told[name]))
            await link.connect()
            svc.link = link

    def close(self) -> None:
        for svc in (self.a, self.b, self.writer):
            svc.close()
        self.server.stop()


def test_two_workers_append_through_the_one_writer(tmp_path: Path) -> None:
    events = sim("g", 1)[:14]
    w = TwoWorkers(tmp_path / "one.sqlite", events)
    writer, a, b, told = w.writer, w.a, w.b, w.told
    refusals: list[tuple[dict[str, Any], dict[str, Any]]] = []

    async def run() -> None:
        await w.link()
        for e in events[1:12]:
            through = a if e["seq"] % 2 else b  # odd seqs through A, even through B
            res, new = await through.append_soon("g", body_of([e]), e["seq"])
            assert (res.game, res.appended, res.already_stored, res.head.next_seq) == \
                ("g", 1, 0, e["seq"] + 1)
            assert new == []
        # each refusal as the writer's own service gives it, class, sentence and fields
        card = events[12].get("card")
        stolen = {**body_of(events[12:13])[0], "seat": (events[12].get("seat", 0) + 1) % 4} \
            if card else {"type": "play", "seat": 0, "card": "7x"}
        for game, sent, seq in (("g", body_of(events[12:13]), 3),  # a conflict
                                ("g", [stolen], 12)):  # refused by the rules
            with pytest.raises(Exception) as linked:
                await a.append_soon(game, sent, seq)
            with pytest.raises(Exception) as alone:
                writer.append(game, sent, seq)
            refusals.append((_fields(linked.value), _fields(alone.value)))
        # from a thread (as the move clock and the online room append): a future
        res, _ = await asyncio.to_thread(b.append, "g", body_of(events[12:13]), 12)
        assert res.head.next_seq == 13
        # an append on the event loop's own thread of the sync API is written here (SQLite
        # serializes it with the writer's)
        res, _ = b.append("g", body_of(events[13:14]), 13)
        assert res.head.next_seq == 14

    try:
        asyncio.run(run())
    finally:
        w.close()
    assert [linked["type"] for linked, _ in refusals] == [ConflictError, RejectedError]
    for linked, alone in refusals:
        assert linked == alone
    assert refusals[1][0]["fold"] is not None  # the rule's own words, seat and card
    # each worker was told of the other's appends of the game at once, from its own first
    # append of it on (A's first, seq 1, came before B held the game)
    assert told["b"] == [("g", s + 1) for s in range(3, 12, 2)]
    assert told["a"][:5] == [("g", s + 1) for s in range(2, 12, 2)]
    assert ("g", 13) in told["a"]
    with open_store(w.url) as s:
        assert [e.seq for e in s.events("g")] == list(range(14))
    assert not Path(w.server.path).exists()


def test_the_writer_reads_and_writes_on_one_thread(tmp_path: Path) -> None:
    """The writer's one thread reads both workers' sockets and writes their appends itself:
    no thread a worker, no hop to the service's own writer thread; one thread more sends
    the answers (the writer's goes on while a worker it woke takes the core)."""
    events = sim("g", 1)[:5]
    w = TwoWorkers(tmp_path / "threads.sqlite", events)

    async def run() -> list[str]:
        await w.link()
        for e in events[1:5]:
            through = w.a if e["seq"] % 2 else w.b
            res, _ = await through.append_soon("g", body_of([e]), e["seq"])
            assert res.head.next_seq == e["seq"] + 1
        return sorted(t.name for t in threading.enumerate() if t.name.startswith("jaslog-"))

    try:
        threads = asyncio.run(run())
    finally:
        w.close()
    assert threads == ["jaslog-writer-send", "jaslog-writer-server"]


def test_a_refusal_crosses_the_socket_whole() -> None:
    """Each kind of refusal, made again from its frame: the same class, sentence and
    fields."""
    for e in (ConflictError("g", 3, 7, "a detail"), NoSuchGame("g9"),
              DatabaseError("the disk is full", "store_full", 30),
              RejectedError("no such card", game="g", seq=4, code="bad_card")):
        again = error_of(error_fields(e))
        assert _fields(again) == _fields(e)
        assert getattr(again, "retry_after", None) == getattr(e, "retry_after", None)


def test_an_append_to_a_writer_gone_is_503_unreachable(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'gone.sqlite'}"
    writer = Service(url)
    server = WriterServer(writer, writer_socket()).start()
    worker = Service(url)

    async def run() -> BaseException:
        link = WriterLink(server.path, lambda g, n: None)
        await link.connect()
        worker.link = link
        server.stop()
        await asyncio.sleep(0.2)
        with pytest.raises(DatabaseError) as gone:
            await worker.append_soon("g", [{"type": "note", "text": "x"}], 1)
        return gone.value

    try:
        err = asyncio.run(run())
    finally:
        worker.close()
        writer.close()
    assert isinstance(err, DatabaseError)
    assert err.code == "store_unreachable"
    assert "writer process is gone" in str(err)


def test_a_group_is_answered_in_one_write_a_game_told_once(tmp_path: Path) -> None:
    """The appends the writer commits in one group are answered together: each worker gets
    its answers, and the other worker, which holds the game, hears of each game the group
    moved once, at its last next seq."""
    events = sim("g", 1)[:4]
    w = TwoWorkers(tmp_path / "grouped.sqlite", events)
    writer, a, told = w.writer, w.a, w.told

    async def run() -> list[Any]:
        await w.link()
        assert w.b.link is not None
        w.b.link.watch("g")  # a stream of the game open in B
        await asyncio.sleep(0.2)
        # the writer busy (its lock held) while worker A sends two appends: the writer's
        # thread has read both when it may write, and writes them in one group; B's append,
        # sent meanwhile, is the next group
        writer._write_lock.acquire()
        try:
            sent = [asyncio.ensure_future(a.append_soon("g", body_of([e]), e["seq"]))
                    for e in events[1:3]]
            await asyncio.sleep(0.2)
            sent.append(asyncio.ensure_future(w.b.append_soon("g", body_of(events[3:4]), 3)))
            await asyncio.sleep(0.2)
        finally:
            writer._write_lock.release()
        answers = await asyncio.gather(*sent)
        await asyncio.sleep(0.2)  # what each is told arrives
        return answers

    try:
        answers = asyncio.run(run())
    finally:
        w.close()
    assert [(res.appended, res.head.next_seq) for res, _ in answers] == [(1, 2), (1, 3), (1, 4)]
    assert told["b"] == [("g", 3)]  # A's group moved it twice: B is told once, at its last
    assert told["a"] == [("g", 4)]


def test_a_worker_is_told_only_of_the_games_it_holds(tmp_path: Path) -> None:
    """A worker that neither appended a game nor watches it is not written to when another
    worker's appends move it (no wake for nothing); once it watches the game (a stream
    opened there) it is answered :data:`WATCHING` (its streams woken, to read what came
    meanwhile) and told of every move from then on; watching every game, of every game's."""
    events, other = sim("g", 1)[:6], sim("h", 2)[:3]
    w = TwoWorkers(tmp_path / "held.sqlite", events)
    woken: list[str] = []
    got: list[bytes] = []

    async def run() -> None:
        await w.link()
        link = w.b.link
        assert link is not None
        link.woken = woken.append
        received = link.data_received

        def counted(data: bytes) -> None:
            got.append(data)
            received(data)

        link.data_received = counted  # type: ignore[method-assign]
        with open_store(w.url) as s:
            s.append("h", other[:1])
        for e in events[1:3]:  # B holds neither game: it hears nothing
            await w.a.append_soon("g", body_of([e]), e["seq"])
        await asyncio.sleep(0.2)
        assert (got, woken) == ([], [])
        link.watch("g")
        link.watch("g")  # once a game
        await asyncio.sleep(0.2)
        assert woken == ["g"]
        await w.a.append_soon("g", body_of(events[3:4]), 3)
        await w.a.append_soon("h", body_of(other[1:2]), 1)  # not watched: not told
        await asyncio.sleep(0.2)
        link.watch("")  # a stream of every game
        await asyncio.sleep(0.2)
        await w.a.append_soon("h", body_of(other[2:3]), 2)
        await asyncio.sleep(0.2)

    try:
        asyncio.run(run())
    finally:
        w.close()
    assert woken == ["g", ""]
    assert w.told["b"] == [("g", 4), ("h", 3)]
    assert w.told["a"] == []  # B appended nothing


def test_a_stream_opened_in_a_worker_hears_of_the_other_workers_appends(
        tmp_path: Path) -> None:
    """A worker's app as ``jaslog serve --workers N`` serves it (:func:`linked_to_writer`):
    a stream of a game it never appended to, subscribed once the app runs, is woken by the
    writer once it holds the game for that worker, and then by each append another worker
    makes to it."""
    events = sim("g", 1)[:4]
    w = TwoWorkers(tmp_path / "stream.sqlite", events)
    app = linked_to_writer(create_app(w.url), w.server.path)
    svc: Service = app.state.service

    async def run() -> None:
        await w.link()
        async with app.router.lifespan_context(app):
            wake = svc.notifier.subscribe("g")
            await asyncio.wait_for(wake.wait(), 5)  # the writer holds it for this worker
            for e in events[1:3]:
                wake.clear()
                await w.a.append_soon("g", body_of([e]), e["seq"])
                await asyncio.wait_for(wake.wait(), 5)  # (else TimeoutError)

    try:
        asyncio.run(run())
        assert svc._written["g"] == 3  # told at each move: a fold kept at 3 is the game's
    finally:
        svc.close()
        w.close()


def test_the_appends_read_together_are_stamped_and_answered_at_once(tmp_path: Path) -> None:
    """The appends the writer read in one go (:meth:`Service.write_now`) came together: the
    clock is read once for the ``at`` of those without one, and once for the group's
    ``recorded_at``; each is answered (its result, or its refusal) before it returns."""
    from jaslog.store.clock import ManualClock

    class Ticking(ManualClock):
        def __call__(self) -> Any:
            self.advance(0.001)
            return self.now

    url = f"sqlite:///{tmp_path / 'together.sqlite'}"
    games = {g: [{k: v for k, v in e.items() if k != "at"} for e in sim(g, i)[:3]]
             for i, g in enumerate(("t1", "t2"), 1)}
    svc = Service(url, clock=Ticking("2026-12-01T20:00:00Z"))
    try:
        for g, evs in games.items():
            assert svc.write_now([(g, evs[:1], 0)])[0].result()[0].appended == 1
        answers = svc.write_now([("t1", games["t1"][1:2], 1), ("t2", games["t2"][1:3], 1),
                                 ("t1", games["t1"][1:2], 5)])
        assert all(a.done() for a in answers)
        assert [a.result()[0].appended for a in answers[:2]] == [1, 2]
        refused = answers[2].exception()
        assert isinstance(refused, RejectedError) and refused.code == "seq_mismatch"
        with pytest.raises(RejectedError):
            answers[2].result()
        stored = {g: svc.writer.events(g) for g in games}
    finally:
        svc.close()
    together = [e for g in games for e in stored[g][1:]]
    assert len(together) == 3
    assert {e.at for e in together} == {together[0].at}  # one reading, for all three
    assert {e.recorded_at for e in together} == {together[0].recorded_at}
    assert together[0].at != stored["t1"][0].at
