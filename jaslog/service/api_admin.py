"""The other routes: who am I, tokens, the store's public keys, the rules oracle (tournaments:
api_tournaments)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from jaslog.engine.options import OptionError
from jaslog.games import CATALOGUES, PRESETS, game_of, resolve
from jaslog.play.oracle import QueryError, answer, is_solve
from jaslog.service.auth import ROLES, Principal, TokenError
from jaslog.service.core import Service
from jaslog.service.deps import (
    AUTH,
    ApiError,
    OffLoopRoute,
    Roles,
    named,
    principal,
    require,
    responses,
    service,
    small_body,
)
from jaslog.service.solves import solve_query

router = APIRouter(prefix="/api", route_class=OffLoopRoute)

class WhoAmI(BaseModel):
    token_id: str
    role: str
    table: str | None
    player: str | None
    label: str
    tournament: str | None = None
    event: str | None = None
    expires_at: str | None = None


class TokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: str = Field(description=f"one of {', '.join(ROLES)}", max_length=16)
    table: str | None = Field(None, max_length=64, description="a scorer's table")
    player: str | None = Field(None, max_length=64, description="a player's id")
    label: str = Field("", max_length=200)
    tournament: str | None = Field(None, max_length=64,
                                   description="a scorer's tournament (its table of that "
                                               "tournament), or a referee's: its director")
    event: str | None = Field(None, max_length=200,
                              description="a scorer's event (the games' meta.event)")
    expires_at: str | None = Field(None, max_length=40,
                                   description="RFC 3339 (default: in 30 days; an admin "
                                               "token: never)")


class TokenOut(BaseModel):
    id: str
    role: str
    table: str | None
    player: str | None
    label: str
    created_at: str
    revoked_at: str | None
    tournament: str | None = None
    event: str | None = None
    expires_at: str | None = None


class KeyOut(BaseModel):
    id: str = Field(description="the first 16 hex digits of the SHA-256 of the raw key")
    algorithm: str
    public_key: str = Field(description="as `jaslog key` prints it and `jaslog verify --key` "
                                        "takes it")
    created_at: str | None
    retired_at: str | None
    current: bool


class KeysOut(BaseModel):
    keys: list[KeyOut]


class NewTokenOut(TokenOut):
    token: str = Field(description="the token itself: shown this once, never stored")


@router.get("/whoami", response_model=WhoAmI, tags=["tokens"], responses=responses(401))
async def whoami(who: Principal = Depends(principal)) -> dict[str, Any]:
    """The caller's token: role, table or player, tournament or event, label, expiry
    (answered from memory, on the event loop)."""
    return who.to_json()


@router.get("/keys", response_model=KeysOut, tags=["keys"])
def keys(svc: Service = Depends(service)) -> dict[str, Any]:
    """The public halves of the keys the store signs game heads with (no token needed: anyone
    may check a game against them, `jaslog verify --key`). The one signing now first; the
    retired ones after it, whose signatures stay valid. The store makes its key when it
    is first asked for."""
    with svc.pool.get() as store:
        cur = store.signing_key()
        found = store.public_keys()
    return {"keys": [{**k.to_json(), "current": k.id == cur.id} for k in found]}


@router.get("/tokens", response_model=list[TokenOut], tags=["tokens"], responses=AUTH)
def list_tokens(svc: Service = Depends(service),
                who: Principal = Depends(principal)) -> list[dict[str, Any]]:
    """Every token (never the secrets), with its revocation if any."""
    require(who, "admin", what="list tokens")
    return [t.to_json() for t in svc.tokens.list()]


@router.post("/tokens", status_code=201, response_model=NewTokenOut, tags=["tokens"],
             responses=responses(400, 401, 403, 422),
             dependencies=[Depends(Roles("admin", what="create tokens"))])
def create_token(body: TokenIn, svc: Service = Depends(service),
                 who: Principal = Depends(principal)) -> dict[str, Any]:
    """A new token; the answer holds the token text, which is not stored and not shown again."""
    try:
        text, info = svc.tokens.create(body.role, table=body.table, player=body.player,
                                       label=body.label, tournament=body.tournament,
                                       event=body.event, expires_at=body.expires_at)
    except TokenError as e:
        raise ApiError(422, "bad_token_request", e.api_message()) from None
    return {**info.to_json(), "token": text}


@router.delete("/tokens/{token_id}", response_model=TokenOut, tags=["tokens"],
               responses=responses(401, 403, 404, 409, 422),
               dependencies=[Depends(Roles("admin", what="revoke tokens"))])
def revoke_token(token_id: Annotated[str, Path(pattern=named(r"^[0-9a-f]{8}$", "a token id"))],
                 svc: Service = Depends(service),
                 who: Principal = Depends(principal)) -> dict[str, Any]:
    """Revoke a token: a revocation row is added (tokens are never deleted)."""
    if token_id == who.token_id:
        raise ApiError(409, "own_token", "a token cannot revoke itself: send this DELETE with "
                       "another admin token")
    if not svc.tokens.revoke(token_id, f"revoked by {who.token_id}"):
        raise ApiError(404, "no_such_token", f"no live token {token_id}")
    return next(t.to_json() for t in svc.tokens.list() if t.id == token_id)


@router.post("/oracle", tags=["rules"], responses=responses(400, 401, 422, 429),
             openapi_extra=small_body())
async def oracle(request: Request, query: Annotated[dict[str, Any], Body(
        examples=[{"op": "legal", "ruleset": "amsterdam", "trump": "H", "trick": ["AS", "7S"],
                   "hand": ["7H", "AD", "KC"]}])],
                 who: Principal = Depends(principal)) -> dict[str, Any]:
    """The rules oracle of ``jaslog rules``: ``op`` is legal, winner, points, roem, score or
    solve. A ``solve`` runs within a budget (422 ``too_hard`` past it) and so many a minute
    per token (429 ``too_many_solves``, with ``Retry-After``), never on the event loop."""
    try:
        if is_solve(query):
            return await solve_query(request, who, query)
        return await run_in_threadpool(answer, query)
    except (QueryError, OptionError) as e:
        raise ApiError(422, "bad_query", str(e)) from None


@router.get("/rules/options", tags=["rules"], responses=responses(401, 422))
def rule_options(ruleset: Annotated[str | None, Query(max_length=64,
                                                      description="one ruleset (default: all)")]
                 = None,
                 who: Principal = Depends(principal)) -> dict[str, Any]:
    """Each ruleset's options (as ``jaslog rules options``): by ruleset, each option's
    ``value``, its ``kind`` and, for a choice, its ``choices``, and a ``help`` sentence. A
    game's or an oracle query's ``options`` overrides these values by key."""
    names = list(PRESETS) if ruleset is None else [ruleset]
    out: dict[str, Any] = {}
    for name in names:
        try:
            values = resolve(name)
        except OptionError as e:
            raise ApiError(422, "unknown_ruleset", str(e)) from None
        catalogue = CATALOGUES[game_of(name)]
        out[name] = {key: {"value": value, "kind": catalogue[key].kind,
                           **({"choices": list(catalogue[key].choices)}
                              if catalogue[key].choices else {}),
                           "help": catalogue[key].help}
                     for key, value in values.items()}
    return out
