"""The analysis board's route: ``POST /api/analysis/line``, a recorded round at any position
with any legal cards tried from there, and what perfect play makes of it
(:func:`jaslog.analysis.board.board_line`): the position reached, the par, the par after
each legal card, the best ones and the line that follows.

It names every hand, so it is shown as the round's analysis is
(:func:`jaslog.service.api_analysis.hidden_why`): to the referee at any time, to a seat once
the round's last card is played, to the public once the round is over (403 ``not_visible``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from jaslog.analysis import NoPar, TooHard, core_name
from jaslog.analysis.board import BoardError, board_line, start_of
from jaslog.events import GameId
from jaslog.games import get_game
from jaslog.service.api_analysis import hidden_why
from jaslog.service.api_games import _read, view_name
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, principal, responses, service, small_body
from jaslog.service.solves import solve_limits, too_hard

router = APIRouter(prefix="/api", tags=["games"])

#: The most cards a line may try (a round has at most 32).
MOST_MOVES = 32

Card = Annotated[str, Field(min_length=2, max_length=3)]


class LineIn(BaseModel):
    """A position of a recorded round and the cards to try from it."""

    model_config = ConfigDict(extra="forbid")
    game: GameId
    round: int = Field(ge=1, le=10_000, description="the round")
    position: int | None = Field(None, ge=0, le=64, description="start after this many of the "
                                 "round's recorded plays (0: before its first card; default 0)")
    seq: int | None = Field(None, ge=0, le=1_000_000_000, description="or start just after "
                            "this event of the game (the round's plays up to it)")
    moves: list[Card] = Field(default_factory=list, max_length=MOST_MOVES,
                              description="cards played from there, in order (each legal)")


@router.post("/analysis/line", responses=responses(400, 401, 403, 404, 422),
             openapi_extra=small_body())
def post_line(request: Request, body: LineIn, svc: Service = Depends(service),
              who: Principal = Depends(principal)) -> dict[str, Any]:
    """The analysis board: round ``round`` of ``game`` after its first ``position`` recorded
    plays (or its plays up to event ``seq``), then ``moves`` (each a legal card there),
    answered with the position reached (``hands``, ``trick``, ``to_move``, ``points``,
    ``roem``), its ``par``, each ``legal`` card with the par after it (``best``: it keeps the
    par; ``loss``: what it costs its side), and the principal ``line`` to the end with its
    ``par_result``; ``recorded`` is the card the record plays next while the moves follow
    it. Seat rules as ``GET /api/games/{id}/analysis``: 403 ``not_visible``. A card that is
    not legal there is 422 ``illegal_card``; a position outside the round 422
    ``no_such_position``; a round without known hands 422 ``no_par``."""
    game = body.game
    head, tl, s = _read(svc, who, game)
    if tl.fold is None:
        raise ApiError(422, "not_folded", f"game {game} does not fold (GET "
                       f"/api/games/{game}/audit says why)", game=game)
    if body.seq is not None and body.position is not None:
        raise ApiError(422, "bad_start", "give the start as position or as seq, not both",
                       game=game)
    dealt = tl.fold.rounds_dealt()
    if body.round > dealt:
        raise ApiError(404, "no_such_round", f"game {game} has no round {body.round} (rounds "
                       f"dealt: {dealt})", game=game, round=body.round)
    why = hidden_why(tl, s, body.round)
    if why is not None:
        raise ApiError(403, "not_visible", f"game {game}: {why}", game=game, round=body.round)
    deal = next((d for d in get_game(tl.fold.game).adapter("solver").deals(tl.fold)
                 if d.round == body.round), None)
    if deal is None:
        raise ApiError(422, "no_par", f"game {game}, round {body.round}: the round has no "
                       "play to analyse", game=game, round=body.round)
    if isinstance(deal, NoPar):
        raise ApiError(422, "no_par", f"game {game}, round {body.round}: {deal.reason}",
                       game=game, round=body.round)
    position = start_of(deal, body.seq) if body.seq is not None else body.position or 0
    budget = solve_limits(request).analysis
    try:
        out = board_line(deal, position=position, moves=body.moves, budget=budget)
    except BoardError as e:
        raise ApiError(422, e.code, f"game {game}, round {body.round}: {e}", game=game,
                       round=body.round) from None
    except TooHard as e:
        raise too_hard(e, budget, game=game, round=body.round) from None
    return {"game": game, "view": view_name(s), "seat": s.seat, "solver": core_name(),
            "seats": list(tl.fold.seats), "head": head.seq, **out}
