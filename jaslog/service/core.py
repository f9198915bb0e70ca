"""The service's engine room: a pool of stores, the folded games, and who is waiting for news.

Everything about games goes through :mod:`jaslog.store` (append, events, head, games) and
:mod:`jaslog.views` (what a sight may see); nothing here writes SQL against the events.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from jaslog.audit import violation_dict
from jaslog.engine.fold import FoldError, GameFold
from jaslog.events import Event, EventError, GameStarted, event_from_dict
from jaslog.service.auth import Principal, Tokens
from jaslog.service.db import service_engine
from jaslog.store import AppendResult, ConflictError, GameInfo, Head, Store, open_store
from jaslog.store.appending import cache_events
from jaslog.store.clock import Clock, stamp, system_clock
from jaslog.views import Sight, Timeline, timeline


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


@dataclass(frozen=True)
class Cached:
    head: Head
    tl: Timeline


class Notifier:
    """Wakes the server-sent-event streams of a game when it gets new events."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = {}

    def subscribe(self, game: str) -> asyncio.Event:
        ev = asyncio.Event()
        self._waiters.setdefault(game, set()).add(ev)
        return ev

    def unsubscribe(self, game: str, ev: asyncio.Event) -> None:
        s = self._waiters.get(game)
        if s is not None:
            s.discard(ev)
            if not s:
                del self._waiters[game]

    def publish(self, game: str) -> None:
        """Call from the event loop's thread."""
        for ev in self._waiters.get(game, ()):
            ev.set()


class Service:
    """One running service: its store pool, tokens, game cache and notifier.

    Reads go through a pool of stores. Appends go through one writer store under a lock:
    the database serializes writers anyway (SQLite ``BEGIN IMMEDIATE``, PostgreSQL an
    advisory lock), and one writer keeps the store's fold of each game warm. The API's
    appends wait for the writer on a thread of their own (:meth:`append_soon`), never on the
    threads that answer reads: however many appends queue behind a slow write, a read is
    answered at once. Next to it, the service keeps each recorded game's fold at its head
    ("tip") to say which violations an append brought without folding the game again.

    The folded games it keeps (tips, and the timelines reads are answered from) are bounded
    by the memory they hold (``$JASLOG_CACHE_MB`` each, as the store's folds:
    :func:`jaslog.store.appending.cache_events`), not by a count of games: every live game of
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
        self._writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jaslog-writer")
        self._tips: OrderedDict[str, GameFold] = OrderedDict()
        self.engine = service_engine(url)
        self.tokens = Tokens(self.engine, self.clock)
        self.notifier = Notifier()
        self._cache: OrderedDict[str, Cached] = OrderedDict()
        self._headers: dict[str, GameStarted] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        self._writes.shutdown(wait=True)
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
            events = s.events(game, upto=head.seq)
        tl = timeline(events)
        with self._lock:
            self._cache[game] = Cached(head, tl)
            self._cache.move_to_end(game)
            held = sum(c.head.next_seq for c in self._cache.values())
            while held > cache_events() and len(self._cache) > 1:
                held -= self._cache.popitem(last=False)[1].head.next_seq
        return head, tl

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

    def games(self, *, player: str | None = None, ruleset: str | None = None,
              since: str | None = None, limit: int | None = None) -> list[GameInfo]:
        with self.pool.get() as s:
            return s.games(player=player, ruleset=ruleset, since=since, limit=limit)

    def sight(self, who: Principal, game: str) -> Sight:
        h = self.header(game)
        return who.sight(list(h.seats), h.meta)

    # ------------------------------------------------------------------ writing games

    def new_game(self, fields: dict[str, Any]) -> str:
        with self._write_lock:
            return self.writer.new_game(**fields)

    async def append_soon(self, game: str, events: list[dict[str, Any]], expected_seq: int | None
                          ) -> tuple[AppendResult, list[dict[str, Any]]]:
        """:meth:`append`, run on the writer's own thread and awaited: a request waiting for
        its turn to write holds none of the threads that answer reads."""
        return await asyncio.wrap_future(
            self._writes.submit(self.append, game, events, expected_seq))

    def append(self, game: str, events: list[dict[str, Any]],
               expected_seq: int | None) -> tuple[AppendResult, list[dict[str, Any]]]:
        """Append through the store; the result and the violations the new events brought.

        Events without ``at`` are stamped with the time of arrival by the service's clock,
        and a retry of such an event (same ``id``) is recognised although its stamp differs
        from the stored one. The store stamps every new event's ``recorded_at`` with the same
        clock.
        """
        arrived = stamp(self.clock())
        stamped = [e if e.get("at") is not None else {**e, "at": arrived} for e in events]
        s = self.writer
        with self._write_lock:
            try:
                res = s.append(game, stamped, expected_seq)
            except ConflictError as err:
                done = self._retried(s, game, events, expected_seq, err)
                if done is None:
                    raise
                if done == len(events):
                    return AppendResult(game, 0, done, s.head(game)), []
                rest = s.append(game, stamped[done:], (expected_seq or 0) + done)
                res = AppendResult(game, rest.appended, done + rest.already_stored, rest.head)
            return res, self._new_violations(game, res, stamped)

    def _new_violations(self, game: str, res: AppendResult,
                        stamped: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Move the game's tip fold over the appended events; the violations that added."""
        if not res.appended:
            return []
        first = res.head.next_seq - res.appended
        tip = self._tips.pop(game, None)
        before = 0
        try:
            if tip is not None and tip.next_seq == first:
                before = len(tip.state.violations)
                for j, e in enumerate(stamped[len(stamped) - res.appended:]):
                    tip.apply(event_from_dict({**e, "game": game, "seq": first + j}))
            else:
                tip = self.writer.fold(game)
                before = -1
        except (FoldError, EventError):
            tip = self.writer.fold(game)
            before = -1
        self._tips[game] = tip
        held = sum(t.next_seq for t in self._tips.values())
        while held > cache_events() and len(self._tips) > 1:
            held -= self._tips.popitem(last=False)[1].next_seq
        vs = tip.state.violations
        new = vs[before:] if before >= 0 else [v for v in vs if v.seq >= first]
        return [violation_dict(v) for v in sorted(new, key=lambda v: v.seq)]

    @staticmethod
    def _retried(s: Store, game: str, events: list[dict[str, Any]], expected_seq: int | None,
                 err: ConflictError) -> int | None:
        """How many leading events of the batch are already stored as they were sent (a retry
        whose ``at`` the server stamped), or None when the conflict is real."""
        if expected_seq is None or expected_seq >= err.actual or not events:
            return None
        if any(not e.get("id") for e in events):
            return None
        stored = s.events(game)[expected_seq:]
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


def table_of(started: Event) -> str | None:
    """The table a game is played at: its ``game_started`` meta ``table``."""
    meta = getattr(started, "meta", None) or {}
    t = meta.get("table")
    return None if t is None else str(t)
