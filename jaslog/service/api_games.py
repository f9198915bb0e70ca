"""The game routes: create, append, and read (events, state, replay, audit, head, timing, stream);
the listing, ``GET /api/games``, is :mod:`jaslog.service.api_listing`'s."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from sse_starlette.sse import EventSourceResponse

from jaslog.engine.options import OptionError
from jaslog.events import GAME_ID_PATTERN
from jaslog.games import GAMES, game_of
from jaslog.play.views import (
    NotVisible,
    Sight,
    Timeline,
    frames,
    report,
    state_at,
    visible_events,
)
from jaslog.play.whatif import WhatIfError, what_if_view
from jaslog.service.at_time import AtQuery, as_it_stood, at_seq
from jaslog.service.auth import Principal
from jaslog.service.core import Service, table_of
from jaslog.service.deps import (
    REVOKED,
    ApiError,
    OffLoopRoute,
    RevocationWatch,
    Roles,
    principal,
    require,
    responses,
    service,
    stream_principal,
    the_service,
)
from jaslog.service.game_models import (
    AppendIn,
    AppendOut,
    EventsOut,
    GameDetailOut,
    GameIn,
    HeadOut,
    OnlineGameOut,
    ReplayOut,
    TimingOut,
)
from jaslog.service.online import (
    DEFAULT_CLOCK,
    after_append,
    by_of,
    online_of,
    seat_may_append,
)
from jaslog.service.timing import move_times
from jaslog.service.tournaments import Tournaments
from jaslog.store import ConflictError, NoSuchGame, RejectedError, StoreError

router = APIRouter(prefix="/api", tags=["games"], route_class=OffLoopRoute)

GamePath = Annotated[str, Path(pattern=GAME_ID_PATTERN, description="the game id")]
SeqQuery = Annotated[int | None, Query(ge=0, le=1_000_000_000)]


# ---------------------------------------------------------------------- helpers


def kind_of(ruleset: str) -> dict[str, Any]:
    """What the pages need to know of the game a ruleset belongs to: its ``scoring`` and how
    many ``players`` (both None for a ruleset this jaslog does not know).

    >>> kind_of("amsterdam"), kind_of("klaberjass-2p"), kind_of("skat")["scoring"]
    ({'scoring': 'teams', 'players': 4}, {'scoring': 'players', 'players': 2}, None)
    """
    try:
        g = GAMES[game_of(ruleset)]
    except (OptionError, KeyError):
        return {"scoring": None, "players": None}
    return {"scoring": g.scoring, "players": g.players}


def view_name(s: Sight) -> str:
    return "full" if s.full else ("public" if s.public else "seat")


def _read(svc: Service, who: Principal, game: str) -> tuple[Any, Timeline, Sight]:
    try:
        head, tl = svc.timeline(game)
    except NoSuchGame as e:
        raise ApiError(404, "no_such_game", str(e), game=game) from None
    return head, tl, svc.sight(who, game)


def _guard(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except NotVisible as e:
        raise ApiError(403, "not_visible", str(e)) from None
    except IndexError as e:
        raise ApiError(404, "no_such_seq", str(e)) from None


def _check_seq(tl: Timeline, head: Any, seq: int, s: Sight) -> None:
    """Whether ``seq`` exists (404 otherwise, whoever asks), then whether ``s`` may see the
    table after it (403)."""
    if seq > head.seq:
        raise ApiError(404, "no_such_seq", f"game {tl.game} has no seq {seq} (its last is "
                       f"{head.seq})", game=tl.game, seq=seq)
    if seq >= tl.applied():
        raise ApiError(422, "not_folded", f"game {tl.game}: the table after seq {seq} cannot be "
                       f"shown: its events stop folding at seq {tl.applied()} (GET "
                       f"/api/games/{tl.game}/audit says why)", game=tl.game, seq=seq)
    if s.public and seq > tl.horizon():
        live = f"round {tl.live_round}, which is still being played" \
            if tl.live_round is not None else "a round that is not over"
        raise ApiError(403, "not_visible", f"seq {seq} of game {tl.game} is in {live}; this "
                       f"token sees finished rounds only (up to seq {tl.horizon()})",
                       game=tl.game, seq=seq)


def _timing(tl: Timeline, events: list[dict[str, Any]], limit: float | None) -> dict[str, Any]:
    if limit is None:
        meta = getattr(tl.events[0], "meta", None) or {}
        lim = meta.get("move_limit_s")
        limit = float(lim) if isinstance(lim, int | float) and not isinstance(lim, bool) else None
    return {"game": tl.game, **move_times(events, limit)}


def _last_at(tl: Timeline, s: Sight) -> str | None:
    last = tl.horizon() if s.public else tl.applied() - 1
    return tl.events[last].at if last >= 0 else None


def game_out(svc: Service, who: Principal, info: Any) -> dict[str, Any]:
    h = svc.header(info.game)
    s = who.sight(list(h.seats), h.meta, info.game)
    meta = h.meta or {}
    events, last_at = info.events, info.last_at
    if s.public:  # finished rounds only: a live round's events, and its last move, are not told
        _, tl = svc.timeline(info.game)
        events, last_at = tl.horizon() + 1, _last_at(tl, s)
    return {"game": info.game, "ruleset": info.ruleset, **kind_of(info.ruleset),
            "seats": info.seats, "dealer": info.dealer,
            "table": table_of(h), "tournament": meta.get("tournament"),
            "created_at": info.created_at, "events": events, "last_at": last_at,
            "view": view_name(s), "seat": s.seat}


# ---------------------------------------------------------------------- creating


@router.post("/games", status_code=201, response_model=OnlineGameOut,
             response_model_exclude_none=False,
             responses=responses(400, 401, 403, 409, 422),
             dependencies=[Depends(Roles("admin", "scorer", "referee", what="create games"))])
def create_game(body: GameIn, svc: Service = Depends(service),
                who: Principal = Depends(principal)) -> dict[str, Any]:
    """Start a game. A scorer's games are played at its table (``meta.table``).

    With ``online: true`` the game is played from the seats (rule book 9.3): the answer
    holds a token and a link per seat (``seat_tokens``), the service deals every round
    (commit, nonces, reveal) and times every move (``clock`` seconds, default 30; a seat
    out of time is played for). An admin, a tournament's director or a scorer (for its
    table) creates one."""
    if who.role == "referee" and (not body.online or who.tournament is None):
        raise ApiError(403, "forbidden", "a referee token may not create games (allowed: "
                       "admin, scorer; a tournament's director: online games)")
    if not body.online and body.clock is not None:
        raise ApiError(422, "bad_request", "clock is the move clock of an online game: give "
                       "online: true, or leave clock out")
    if body.recorded_at is not None:
        raise ApiError(422, "recorded_at_given", "recorded_at is set by the store's own clock; "
                       "leave it out", game=body.game)
    meta = dict(body.meta or {})
    # a tournament's games are made by the tournament (its rounds), never through this
    # route: a game taking a round's id to come, or a tournament's name, would stop the
    # tournament's next round ('round_started') or pose as one of its games
    if "tournament" in meta:
        raise ApiError(403, "tournament_game", "a game joins a tournament only when the "
                       "tournament draws it (POST /api/tournaments and POST "
                       "/api/tournaments/{id}/rounds); leave out meta.tournament")
    owner = Tournaments(svc).owner_of(body.game) if body.game is not None else None
    if owner is not None:
        raise ApiError(403, "tournament_game", f"game id {body.game} is kept for tournament "
                       f"{owner}'s rounds ({{id}}-r{{round}}-t{{table}}); choose another id",
                       game=body.game)
    if who.role == "scorer":
        if "table" in meta and str(meta["table"]) != who.table:
            raise ApiError(403, "other_table", f"a scorer of table {who.table} may not create a "
                           f"game at table {meta['table']}")
        meta["table"] = who.table
        if who.tournament is not None:
            raise ApiError(403, "tournament_game", f"a scorer of tournament {who.tournament} "
                           "records the games its rounds draw; it does not start games")
        if who.event is not None:
            if "event" in meta and str(meta["event"]) != who.event:
                raise ApiError(403, "other_event", f"a scorer of event {who.event!r} may not "
                               f"create a game of event {meta['event']!r}")
            meta["event"] = who.event
        elif "event" in meta:
            raise ApiError(403, "other_event", f"a scorer of the club's table {who.table} (of no "
                           f"event) may not create a game of event {meta['event']!r}: an "
                           "event's tables are scored with tokens of that event")
    fields = body.model_dump(exclude_none=True)
    fields["meta"] = meta or None
    online, clock = fields.pop("online", False), fields.pop("clock", None)
    seat_tokens = None
    try:
        if online:
            clock = clock or DEFAULT_CLOCK
            gid, seat_tokens = online_of(svc).create(fields, clock, by_of(who))
        else:
            gid = svc.new_game(fields)
    except ConflictError:
        raise ApiError(409, "game_exists", f"game {body.game} already exists",
                       game=body.game) from None
    except RejectedError as e:
        raise ApiError(422, e.code or "rejected", str(e), game=e.game, seq=e.seq) from None
    info = next((g for g in svc.games() if g.game == gid), None)
    if info is None:  # pragma: no cover - we just wrote it
        raise ApiError(404, "no_such_game", f"game {gid} vanished")
    return {**game_out(svc, who, info), "clock": clock if online else None,
            "seat_tokens": seat_tokens}


@router.get("/games/{game}", response_model=GameDetailOut, responses=responses(401, 404, 422))
def get_game(game: GamePath, svc: Service = Depends(service),
             who: Principal = Depends(principal)) -> dict[str, Any]:
    """A game's header and where it stands, as this token may see it."""
    head, tl, s = _read(svc, who, game)
    rep = _guard(report, tl, s)
    h = svc.header(game)
    meta = h.meta or {}
    return {"game": game, "ruleset": h.ruleset, **kind_of(h.ruleset), "seats": list(h.seats),
            "dealer": h.dealer, "table": table_of(h), "tournament": meta.get("tournament"),
            "created_at": h.at,
            "events": head.next_seq if not s.public else tl.horizon() + 1,
            "last_at": _last_at(tl, s), "view": view_name(s), "seat": s.seat,
            "rounds": len(rep["rounds"]), "live_round": tl.live_round, "totals": rep["totals"],
            "finished": rep["finished"], "winner": rep["winner"],
            "violations": len(rep["violations"]), "meta": h.meta}


# ---------------------------------------------------------------------- appending


#: What a referee appends, to any game: decisions and the record's own repairs.
REFEREE_TYPES = ("ruling", "note", "correction", "irregularity", "round_score")
#: What only the service records, by its own clock (a tournament's move clock) and as the
#: dealer of an online game.
SERVICE_TYPES = ("timeout", "deal_committed", "deal_revealed")
#: What only the service appends to an online game (it deals), besides :data:`SERVICE_TYPES`.
ONLINE_SERVICE_TYPES = ("dealt", "second_deal", "nonce")
#: What a scorer's correction may not retract: a referee's decision, the service's record.
NOT_A_SCORERS = ("ruling", "timeout")


def _check_append(svc: Service, who: Principal, game: str, events: list[dict[str, Any]]) -> None:
    """Whether ``who`` may append ``events`` to ``game`` (403 with a code when not).

    A scorer records its own table's games: every event but rulings, its corrections too
    (but not of a ruling or a timeout). A referee appends :data:`REFEREE_TYPES` to any game;
    an admin anything. A ``timeout`` is the service's own record (:data:`SERVICE_TYPES`)."""
    require(who, "admin", "scorer", "referee", "seat", what="append events")
    try:
        h = svc.header(game)
    except NoSuchGame as e:
        raise ApiError(404, "no_such_game", str(e), game=game) from None
    types = {e.get("type") for e in events}
    if who.role == "seat":
        seat_may_append(who, game, events)
        return  # whether the rules take it now, the online game's checks say
    if who.role in ("scorer", "referee") and not types.isdisjoint(SERVICE_TYPES):
        raise ApiError(403, "service_only", "a timeout, a deal's commit and its reveal are "
                       "recorded by the service itself", game=game)
    if not types.isdisjoint(ONLINE_SERVICE_TYPES) and online_of(svc).clock_of(game) is not None:
        raise ApiError(403, "service_only", f"game {game} is played online: the service deals "
                       "it, and a nonce comes from its seat's token", game=game)
    if who.role == "scorer":
        table = table_of(h)
        if table is None:
            raise ApiError(403, "other_table", f"game {game} is not played at any table (it has "
                           "no meta.table), so no scorer token may write to it; this one is for "
                           f"table {who.table}", game=game)
        if table != who.table:
            raise ApiError(403, "other_table", f"game {game} is played at table {table}; this "
                           f"scorer token is for table {who.table}", game=game)
        scope = who.scope_problem(game, h.meta)
        if scope is not None:
            raise ApiError(403, "other_scope", scope, game=game)
        if "ruling" in types:
            raise ApiError(403, "referee_only", "rulings are appended by a referee")
        if "correction" in types:
            _check_scorer_correction(svc, game, events)
    if who.role == "referee" and not who.covers(h.meta):
        raise ApiError(403, "other_tournament", f"game {game} is not a game of tournament "
                       f"{who.tournament}; this referee token directs that tournament only",
                       game=game)
    if who.role == "referee" and not types <= set(REFEREE_TYPES):
        bad = sorted(str(t) for t in types - set(REFEREE_TYPES))
        raise ApiError(403, "scorer_only", "a referee appends rulings, notes, corrections, "
                       f"irregularities and round scores, not {', '.join(bad)}")


#: The moves an online game refuses when illegal, whoever appends them.
MOVE_TYPES = frozenset({"bid", "trump_turned", "play", "roem", "claim", "knock", "knock_back",
                        "dix", "sequence", "bella", "partner_call"})


def _check_scorer_correction(svc: Service, game: str, events: list[dict[str, Any]]) -> None:
    """Refuse a scorer's correction that retracts a referee's ruling or the service's
    timeout (``referee_only``); what else it may retract is the fold's to say."""
    try:
        _, tl = svc.timeline(game)
    except NoSuchGame as err:  # pragma: no cover - the header was just read
        raise ApiError(404, "no_such_game", str(err), game=game) from None
    for e in events:
        retracts = e.get("retracts") if e.get("type") == "correction" else None
        for s in retracts if isinstance(retracts, list) else ():
            if isinstance(s, int) and 0 <= s < len(tl.events) and \
                    tl.events[s].type in NOT_A_SCORERS:
                raise ApiError(403, "referee_only", f"seq {s} of game {game} is a "
                               f"{tl.events[s].type}: a scorer's correction does not retract "
                               "it; a referee does", game=game, seq=s)


def _prepare_append(svc: Service, who: Principal, game: str, events: list[dict[str, Any]],
                    expected_seq: int | None) -> tuple[bool, int | None]:
    """Every check of an append before the writer: who may append it (:func:`_check_append`),
    its events' game, and in an online game what the room refuses (a seat's move out of
    turn, an illegal move); whether the game is online and the seq to append at."""
    _check_append(svc, who, game, events)
    for i, e in enumerate(events):
        if "game" in e and e["game"] != game:
            raise ApiError(422, "wrong_game", f"event {i + 1} of the batch is of game "
                           f"{e['game']!r}, not {game}", game=game)
    tables = online_of(svc)
    if tables.clock_of(game) is None:
        return False, expected_seq
    if who.role == "seat":
        return True, tables.seat_refusal(who, game, events, expected_seq)
    if any(e.get("type") in MOVE_TYPES for e in events):
        return True, tables.check_moves(game, events, expected_seq, None)
    return True, expected_seq


def _checks_in_memory(svc: Service, game: str, events: list[dict[str, Any]]) -> bool:
    """Whether :func:`_prepare_append` reads nothing from the database for this append (the
    game's header and whether it is online are known, it is not online, and no scorer's
    correction is to be checked against the log): then it runs on the event loop."""
    return svc.header_known(game) and online_of(svc).known_offline(game) and \
        not any(e.get("type") == "correction" for e in events)


@router.post("/games/{game}/events", response_model=AppendOut,
             responses=responses(400, 401, 403, 404, 409, 422),
             dependencies=[Depends(Roles("admin", "scorer", "referee", "seat",
                                         what="append events"))])
async def append_events(game: GamePath, body: AppendIn, svc: Service = Depends(the_service),
                        who: Principal = Depends(principal)) -> Response:
    """Append events in one batch with an expected seq.

    A conflict (the game moved on) is **409** with ``expected`` and ``actual``; a refusal by
    the rules is **422** with the rule ``code`` and a sentence. Sending the same batch again
    with the same event ``id``s is a success that stores nothing twice (``already_stored``).
    """
    return Response(orjson.dumps(await appended(game, body, svc, who)),
                    media_type="application/json")


#: How many times a batch sent without ``expected_seq`` to an online game is checked and
#: appended at the game's head when other appends keep moving the head first (four seats
#: sending their nonces at once).
AT_THE_HEAD_ATTEMPTS = 8


async def appended(game: str, body: AppendIn, svc: Service, who: Principal) -> dict[str, Any]:
    """The append of ``POST /api/games/{id}/events``: checked, written, and its answer
    (:class:`AppendOut`'s fields). A batch to an online game is checked at the game's head
    and appended there; sent without ``expected_seq``, it is checked again at the new head
    when another append came first (:data:`AT_THE_HEAD_ATTEMPTS` times at most)."""
    for attempt in range(1, AT_THE_HEAD_ATTEMPTS + 1):
        # one hop from the request to the writer: the checks run on the event loop when they
        # read nothing from the database (the game's header known, an offline game)
        if _checks_in_memory(svc, game, body.events):
            online, expected_seq = _prepare_append(svc, who, game, body.events,
                                                   body.expected_seq)
        else:
            online, expected_seq = await run_in_threadpool(_prepare_append, svc, who, game,
                                                           body.events, body.expected_seq)
        try:
            res, new = await svc.append_soon(game, body.events, expected_seq)
        except ConflictError as e:
            if online and body.expected_seq is None and attempt < AT_THE_HEAD_ATTEMPTS:
                continue  # checked at a head another append moved on: checked again
            raise ApiError(409, "conflict", str(e), game=game, expected=e.expected,
                           actual=e.actual) from None
        except RejectedError as e:
            fe = e.fold_error
            raise ApiError(422, e.code or "rejected", fe.message if fe is not None else str(e),
                           detail=str(e), game=game, seq=e.seq, seat=getattr(fe, "seat", None),
                           card=getattr(fe, "card", None)) from None
        except NoSuchGame as e:
            raise ApiError(404, "no_such_game", str(e), game=game) from None
        except StoreError as e:
            raise ApiError(409, "store_refused", str(e), game=game) from None
        break
    if online:
        await run_in_threadpool(after_append, svc, who, game, res, body.events)
    svc.notifier.publish(game)
    return {"game": game, "appended": res.appended, "already_stored": res.already_stored,
            "next_seq": res.head.next_seq, "head_hash": res.head.hash,
            "certificate": res.head.certificate, "violations": new}


# ---------------------------------------------------------------------- reading


@router.get("/games/{game}/events", response_model=EventsOut, responses=responses(401, 404, 422, 501))
def get_events(game: GamePath, since: SeqQuery = None, svc: Service = Depends(service),
               who: Principal = Depends(principal)) -> dict[str, Any]:
    """The game's events as this token may see them (a player: other hands of the live
    round left out; the public: finished rounds only)."""
    _, tl, s = _read(svc, who, game)
    evs = _guard(visible_events, tl, s, since or 0)
    return {"game": game, "view": view_name(s), "seat": s.seat, "events": evs}


#: What-if (``?as=PRESET`` and ``?o=KEY=VALUE``, repeated) on the endpoints that fold the game:
#: the game refolded under another preset of its game and those options (they replace the
#: game's own), beside the record; the log is not touched.
AsQuery = Annotated[str | None, Query(alias="as", max_length=64, description=(
    "what-if: fold the game under this preset of its game (the log is not touched); the "
    "answer gains what_if, the comparison with the game as recorded"))]
OptionQuery = Annotated[list[str] | None, Query(alias="o", description=(
    "what-if: a rule option KEY=VALUE, repeatable (o=revoke=ignore&o=pit_bonus=50); they "
    "replace the game's own options"))]
#: how many ``o`` one request may give
MOST_WHAT_IF_OPTIONS = 64


def _what_if(tl: Timeline, s: Sight, preset: str | None,
             options: list[str] | None) -> tuple[Timeline, dict[str, Any] | None]:
    """The timeline the views read (the record's, or with ``as``/``o`` the what-if's) and the
    comparison as ``s`` may see it (None without what-if); 422 with the code when the
    what-if cannot be asked (``other_game``, ``unknown_preset``, ``bad_options``)."""
    if preset is None and not options:
        return tl, None
    if len(options or ()) > MOST_WHAT_IF_OPTIONS or any(len(o) > 2000 for o in options or ()):
        raise ApiError(422, "bad_options", f"at most {MOST_WHAT_IF_OPTIONS} options o=KEY=VALUE, "
                       "each under 2000 characters", game=tl.game)
    try:
        return what_if_view(tl, s, preset, options or ())
    except WhatIfError as e:
        raise ApiError(422, e.code, str(e), game=tl.game) from None


@router.get("/games/{game}/state", responses=responses(401, 403, 404, 422, 501))
def get_state(game: GamePath, seq: SeqQuery = None, at: AtQuery = None, as_: AsQuery = None,
              o: OptionQuery = None, svc: Service = Depends(service),
              who: Principal = Depends(principal)) -> dict[str, Any]:
    """The table after event ``seq`` (default: the latest this token may see), or after the
    last event in at the clock time ``at`` (the answer's ``as_of`` says which seq, and whether
    by ``recorded_at`` or the events' ``at``). A seq the game does not have is 404 for every
    token; one in the round being played is 403 for a token that may see only finished
    rounds. With ``as``/``o`` (what-if), the table under those rules and ``what_if``; a seq
    from the first event they refuse on is 422 ``what_if_refused``."""
    head, tl, s = _read(svc, who, game)
    found = None
    if at is not None:
        if seq is not None:
            raise ApiError(422, "bad_request", "give seq or at, not both", game=game)
        found = at_seq(tl, at)
        seq = found.seq
    if seq is not None:
        _check_seq(tl, head, seq, s)
    vtl, wi = _what_if(tl, s, as_, o)
    if wi is not None and seq is not None and seq >= vtl.applied():
        raise ApiError(422, "what_if_refused", f"game {game} as {wi['as']['ruleset']}: the "
                       f"what-if rules refuse seq {vtl.applied()}, so the table as if is shown "
                       f"up to seq {vtl.applied() - 1}", game=game, seq=seq)
    fr: dict[str, Any] = _guard(state_at, vtl, seq, s)
    out = {"game": game, "view": view_name(s), "seat": s.seat, **fr}
    if found is not None:
        out["as_of"] = found.to_json()
    return out if wi is None else out | {"what_if": wi}


@router.get("/games/{game}/replay", response_model=ReplayOut,
            responses=responses(401, 404, 422, 501))
def get_replay(game: GamePath, at: AtQuery = None, as_: AsQuery = None, o: OptionQuery = None,
               svc: Service = Depends(service), who: Principal = Depends(principal)) -> Any:
    """Everything the web viewer shows: the table after every event, the audit, the timing.
    With ``at``, as the game stood at that clock time (its events up to then; the round
    live then as a live round). With ``as``/``o`` (what-if), the frames and the audit under
    those rules (up to the first event they refuse) and ``what_if``."""
    _, tl, s = _read(svc, who, game)
    tl, found = as_it_stood(tl, at)
    vtl, wi = _what_if(tl, s, as_, o)
    fr = _guard(frames, vtl, s)
    rep = _guard(report, vtl, s)
    evs = _guard(visible_events, tl, s)
    h = svc.header(game)
    out = {"game": game, "kind": tl.fold.game if tl.fold else None, "ruleset": h.ruleset,
           **kind_of(h.ruleset),
           "seats": list(h.seats), "view": view_name(s),
           "seat": s.seat, "live_round": tl.live_round, "frames": fr, "report": rep,
           "timing": _timing(tl, evs, None)}
    if found is not None:
        return JSONResponse(ReplayOut.model_validate(out).model_dump(mode="json")
                            | {"as_of": found.to_json()} | ({"what_if": wi} if wi else {}))
    if wi is None:
        return out
    return JSONResponse(ReplayOut.model_validate(out).model_dump(mode="json") | {"what_if": wi})


@router.get("/games/{game}/audit", responses=responses(401, 404, 422, 501))
def get_audit(game: GamePath, at: AtQuery = None, as_: AsQuery = None, o: OptionQuery = None,
              svc: Service = Depends(service),
              who: Principal = Depends(principal)) -> dict[str, Any]:
    """The audit (as ``jaslog check --json``): violations, rounds, scores as played and ruled.
    With ``at``, of the game as it stood at that clock time (and ``as_of``: the seq it came to).
    With ``as``/``o`` (what-if), the audit under those rules (up to the first event they
    refuse) and ``what_if``, as ``jaslog check --as ... --json`` gives it."""
    _, tl, s = _read(svc, who, game)
    tl, found = as_it_stood(tl, at)
    vtl, wi = _what_if(tl, s, as_, o)
    rep: dict[str, Any] = _guard(report, vtl, s)
    if found is not None:
        rep = rep | {"as_of": found.to_json()}
    return rep if wi is None else rep | {"what_if": wi}


@router.get("/games/{game}/head", response_model=HeadOut, responses=responses(401, 404, 422))
def get_head(game: GamePath, svc: Service = Depends(service),
             who: Principal = Depends(principal)) -> dict[str, Any]:
    """The hash-chain head. The hash covers every hand dealt: it is withheld from players
    and the public while a round is live, and for good when a round ended with cards unplayed
    (its hands stay secret, and with most cards of a round known the rest could be found by
    trying every deal against the hash); the referee and the table's scorer see it."""
    head, tl, s = _read(svc, who, game)
    if not s.full and tl.secret_rounds:
        if tl.live_round is not None:
            note = f"round {tl.live_round} is being played; the head is shown when it is over"
        else:
            rounds = ", ".join(str(n) for n in sorted(tl.secret_rounds))
            note = (f"round {rounds} ended with cards unplayed and its hands stay secret; the "
                    "hash covers them, so it is shown to the referee and the scorer only")
        return {"game": game, "seq": head.seq, "next_seq": head.next_seq, "hash": None,
                "certificate": None, "note": note}
    with svc.pool.get() as store:
        signed = store.signature(game)
    return {"game": game, "seq": head.seq, "next_seq": head.next_seq, "hash": head.hash,
            "certificate": head.certificate, "signature": signed}


@router.get("/games/{game}/timing", response_model=TimingOut, responses=responses(401, 404, 422, 501))
def get_timing(game: GamePath,
               limit: Annotated[float | None, Query(gt=0, le=86400)] = None,
               svc: Service = Depends(service), who: Principal = Depends(principal)) -> dict[str, Any]:
    """Each move's time, on the store's ``recorded_at`` for a live game, else on the events'
    ``at`` (``clock`` says which); moves over the limit (``limit``, else the game's
    ``meta.move_limit_s``)."""
    _, tl, s = _read(svc, who, game)
    evs = _guard(visible_events, tl, s)
    return _timing(tl, evs, limit)


@router.get("/games/{game}/stream", responses={
    200: {"content": {"text/event-stream": {}}, "description": "server-sent events"},
    **responses(401, 404, 422, 501)})
async def stream(request: Request, game: GamePath, since: SeqQuery = None,
                 svc: Service = Depends(service),
                 who: Principal = Depends(stream_principal)) -> EventSourceResponse:
    """New events as they are appended (Server-Sent Events, ``event: event``, ``id`` the
    seq), as this token may see them. ``since`` (or ``Last-Event-ID``) replays from a seq;
    without it the stream starts at the head. A player's stream sends ``event: round_over``
    when a round ends, as its events may then be read whole."""
    _, tl, s = await run_in_threadpool(_read, svc, who, game)
    last_id = request.headers.get("last-event-id", "").strip()
    if since is None and last_id:
        # only a seq this stream sent (ASCII digits): int() takes other digits ('²' fails)
        # and refuses very long ones, which was a 500
        if not (last_id.isascii() and last_id.isdigit() and len(last_id) <= 10
                and int(last_id) <= 1_000_000_000):
            raise ApiError(422, "bad_request", f"Last-Event-ID: {last_id[:40]!r} is not a seq "
                           "(the id of an event this stream sent: 0-1000000000)", game=game)
        since = int(last_id) + 1
    await run_in_threadpool(_guard, visible_events, tl, s, 0)

    async def gen() -> AsyncIterator[dict[str, Any]]:
        nxt = since if since is not None else (tl.horizon() + 1 if s.public else tl.applied())
        live = tl.live_round
        wake = svc.notifier.subscribe(game)
        watch = RevocationWatch(svc.tokens.live, who.token_id)
        try:
            while True:
                wake.clear()
                _, cur = await run_in_threadpool(svc.timeline, game)
                evs = visible_events(cur, s, nxt)
                # a token revoked while its stream is open: nothing more, the stream ends
                if await watch.revoked(bool(evs)):
                    yield REVOKED
                    return
                for e in evs:
                    yield {"event": "event", "id": str(e["seq"]), "data": orjson.dumps(e).decode()}
                    nxt = e["seq"] + 1
                if live is not None and cur.live_round != live and not s.full:
                    yield {"event": "round_over", "data": orjson.dumps({"round": live}).decode()}
                live = cur.live_round
                if await request.is_disconnected():
                    return
                # another process may have appended: look again after a second anyway
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), timeout=1.0)
        finally:
            svc.notifier.unsubscribe(game, wake)

    return EventSourceResponse(gen(), ping=15)
