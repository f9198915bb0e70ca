"""One feed of every event of every game, in store order: ``GET /api/events`` pages through
it, ``GET /api/stream`` follows it live (Server-Sent Events, resumable with
``Last-Event-ID``). Each event carries its ``pos`` (its place in the store) and is shown as
this token may see it in its game (:func:`jaslog.play.views.visible_events`, as ``GET
/api/games/{id}/events`` shows it); an event the token may not see yet (a round being
played, for the public; a round that ended with cards unplayed keeps its hands) comes as
``{pos, game, seq, hidden: true}``, so the feed has no gaps: read it again from the game's
own route once its round is over."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field
from sse_starlette.sse import EventSourceResponse

from jaslog.play.views import visible_events
from jaslog.service.auth import Principal
from jaslog.service.core import EVERY_GAME, Service
from jaslog.service.deps import (
    REVOKED,
    ApiError,
    RevocationWatch,
    principal,
    responses,
    service,
    stream_principal,
)
from jaslog.store.feed import MOST_PER_PAGE, FeedRow, events_after

router = APIRouter(prefix="/api", tags=["feed"])

AfterQuery = Annotated[int, Query(ge=0, le=2**62, description=(
    "the pos of the last event read (0: from the first); the page holds those after it"))]


class FeedOut(BaseModel):
    events: list[dict[str, Any]] = Field(description="each event as this token may see it, "
                                         "with its pos; or {pos, game, seq, hidden: true}")
    next_after: int = Field(description="the after= of the next page (the last pos here; "
                            "the same after= when there was nothing new)")


def seen(svc: Service, who: Principal, rows: list[FeedRow]) -> list[dict[str, Any]]:
    """The page's events as ``who`` may see them, in store order, each with its pos."""
    shown: dict[str, dict[int, dict[str, Any]]] = {}
    for game in dict.fromkeys(r.game for r in rows):
        first = min(r.seq for r in rows if r.game == game)
        _, tl = svc.timeline(game)
        sight = svc.sight(who, game)
        shown[game] = {d["seq"]: d for d in visible_events(tl, sight, first)}
    out = []
    for r in rows:
        d = shown[r.game].get(r.seq)
        out.append({"pos": r.pos, **d} if d is not None
                   else {"pos": r.pos, "game": r.game, "seq": r.seq, "hidden": True})
    return out


def page(svc: Service, who: Principal, after: int, limit: int) -> list[dict[str, Any]]:
    with svc.pool.get() as store:
        rows = events_after(store, after, limit)
    return seen(svc, who, rows)


@router.get("/events", response_model=FeedOut, responses=responses(401, 422))
def get_feed(after: AfterQuery = 0,
             limit: Annotated[int, Query(ge=1, le=MOST_PER_PAGE)] = 100,
             svc: Service = Depends(service),
             who: Principal = Depends(principal)) -> Response:
    """Every event of every game after ``pos`` ``after``, in store order, ``limit`` a page;
    the next page is ``after=`` the last ``pos`` (``next_after``). No event is missed or
    read twice, also while games are being appended to."""
    evs = page(svc, who, after, limit)
    body = {"events": evs, "next_after": evs[-1]["pos"] if evs else after}
    return Response(orjson.dumps(body), media_type="application/json")


@router.get("/stream", responses={
    200: {"content": {"text/event-stream": {}}, "description": "server-sent events"},
    **responses(401, 422)})
async def stream_all(request: Request, after: Annotated[int | None, Query(
                         ge=0, le=2**62, description="the pos to go on after (default: "
                         "the newest, or Last-Event-ID)")] = None,
                     svc: Service = Depends(service),
                     who: Principal = Depends(stream_principal)) -> EventSourceResponse:
    """``GET /api/events`` live: each new event of any game as it is stored (``event:
    event``, ``id`` its pos), as this token may see it. ``after`` or ``Last-Event-ID`` goes
    on after a pos; without either the stream starts at the newest event."""
    last_id = request.headers.get("last-event-id", "").strip()
    if after is None and last_id:
        if not (last_id.isascii() and last_id.isdigit() and len(last_id) <= 18):
            raise ApiError(422, "bad_request", f"Last-Event-ID: {last_id[:40]!r} is not a pos "
                           "(the id of an event this stream sent)")
        after = int(last_id)
    if after is None:
        with svc.pool.get() as store:
            after = int(store.cursor())
    start: int = after

    async def gen() -> AsyncIterator[dict[str, Any]]:
        nxt = start
        wake = svc.notifier.subscribe(EVERY_GAME)
        watch = RevocationWatch(svc.tokens.live, who.token_id)
        try:
            while True:
                wake.clear()
                evs = await run_in_threadpool(page, svc, who, nxt, MOST_PER_PAGE)
                if await watch.revoked(bool(evs)):  # the token revoked: the stream ends
                    yield REVOKED
                    return
                for e in evs:
                    yield {"event": "event", "id": str(e["pos"]), "data": orjson.dumps(e).decode()}
                    nxt = e["pos"]
                if len(evs) == MOST_PER_PAGE:
                    continue  # more to catch up on
                if await request.is_disconnected():
                    return
                # another process may have appended: look again after a second anyway
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=1.0)
        finally:
            svc.notifier.unsubscribe(EVERY_GAME, wake)

    return EventSourceResponse(gen(), ping=15)
