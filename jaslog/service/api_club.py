"""``GET /api/ratings`` and ``GET /api/standings``: the players' ratings (``jaslog ratings
--json``) and a club's competition table (``jaslog standings --json``), from the service's
Parquet export (see :mod:`jaslog.service.api_stats` for which export). Both count finished
games only, which every token may see."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from jaslog.export import ExportError
from jaslog.service.api_stats import NO_DATASET, _manifest, dataset_dir, is_public
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, principal, responses, service
from jaslog.stats.analytics import AnalyticsError

router = APIRouter(prefix="/api", tags=["statistics"])
STATIC = Path(__file__).resolve().parent / "static"


class RatingOut(BaseModel):
    kind: str = Field(description="the game family")
    rank: int = Field(description="the place within the family, by ordinal")
    player: str
    name: str | None = Field(description="the player's display name (None: none set)")
    rating: float = Field(description="openskill Plackett-Luce mean (a new player: 25)")
    uncertainty: float = Field(description="its standard deviation (a new player: 8.33)")
    ordinal: float = Field(description="rating - 3 * uncertainty: what the rank goes by")
    games: int = Field(description="finished games of the family rated")
    after: str = Field(description="the game after which the rating holds")
    at: str | None = Field(description="when that game ended")


class RatingsOut(BaseModel):
    game: str | None
    as_of: str | None
    source: str
    ratings: list[RatingOut]


@router.get("/ratings", response_model=RatingsOut, responses=responses(401, 404, 422))
def get_ratings(
    request: Request,
    game: Annotated[str | None, Query(max_length=64, description=(
        "only this game family (klaverjas, klaberjass, kloepper; a ruleset names its own)"))] = None,
    as_of: Annotated[str | None, Query(alias="as_of", max_length=40, description=(
        "the ratings as they stood then: a date (after that day's games) or an RFC 3339 "
        "time"))] = None,
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
) -> dict[str, Any]:
    """Each player's rating per game family, best first (``jaslog ratings --json``)."""
    from jaslog.stats.ratings import as_of_time, check_kind, export_ratings, standings_of

    folder = dataset_dir(request)
    if _manifest(folder) is None:
        raise ApiError(404, "no_dataset", NO_DATASET.format(where=folder or "DIR"))
    assert folder is not None
    try:
        kind = check_kind(game)
        when = as_of_time(as_of)
        rows = export_ratings(folder)
    except (AnalyticsError, ExportError) as e:
        raise ApiError(422, e.code, str(e).replace("--as-of", "as_of").replace("--game", "game")
                       ) from None
    with svc.pool.get() as store:
        names = store.players()
    return {"game": kind, "as_of": as_of, "source": "export",
            "ratings": standings_of(rows, kind=kind, as_of=when, names=names)}


class StandingOut(BaseModel):
    rank: int
    player: str | None = Field(None, description="by player: the player's name (or id)")
    team: str | None = Field(None, description="by team: the partners' names (or ids)")
    players: list[str] = Field(description="the player ids")
    games: int
    evenings: int = Field(description="the dates on which they played")
    won: int
    drawn: int
    lost: int
    points: int = Field(description="the final totals of their side, added up")
    match_points: int = Field(description="2 a game won, 1 a draw")
    average: float = Field(description="points per game")


class StandingsOut(BaseModel):
    event: str
    by: Literal["player", "team"]
    count: Literal["points", "match", "average"]
    from_: str | None = Field(alias="from")
    to: str | None
    rows: list[StandingOut]


@router.get("/standings", response_model=StandingsOut, response_model_exclude_none=True,
            responses=responses(401, 404, 422))
def get_standings(
    request: Request,
    event: Annotated[str, Query(min_length=1, max_length=200, description=(
        "the competition: the games whose meta.event is this (any case)"))],
    date_from: Annotated[str | None, Query(alias="from", max_length=40, description=(
        "started on or after: a date or an RFC 3339 time"))] = None,
    date_to: Annotated[str | None, Query(alias="to", max_length=40, description=(
        "started on or before: a date (the whole day) or a time"))] = None,
    by: Annotated[Literal["player", "team"], Query()] = "player",
    count: Annotated[Literal["points", "match", "average"], Query(description=(
        "points added up, match points (2 a win, 1 a draw) or points per game"))] = "points",
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
) -> dict[str, Any]:
    """A club's competition table (``jaslog standings --json``), from the service's export:
    finished games only, which every token may see."""
    from jaslog.stats.standings import standings

    folder = dataset_dir(request)
    if _manifest(folder) is None:
        raise ApiError(404, "no_dataset", NO_DATASET.format(where=folder or "DIR"))
    assert folder is not None
    with svc.pool.get() as store:
        names = store.players()
    try:
        res = standings(folder, event, by=by, count=count, date_from=date_from,
                        date_to=date_to, names=names)
    except (AnalyticsError, ExportError) as e:
        raise ApiError(422, e.code, str(e).replace("--", "")) from None
    return res.to_json()


@router.get("/players/{player}", responses=responses(401, 404, 422))
def get_player(
    request: Request,
    player: Annotated[str, PathParam(min_length=1, max_length=200, description=(
        "a player id, or a display name (any case)"))],
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
) -> dict[str, Any]:
    """A player's page (``/players/{player}``): the games played, newest first (at most
    200), with their results; results and roles per game family; the rating after each
    game; the rules broken most often. From the service's export; for a token that is not
    an admin's or a referee's, over what the public may see (as ``GET /api/stats``)."""
    from jaslog.stats.analytics import player_ids
    from jaslog.stats.player import player_page

    folder = dataset_dir(request)
    if _manifest(folder) is None:
        raise ApiError(404, "no_dataset", NO_DATASET.format(where=folder or "DIR"))
    assert folder is not None
    with svc.pool.get() as store:
        names = store.players()
    pid = player_ids([player], names)[0]
    try:
        page = player_page(folder, pid, public=is_public(who), name=names.get(pid))
    except (AnalyticsError, ExportError) as e:
        raise ApiError(422, e.code, str(e)) from None
    if not page["games"]:
        raise ApiError(404, "no_such_player", f"no game of {player!r} in the export (a player "
                       "id, or a display name)", player=player)
    return page


#: the pages these routes feed (beside the API, not in its schema)
pages = APIRouter(include_in_schema=False)


@pages.get("/players/{player}")
def player_html(player: Annotated[str, PathParam(min_length=1, max_length=200)]) -> FileResponse:
    """The player's page: it reads ``GET /api/players/{player}``."""
    return FileResponse(STATIC / "player.html")
