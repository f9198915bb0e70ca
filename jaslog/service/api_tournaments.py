"""The tournament routes: create, list, standings, next round, withdrawals, move clocks.

The move clock (:mod:`jaslog.service.move_clock`) runs when a tournament is read (``GET``),
when ``POST /api/tournaments/{id}/clock`` asks, and in a background task of the running
service every :data:`MOVE_CLOCK_EVERY` seconds (``app.state.move_clock_every``; 0 or None:
no background task), so a timeout is recorded although nobody is looking.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field, field_validator

from jaslog.events import PlayerId
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import (
    ApiError,
    OffLoopRoute,
    Roles,
    json_safe,
    named,
    principal,
    responses,
    service,
    small_body,
)
from jaslog.service.move_clock import MoveClock
from jaslog.service.qr import qr_svg
from jaslog.service.tournaments import TournamentError, Tournaments

log = logging.getLogger("jaslog.service")

#: Seconds between two runs of the background move clock.
MOVE_CLOCK_EVERY = 1.0
_CLOCK_LOCK = threading.Lock()


def move_clock_of(app: Any) -> MoveClock:
    """The app's one move clock (made on first use, on the service's clock)."""
    st = app.state
    with _CLOCK_LOCK:
        mc: MoveClock | None = getattr(st, "move_clock", None)
        if mc is None:
            mc = st.move_clock = MoveClock(st.service)
    return mc


def move_clock(request: Request) -> MoveClock:
    return move_clock_of(request.app)


def _publish(svc: Service, appended: list[dict[str, Any]]) -> None:
    """Wake the streams of the games the move clock appended to (in the event loop)."""
    for game in {e["game"] for e in appended}:
        svc.notifier.publish(game)


async def _run_clocks(app: FastAPI, every: float, stop: asyncio.Event) -> None:
    svc: Service = app.state.service
    mc = move_clock_of(app)
    while not stop.is_set():
        try:
            appended = await run_in_threadpool(Tournaments(svc).sweep, mc)
        except Exception:  # a bad moment of the database: log it, look again later
            log.exception("the move clock's sweep failed")
        else:
            _publish(svc, appended)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=every)


@contextlib.asynccontextmanager
async def move_clocks(app: FastAPI) -> AsyncIterator[None]:
    """The background move clock, for as long as the service runs."""
    every = getattr(app.state, "move_clock_every", MOVE_CLOCK_EVERY)
    stop = asyncio.Event()
    task = asyncio.create_task(_run_clocks(app, every, stop)) if every and every > 0 else None
    try:
        yield
    finally:
        if task is not None:
            stop.set()
            await task  # its sweep in progress ends before the service closes its stores


router = APIRouter(prefix="/api", lifespan=move_clocks, route_class=OffLoopRoute)

TID = Annotated[str, Path(pattern=named(r"^[A-Za-z0-9._:-]{1,64}$", "a tournament id"),
                          description="tournament id")]


class TournamentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str | None = Field(None, pattern=named(r"^[A-Za-z0-9._:-]{1,40}$", "a tournament id"))
    name: str = Field(min_length=1, max_length=200)
    players: list[PlayerId] = Field(min_length=4, max_length=256)
    ruleset: str | None = Field(None, max_length=64,
                                description="default klaverjas-online-501")
    options: dict[str, Any] | None = Field(None, description="default: game_end target 1001")
    move_limit_s: int | None = Field(None, ge=1, le=3600, description="seconds per move (30)")
    on_timeout: Literal["record", "autoplay"] | None = Field(
        None, description="after a timeout: record (default: the fact, for the referee) or "
                          "autoplay (the service plays the lowest legal card, or passes)")
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="for the draws")
    online: bool = Field(False, description="played from the seats: every game is an online "
                         "game (the service deals it, each seat plays from its link, a seat "
                         "out of time is played for)")
    clock: int | None = Field(None, ge=1, le=600, description="online: seconds a move (the "
                              "same as move_limit_s; default 30)")

    @field_validator("options")
    @classmethod
    def _loggable(cls, v: Any) -> Any:
        return json_safe(v, "options")


class TournamentTokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["scorer", "referee"] = Field(description="scorer (one table) or referee (a "
                                               "director of the tournament)")
    table: str | None = Field(None, max_length=8, description="a scorer's table: 1, 2...")
    label: str = Field("", max_length=200)
    expires_at: str | None = Field(None, max_length=40, description="RFC 3339; the token "
                                   "ends with the tournament in any case")


class WithdrawalIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player: PlayerId = Field(description="the player who leaves (a player token: its own id)")
    reason: str = Field("", max_length=200, description="a few words for the record")


# ---------------------------------------------------------------------- tournaments


def _tournament_error(e: TournamentError) -> ApiError:
    return ApiError(e.status, e.code, e.message)


@router.get("/tournaments", tags=["tournaments"], responses=responses(401))
async def list_tournaments(svc: Service = Depends(service), who: Principal = Depends(principal),
                           mc: MoveClock = Depends(move_clock)) -> list[dict[str, Any]]:
    """Every tournament with its status, as this token may see it."""
    def work() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        ts = Tournaments(svc)
        appended = ts.sweep(mc)
        out = []
        for tid in ts.ids():
            st = ts.standing(tid, who)
            out.append({k: st[k] for k in ("id", "name", "status", "players", "created_at",
                                           "champions", "runner_up")}
                       | {"rounds": len(st["rounds"])})
        return out, appended

    out, appended = await run_in_threadpool(work)
    _publish(svc, appended)
    return out


@router.post("/tournaments", status_code=201, tags=["tournaments"],
             responses=responses(400, 401, 403, 409, 422),
             dependencies=[Depends(Roles("admin", what="create tournaments"))])
def create_tournament(body: TournamentIn, svc: Service = Depends(service),
                      who: Principal = Depends(principal)) -> dict[str, Any]:
    """A tournament: its players drawn into tables for round 1, one game per table. With
    ``online: true`` every game is an online game, as ``POST /api/games`` with ``online:
    true`` makes one (the service deals it; ``clock`` seconds a move): its director gets
    the seats' links from ``POST /api/tournaments/{id}/seat-links``."""
    ts = Tournaments(svc)
    try:
        t = ts.create(name=body.name, players=list(body.players), ruleset=body.ruleset,
                      options=body.options, move_limit=body.move_limit_s, seed=body.seed,
                      tid=body.id, on_timeout=body.on_timeout, online=body.online,
                      clock=body.clock)
    except TournamentError as e:
        raise _tournament_error(e) from None
    return ts.standing(t.id, who)


@router.get("/tournaments/{tid}", tags=["tournaments"], responses=responses(401, 404, 422))
async def get_tournament(tid: TID, svc: Service = Depends(service),
                         who: Principal = Depends(principal),
                         mc: MoveClock = Depends(move_clock)) -> dict[str, Any]:
    """Rounds, tables, teams, scores, winners, withdrawals, every move over the time limit
    and every timeout recorded (the move clock runs first)."""
    def work() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        ts = Tournaments(svc)
        appended = ts.check_clocks(tid, mc)
        return ts.standing(tid, who), appended

    try:
        st, appended = await run_in_threadpool(work)
    except TournamentError as e:
        raise _tournament_error(e) from None
    _publish(svc, appended)
    return st


def _director(who: Principal, tid: str, what: str, *also: str) -> None:
    """An admin, or (``also``) another role, or the director of ``tid`` (a referee token the
    tournament issued): else 403."""
    if who.role == "admin" or who.role in also or who.directs(tid):
        return
    if who.role == "referee" and who.tournament is not None:
        raise ApiError(403, "other_tournament", f"this referee token directs tournament "
                       f"{who.tournament}, not {tid}")
    roles = ", ".join(("admin", *also, f"a director of {tid}"))
    raise ApiError(403, "forbidden", f"a {who.role} token may not {what} (allowed: {roles})",
                   role=who.role)


@router.post("/tournaments/{tid}/tokens", status_code=201, tags=["tournaments"],
             responses=responses(400, 401, 403, 404, 409, 422),
             dependencies=[Depends(Roles("admin", "referee",
                                         what="issue the tournament's tokens"))])
def issue_token(tid: TID, body: TournamentTokenIn, svc: Service = Depends(service),
                who: Principal = Depends(principal)) -> dict[str, Any]:
    """A token of the tournament: a scorer's for one of its tables (it records that table's
    games of this tournament, and no other game), or a referee's, a director's (rulings on
    its games, its draws, its seed). Every token a tournament issues ends with it (then
    **401** ``token_expired``). An admin issues both; a director issues scorer tokens. The
    answer holds the token text, shown this once."""
    _director(who, tid, "issue the tournament's tokens")
    if body.role == "referee" and who.role != "admin":
        raise ApiError(403, "forbidden", "only an admin token may make a director")
    try:
        text, info = Tournaments(svc).issue_token(tid, body.role, table=body.table,
                                                  label=body.label, expires_at=body.expires_at)
    except TournamentError as e:
        raise _tournament_error(e) from None
    return {**info.to_json(), "token": text}


@router.post("/tournaments/{tid}/rounds", status_code=201, tags=["tournaments"],
             responses=responses(401, 403, 404, 409, 422),
             dependencies=[Depends(Roles("admin", "referee", what="start tournament rounds"))])
def next_round(tid: TID, svc: Service = Depends(service),
               who: Principal = Depends(principal)) -> dict[str, Any]:
    """Start the next round: the winners of the last, shuffled into new teams and tables
    (a winner who withdrew is left out, and the best of the losing teams takes the place).
    An admin or the tournament's director."""
    _director(who, tid, "start tournament rounds")
    try:
        return Tournaments(svc).next_round(tid)
    except TournamentError as e:
        raise _tournament_error(e) from None


@router.post("/tournaments/{tid}/withdrawals", status_code=201, tags=["tournaments"],
             responses=responses(400, 401, 403, 404, 409, 422),
             dependencies=[Depends(Roles("admin", "referee", "player",
                                         what="withdraw players from tournaments"))],
             openapi_extra=small_body())
def withdraw(tid: TID, body: WithdrawalIn, svc: Service = Depends(service),
             who: Principal = Depends(principal)) -> dict[str, Any]:
    """A player leaves the tournament, for good: a player token withdraws its own player,
    an admin token any player. Their game in play ends: the service records a ruling on
    the round in play (the round to the other team, reason ``withdrawal of <player>``) and
    the other team wins it; the next round is drawn without them. Withdrawing again is
    **409** ``already_withdrawn``: a player who leaves cannot re-enter. The tournament's
    director may withdraw a player too."""
    _director(who, tid, "withdraw players from tournaments", "player")
    if who.role == "player" and who.player != body.player:
        raise ApiError(403, "other_player", f"a player token for {who.player} may withdraw "
                       f"only {who.player}, not {body.player}")
    try:
        return Tournaments(svc).withdraw(tid, body.player, by=f"{who.role} token {who.token_id}",
                                         reason=body.reason)
    except TournamentError as e:
        raise _tournament_error(e) from None


@router.post("/tournaments/{tid}/clock", tags=["tournaments"],
             responses=responses(401, 403, 404, 422),
             dependencies=[Depends(Roles("admin", "referee", what="run the move clock"))])
async def check_clock(tid: TID, svc: Service = Depends(service),
                      who: Principal = Depends(principal),
                      mc: MoveClock = Depends(move_clock)) -> dict[str, Any]:
    """Run the move clock over the tournament's games in play now: the events it appended
    (a ``timeout`` for each seat due that has not acted in time, and with ``on_timeout:
    autoplay`` the move the service made for it). The service also runs it by itself."""
    if who.role == "referee" and who.tournament is not None:
        _director(who, tid, "run the move clock")
    try:
        appended = await run_in_threadpool(Tournaments(svc).check_clocks, tid, mc)
    except TournamentError as e:
        raise _tournament_error(e) from None
    _publish(svc, appended)
    return {"tournament": tid, "appended": appended}


# ---------------------------------------------------------------------- the director's desk


class TableCardsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    round: int | None = Field(None, ge=1, le=64, description="the round (default: the round "
                              "in play)")
    tables: list[int] | None = Field(None, max_length=256, description="these tables only "
                                     "(default: every table of the round)")
    expires_at: str | None = Field(None, max_length=40, description="RFC 3339; the tokens "
                                   "end with the tournament in any case")


class ClockSettingIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move_limit_s: int | None = Field(None, ge=1, le=3600, description="seconds per move")
    on_timeout: Literal["record", "autoplay"] | None = Field(
        None, description="after a timeout: record (the fact) or autoplay (the service plays)")


def scorer_link(request: Request, game: str, token: str) -> str:
    """The scorer's pad of ``game`` with ``token`` in the address's fragment (a browser
    never sends a fragment: no server's log sees the token)."""
    return f"{str(request.base_url).rstrip('/')}/record/{game}#token={token}"


@router.post("/tournaments/{tid}/table-cards", status_code=201, tags=["tournaments"],
             responses=responses(400, 401, 403, 404, 409, 422),
             dependencies=[Depends(Roles("admin", "referee",
                                         what="hand out the tournament's table cards"))],
             openapi_extra=small_body())
def table_cards(tid: TID, body: TableCardsIn, request: Request,
                svc: Service = Depends(service),
                who: Principal = Depends(principal)) -> dict[str, Any]:
    """A card for each table of a round: its game, its teams, a new scorer token of the
    table (shown this once; the table's earlier tokens keep working), the scorer's link
    (``/record/{game}#token=...``) and that link as a QR code (inline SVG, drawn by segno).
    An admin or the tournament's director. An online tournament's cards carry no scorer
    token: each has ``seat_links``, a new seat token, link and QR code per seat (as
    ``POST /api/tournaments/{id}/seat-links`` gives them)."""
    _director(who, tid, "hand out the tournament's table cards")
    ts = Tournaments(svc)
    try:
        t = ts.get(tid)
        games = ts.games(tid)
        rno = max(games) if body.round is None else body.round
        if rno not in games:
            raise TournamentError(404, "no_such_round", f"tournament {tid} has no round {rno}")
        wanted = sorted(games[rno]) if body.tables is None else sorted(set(body.tables))
        missing = [n for n in wanted if n not in games[rno]]
        if missing:
            raise TournamentError(422, "bad_table", f"round {rno} of {tid} has tables 1 to "
                                  f"{len(games[rno])}, not {missing[0]}")
        if t.online:  # a QR code per seat link instead of the scorer's
            links = ts.seat_links(tid, rno, wanted, body.expires_at)
            return {"tournament": tid, "name": t.name, "round": rno, "online": True,
                    "cards": [{**c, "token_id": None, "token": None, "expires_at": None,
                               "link": None, "qr_svg": None,
                               "seat_links": _absolute(request, c["seat_links"], c["table"])}
                              for c in links["tables"]]}
        cards = []
        for n in wanted:
            gid = games[rno][n]
            seats = list(svc.header(gid).seats)
            text, info = ts.issue_token(tid, "scorer", table=str(n), expires_at=body.expires_at,
                                        label=f"table {n} of tournament {tid}, round {rno}")
            link = scorer_link(request, gid, text)
            cards.append({"table": n, "game": gid, "seats": seats,
                          "teams": [seats[0::2], seats[1::2]], "token_id": info.id,
                          "token": text, "expires_at": info.expires_at, "link": link,
                          "qr_svg": qr_svg(link, title=f"table {n}: scorer's pad of {gid}")})
    except TournamentError as e:
        raise _tournament_error(e) from None
    return {"tournament": tid, "name": t.name, "round": rno, "online": False, "cards": cards}


def _absolute(request: Request, links: list[dict[str, Any]], table: int) -> list[dict[str, Any]]:
    """Seat links with the service's address in front and each as a QR code."""
    base = str(request.base_url).rstrip("/")
    return [{**s, "link": base + s["link"],
             "qr_svg": qr_svg(base + s["link"], title=f"table {table}, seat {s['seat']}: "
                              f"{s['player']}'s link")} for s in links]


@router.post("/tournaments/{tid}/seat-links", status_code=201, tags=["tournaments"],
             responses=responses(400, 401, 403, 404, 409, 422),
             dependencies=[Depends(Roles("admin", "referee",
                                         what="hand out the seats' links"))],
             openapi_extra=small_body())
def seat_links(tid: TID, body: TableCardsIn, request: Request,
               svc: Service = Depends(service),
               who: Principal = Depends(principal)) -> dict[str, Any]:
    """The seats' links of an online tournament's round (default: the round in play): per
    table its game and teams, and per seat its player, a new seat token (shown this once;
    the seat's earlier tokens keep working), its link ``/play/{game}#token=...`` (the token
    in the fragment, which no browser sends) and that link as a QR code. An admin or the
    tournament's director; **409** ``not_online`` for a tournament scorers record."""
    _director(who, tid, "hand out the seats' links")
    try:
        out = Tournaments(svc).seat_links(tid, body.round, body.tables, body.expires_at)
    except TournamentError as e:
        raise _tournament_error(e) from None
    return {**out, "tables": [{**c, "seat_links": _absolute(request, c["seat_links"],
                                                            c["table"])}
                              for c in out["tables"]]}


@router.post("/tournaments/{tid}/clock-settings", tags=["tournaments"],
             responses=responses(400, 401, 403, 404, 409, 422),
             dependencies=[Depends(Roles("admin", "referee", what="set the move clock"))],
             openapi_extra=small_body())
def set_clock(tid: TID, body: ClockSettingIn, svc: Service = Depends(service),
              who: Principal = Depends(principal)) -> dict[str, Any]:
    """Set the tournament's move clock from now on: seconds per move and what follows a
    timeout (what the body leaves out stays). An admin or the tournament's director. The
    answer is the tournament's ``time_limit`` as the standing gives it."""
    _director(who, tid, "set the move clock")
    if body.move_limit_s is None and body.on_timeout is None:
        raise ApiError(422, "nothing_to_set", "give move_limit_s, on_timeout or both")
    ts = Tournaments(svc)
    try:
        t = ts.set_clock(tid, move_limit=body.move_limit_s, on_timeout=body.on_timeout,
                         by=f"{who.role} token {who.token_id}")
    except TournamentError as e:
        raise _tournament_error(e) from None
    return {"tournament": tid, "move_limit_s": t.move_limit, "on_timeout": t.on_timeout}
