"""The statistics routes: the questions ``jaslog stats`` answers, over the exported dataset.

The service reads a Parquet export (``jaslog serve --dataset DIR``, by default the
``parquet`` folder beside the SQLite store, as ``jaslog stats`` does) as it stands: it does
not export new games itself (``jaslog export DIR`` does, by hand or from a timer). An admin's
or a referee's answers count every game of the export, as ``jaslog stats QUESTION --json``
does; any other token's count what the public may see, as ``jaslog stats QUESTION --public
--json`` does: finished games, without the rounds that ended with cards unplayed (their hands
stay secret) (:class:`jaslog.analytics.Dataset`).
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import BaseModel, Field

from jaslog.analytics import AnalyticsError, Dataset, Question, questions
from jaslog.export import ExportError, load_manifest
from jaslog.service.auth import Principal
from jaslog.service.deps import ApiError, named, principal, responses

router = APIRouter(prefix="/api", tags=["statistics"])

#: the roles whose answers count every game of the export (the others': what the public sees)
FULL_ROLES = ("admin", "referee")
#: what a question's name is made of (the name of its jaslog/questions/*.sql file)
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
    view: Literal["full", "public"] = Field(description="full: every game of the export; "
                                            "public: what the public may see of it")
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
    whether this token's answers count every game (``full``) or what the public may see."""
    m = _manifest(dataset_dir(request))
    return {"view": "public" if is_public(who) else "full",
            "dataset": {"version": int(m["version"]), "created_at": m.get("created_at")}
            if m is not None else None,
            "questions": [{"name": q.name, "question": q.question, "by": q.dimensions,
                           "notes": list(q.notes), "plot": q.plot}
                          for q in _questions().values()]}


@router.get("/stats/{question}", response_model=AnswerOut, responses=responses(401, 404, 422))
def answer_question(
    request: Request,
    question: Annotated[str, Path(pattern=QUESTION_PATTERN, description=(
        "a question's name (GET /api/stats lists them)"))],
    by: Annotated[str | None, Query(max_length=64, description=(
        "the dimension to group by (default: the question's first)"))] = None,
    who: Principal = Depends(principal),
) -> Response:
    """The answer ``jaslog stats QUESTION --by BY --json`` prints, over the service's export;
    for a token that is not an admin's or a referee's, over what the public may see
    (``jaslog stats QUESTION --public --json``)."""
    qs = _questions()
    q = qs.get(question)
    if q is None:
        raise ApiError(404, "no_such_question", f"no question {question!r}; there are "
                       f"{', '.join(qs)} (GET /api/stats)", question=question)
    if by is not None and by not in q.dimensions:
        dims = ", ".join(q.dimensions)
        raise ApiError(422, "bad_dimension", f"question {q.name} cannot be grouped by {by!r}"
                       + (f"; choose one of: {dims}" if dims else ": it has no dimensions"),
                       question=q.name)
    folder = dataset_dir(request)
    if _manifest(folder) is None:
        raise ApiError(404, "no_dataset", NO_DATASET.format(where=folder or "DIR"))
    assert folder is not None
    try:
        with Dataset(folder, public=is_public(who)) as ds:
            res = ds.ask(q, by)
    except (AnalyticsError, ExportError) as e:
        raise ApiError(422, "bad_question", str(e), question=q.name) from None
    # the very JSON the command line prints (its keys, their order, its nulls)
    return Response(orjson.dumps(res.to_json()), media_type="application/json")
