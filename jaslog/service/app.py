"""The FastAPI application: routes, errors as JSON, the web viewer's files."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.security.utils import get_authorization_scheme_param
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from jaslog import __version__
from jaslog.errors import JaslogError
from jaslog.events.limits import json_error
from jaslog.service import (
    api_admin,
    api_analysis,
    api_board,
    api_club,
    api_feed,
    api_games,
    api_listing,
    api_log,
    api_online,
    api_print,
    api_record,
    api_stats,
    api_tournaments,
)
from jaslog.service.auth import Principal, guard_logs
from jaslog.service.core import Service
from jaslog.service.deps import (
    BODY_METHODS,
    MAX_BODY,
    PRINCIPAL,
    ApiError,
    api_words,
    checked_principal,
    pattern_sentence,
    the_service,
    too_large,
)
from jaslog.service.deps import service as service_dependency
from jaslog.service.fast_append import GZIP_MINIMUM, FastAppend
from jaslog.service.params import refuse_unknown_parameters
from jaslog.store.clock import Clock
from jaslog.store.codec import UnreadableEvent
from jaslog.store.engine import DatabaseError, database_error, db_message, is_driver_error

STATIC = Path(__file__).resolve().parent / "static"
#: Swagger UI's script and style sheet, as the ``fastapi-offline`` package ships them: the
#: docs page loads nothing from another host (a club's network may have no internet).
DOCS_ASSETS = Path(str(files("fastapi_offline") / "static"))

DESCRIPTION = """\
Live recording, per-seat views, tournaments and replays of Klaverjas games.

Every request needs a token (`Authorization: Bearer jl_...`; `POST /api/tokens`). Errors
are JSON objects with a stable `code` and a `message` sentence: **401** no or a bad token,
**403** the role may not, **404** no such game, **409** a conflict (`expected` and `actual`
seq), **422** a refusal (the rule `code`, and `seq`, `seat`, `card` when the rules refused).
"""


__all__ = ["BODY_METHODS", "MAX_BODY", "RequestGate", "create_app"]


def error_response(status: int, code: str, message: str,
                   headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    """An error answer in the service's shape: ``{"code", "message", ...}``."""
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status,
                        headers=headers)


def database_response(e: DatabaseError) -> JSONResponse:
    """A database's trouble as an answer: 503 (with ``Retry-After`` when it may pass: busy,
    unreachable, full) for what stops the store for a while or for writing (read-only), 500
    for any other database error."""
    status = 503 if e.code != "database_error" else 500
    headers = {"Retry-After": str(e.retry_after)} if e.retry_after is not None else None
    return error_response(status, e.code, str(e), headers, **(
        {"retry_after": e.retry_after} if e.retry_after is not None else {}))


class RequestGate:
    """What is checked of a request before a byte of its body is read: the token (of any
    ``/api/`` request with a body: 401 or 429 as the route itself would answer), then the
    body's declared size (413 over :data:`MAX_BODY`, by its ``Content-Length``). The token's
    holder is left in the request's scope (:data:`~jaslog.service.deps.PRINCIPAL`) for the
    route, which checks the roles it declares before it reads the body, reads it up to
    :data:`MAX_BODY` and parses a large one in a worker thread
    (:class:`~jaslog.service.deps.OffLoopRoute`); no route, or a route that reads no body,
    reads nothing (404, 405). A client whose token may not call a route cannot make the
    service read, hold or parse a body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if scope["path"].startswith("/api/"):
            who, refused = await self._token_refused(scope, headers)
            if refused is not None:
                await refused(scope, receive, send)
                return
            scope[PRINCIPAL] = who
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > MAX_BODY:
            await too_large(int(length))(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _token_refused(scope: Scope, headers: Headers
                             ) -> tuple[Principal | None, JSONResponse | None]:
        """The token's holder, or the answer to a request whose token does not pass."""
        scheme, token = get_authorization_scheme_param(headers.get("authorization"))
        given = token if scheme.lower() == "bearer" and token else None
        try:
            who = await checked_principal(Request(scope), given)
        except ApiError as e:
            extra = dict(getattr(e, "headers", None) or {})
            if e.status == 401:
                extra["WWW-Authenticate"] = "Bearer"
            return None, JSONResponse(e.body(), status_code=e.status, headers=extra or None)
        except DatabaseError as e:
            return None, database_response(e)
        except Exception as e:
            mapped = database_error(e) if is_driver_error(e) else None
            if mapped is None:
                raise
            return None, database_response(mapped)
        return who, None


def _loc(err: dict[str, Any]) -> str:
    return ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query", "path"))


def _said(err: dict[str, Any]) -> str:
    """What a request validation error says; a pattern the input fails is put in words."""
    if err.get("type") == "string_pattern_mismatch":
        return pattern_sentence(err.get("input"), str((err.get("ctx") or {}).get("pattern", "")))
    return str(err.get("msg", "invalid"))


#: FastAPI's own OpenTelemetry (its versions that have it) turned off: the service sets up no
#: provider, and with it on FastAPI asks OpenTelemetry's three global providers whether one
#: was set at every request (some 4 us each, the append's too).
NO_TELEMETRY: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters else {})


def create_app(url: str | None = None, *, service: Service | None = None,
               clock: Clock | None = None) -> FastAPI:
    """The service on the store at ``url`` (a path or database URL; None: the default store).

    ``clock`` (default: the system's) is the service's own clock, ``app.state.clock``: it
    stamps every event's ``recorded_at`` and times whatever the service times. With a
    ``service`` given, its clock is the app's (``clock`` may not differ from it).
    """
    if service is not None and clock is not None and clock is not service.clock:
        raise ValueError("create_app: the clock is the service's (Service(url, clock=...))")
    svc = service or Service(url, clock=clock)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        svc.close()

    app = FastAPI(title="jaslog", version=__version__, description=DESCRIPTION,
                  openapi_url="/openapi.json", docs_url=None, redoc_url=None,
                  lifespan=lifespan, dependencies=[Depends(refuse_unknown_parameters)],
                  **NO_TELEMETRY)
    app.state.service = svc
    app.state.clock = svc.clock
    # every route's service, as the_service answers it: on the event loop (``service`` is a
    # plain function, which FastAPI would call in a worker thread: a hop there and back for
    # each read, waiting for the thread and then for the loop behind the appends)
    app.dependency_overrides[service_dependency] = the_service
    guard_logs()  # no token in a log line (the access log prints ?access_token=...)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM)
    app.add_middleware(FastAppend)  # the append's short way, inside the gate
    app.add_middleware(RequestGate)

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, e: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if e.status == 401 else {}
        return JSONResponse(e.body(), status_code=e.status, headers={**headers, **e.headers})

    async def _not_utf8(request: Request) -> str | None:
        """Why the body is not UTF-8, or None (it is, or cannot be read again)."""
        try:
            (await request.body()).decode("utf-8")
        except UnicodeDecodeError as u:
            return (f"the request body is not UTF-8 (byte 0x{u.object[u.start]:02x} at "
                    f"{u.start}): send JSON in UTF-8")
        except (RuntimeError, ClientDisconnect):  # the body was streamed away: nothing more to say
            return None
        return None

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        errs = e.errors()
        first = errs[0] if errs else {}
        where = _loc(first)
        if first.get("type") == "json_invalid" and (why := await _not_utf8(request)):
            return JSONResponse({"code": "bad_body", "message": why}, status_code=400)
        if first.get("type") == "json_invalid":
            why = (first.get("ctx") or {}).get("error", "invalid")
            msg = f"the body is not valid JSON: {why} (at character {where or 0})"
        elif where:
            text = _said(first).removeprefix("Value error, ")
            msg = text if text.startswith(where) else f"{where}: {text}"
        else:
            msg = f"the body: {first.get('msg', 'invalid')}"
        detail = [{"loc": [str(x) for x in er.get("loc", ())], "message": _said(er)}
                  for er in errs[:20]]
        return JSONResponse({"code": "bad_request", "message": msg, "errors": detail},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_body", 404: "not_found", 405: "method_not_allowed"}.get(
            e.status_code, "http_error")
        msg = str(e.detail)
        if e.status_code == 400:
            msg = await _not_utf8(request) or await _unreadable_json(request) or \
                f"the request body cannot be read as JSON: {msg.rstrip('.').lower()}"
        return JSONResponse({"code": code, "message": msg}, status_code=e.status_code,
                            headers=getattr(e, "headers", None))

    async def _unreadable_json(request: Request) -> str | None:
        """What keeps the body from being read as JSON, said by the parser every reader of
        events uses (a number of 5000 digits, nesting thousands deep), or None."""
        import orjson

        try:
            orjson.loads(await request.body())
        except orjson.JSONDecodeError as err:
            return f"the request body cannot be read as JSON: {json_error(err, await request.body())}"
        except (RuntimeError, ClientDisconnect):
            return None
        return None

    @app.exception_handler(DatabaseError)
    async def _database(_: Request, e: DatabaseError) -> JSONResponse:
        return database_response(e)

    @app.exception_handler(JaslogError)
    async def _jaslog(_: Request, e: JaslogError) -> JSONResponse:
        """What a route did not answer itself: a stored game no reader can read (500
        ``unreadable_game``, with the game), any other refusal of the layers below (500 with
        its code)."""
        if isinstance(e, UnreadableEvent):
            return error_response(500, e.code, api_words(str(e)), game=e.game, seq=e.seq)
        return error_response(500, e.code, api_words(str(e)))

    async def _driver(_: Request, e: Exception) -> JSONResponse:
        """A database error no layer turned into a sentence (the token tables are read
        straight through SQLAlchemy): full, read-only, busy, gone by its code, else 500
        ``database_error``."""
        mapped = database_error(e) or DatabaseError(f"database error: {db_message(e)}")
        return database_response(mapped)

    import sqlite3

    from sqlalchemy.exc import SQLAlchemyError

    app.add_exception_handler(SQLAlchemyError, _driver)
    app.add_exception_handler(sqlite3.Error, _driver)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, e: Exception) -> JSONResponse:
        """Anything else, as JSON, never a plain-text 500: a database's trouble (full,
        read-only, busy, gone) by its code, else 500 ``internal_error``."""
        mapped = database_error(e) if is_driver_error(e) else None
        if mapped is not None:
            return database_response(mapped)
        return error_response(500, "internal_error", "the service failed to answer this "
                              f"request ({type(e).__name__}); the error is in its log")

    app.include_router(api_listing.router)  # GET /api/games first, as in /openapi.json
    app.include_router(api_games.router)
    app.include_router(api_log.router)  # GET /api/games/{id}/log: the log as a file
    app.include_router(api_analysis.router)
    app.include_router(api_board.router)  # the analysis board: POST /api/analysis/line
    app.include_router(api_print.router)  # the whole-game print: GET /api/games/{id}/print
    app.include_router(api_admin.router)
    app.include_router(api_tournaments.router)
    app.include_router(api_stats.router)
    app.include_router(api_record.router)  # the scorer's pad: /record/{game} and its routes
    app.include_router(api_club.router)
    app.include_router(api_club.pages)
    app.include_router(api_feed.router)
    app.include_router(api_online.router)  # online games: /play/{game}, the dealer's sweep
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/docs-assets", StaticFiles(directory=DOCS_ASSETS), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs(request: Request) -> HTMLResponse:
        """Swagger UI, every file from this server (no CDN, no online validator)."""
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}/openapi.json", title="jaslog - API",
            swagger_js_url=f"{root}/docs-assets/swagger-ui-bundle.js",
            swagger_css_url=f"{root}/docs-assets/swagger-ui.css",
            swagger_favicon_url=f"{root}/static/favicon.svg", oauth2_redirect_url=None,
            swagger_ui_parameters={"validatorUrl": None})

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        """The home page: games in play, recent results, tournaments, a search box."""
        return FileResponse(STATIC / "home.html")

    @app.get("/viewer", include_in_schema=False)
    def viewer() -> FileResponse:
        """The replay viewer (``/viewer#game=ID&seq=N``; its file is ``index.html``)."""
        return FileResponse(STATIC / "index.html")

    return app
