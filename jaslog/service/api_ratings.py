"""``GET /api/ratings``: the players' ratings, as ``jaslog ratings --json`` gives them, from
the service's Parquet export (its ``ratings`` table; see :mod:`jaslog.service.api_stats` for
which export). Ratings count finished games only, which every token may see."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from jaslog.export import ExportError
from jaslog.service.api_stats import NO_DATASET, _manifest, dataset_dir
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, principal, responses, service
from jaslog.stats.analytics import AnalyticsError

router = APIRouter(prefix="/api", tags=["statistics"])


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
