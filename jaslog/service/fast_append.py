"""The append's short way through the HTTP layer: ``POST /api/games/{id}/events`` answered
without FastAPI's routing, its dependencies or a pydantic model of the body.

An append is the request a live table sends most, a few hundred bytes each. For the plain
case (no query string, a small JSON body of the shape :class:`AppendIn
<jaslog.service.game_models.AppendIn>` takes, within the limits of every event, a token
the request gate let through whose role may append) :class:`FastAppend` reads the body,
parses it once with orjson, runs the same :func:`jaslog.service.api_games.appended` the
route runs and writes its answer, serialized once. Anything else (a body of another shape,
JSON that orjson does not read, a query parameter, no token) goes on to the route with the
body as it came, so every refusal is the route's own: the same status, code and sentence.
An error the append raises is answered by the app's own exception handlers, as the route's
would be.
"""

from __future__ import annotations

import gzip
import re
from typing import Any

import orjson
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from jaslog.events.limits import INT_MAX, INT_MIN, MAX_DEPTH
from jaslog.service.api_games import appended
from jaslog.service.auth import Principal
from jaslog.service.deps import LARGE_BODY, PRINCIPAL
from jaslog.service.game_models import AppendIn

#: The append's path (the game id's pattern: :data:`jaslog.events.GAME_ID_PATTERN`).
APPEND_PATH = re.compile(r"/api/games/([A-Za-z0-9._:-]{1,128})/events")
#: The roles that may append (the route's :class:`~jaslog.service.deps.Roles`).
APPEND_ROLES = frozenset({"admin", "scorer", "referee", "seat"})
#: The app's gzip threshold (:class:`starlette.middleware.gzip.GZipMiddleware`'s
#: ``minimum_size``, as :func:`jaslog.service.app.create_app` sets it) and level.
GZIP_MINIMUM, GZIP_LEVEL = 2000, 9
#: The most events a batch holds (:class:`AppendIn`).
MOST_EVENTS = 5000


def append_body(raw: bytes) -> AppendIn | None:
    """The body as the route's :class:`AppendIn` would take it, built without validating
    again; None when it is anything else (the route says what is wrong)."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if type(body) is not dict or "events" not in body or \
            not body.keys() <= {"events", "expected_seq"}:
        return None
    events, seq = body["events"], body.get("expected_seq")
    if type(events) is not list or not 1 <= len(events) <= MOST_EVENTS or \
            any(type(e) is not dict for e in events):
        return None
    if seq is not None and (type(seq) is not int or not 0 <= seq <= 1_000_000_000):
        return None
    if not plain(events):
        return None
    return AppendIn.model_construct(events=events, expected_seq=seq)


def plain(value: Any) -> bool:
    """Whether ``value`` (from orjson) holds strings, booleans, nulls and integers within
    64 bits only, at most :data:`~jaslog.events.limits.MAX_DEPTH` levels deep: what
    :func:`~jaslog.events.limits.json_problem` passes, and no number orjson may have read
    as a float (it reads an integer past 64 bits as one, where the route's parser keeps it
    an integer and refuses it by name).

    >>> plain([{"type": "play", "seat": 1, "card": "9H", "x": [None, True, -2**63]}])
    True
    >>> plain([{"round": 1e23}]), plain([{"n": 2**63}]), plain([[[[0]]]] * 2)
    (False, False, True)
    """
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        v, depth = todo.pop()
        if depth > MAX_DEPTH:
            return False
        t = type(v)
        if t is str or t is bool or v is None:
            continue
        if t is int:
            if not INT_MIN <= v <= INT_MAX:
                return False
        elif t is dict:
            todo.extend((x, depth + 1) for x in v.values())
        elif t is list:
            todo.extend((x, depth + 1) for x in v)
        else:
            return False
    return True


class FastAppend:
    """The middleware of the append's short way (see the module); it sits inside the
    request gate (:class:`jaslog.service.app.RequestGate`), which has checked the token."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["query_string"] \
                or scope.get("root_path"):
            await self.app(scope, receive, send)
            return
        m = APPEND_PATH.fullmatch(scope["path"])
        who = scope.get(PRINCIPAL)
        if m is None or not isinstance(who, Principal) or who.role not in APPEND_ROLES:
            await self.app(scope, receive, send)
            return
        length, json_body, gzip_ok = -1, False, False
        for k, v in scope["headers"]:
            if k == b"content-length":
                length = int(v) if v.isdigit() else -1
            elif k == b"content-type":
                json_body = v.split(b";", 1)[0].strip().lower() == b"application/json"
            elif k == b"accept-encoding":
                gzip_ok = b"gzip" in v
        if not json_body or not 0 <= length < LARGE_BODY:
            await self.app(scope, receive, send)
            return
        raw = await _read(receive)
        if raw is None:
            return  # the client went away
        body = append_body(raw)
        if body is None:
            await self.app(scope, _again(raw, receive), send)
            return
        await self._append(scope, receive, send, m.group(1), body, who, gzip_ok)

    async def _append(self, scope: Scope, receive: Receive, send: Send, game: str,
                      body: AppendIn, who: Principal, gzip_ok: bool) -> None:
        app = scope["app"]
        try:
            out = orjson.dumps(await appended(game, body, app.state.service, who))
        except Exception as e:
            handler = _handler(app.exception_handlers, e)
            if handler is None:
                raise
            response = await handler(Request(scope, _again(b"", receive)), e)
            await response(scope, receive, send)
            return
        headers = [(b"content-type", b"application/json")]
        if gzip_ok and len(out) >= GZIP_MINIMUM:
            out = gzip.compress(out, GZIP_LEVEL)
            headers += [(b"content-encoding", b"gzip"), (b"vary", b"Accept-Encoding")]
        headers.append((b"content-length", str(len(out)).encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": out})


async def _read(receive: Receive) -> bytes | None:
    """The request's body (None: the client disconnected first)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _again(raw: bytes, receive: Receive) -> Receive:
    """``receive`` with the body already read given again, first."""
    given = False

    async def again() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return await receive()

    return again


def _handler(handlers: dict[Any, Any], e: Exception) -> Any:
    """The app's exception handler of ``e`` (by its class, nearest first), as the app's
    exception middleware picks it."""
    for cls in type(e).__mro__:
        if cls in handlers:
            return handlers[cls]
    return None
