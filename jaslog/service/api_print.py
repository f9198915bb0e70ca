"""The whole-game print: ``GET /api/games/{game}/print``, the page ``jaslog print`` writes
(:mod:`jaslog.sheet.printout`: the score sheet, then every round on a page of its own),
as the token may see the game: the referee every hand, a seat what its round page shows, the
public the finished rounds. ``static/print.html`` shows it and prints it."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response

from jaslog.service.api_games import GamePath, _read
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import principal, responses, service
from jaslog.sheet.printout import game_print

router = APIRouter(prefix="/api", tags=["games"])


@router.get("/games/{game}/print", response_class=Response, responses={
    **responses(401, 403, 404, 422),
    200: {"description": "the whole game as one printable HTML page",
          "content": {"text/html": {}}}})
def get_print(game: GamePath, svc: Service = Depends(service),
              who: Principal = Depends(principal)) -> HTMLResponse:
    """The whole game as one printable HTML page (``jaslog print``'s): the score sheet, then
    every round (its deal, tricks, roem, rulings, claim, violations, irregularities), each
    on a page of its own on paper; only what this token may see, as on the round page."""
    _, tl, s = _read(svc, who, game)
    meta = getattr(tl.events[0], "meta", None) if tl.events else None
    page = game_print(tl, s, printed=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                      meta=meta)
    return HTMLResponse(page, headers={"Cache-Control": "no-store"})
