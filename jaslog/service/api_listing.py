"""The games listing, ``GET /api/games``: pages of games (oldest or newest first, through a
cursor), filtered by the store's indexes or game by game, each as the token sees it.

Its router is included before :mod:`jaslog.service.api_games`'s, so the listing comes first
in ``/openapi.json`` as it always has; ``/api/games`` and ``/api/games/{game}`` never match
the same path.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import Field

from jaslog.play.views import NotVisible, report
from jaslog.service.api_games import game_out, kind_of, view_name
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, api_words, principal, responses, service
from jaslog.service.game_models import GameOut
from jaslog.store import StoreError
from jaslog.store.codec import UnreadableEvent
from jaslog.store.queries import cursor_pos, page_cursor

router = APIRouter(prefix="/api", tags=["games"])


def unreadable_out(who: Principal, info: Any, e: UnreadableEvent) -> dict[str, Any]:
    """A listed game that cannot be read (stored by an older jaslog): named, with why, and
    what its header row says; the rest of the listing goes on."""
    s = who.sight(list(info.seats), None, info.game)
    return {"game": info.game, "ruleset": info.ruleset, **kind_of(info.ruleset),
            "seats": info.seats, "dealer": info.dealer, "table": None, "tournament": None,
            "created_at": info.created_at,
            "events": info.events if s.full else 0, "last_at": info.last_at if s.full else None,
            "view": view_name(s), "seat": s.seat, "unreadable": api_words(str(e))}


# ---------------------------------------------------------------------- listing and creating


#: how many games one ``GET /api/games`` reads at most to fill a page when a filter the
#: store has no index for (table, event, tournament: the game's meta) leaves most out: the
#: page may then be short (even empty) with a ``next_cursor`` to go on from
SCAN_BUDGET = 2000
#: how many games the listing reads from the store at a time when it looks games up one by
#: one (a filter on the game's meta)
LOOKUP_BATCH = 200


class GameListItemOut(GameOut):
    """A listed game; with ``summary=true`` also where it stands (as this token sees it)."""

    finished: bool | None = None
    winner: int | str | None = None
    live_round: int | None = None
    violations: int | None = None
    first_violation: int | None = Field(None, description="the seq of the first violation")
    open_seq: int | None = Field(None, description="where the viewer opens the game: the "
                                 "newest event of a live game, the first violation of a "
                                 "finished one (None: its start)")
    unreadable: str | None = Field(None, description="why the game cannot be read (stored by "
                                   "an older jaslog); its other fields are its header's")


def decode_cursor(cursor: str, order: str) -> int:
    """The place a cursor of :func:`jaslog.store.queries.page_cursor` goes on from (422 when
    it is not one of this order's)."""
    pos = cursor_pos(cursor, order)
    if pos is None:
        raise ApiError(422, "bad_cursor", f"cursor {cursor[:40]!r} is not a next_cursor of a "
                       f"listing in order {order} (start again without cursor)")
    return pos


def _standing(svc: Service, who: Principal, g: dict[str, Any]) -> dict[str, Any]:
    """Where a listed game stands as ``who`` sees it (its fold is cached by the service)."""
    _, tl = svc.timeline(g["game"])
    s = svc.sight(who, g["game"])
    try:
        rep = report(tl, s)
    except NotVisible:
        return {"finished": None, "winner": None, "live_round": None, "violations": None,
                "first_violation": None, "open_seq": None}
    first = min((v["seq"] for v in rep["violations"]), default=None)
    if not rep["finished"]:
        open_seq: int | None = tl.horizon() if s.public else tl.applied() - 1
    else:
        open_seq = first
    return {"finished": rep["finished"], "winner": rep["winner"], "live_round": tl.live_round,
            "violations": len(rep["violations"]), "first_violation": first,
            "open_seq": open_seq}


@router.get("/games", response_model=list[GameListItemOut], responses=responses(401, 422))
def list_games(
    request: Request,
    svc: Service = Depends(service), who: Principal = Depends(principal),
    player: Annotated[str | None, Query(max_length=64,
                                        description="a player id or display name")] = None,
    ruleset: Annotated[str | None, Query(max_length=64)] = None,
    status: Annotated[Literal["live", "finished"] | None, Query()] = None,
    date_from: Annotated[str | None, Query(alias="from", max_length=40, description=(
        "started at or after: a date (2026-01-31) or an RFC 3339 time"))] = None,
    date_to: Annotated[str | None, Query(alias="to", max_length=40, description=(
        "started at or before: a time, or a date (the whole day)"))] = None,
    table: Annotated[str | None, Query(max_length=64)] = None,
    event: Annotated[str | None, Query(max_length=200, description=(
        "part of the game's meta.event (a club night, a tournament's name), any case"))] = None,
    tournament: Annotated[str | None, Query(max_length=64)] = None,
    winner: Annotated[str | None, Query(max_length=64, description=(
        "a winning player's id or display name, or draw"))] = None,
    cursor: Annotated[str | None, Query(max_length=64, description=(
        "the X-Next-Cursor of the page before"))] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    order: Annotated[Literal["oldest", "newest"], Query()] = "oldest",
    sort: Annotated[Literal["stored", "started"], Query(description=(
        "stored: in the order the games were stored; started: by each game's start "
        "(created_at, its game_started's time), as the games page lists them"))] = "stored",
    summary: Annotated[bool, Query(description=(
        "add where each game stands: finished, winner, violations, open_seq"))] = False,
) -> Response:
    """Games, oldest (or newest) first, with what this token sees of each (full, seat or
    public), ``limit`` a page. The body is the list of games; when there are more, the
    ``X-Next-Cursor`` header holds the ``cursor`` of the next page (and ``Link`` its URL,
    ``rel="next"``). ``player``, ``ruleset``, ``from``/``to``, ``status``, ``winner``,
    ``table`` and ``tournament`` use the store's indexes; ``event`` (part of the game's
    meta.event) is looked up game by game (at most 2000 a page: a page may then be short, with
    a next cursor)."""
    # a parameter it does not take is refused (422) by the app's check of every route's
    # query (jaslog.service.params), not ignored
    kind = order if sort == "stored" else f"started-{order}"  # a cursor is of one order
    after = decode_cursor(cursor, kind) if cursor is not None else None
    looked_up = event is not None
    out: list[dict[str, Any]] = []
    scanned, more = 0, False
    while True:
        batch = LOOKUP_BATCH if looked_up else limit + 1 - len(out)
        try:
            with svc.pool.get() as st:
                rows = st.game_page(player=player, ruleset=ruleset, since=date_from,
                                    until=date_to, after=after, newest=order == "newest",
                                    limit=batch, status=status, winner=winner, table=table,
                                    tournament=tournament, by_start=sort == "started")
        except StoreError as e:
            raise ApiError(422, "bad_request", str(e)) from None
        for pos, info in rows:
            if len(out) == limit:
                more = True
                break
            after, scanned = pos, scanned + 1
            try:
                g = game_out(svc, who, info)
            except UnreadableEvent as e:  # one such game never stops the listing
                if not looked_up:
                    out.append(unreadable_out(who, info, e))
                continue
            if event is not None and event.lower() not in str(
                    (svc.header(info.game).meta or {}).get("event", "")).lower():
                continue
            if summary:
                g.update(_standing(svc, who, g))
            out.append(g)
        if more or len(rows) < batch:
            break
        if len(out) == limit or scanned >= SCAN_BUDGET:
            more = True
            break
    headers: dict[str, str] = {}
    if more and after is not None:
        nxt = page_cursor(kind, after)
        headers["X-Next-Cursor"] = nxt
        headers["Link"] = f'<{request.url.include_query_params(cursor=nxt)}>; rel="next"'
    return JSONResponse(out, headers=headers)
