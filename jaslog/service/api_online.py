"""Online games' page and their dealer: ``GET /play/{game}`` (a seat's page, its token in the
link's fragment) and the background sweep that deals, reveals and times every online game
(:class:`jaslog.service.online.OnlineTables`) every :data:`ONLINE_EVERY` seconds
(``app.state.online_every``; 0 or None: only after appends)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator
from pathlib import Path as PathLib
from typing import Any

from fastapi import APIRouter, Depends, FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse

from jaslog.play.fairdeal import check_deals
from jaslog.play.views import visible_events
from jaslog.service.api_games import GamePath, _read
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, principal, responses, service
from jaslog.service.move_clock import NOT_MOVES
from jaslog.service.online import online_of
from jaslog.store.clock import stamp

log = logging.getLogger("jaslog.service")

#: Seconds between two sweeps of the online games.
ONLINE_EVERY = 1.0
STATIC = PathLib(__file__).resolve().parent / "static"


async def _run(app: FastAPI, every: float, stop: asyncio.Event) -> None:
    svc: Service = app.state.service
    tables = online_of(svc)
    wait = getattr(app.state, "online_nonce_wait", None)
    if wait is not None:
        tables.nonce_wait = float(wait)
    while not stop.is_set():
        try:
            moved = await run_in_threadpool(tables.sweep)
        except Exception:  # a bad moment of the database: log it, look again later
            log.exception("the online games' sweep failed")
        else:
            for game in moved:
                svc.notifier.publish(game)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=every)


@contextlib.asynccontextmanager
async def online_sweep(app: FastAPI) -> AsyncIterator[None]:
    """The background dealer and move clock of the online games, while the service runs."""
    every = getattr(app.state, "online_every", ONLINE_EVERY)
    stop = asyncio.Event()
    task = asyncio.create_task(_run(app, every, stop)) if every and every > 0 else None
    try:
        yield
    finally:
        if task is not None:
            stop.set()
            await task


router = APIRouter(lifespan=online_sweep)


#: The longest a seat's ``GET /api/games/{id}/turn?wait=`` waits (seconds).
TURN_WAIT_MAX = 30.0
#: How often (seconds) a waiting seat looks at its game although nothing woke it.
LOOK_AGAIN_S = 5.0


async def wait_for_seat(svc: Service, who: Principal, game: str, seconds: float,
                        after: int | None = None) -> None:
    """Wait, up to ``seconds``, until the seat of ``who`` has something to do in ``game``
    (:meth:`~jaslog.service.online.OnlineTables.seat_has_to_act`) or, with ``after`` (the
    ``next_seq`` the caller has seen, and so what is due there), only until the game has
    moved past it (a page that answered at once while its seat is to act would redraw
    without end): woken by every
    append the service makes to the game, and every :data:`LOOK_AGAIN_S` seconds anyway
    (another process may have appended)."""
    if who.seat is None or who.game != game:
        return
    tables = online_of(svc)
    loop = asyncio.get_running_loop()
    until = loop.time() + min(seconds, TURN_WAIT_MAX)
    wake = svc.notifier.subscribe(game)
    reading = _reading(svc, game)
    try:
        while True:
            wake.clear()
            # one waiter of a game at a time reads the game when the timeline kept is
            # behind the last append: the seats woken with it then find it in memory
            async with reading:
                tl = svc.timeline_in_memory(game)  # the game as the last append left it
                if tl is not None:
                    woken = len(tl.events) > after if after is not None else \
                        tables.has_to_act(tl, who.seat)
                else:
                    woken = await run_in_threadpool(_woken, svc, tables, game, who.seat, after)
            if woken:
                return
            left = until - loop.time()
            if left <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout=min(left, LOOK_AGAIN_S))
    finally:
        svc.notifier.unsubscribe(game, wake)


_READING: weakref.WeakKeyDictionary[Service, weakref.WeakValueDictionary[str, asyncio.Lock]] = \
    weakref.WeakKeyDictionary()


def _reading(svc: Service, game: str) -> asyncio.Lock:
    """The lock the seats waiting on ``game`` read it under (one a game while any waits)."""
    locks = _READING.setdefault(svc, weakref.WeakValueDictionary())
    lock = locks.get(game)
    if lock is None:
        lock = locks[game] = asyncio.Lock()
    return lock


def _woken(svc: Service, tables: Any, game: str, seat: int, after: int | None) -> bool:
    if after is not None:  # the caller has the game at ``after``: what is due there, it knows
        head, _ = svc.timeline(game)
        return bool(head.next_seq > after)
    return bool(tables.seat_has_to_act(game, seat))


@router.get("/play/{game}", include_in_schema=False)
def play_page(game: GamePath) -> FileResponse:
    """A seat's page of an online game (the token is in the link's fragment, never sent)."""
    return FileResponse(STATIC / "play.html")


def online_status(svc: Service, who: Principal, game: str) -> dict[str, Any]:
    """An online game's clock, when the wait of the seat due began, and its deals as this
    token may see them, checked (rule book 9.3, decision 21)."""
    clock = online_of(svc).clock_of(game)
    if clock is None:
        raise ApiError(404, "not_online", f"game {game} is not an online game", game=game)
    head, tl, s = _read(svc, who, game)
    evs = visible_events(tl, s, 0)
    found = check_deals(game, evs)
    start = next((e for e in reversed(tl.events) if e.type not in NOT_MOVES), tl.events[0])
    return {"game": game, "clock": clock, "seat": s.seat, "next_seq": head.next_seq,
            "wait_since": start.recorded_at if not s.public else None,
            "now": stamp(svc.clock()),
            "deals": {"checked": found.checked, "pending": found.pending,
                      "problems": [{"round": p.round, "seq": p.seq, "code": p.code,
                                    "message": p.message} for p in found.problems]},
            "nonces": sorted({(int(e["round"]), int(e["seat"])) for e in evs
                              if e.get("type") == "nonce"}),
            "commits": {int(e["round"]): e["commit"] for e in evs
                        if e.get("type") == "deal_committed"},
            "reveals": {int(e["round"]): e["seed"] for e in evs
                        if e.get("type") == "deal_revealed"}}


@router.get("/api/games/{game}/online", responses=responses(401, 404))
def get_online(game: GamePath, svc: Service = Depends(service),
               who: Principal = Depends(principal)) -> dict[str, Any]:
    """An online game's clock (``clock`` seconds a move, ``wait_since``: when the seat due
    began to wait), its commits, nonces and revealed seeds as this token may see them, and
    every revealed deal checked (``deals``: ``checked``, ``pending``, ``problems``)."""
    return online_status(svc, who, game)
