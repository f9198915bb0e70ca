"""The statistics routes: the questions ``jaslog stats`` answers, over the exported dataset.

The service reads a Parquet export (``jaslog serve --dataset DIR``, by default the
``parquet`` folder beside the SQLite store, as ``jaslog stats`` does) as it stands: it does
not export new games itself (``jaslog export DIR`` does, by hand or from a timer). An admin's
or a referee's answers count every game of the export, as ``jaslog stats QUESTION --json``
does; a tournament director's (a referee token of a tournament) count that tournament's
games only (those whose ``meta.tournament`` names it), as it sees them: whole; any other
token's count what the public may see, as ``jaslog stats QUESTION --public --json`` does:
finished games, without the rounds that ended with cards unplayed (their hands stay secret)
(:class:`jaslog.stats.analytics.Dataset`).
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import BaseModel, Field

from jaslog.export import ExportError, load_manifest
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, named, principal, responses, service
from jaslog.stats.analytics import (
    AnalyticsError,
    Dataset,
    Question,
    both,
    games_filter,
    player_ids,
    questions,
)

router = APIRouter(prefix="/api", tags=["statistics"])

#: the roles whose answers count every game of the export (a director: its tournament's;
#: the others': what the public sees)
FULL_ROLES = ("admin", "referee")
#: what a question's name is made of (the name of its jaslog/stats/questions/*.sql file)
QUESTION_PATTERN = named(r"^[a-z0-9_]{1,64}$", "a question's name")


class QuestionOut(BaseModel):
    name: str
    question: str
    by: list[str] = Field(description="the dimensions it may be grouped by (the first: default)")
    notes: list[str]
    plot: dict[str, str] = Field(description="what a chart of it shows: x (a column, or <by> "
                                 "for the dimension) and y (a numeric column)")


class DatasetOut(BaseModel):
    version: int
    created_at: str | None


class StatsOut(BaseModel):
    view: Literal["full", "tournament", "public"] = Field(
        description="full: every game of the export; tournament: every game of the "
                    "director's tournament (``tournament``), and no other; public: what the "
                    "public may see of the export")
    tournament: str | None = Field(None, description="the tournament a director's answers "
                                   "count (view tournament)")
    dataset: DatasetOut | None = Field(description="the export the answers come from (None: "
                                       "there is none yet)")
    questions: list[QuestionOut]


class AnswerOut(BaseModel):
    """As ``jaslog stats QUESTION --json`` prints it."""

    name: str | None
    question: str | None
    by: str | None
    where: str | None
    columns: list[str]
    rows: list[dict[str, Any]]
    empty: str | None = None
    score_only_left_out: int | None = None
    public: bool | None = None


def dataset_dir(request: Request) -> FilePath | None:
    """The export the service answers from (``app.state.dataset``; None: not set)."""
    d = getattr(request.app.state, "dataset", None)
    return FilePath(d) if d is not None else None


def is_public(who: Principal) -> bool:
    """Whether ``who`` gets the answers over what the public may see."""
    return who.role not in FULL_ROLES


def directed(who: Principal) -> str | None:
    """The tournament whose games alone ``who``'s answers count: a director's (None: not
    a director)."""
    return who.tournament if who.role == "referee" else None


def games_of(who: Principal) -> str | None:
    """The games ``who``'s answers count, as a condition on the export's ``games`` (None:
    every game its view holds).

    >>> from jaslog.service.auth import Principal
    >>> games_of(Principal("d", "referee", tournament="o'cup"))
    "json_extract_string(meta, '$.tournament') = 'o''cup'"
    >>> games_of(Principal("r", "referee")) is None
    True
    """
    tid = directed(who)
    if tid is None:
        return None
    return "json_extract_string(meta, '$.tournament') = '" + tid.replace("'", "''") + "'"


def view_of(who: Principal) -> str:
    """``full``, ``tournament`` (a director's) or ``public``."""
    return "public" if is_public(who) else "tournament" if directed(who) else "full"


def _questions() -> dict[str, Question]:
    try:
        return questions()
    except AnalyticsError as e:  # pragma: no cover - the queries ship with jaslog
        raise ApiError(500, "no_questions", str(e)) from None


def _manifest(folder: FilePath | None) -> dict[str, Any] | None:
    if folder is None:
        return None
    try:
        loaded = load_manifest(folder)
    except ExportError as e:
        raise ApiError(422, "bad_dataset", str(e)) from None
    return loaded[1] if loaded is not None else None


NO_DATASET = ("this service has no statistics yet: it answers from a Parquet export of the "
              "store, and there is none at {where} (an admin runs `jaslog export {where}`, "
              "or starts the service with --dataset DIR)")


@router.get("/stats", response_model=StatsOut, responses=responses(401))
def list_questions(request: Request, who: Principal = Depends(principal)) -> dict[str, Any]:
    """The questions ``jaslog stats --list`` lists, the export they are answered from, and
    whether this token's answers count every game (``full``), every game of its tournament
    (``tournament``, a director's) or what the public may see."""
    m = _manifest(dataset_dir(request))
    return {"view": view_of(who), "tournament": directed(who),
            "dataset": {"version": int(m["version"]), "created_at": m.get("created_at")}
            if m is not None else None,
            "questions": [{"name": q.name, "question": q.question, "by": q.groupings,
                           "notes": list(q.notes), "plot": q.plot}
                          for q in _questions().values()]}


@router.get("/stats/{question}", response_model=AnswerOut, responses=responses(401, 404, 422))
def answer_question(
    request: Request,
    question: Annotated[str, Path(pattern=QUESTION_PATTERN, description=(
        "a question's name (GET /api/stats lists them)"))],
    by: Annotated[str | None, Query(max_length=64, description=(
        "the dimension to group by (default: the question's first; every question that "
        "groups also takes month, weekday, evening and hour)"))] = None,
    player: Annotated[list[str] | None, Query(max_length=64, description=(
        "only the games this player sat in: an id or a display name (repeated: games they "
        "all sat in)"))] = None,
    date_from: Annotated[str | None, Query(alias="from", max_length=40, description=(
        "only games begun on or after: a date or an RFC 3339 time"))] = None,
    date_to: Annotated[str | None, Query(alias="to", max_length=40, description=(
        "only games begun on or before: a date (the whole day) or a time"))] = None,
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
) -> Response:
    """The answer ``jaslog stats QUESTION --by BY --json`` prints, over the service's export;
    for a tournament's director, over that tournament's games only; for a token that is not
    an admin's or a referee's, over what the public may see (``jaslog stats QUESTION
    --public --json``)."""
    qs = _questions()
    q = qs.get(question)
    if q is None:
        raise ApiError(404, "no_such_question", f"no question {question!r}; there are "
                       f"{', '.join(qs)} (GET /api/stats)", question=question)
    if by is not None and by not in q.groupings:
        dims = ", ".join(q.groupings)
        raise ApiError(422, "bad_dimension", f"question {q.name} cannot be grouped by {by!r}"
                       + (f"; choose one of: {dims}" if dims else ": it has no dimensions"),
                       question=q.name)
    folder = dataset_dir(request)
    if _manifest(folder) is None:
        raise ApiError(404, "no_dataset", NO_DATASET.format(where=folder or "DIR"))
    assert folder is not None
    try:
        ids: list[str] = []
        if player:
            with svc.pool.get() as store:
                ids = player_ids(player, store.players())
        where = both(games_of(who),
                     games_filter(players=ids, date_from=date_from, date_to=date_to))
        with Dataset(folder, where=where, public=is_public(who)) as ds:
            res = ds.ask(q, by)
    except (AnalyticsError, ExportError) as e:
        raise ApiError(422, "bad_question", str(e).replace("--from", "from").replace("--to", "to"),
                       question=q.name) from None
    # the very JSON the command line prints (its keys, their order, its nulls)
    return Response(orjson.dumps(res.to_json()), media_type="application/json")
