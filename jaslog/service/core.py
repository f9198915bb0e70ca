"""The service's engine room: a pool of stores, the folded games, and who is waiting for news.

Everything about games goes through :mod:`jaslog.store` (append, events, head, games) and
:mod:`jaslog.play.views` (what a sight may see); nothing here writes SQL against the events.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jaslog.events import Event, GameStarted
from jaslog.play.audit import violation_dict
from jaslog.play.views import Sight, Timeline, timeline
from jaslog.service.auth import Principal, Tokens
from jaslog.service.db import service_engine
from jaslog.service.settled import SettledFuture
from jaslog.store import AppendResult, ConflictError, GameInfo, Head, Store, open_store
from jaslog.store.append_group import AppendGroup
from jaslog.store.clock import Clock, stamp, system_clock
from jaslog.store.engine import is_driver_error
from jaslog.store.foldcache import cache_events

if TYPE_CHECKING:
    from jaslog.service.writer import WriterLink


class StorePool:
    """Stores for the worker threads: a Store is for one thread at a time."""

    def __init__(self, url: str | None, size: int = 4, clock: Clock = system_clock) -> None:
        self.url = url
        self.clock = clock
        self._free: queue.LifoQueue[Store] = queue.LifoQueue()
        self._all: list[Store] = []
        self._lock = threading.Lock()
        self._size = size
        first = open_store(url, clock=clock)  # opens (and creates) the store now: errors show at start
        self._all.append(first)
        self._free.put(first)

    @contextmanager
    def get(self) -> Iterator[Store]:
        try:
            s = self._free.get_nowait()
        except queue.Empty:
            with self._lock:
                grow = len(self._all) < self._size
                if grow:
                    s = open_store(self.url, clock=self.clock)
                    self._all.append(s)
            if not grow:
                s = self._free.get()
        try:
            yield s
        finally:
            self._free.put(s)

    def close(self) -> None:
        for s in self._all:
            s.close()


#: The most appends the writer puts in one transaction (group commit), and the most events
#: (at ~300 bytes each, about 1 MiB of rows): past either, the rest wait for the next one.
GROUP_APPENDS = 256
GROUP_EVENTS = 4096
#: Seconds of a group's work after which the writer lets the threads that answer reads run.
YIELD_EVERY_S = 0.004


@dataclass(frozen=True)
class _Waiting:
    """An append waiting for the writer: as sent, with ``at`` stamped, and its answer."""

    game: str
    events: list[dict[str, Any]]
    stamped: list[dict[str, Any]]
    expected_seq: int | None
    future: Future[tuple[AppendResult, list[dict[str, Any]]]]


class _WriteAlone(Exception):
    """A group to write again, each append in a transaction of its own."""


@dataclass(frozen=True)
class Cached:
    head: Head
    tl: Timeline


class Notifier:
    """Wakes the server-sent-event streams of a game when it gets new events, and those of
    every game (subscribed as :data:`EVERY_GAME`) when any game does."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = {}
        #: Set at each :meth:`subscribe`: a stream opened (the watch of a store that waits
        #: while none is open waits on it: :class:`jaslog.service.processes.StoreWatch`).
        self.opened = threading.Event()
        #: Called with the game at each :meth:`subscribe`, on the event loop's thread (a
        #: worker of ``jaslog serve --workers N`` asks the one writer to tell it of the
        #: game's moves: :meth:`jaslog.service.writer.WriterLink.watch`); None: nothing.
        self.watching: Callable[[str], None] | None = None

    def subscribe(self, game: str) -> asyncio.Event:
        ev = asyncio.Event()
        self._waiters.setdefault(game, set()).add(ev)
        self.opened.set()
        if self.watching is not None:
            self.watching(game)
        return ev

    def listening(self) -> bool:
        """Whether a stream of this process waits on the notifier (any game)."""
        return bool(self._waiters)

    def unsubscribe(self, game: str, ev: asyncio.Event) -> None:
        s = self._waiters.get(game)
        if s is not None:
            s.discard(ev)
            if not s:
                del self._waiters[game]

    def publish(self, game: str) -> None:
        """Wake this process's streams of ``game``, which this process appended to (the
        other processes over the store hear of it from the store: :mod:`processes
        <jaslog.service.processes>`). Call from the event loop's thread."""
        self.wake(game)

    def wake(self, game: str) -> None:
        """Wake this process's streams of ``game`` (and of every game). Call from the event
        loop's thread."""
        for ev in self._waiters.get(game, ()):
            ev.set()
        for ev in self._waiters.get(EVERY_GAME, ()):
            ev.set()


#: What the stream of every game subscribes to (no game id is empty)
EVERY_GAME = ""


class Service:
    """One running service: its store pool, tokens, game cache and notifier.

    Reads go through a pool of stores. Appends go through one writer store under a lock:
    the database serializes writers anyway (SQLite ``BEGIN IMMEDIATE``, PostgreSQL an
    advisory lock), and one writer keeps the store's fold of each game warm. The API's
    appends wait for the writer on a thread of their own (:meth:`append_soon`), never on the
    threads that answer reads: however many appends queue behind a slow write, a read is
    answered at once. The appends that wait together are written in one transaction (group
    commit, at most :data:`GROUP_APPENDS`), each checked in turn and answered on its own,
    with the violations the writer's fold found as it checked the append (the game is folded
    once an append).

    The folded games it keeps (the timelines reads are answered from) are bounded
    by the memory they hold (``$JASLOG_CACHE_MB`` each, as the store's folds:
    :func:`jaslog.store.foldcache.cache_events`), not by a count of games: every live game of
    a busy service stays folded as long as they fit.

    ``clock`` is the service's own clock (default: the system's): every store of the
    service stamps ``recorded_at`` with it, and whatever the service times (a tournament's
    move limit) reads it, so tests can pass a :class:`jaslog.store.clock.ManualClock`.
    """

    def __init__(self, url: str | None, *, pool_size: int = 4,
                 clock: Clock | None = None) -> None:
        self.url = url
        self.clock: Clock = clock or system_clock
        self.pool = StorePool(url, pool_size, self.clock)
        self.writer = open_store(url, clock=self.clock)
        self._write_lock = threading.Lock()
        self._queue: queue.SimpleQueue[_Waiting | None] = queue.SimpleQueue()
        self._writer_thread: threading.Thread | None = None
        self._closed = False
        self.engine = service_engine(url)
        self.tokens = Tokens(self.engine, self.clock)
        self.notifier = Notifier()
        self._cache: OrderedDict[str, Cached] = OrderedDict()
        self._headers: dict[str, GameStarted] = {}
        #: Each game's next seq as this service's writer last wrote it.
        self._written: dict[str, int] = {}
        self._lock = threading.Lock()
        #: The one writer this service's appends go to (``jaslog serve --workers N`` over
        #: SQLite: :mod:`jaslog.service.writer`); None: this service writes them itself.
        self.link: WriterLink | None = None
        #: The answers of the writer's group for each event loop awaiting them
        #: (:meth:`_to_loop`).
        self._to_loops: dict[asyncio.AbstractEventLoop, list[tuple[
            asyncio.Future[tuple[AppendResult, list[dict[str, Any]]]],
            Future[tuple[AppendResult, list[dict[str, Any]]]]]]] = {}
        #: The ``NOTIFY`` (channel, payload) each of the writer's commits that stored events
        #: sends, with the commit, on PostgreSQL: the other processes' watches read the
        #: store then (:class:`jaslog.service.processes.StoreWatch` sets it); None: none.
        self.notify: tuple[str, str] | None = None

    def close(self) -> None:
        with self._lock:
            self._closed, thread = True, self._writer_thread
            if thread is not None:
                self._queue.put(None)
                self._writer_thread = None
        if thread is not None:
            thread.join()
        self.pool.close()
        self.writer.close()
        self.engine.dispose()

    # ------------------------------------------------------------------ reading games

    def timeline(self, game: str) -> tuple[Head, Timeline]:
        """The game folded at its head (cached while the head does not move)."""
        with self.pool.get() as s:
            head = s.head(game)
            with self._lock:
                hit = self._cache.get(game)
            if hit is not None and hit.head == head:
                with self._lock:
                    self._cache.move_to_end(game)
                return hit.head, hit.tl
            events = self._events_to(s, game, head, hit)
        tl = timeline(events)
        with self._lock:
            self._cache[game] = Cached(head, tl)
            self._cache.move_to_end(game)
            held = sum(c.head.next_seq for c in self._cache.values())
            while held > cache_events() and len(self._cache) > 1:
                held -= self._cache.popitem(last=False)[1].head.next_seq
        return head, tl

    @staticmethod
    def _events_to(s: Store, game: str, head: Head, hit: Cached | None) -> list[Event]:
        """The game's events up to ``head``: those of the timeline kept (``hit``) when it is
        behind, and only the events since read and parsed (folding them all again takes a
        fraction of reading them)."""
        if hit is not None and hit.tl.error is None and 0 < hit.head.next_seq < head.next_seq:
            new = [e for e in s.events_since(game, hit.head.next_seq) if e.seq <= head.seq]
            if len(new) == head.next_seq - hit.head.next_seq:
                return [*hit.tl.events, *new]
        return s.events(game, upto=head.seq)

    def header(self, game: str) -> GameStarted:
        """A game's ``game_started`` event (it never changes)."""
        with self._lock:
            h = self._headers.get(game)
        if h is None:
            with self.pool.get() as s:
                first = s.events(game, upto=0)[0]
            assert isinstance(first, GameStarted)
            h = first
            with self._lock:
                self._headers[game] = h
        return h

    def timeline_in_memory(self, game: str) -> Timeline | None:
        """The game's timeline when the one kept is at the head this service's writer last
        wrote (no database read; None when the service does not know it is: read it with
        :meth:`timeline`). Another process's appends are not seen here."""
        with self._lock:
            hit = self._cache.get(game)
            known = self._written.get(game)
        if hit is None or known is None or hit.head.next_seq != known:
            return None
        return hit.tl

    def header_known(self, game: str) -> bool:
        """Whether the service has ``game``'s ``game_started`` in memory (:meth:`header`
        reads nothing then)."""
        with self._lock:
            return game in self._headers

    def games(self, *, player: str | None = None, ruleset: str | None = None,
              since: str | None = None, limit: int | None = None) -> list[GameInfo]:
        with self.pool.get() as s:
            return s.games(player=player, ruleset=ruleset, since=since, limit=limit)

    def sight(self, who: Principal, game: str) -> Sight:
        h = self.header(game)
        return who.sight(list(h.seats), h.meta, game)

    # ------------------------------------------------------------------ writing games

    def new_game(self, fields: dict[str, Any]) -> str:
        with self._write_lock:
            return self.writer.new_game(**fields)

    def submit(self, game: str, events: list[dict[str, Any]], expected_seq: int | None
               ) -> Future[tuple[AppendResult, list[dict[str, Any]]]]:
        """Queue an append for the writer's thread; its answer (as :meth:`append`'s) when it
        is written. The appends that wait together are written in one transaction (group
        commit: :meth:`_write_group`); each gets its own answer."""
        if self.link is not None and not self.link.on_loop():
            fut = self.link.submit(game, events, expected_seq)
            fut.add_done_callback(self._note_written)
            return fut
        w = _Waiting(game, events, self._stamped(events), expected_seq, Future())
        with self._lock:
            if self._closed:
                raise RuntimeError("the service is closed")
            if self._writer_thread is None:
                self._writer_thread = threading.Thread(target=self._write_loop,
                                                       name="jaslog-writer", daemon=True)
                self._writer_thread.start()
            self._queue.put(w)
        return w.future

    async def append_soon(self, game: str, events: list[dict[str, Any]], expected_seq: int | None
                          ) -> tuple[AppendResult, list[dict[str, Any]]]:
        """:meth:`append`, run on the writer's own thread and awaited: a request waiting for
        its turn to write holds none of the threads that answer reads. With a
        :attr:`link`, the append goes from the event loop to the one writer and back."""
        if self.link is not None:
            res, new = await self.link.append(game, events, expected_seq)
            self.moved(game, res.head.next_seq)
            return res, new
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[tuple[AppendResult, list[dict[str, Any]]]] = loop.create_future()
        written = self.submit(game, events, expected_seq)
        answer.add_done_callback(lambda a: written.cancel() if a.cancelled() else None)
        written.add_done_callback(lambda w: self._to_loop(loop, answer, w))
        return await answer

    def _to_loop(self, loop: asyncio.AbstractEventLoop,
                 answer: asyncio.Future[tuple[AppendResult, list[dict[str, Any]]]],
                 written: Future[tuple[AppendResult, list[dict[str, Any]]]]) -> None:
        """Pass an append's answer to the event loop awaiting it: at once on the loop's own
        thread, else with the answers of its whole group, in one wake of the loop
        (:meth:`_answer_loops`, once the writer's group is answered)."""
        if asyncio._get_running_loop() is loop:
            _settle(((answer, written),))
            return
        with self._lock:
            self._to_loops.setdefault(loop, []).append((answer, written))

    def _answer_loops(self) -> None:
        """Wake each event loop awaiting answers of the group just written once, with them
        all (:meth:`_to_loop`)."""
        with self._lock:
            waiting, self._to_loops = self._to_loops, {}
        for loop, answers in waiting.items():
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody awaits them
                loop.call_soon_threadsafe(_settle, answers)

    def _note_written(self, fut: Future[tuple[AppendResult, list[dict[str, Any]]]]) -> None:
        if fut.exception() is None:
            res = fut.result()[0]
            self.moved(res.game, res.head.next_seq)

    def moved(self, game: str, next_seq: int) -> None:
        """Note that the one writer (:attr:`link`) moved ``game`` to ``next_seq``: a
        timeline kept at an older head is no longer the game's
        (:meth:`timeline_in_memory`)."""
        with self._lock:
            if self._written.get(game, -1) < next_seq:
                self._written[game] = next_seq

    def append(self, game: str, events: list[dict[str, Any]],
               expected_seq: int | None) -> tuple[AppendResult, list[dict[str, Any]]]:
        """Append through the store; the result and the violations the new events brought.

        Events without ``at`` are stamped with the time of arrival by the service's clock,
        and a retry of such an event (same ``id``) is recognised although its stamp differs
        from the stored one. The store stamps every new event's ``recorded_at`` with the same
        clock.
        """
        if self.link is not None and not self.link.on_loop():
            return self.submit(game, events, expected_seq).result()
        w = _Waiting(game, events, self._stamped(events), expected_seq, SettledFuture())
        w.future.set_running_or_notify_cancel()
        with self._write_lock:
            self._write_group([w])
        return w.future.result()

    def write_now(self, appends: list[tuple[str, list[dict[str, Any]], int | None]]
                  ) -> list[Future[tuple[AppendResult, list[dict[str, Any]]]]]:
        """Write ``appends`` (each ``(game, events, expected_seq)``) on this thread, as the
        writer's thread writes what waits for it: in turn, in groups of at most
        :data:`GROUP_APPENDS` appends (or as many as hold :data:`GROUP_EVENTS` events), each
        group in one transaction under the writer's lock; their answers, every one done
        (:meth:`append`'s result, or its refusal). The one writer of ``jaslog serve
        --workers N`` writes what it read from its workers so, on the thread that reads
        them (:class:`jaslog.service.writer.WriterServer`): no hop to another thread."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the service is closed")
        arrived: list[str] = []  # the time the appends came, read once for them all
        waiting = [_Waiting(game, events, self._stamped(events, arrived), expected_seq,
                            SettledFuture())
                   for game, events, expected_seq in appends]
        at = 0
        while at < len(waiting):
            group: list[_Waiting] = []
            n = 0
            while at < len(waiting) and len(group) < GROUP_APPENDS and n < GROUP_EVENTS:
                w = waiting[at]
                w.future.set_running_or_notify_cancel()
                group.append(w)
                n += len(w.events)
                at += 1
            with self._write_lock:
                self._write_group(group)
        return [w.future for w in waiting]

    def _stamped(self, events: list[dict[str, Any]], arrived: list[str] | None = None
                 ) -> list[dict[str, Any]]:
        """The events, each without ``at`` stamped with the time now (of arrival).
        ``arrived``: the stamp of appends that came together, read by the first of them that
        needs it (kept there) and given to the others."""
        for e in events:
            if e.get("at") is None:
                break
        else:
            return events
        if arrived is None:
            now = stamp(self.clock())
        elif arrived:
            now = arrived[0]
        else:
            now = stamp(self.clock())
            arrived.append(now)
        return [e if e.get("at") is not None else {**e, "at": now} for e in events]

    def _write_loop(self) -> None:
        """The writer's thread: waits for an append, takes the writer's lock, then every
        append waiting by then and those queued while the transaction began (up to
        :data:`GROUP_APPENDS` of them, or as many as hold :data:`GROUP_EVENTS` events),
        written in one transaction."""
        closing = False
        while not closing:
            w = self._queue.get()
            if w is None:
                return
            group: list[_Waiting] = []
            try:
                with self._write_lock:
                    n = 0
                    while w is not None:
                        if w.future.set_running_or_notify_cancel():  # (else its asker gave up)
                            group.append(w)
                            n += len(w.events)
                        if len(group) >= GROUP_APPENDS or n >= GROUP_EVENTS:
                            break
                        try:
                            w = self._queue.get_nowait()
                        except queue.Empty:
                            break
                        closing = w is None  # closing: write what was taken, then stop
                    if group:
                        self._write_group(group, more=not closing)
            finally:
                if group:
                    self._answer_loops()

    def _write_group(self, group: list[_Waiting], *, more: bool = False) -> None:
        """Write ``group``'s appends in one transaction, in turn, and answer each (the
        writer's lock is held). ``more``: the appends queued while the transaction began
        join the group (:meth:`_join`).

        Every refusal of an append (a conflict, a rule, a bad event) is found before it
        writes anything (:meth:`jaslog.store.Store.group`): it is answered with its own error
        and the others are written. A failure of the database itself (the transaction or its
        commit) answers every append of the group with that error: nothing of the group was
        written. Should the database refuse an append's rows once they are checked (a
        damaged store), nothing of the group is written and each append is written again in
        a transaction of its own, answered as it would have been alone."""
        try:
            results = self._group_results(group, more)
        except _WriteAlone:
            for w in group:
                self._write_group([w])
            return
        except BaseException as e:  # the database's failure (or the commit's): every append's
            for w in group:
                w.future.set_exception(e)
            if not isinstance(e, Exception):
                raise
            return
        for w, res in zip(group, results, strict=True):
            if isinstance(res, BaseException):
                w.future.set_exception(res)
                continue
            try:
                new = self._new_violations(res)
            except Exception as e:
                w.future.set_exception(e)
            else:
                self._written[w.game] = res.head.next_seq
                w.future.set_result((res, new))

    def _group_results(self, group: list[_Waiting], more: bool = False
                       ) -> list[AppendResult | Exception]:
        """Each append's result or refusal, the group committed (see :meth:`_write_group`);
        ``more``: ``group`` takes the appends queued while its transaction began."""
        results: list[AppendResult | Exception] = []
        held = time.perf_counter()
        with self.writer.group() as g:
            if more:
                self._join(group)
            for w in group:
                try:
                    results.append(self._append_in(g, w))
                except Exception as e:
                    if is_driver_error(e):
                        raise  # the database's own failure: the group's
                    if g.broken:  # nothing of the group may be committed
                        if len(group) > 1 or g.kept_heads:
                            raise _WriteAlone from e
                        raise  # alone: its own answer, as an append of its own
                    results.append(e)  # refused: nothing of it was written
                if time.perf_counter() - held >= YIELD_EVERY_S:
                    # let the threads that answer reads run: after a few appends, not after
                    # each (a yield costs the writer up to Python's switch interval, 5 ms)
                    time.sleep(0)
                    held = time.perf_counter()
            try:
                g.finish(self.notify)  # the rows waiting (PostgreSQL) and the commit
            except Exception as e:
                if is_driver_error(e) or not g.broken:
                    raise
                if len(group) > 1 or g.kept_heads:  # a game moved by another writer, maybe
                    raise _WriteAlone from e
                raise  # alone: its own answer, as an append of its own
        return results

    def _join(self, group: list[_Waiting]) -> None:
        """Add to ``group`` the appends queued since it was taken (up to
        :data:`GROUP_APPENDS`, :data:`GROUP_EVENTS`): on PostgreSQL its transaction's start is
        an exchange with the server, and the appends the event loop queued meanwhile would
        otherwise wait for a transaction of their own (with two processes each writing
        itself, a process's groups were one append in three). They are written and answered
        as they would have been in the next group."""
        n = sum(len(w.events) for w in group)
        while len(group) < GROUP_APPENDS and n < GROUP_EVENTS:
            try:
                w = self._queue.get_nowait()
            except queue.Empty:
                return
            if w is None:  # closing: the writer's thread stops after this group
                self._queue.put(None)
                return
            if w.future.set_running_or_notify_cancel():  # (else its asker gave up)
                group.append(w)
                n += len(w.events)

    def _append_in(self, g: AppendGroup, w: _Waiting) -> AppendResult:
        """One waiting append in the group's transaction; a retry of stored events (same
        ids) is recognised."""
        game, events, expected_seq = w.game, w.events, w.expected_seq
        try:
            return g.append(game, w.stamped, expected_seq)
        except ConflictError as err:
            if g.broken:
                raise
            done = self._retried(g.events, game, events, expected_seq, err)
            if done is None:
                raise
            if done == len(events):
                return AppendResult(game, 0, done, g.head(game))
            rest = g.append(game, w.stamped[done:], (expected_seq or 0) + done)
            return AppendResult(game, rest.appended, done + rest.already_stored, rest.head,
                                rest.violations)

    @staticmethod
    def _new_violations(res: AppendResult) -> list[dict[str, Any]]:
        """The violations the appended events brought, as the writer's fold found them when
        it checked them (the game is not folded again to answer)."""
        if not res.violations:
            return []
        return [violation_dict(v) for v in sorted(res.violations, key=lambda v: v.seq)]

    @staticmethod
    def _retried(stored_events: Callable[[str], list[Event]], game: str,
                 events: list[dict[str, Any]], expected_seq: int | None,
                 err: ConflictError) -> int | None:
        """How many leading events of the batch are already stored as they were sent (a retry
        whose ``at`` the server stamped), or None when the conflict is real."""
        if expected_seq is None or expected_seq >= err.actual or not events:
            return None
        if any(not e.get("id") for e in events):
            return None
        stored = stored_events(game)[expected_seq:]
        n = 0
        for sent, have in zip(events, stored, strict=False):
            d = have.model_dump(exclude_none=True)
            d.pop("recorded_at", None)  # the store's stamp: never sent (else refused)
            if sent.get("at") is None:
                d.pop("at", None)
            want = {k: v for k, v in sent.items() if v is not None}
            want.setdefault("game", game)
            want.setdefault("seq", expected_seq + n)
            if str(d.get("id", "")).replace("-", "").lower() != \
                    str(want.get("id", "")).replace("-", "").lower():
                return None
            d.pop("id", None)
            want.pop("id", None)
            if d != want:
                return None
            n += 1
        return n or None


def _settle(answers: Iterable[tuple[asyncio.Future[Any], Future[Any]]]) -> None:
    """On the event loop: each awaited answer given the writer's (unless its asker gave up)."""
    for answer, written in answers:
        if answer.done():
            continue
        if written.cancelled():
            answer.cancel()
        elif (e := written.exception()) is not None:
            answer.set_exception(e)
        else:
            answer.set_result(written.result())


def table_of(started: Event) -> str | None:
    """The table a game is played at: its ``game_started`` meta ``table``."""
    meta = getattr(started, "meta", None) or {}
    t = meta.get("table")
    return None if t is None else str(t)
