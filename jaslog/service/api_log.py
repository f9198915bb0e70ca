"""``GET /api/games/{id}/log``: a game's log as a file to download, as ``jaslog dump`` writes
it: jaslog/1 (JSON Lines) or the text notation, whole or as one seat (or the public) could
see it (:func:`jaslog.play.share.shared_log`, the redaction of ``dump --seat/--public``)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from jaslog.play.share import NotShareable, shared_log, written_log
from jaslog.play.views import Sight
from jaslog.service.api_games import GamePath, _read
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.deps import ApiError, principal, responses, service

router = APIRouter(prefix="/api", tags=["games"])

#: what each format is sent as, and the file name's ending
MEDIA = {"jsonl": ("application/x-ndjson", "jsonl"), "text": ("text/plain; charset=utf-8", "txt")}
_SIGHT = re.compile(r"full|public|seat:[0-3]")


def asked_sight(sight: str | None, mine: Sight) -> Sight:
    """The sight a download asks for (``full``, ``public`` or ``seat:N``; None: the token's
    own), 403 when it would show more than the token sees: a seat's token may ask its seat
    or the public, the public's only the public.

    >>> from jaslog.play.views import FULL, PUBLIC
    >>> asked_sight(None, Sight(seat=1)).seat, asked_sight("public", FULL).public
    (1, True)
    >>> asked_sight("seat:2", PUBLIC)
    Traceback (most recent call last):
    ...
    jaslog.service.deps.ApiError: sight seat:2 shows more than this token may see (it sees the public's view)
    """
    if sight is None:
        return mine
    if not _SIGHT.fullmatch(sight):
        raise ApiError(422, "bad_request", f"sight {sight[:40]!r}: full, public or seat:N "
                       "(N a seat, 0 to 3)", parameter="sight")
    want = Sight(public=True) if sight == "public" else \
        Sight(seat=int(sight[5:])) if sight.startswith("seat:") else Sight()
    allowed = mine.full or want.public or (want.seat is not None and want.seat == mine.seat)
    if not allowed:
        theirs = "the public's view" if mine.public else f"seat {mine.seat}'s view"
        raise ApiError(403, "not_visible", f"sight {sight} shows more than this token may see "
                       f"(it sees {theirs})")
    return want


def file_name(game: str, sight: Sight, ending: str) -> str:
    """The download's file name: the game id (safe characters only), whose sight, the format.

    >>> file_name("club/7 b", Sight(seat=2), "txt"), file_name("g1", Sight(), "jsonl")
    ('club-7-b-seat2.txt', 'g1.jsonl')
    """
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", game).strip("-.") or "game"
    who = "-public" if sight.public else f"-seat{sight.seat}" if sight.seat is not None else ""
    return f"{stem}{who}.{ending}"


@router.get("/games/{game}/log", response_class=Response, responses={
    **responses(401, 403, 404, 422),
    200: {"description": "the log as a file (Content-Disposition: attachment)",
          "content": {"application/x-ndjson": {}, "text/plain": {}}}})
def get_log(
    game: GamePath,
    format: Annotated[Literal["jsonl", "text"], Query(description=(
        "jsonl: jaslog/1 (canonical JSON Lines); text: the notation (docs/notation.md)"))] = "jsonl",
    sight: Annotated[str | None, Query(max_length=16, description=(
        "whose view: full, public or seat:N (default: this token's own); a seat's or the "
        "public's is a valid log to share, as `jaslog dump --seat N/--public` writes it"))] = None,
    bare: Annotated[bool, Query(description=(
        "leave out each event's id and the store's clock (recorded_at), as `dump --bare`"))] = False,
    svc: Service = Depends(service),
    who: Principal = Depends(principal),
) -> Response:
    """The game's log as a file to download, as ``jaslog dump`` writes it: the whole record
    (a token that sees the game whole), or the log a seat or the public could see, with the
    hands of the rounds they may not see left out (a player's token: its seat; the public:
    finished rounds)."""
    head, tl, mine = _read(svc, who, game)
    want = asked_sight(sight, mine)
    events = list(tl.events)
    if not want.full:
        try:
            events = shared_log(events, seat=want.seat, public=want.public,
                                certificate=head.certificate)
        except NotShareable as e:
            raise ApiError(422, e.code, str(e), game=game) from None
    media, ending = MEDIA[format]
    return Response(written_log(events, format, bare=bare), media_type=media, headers={
        "Content-Disposition": f'attachment; filename="{file_name(game, want, ending)}"'})
