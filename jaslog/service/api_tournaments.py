"""The tournament routes: create, list, standings, next round."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, ConfigDict, Field, field_validator

from jaslog.events import PlayerId
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import (
    ApiError,
    json_safe,
    named,
    principal,
    require,
    responses,
    service,
)
from jaslog.service.tournaments import TournamentError, Tournaments

router = APIRouter(prefix="/api")

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
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="for the draws")

    @field_validator("options")
    @classmethod
    def _loggable(cls, v: Any) -> Any:
        return json_safe(v, "options")


# ---------------------------------------------------------------------- tournaments


def _tournament_error(e: TournamentError) -> ApiError:
    return ApiError(e.status, e.code, e.message)


@router.get("/tournaments", tags=["tournaments"], responses=responses(401))
def list_tournaments(svc: Service = Depends(service),
                     who: Principal = Depends(principal)) -> list[dict[str, Any]]:
    """Every tournament with its status, as this token may see it."""
    ts = Tournaments(svc)
    out = []
    for tid in ts.ids():
        st = ts.standing(tid, who)
        out.append({k: st[k] for k in ("id", "name", "status", "players", "created_at",
                                       "champions", "runner_up")}
                   | {"rounds": len(st["rounds"])})
    return out


@router.post("/tournaments", status_code=201, tags=["tournaments"],
             responses=responses(400, 401, 403, 409, 422))
def create_tournament(body: TournamentIn, svc: Service = Depends(service),
                      who: Principal = Depends(principal)) -> dict[str, Any]:
    """A tournament: its players drawn into tables for round 1, one game per table."""
    require(who, "admin", what="create tournaments")
    ts = Tournaments(svc)
    try:
        t = ts.create(name=body.name, players=list(body.players), ruleset=body.ruleset,
                      options=body.options, move_limit=body.move_limit_s, seed=body.seed,
                      tid=body.id)
    except TournamentError as e:
        raise _tournament_error(e) from None
    return ts.standing(t.id, who)


@router.get("/tournaments/{tid}", tags=["tournaments"], responses=responses(401, 404, 422))
def get_tournament(tid: TID, svc: Service = Depends(service),
                   who: Principal = Depends(principal)) -> dict[str, Any]:
    """Rounds, tables, teams, scores, winners, and every move over the time limit."""
    try:
        return Tournaments(svc).standing(tid, who)
    except TournamentError as e:
        raise _tournament_error(e) from None


@router.post("/tournaments/{tid}/rounds", status_code=201, tags=["tournaments"],
             responses=responses(401, 403, 404, 409, 422))
def next_round(tid: TID, svc: Service = Depends(service),
               who: Principal = Depends(principal)) -> dict[str, Any]:
    """Start the next round: the winners of the last, shuffled into new teams and tables."""
    require(who, "admin", what="start tournament rounds")
    try:
        return Tournaments(svc).next_round(tid)
    except TournamentError as e:
        raise _tournament_error(e) from None
