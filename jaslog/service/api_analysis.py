"""The analysis route: a round's par (perfect play with every hand known) beside what was
played, and what each costly play cost, as ``jaslog analyze --json`` gives it.

The analysis names every hand of the round, so it is shown as the hands are: to the referee
at any time, to a seat once the round's last card is played, to the public once the round is
over; a round that ended with cards unplayed stays secret for all but the referee.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from jaslog.analysis import Budget, TooHard, core_name
from jaslog.analysis.rounds import analyze_fold
from jaslog.play.views import Sight, Timeline
from jaslog.service.api_games import GamePath, _read, view_name
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, principal, responses, service
from jaslog.service.solves import solve_limits, too_hard

router = APIRouter(prefix="/api", tags=["games"])

#: how many analysed rounds the service keeps (solving one costs about 0.1 s)
CACHE_ROUNDS = 512

_cache: OrderedDict[tuple[str, int, str, int], dict[str, Any]] = OrderedDict()
_lock = threading.Lock()


def hidden_why(tl: Timeline, s: Sight, n: int) -> str | None:
    """Why ``s`` may not see the analysis of round ``n`` (None: it may): it names every
    hand, so it is shown as the hands are.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.events import event_from_dict
    >>> from jaslog.play.views import timeline
    >>> tl = timeline(event_from_dict(e) for e in simulate_game("h", seed=3)[:12])
    >>> hidden_why(tl, Sight(), 1) is None
    True
    >>> hidden_why(tl, Sight(seat=0), 1)[:30]
    'round 1 is still being played;'
    """
    if s.full:
        return None
    who = "the public sees it once the round is over" if s.public \
        else "a seat sees it once its last card is played"
    if n == tl.live_round and (s.public or n in tl.secret_rounds):
        return f"round {n} is still being played; its analysis names every hand, so {who}"
    if n in tl.secret_rounds:
        return (f"round {n} ended with cards unplayed, so its hands, and its analysis, "
                "stay secret")
    return None


def round_analysis(game: str, head: Any, tl: Timeline, n: int,
                   budget: Budget | None = None) -> dict[str, Any]:
    """Round ``n`` of the game at ``head`` analysed (cached per head and round), within
    ``budget`` (past it, :class:`~jaslog.analysis.TooHard`; None: no limit)."""
    key = (game, head.seq, head.hash, n)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    assert tl.fold is not None
    out = analyze_fold(tl.fold, round=n, budget=budget)[0].to_json()
    with _lock:
        _cache[key] = out
        while len(_cache) > CACHE_ROUNDS:
            _cache.popitem(last=False)
    return out


@router.get("/games/{game}/analysis", responses=responses(401, 403, 404, 422))
def get_analysis(request: Request, game: GamePath,
                 round: Annotated[int, Query(ge=1, le=10_000, description="the round")],
                 svc: Service = Depends(service),
                 who: Principal = Depends(principal)) -> dict[str, Any]:
    """Round ``round`` analysed, as ``jaslog analyze --json`` gives it: its par and par result
    beside what was played (``no_par`` says why a round has none: no hands recorded, a
    score alone), the par before each play (``pars``) and every play that cost its side
    points (``costly``: the loss, the best cards, mistake and blunder). It names every
    hand, so a seat sees it once the round's last card is played, the public once the round
    is over (403 ``not_visible`` before); the referee at any time. A round too hard to
    analyse within the service's budget is 422 ``too_hard``."""
    head, tl, s = _read(svc, who, game)
    if tl.fold is None:
        raise ApiError(422, "not_folded", f"game {game} does not fold (GET "
                       f"/api/games/{game}/audit says why)", game=game)
    dealt = tl.fold.rounds_dealt()
    if round > dealt:
        raise ApiError(404, "no_such_round", f"game {game} has no round {round} (rounds "
                       f"dealt: {dealt})", game=game, round=round)
    why = hidden_why(tl, s, round)
    if why is not None:
        raise ApiError(403, "not_visible", f"game {game}: {why}", game=game, round=round)
    budget = solve_limits(request).analysis
    try:
        analysis = round_analysis(game, head, tl, round, budget)
    except TooHard as e:
        raise too_hard(e, budget, game=game, round=round) from None
    return {"game": game, "view": view_name(s), "seat": s.seat, "solver": core_name(), **analysis}
